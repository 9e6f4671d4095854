#!/usr/bin/perl
# chaindata-mirror stops when told (SIGTERM, SIGINT) whatever it waits
# for, and stores each feed's state `stopped`, why `signal`, the index at
# its last commit.  Each state is reached on the test nginx's recorded
# upstream (ChainData::Upstream), then the signal sent; in each the mirror
# would otherwise wait a minute or more (a backoff, a Retry-After, the
# answers of a slow upstream), and it must exit before a 10 s bound
# (generous: it exits within a second; the figures are printed):
#   - a feed backing off after an error (500s, --interval 60); the
#     edge's scrape then says chaindata_feed_why{why="signal"} 1;
#   - a request in a Retry-After wait (429, Retry-After 3600, SIGINT);
#   - Stacks blocks in flight (--blocks-ahead 64) from a slow upstream:
#     the feed's position is a committed block, and the index holds the
#     transactions of the blocks up to it, none above;
#   - mid-window of a Runes fill (--catch-up fill) from a slow upstream:
#     the window is not committed, nothing of it is written;
#   - every feed stopped: the Stacks feed on another chain (a reorg
#     deeper than --max-reorg-depth), the mempool with it: the mirror
#     exits (no feed is left), or ends on the signal; before, the
#     mempool kept it running, and a SIGTERM was never looked at.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Upstream qw(confirmed_docs derived_blocks make_chain
    write_chain nginx_locations write_runes rune_chain);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $BOUND = 10;

my @docs = grep { !/"event_count":640/ } confirmed_docs();
ok(@docs >= 6, 'fixtures present') or BAIL_OUT('fixtures incomplete');

sub blocks {
    my ($tag, $n, $per) = @_;
    return [derived_blocks(\@docs, "$tag/", $per, 0 .. $n - 1)];
}

my $root = temp_dir();
my $chain = make_chain(1000, blocks('a', 40, 3));
write_chain($root, $chain);
my ($rblocks, $bal) = rune_chain('s', 300);
write_runes($root, $rblocks, $bal);
symlink("$root/up", "$root/slow") or die "symlink: $!";

# /slow/: the same answers at 2 KB/s; /fail/: 500s; /throttle/: 429s
# asking for an hour
my $ng = ChainData::Test::Nginx->start(
    locations => nginx_locations($root) . <<"EOF",
        location /slow/ {
            root $root;
            default_type application/json;
            limit_rate 2k;
            try_files "\$uri/q=\$args" \@runes_empty;
        }
        location /fail/ {
            return 500;
        }
        location /throttle/ {
            add_header Retry-After 3600 always;
            return 429;
        }
EOF
);
my $base = 'http://127.0.0.1:' . $ng->port;

# start(\@args): the mirror in the background, its log in a file
sub start {
    my ($db, @args) = @_;
    my $log = "$db.log";
    spew($log, '');
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDERR, '>', $log or POSIX::_exit(126);
        open STDOUT, '>', '/dev/null' or POSIX::_exit(126);
        exec($MIRROR, '--db', $db, @args) or POSIX::_exit(127);
    }
    return ($pid, $log);
}

# waits (up to 60 s) for the log to match, or for the mirror to exit
sub wait_log {
    my ($pid, $log, $re) = @_;
    my $until = time + 60;
    while (time < $until) {
        return 1 if slurp($log) =~ $re;
        return 0 if waitpid($pid, WNOHANG) == $pid;
        sleep 0.1;
    }
    return 0;
}

# the signal, then (seconds to the exit, exit status): the mirror killed
# at the bound (status 137)
sub stop {
    my ($pid, $sig) = @_;
    my $t0 = time;
    kill $sig, $pid;
    while (time < $t0 + $BOUND) {
        if (waitpid($pid, WNOHANG) == $pid) {
            return (time - $t0, $? & 127 ? 128 + ($? & 127) : $? >> 8);
        }
        sleep 0.01;
    }
    kill 'KILL', $pid;
    waitpid($pid, 0);
    return (time - $t0, 137);
}

sub stats {
    my ($c, $o, $e) = load_index($_[0], '--stats');
    return $c == 0 ? json_decode($o) : {};
}

sub state_of {
    my ($db, $source) = @_;
    my ($st) = grep { $_->{source} eq $source } @{ stats($db)->{feed_states} || [] };
    return $st ? "$st->{state} $st->{why}" : 'none';
}

sub position {
    my ($db, $source) = @_;
    my ($f) = grep { $_->{source} eq $source } @{ stats($db)->{feeds} || [] };
    return $f ? $f->{height} : undef;
}

my @figures;

sub stopped_ok {
    my ($name, $pid, $log, $sig, @feeds) = @_;
    my ($secs, $code) = stop($pid, $sig);
    push @figures, sprintf('%s: %.3f s', $name, $secs);
    ok($code != 137, "$name: SIG$sig ends the mirror before ${BOUND} s")
        or diag(slurp($log));
    is($code, 0, "$name: exit 0");
    like(slurp($log), qr/stopped by a signal/, "$name: said so");
    return $secs;
}

