#!/usr/bin/perl
# Throttling is visible (issue 31): an upstream that answers a storm of
# 429s with Retry-After: 0 (hand-made: every block's transactions page)
# shows at once, while the pass is still retrying: the first 429 of the
# pass is logged (the rest counted, not said), the feed's state says
# "throttled" (--stats, chaindata_status) and its counter counts them.

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

my @docs = grep { !/"event_count":640/ } confirmed_docs();
my $root = temp_dir();
write_chain($root, make_chain(1000, [map { [derive_doc($docs[$_ % @docs], "t$_")] } 0 .. 3]));
my $ng = ChainData::Test::Nginx->start(locations => nginx_locations($root) . <<'EOF2');
        location ~ ^/up/extended/v2/blocks/[0-9]+/transactions$ {
            add_header Retry-After 0 always;
            return 429;
        }
EOF2
my $db = "$root/index";

my $pid = fork // die "fork: $!";
if ($pid == 0) {
    open STDERR, '>', "$root/mirror.log" or POSIX::_exit(126);
    exec($MIRROR, '--db', $db, '--stacks-api', 'http://127.0.0.1:' . $ng->port . '/up',
         '--from-height', '1000', '--no-mempool', '--interval', '0.2')
        or POSIX::_exit(127);
}

sub stacks_state {
    my ($c, $o) = load_index($db, '--stats');
    return undef if $c;
    my $j = eval { json_decode($o) } or return undef;
    my ($s) = grep { $_->{source} eq 'stacks' } @{ $j->{feed_states} || [] };
    return $s;
}
my $state;
for (1 .. 300) {
    $state = stacks_state();
    last if $state && $state->{state} eq 'throttled' && $state->{throttled} > 0;
    sleep 0.1;
}
is($state && $state->{state}, 'throttled', "the feed's state says throttled while the pass retries");
ok($state && $state->{throttled} > 0, "its counter counts the 429s ($state->{throttled})");
sleep 1;
kill 'TERM', $pid;
waitpid($pid, 0);
my $log = slurp("$root/mirror.log");
my @said = $log =~ /level=warn msg="feed stacks: GET \S+: 429, upstream throttles this mirror: retried with backoff \(further 429s of this pass are counted, not said; --rate slows the mirror down\)"/g;
is(scalar @said, 1, 'the first 429 of the pass is logged, once');
my $n429 = () = slurp($ng->{prefix} . '/access.log') =~ /" 429 /g;
ok($n429 > 1, "while upstream answered $n429 of them");

$ng->stop;
done_testing();
