#!/usr/bin/perl
# chaindata-mirror is back as soon as upstream is: after an outage, a
# block upstream serves 1 s after it answers again is committed within a
# poll interval and a second or so, not after the waits the outage grew
# (a request's retry backoff, a feed's backoff: up to 30 s and --max-wait
# before, now up to a poll interval).  The test nginx serves the recorded
# upstream (ChainData::Upstream) under /back/, every answer a 503 while
# the file "down" exists; the mirror follows it with --interval 1.
#   1. the request's retries (--retries 8, the default): during an outage
#      of 20 s its backoff grew to 8-16 s before;
#   2. the feed's backoff (--retries 0, --max-wait 600): after an outage
#      of 16 s it was 16 s, the next pass 15 s after upstream was back.
# The bound on the block's arrival is generous (10 s after upstream is
# back, for about 2 s measured: the figures are printed), and upstream's
# log shows how long the mirror went without asking (5 s at most, for
# about 1 s measured).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Upstream qw(confirmed_docs derive_doc make_chain write_chain
    nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my ($BOUND, $GAP) = (10, 5);

my @docs = grep { !/"event_count":640/ } confirmed_docs();
ok(@docs >= 6, 'fixtures present') or BAIL_OUT('fixtures incomplete');

sub blocks {
    my ($tag, $n) = @_;
    return [map { [derive_doc($docs[$_ % @docs], "$tag/$_")] } 0 .. $n - 1];
}

my $root = temp_dir();
write_chain($root, make_chain(1000, blocks('a', 3)));
symlink("$root/up", "$root/back") or die "symlink: $!";

my $ng = ChainData::Test::Nginx->start(
    http => "    log_format back '\$msec \$status \$request_uri';\n",
    locations => nginx_locations($root) . <<"EOF",
        location /back/ {
            access_log $root/back.log back;
            if (-f $root/down) {
                return 503;
            }
            root $root;
            default_type application/json;
            try_files "\$uri/q=\$args" =404;
        }
EOF
);
my $api = 'http://127.0.0.1:' . $ng->port . '/back';

sub position {
    my ($db) = @_;
    my ($c, $o) = load_index($db, '--stats');
    return -1 unless $c == 0;
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feeds} || [] };
    return $f ? $f->{height} : -1;
}

# waits up to $secs for the position; the seconds it took, or undef
sub reaches {
    my ($db, $height, $secs) = @_;
    my $t0 = time;
    while (time < $t0 + $secs) {
        return time - $t0 if position($db) >= $height;
        sleep 0.1;
    }
    return undef;
}

# the longest time upstream went unasked between $from and $to
sub longest_gap {
    my ($from, $to) = @_;
    my @t = grep { $_ >= $from && $_ <= $to }
        map { /^(\d+\.\d+) / ? $1 : () } split /\n/, slurp("$root/back.log");
    my $gap = 0;
    for my $i (1 .. $#t) {
        $gap = $t[$i] - $t[$i - 1] if $t[$i] - $t[$i - 1] > $gap;
    }
    return $gap;
}

my @figures;

sub outage {
    my ($name, $down, $height, @args) = @_;
    my $db = temp_dir() . '/index';
    my $log = "$db.log";
    write_chain($root, make_chain(1000, blocks('a', $height - 1000)));
    unlink "$root/down";
    spew($log, '');
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDERR, '>', $log or POSIX::_exit(126);
        exec($MIRROR, '--db', $db, '--stacks-api', $api, '--no-mempool',
             '--from-height', '1000', '--interval', '1', @args)
            or POSIX::_exit(127);
    }
    ok(defined reaches($db, $height - 1, 60), "$name: following at " . ($height - 1));
    my $t_down = time;
    spew("$root/down", '');
    sleep $down;
    my $t_up = time;
    unlink "$root/down";
    sleep 1;
    write_chain($root, make_chain(1000, blocks('a', $height - 999)));
    my $took = reaches($db, $height, 60);
    push @figures, sprintf('%s: block %d committed %s s after upstream was back',
                           $name, $height, defined $took ? sprintf('%.2f', $took + 1) : '60+');
    ok(defined $took && $took + 1 < $BOUND,
       "$name: block $height committed within ${BOUND} s of upstream back")
        or diag(slurp($log));
    my $gap = longest_gap($t_down, time);
    push @figures, sprintf('%s: upstream unasked %.2f s at most', $name, $gap);
    ok($gap <= $GAP, "$name: upstream asked at least every $GAP s meanwhile")
        or diag("longest gap $gap s");
    like(slurp($log), qr/503/, "$name: the outage was seen");
    kill 'TERM', $pid;
    waitpid($pid, 0);
}

outage('a request retried', 20, 1003);
outage('a feed backing off', 16, 1004, '--retries', '0', '--max-wait', '600');

note($_) for @figures;
diag($_) for $ENV{CHAINDATA_FIGURES} ? @figures : ();

$ng->stop;
done_testing();