# 1. a feed backing off: its next pass a minute away
{
    my $db = temp_dir() . '/backoff';
    my ($pid, $log) = start($db, '--stacks-api', "$base/fail", '--no-mempool',
                            '--interval', '60', '--retries', '0');
    ok(wait_log($pid, $log, qr/feed stacks failed .* backing off/),
       'backing off: reached');
    stopped_ok('backing off', $pid, $log, 'TERM');
    is(state_of($db, 'stacks'), 'stopped signal', 'backing off: stored stopped, by a signal');

    # what the edge's scrape says of it
    fixup_index_perms($db);
    my $edge = ChainData::Test::Nginx->start(
        db => $db,
        locations => "        location = /status { chaindata_status; }\n");
    my $r = http_get($edge->port, '/status?format=prometheus');
    like($r->{body}, qr/^chaindata_feed_state\{source="stacks",state="stopped"\} 1$/m,
         'the scrape: the feed stopped');
    like($r->{body}, qr/^chaindata_feed_why\{source="stacks",why="signal"\} 1$/m,
         'the scrape: by a signal');
    like($r->{body}, qr/^chaindata_feed_why\{source="stacks",why="upstream_failing"\} 0$/m,
         'the scrape: every other reason 0');
    $edge->stop;
}

# 2. a request waiting for its Retry-After (an hour, --max-wait 600)
{
    my $db = temp_dir() . '/throttle';
    my ($pid, $log) = start($db, '--stacks-api', "$base/throttle",
                            '--no-mempool', '--max-wait', '600');
    ok(wait_log($pid, $log, qr/429 with Retry-After 3600 s; waiting 600 s/),
       'Retry-After: reached');
    stopped_ok('Retry-After', $pid, $log, 'INT');
    is(state_of($db, 'stacks'), 'stopped signal', 'Retry-After: stored stopped, by a signal');
}

# 3. Stacks blocks in flight from a slow upstream
{
    my $db = temp_dir() . '/ahead';
    my ($pid, $log) = start($db, '--stacks-api', "$base/slow", '--no-mempool',
                            '--from-height', '1000', '--blocks-ahead', '64',
                            '--parallel', '16');
    my $until = time + 60;
    sleep 0.1 while !defined position($db, 'stacks') && time < $until
                    && waitpid($pid, WNOHANG) == 0;
    ok(defined position($db, 'stacks'), 'blocks in flight: a block committed');
    stopped_ok('blocks in flight', $pid, $log, 'TERM');
    my $h = position($db, 'stacks');
    my @above = grep { $_ > $h + 1 }
        slurp($ng->prefix . '/access.log') =~ m{GET /slow/extended/v2/blocks/(\d+)/transactions}g;
    ok(@above, 'blocks in flight: blocks above the next one were asked for');
    ok(defined $h && $h < 1039, 'blocks in flight: stopped before the tip')
        or diag("at $h");
    my $txs = 0;
    $txs += @{ $_->{txs} } for grep { $_->{height} <= $h } @$chain;
    is(stats($db)->{databases}{tx}, $txs,
       "blocks in flight: the transactions of the blocks up to $h, none above");
    is(state_of($db, 'stacks'), 'stopped signal', 'blocks in flight: stored stopped, by a signal');
}

# 4. mid-window of a Runes fill from a slow upstream
{
    my $db = temp_dir() . '/fill';
    my ($pid, $log) = start($db, '--runes-api', "$base/slow",
                            '--runes-from-height', '840500', '--catch-up',
                            'fill', '--parallel', '8');
    ok(wait_log($pid, $log, qr/runes: filling blocks 840500 to 840799/),
       'fill: reached');
    sleep 1;
    stopped_ok('fill', $pid, $log, 'TERM');
    unlike(slurp($log), qr/filled/, 'fill: stopped mid-window');
    is(position($db, 'runes'), undef, 'fill: no position: nothing committed');
    is(stats($db)->{databases}{rune_activity} // 0, 0, 'fill: no activity written');
    is(state_of($db, 'runes'), 'stopped signal', 'fill: stored stopped, by a signal');
}

# 5. every feed stopped: upstream on another chain, deeper than
# --max-reorg-depth (the Stacks feed stops, the mempool with it)
{
    my $db = temp_dir() . '/other';
    my $short = make_chain(1000, blocks('a', 6, 3));
    write_chain($root, $short);
    my ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
        "$base/up", '--once', '--from-height', '1000'], timeout => 120);
    is($code, 0, 'another chain: the first chain mirrored') or diag($err);
    write_chain($root, make_chain(1000, blocks('b', 6, 3), fork => { 1000 => 'other' }));
    my ($pid, $log) = start($db, '--stacks-api', "$base/up", '--interval', '60',
                            '--max-reorg-depth', '3');
    ok(wait_log($pid, $log, qr/feed stacks stopped/), 'another chain: the feed stopped');
    sleep 1;
    my $t0 = time;
    my $gone = waitpid($pid, WNOHANG) == $pid;
    my ($secs, $code2) = $gone ? (0, $? >> 8) : stop($pid, 'TERM');
    push @figures, sprintf('every feed stopped: %s', $gone
        ? 'exited by itself (no feed is left)' : sprintf('%.3f s', $secs));
    ok($code2 != 137, 'another chain: the mirror ends, by itself or on SIGTERM')
        or diag(slurp($log));
    like(slurp($log), qr/no feed is left|stopped by a signal/, 'another chain: said why');
    is(state_of($db, 'stacks'), 'stopped another_chain', 'another chain: stacks stored stopped, why');
    like(state_of($db, 'mempool'), qr/^stopped (another_chain|signal)$/,
         'another chain: the mempool stored stopped with it');
    is(position($db, 'stacks'), 1005, 'another chain: the index as it was');
}

note("from the signal to the exit: $_") for @figures;
diag("from the signal to the exit: $_") for $ENV{CHAINDATA_FIGURES} ? @figures : ();

$ng->stop;
done_testing();
