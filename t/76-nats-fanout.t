#!/usr/bin/perl
# The NATS JetStream fan-out (doc/operations.md "Scaling out"): one chaindata-mirror
# --nats publishes what it mirrors from the recorded upstream (Stacks
# blocks, a reorg, the mempool, Runes blocks with balances) while two
# followers (chaindata-load --nats) fill two edges' indexes.  Follower A
# and the publisher are killed with SIGKILL, and nats-server is stopped
# and started again, at random points (the seed is printed; set
# CHAINDATA_FANOUT_SEED to replay one).  Both edges end with the index of
# a direct mirror: every database's mdb_dump is the same but the feed's,
# where the commit times (each writer's clock) and the stream position
# (a direct mirror has none) legitimately differ.  Both edges answer
# every transaction as the direct mirror's.  A follower behind a stream
# that discarded what it needs stops with a clear error.
#
# nats-server runs with max_payload 64 KiB, so a transaction of 1,000
# events (a line over 64 KiB) is sent in several messages.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Nats qw(require_nats);
use ChainData::Upstream qw(confirmed_docs tx_id derived_blocks derive_doc
    grow_events make_chain write_chain nginx_locations write_runes rune_chain);

require_build();
require_nats();
my $MIRROR = build_path('chaindata-mirror');
my $LOAD = build_path('chaindata-load');

my $seed = $ENV{CHAINDATA_FANOUT_SEED} || (time ^ $$) % 100000;
diag("seed $seed (CHAINDATA_FANOUT_SEED=$seed replays it)");
srand($seed);


# the recorded upstream: Stacks blocks 500-509 with a pending transaction,
# then a reorg replacing 508-509 and blocks up to 513; Runes 840500-840505
my @fx = tx_fixtures(fixture_path('tx.ndjson'));
my ($pending) = map { $_->{data_raw} } grep { ($_->{tx_status} // '') eq 'pending' } @fx;
my @docs = confirmed_docs();
my ($big) = grep { /"event_count":640/ } @docs;
@docs = grep { !/"event_count":640/ } @docs;
my @blocks = derived_blocks(\@docs, 'f', 4, 0 .. 9);
push @{ $blocks[3] }, grow_events(derive_doc($big, 'f-big'), 1000);
my $chain1 = make_chain(500, \@blocks);
my @blocks2 = (@blocks[0 .. 7], derived_blocks(\@docs, 'g', 3, 8 .. 13));
my $chain2 = make_chain(500, \@blocks2, fork => { 508 => 'b' });
isnt($chain2->[8]{hash}, $chain1->[8]{hash}, 'the second chain forks at 508');

my $root = temp_dir();
write_chain($root, $chain1, mempool => [$pending]);
my ($rblocks, $bal) = rune_chain('f', 6);
write_runes($root, $rblocks, $bal);
my $up = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my $api = 'http://127.0.0.1:' . $up->port . '/up';

my $ns = ChainData::Nats->start(max_payload => 65536);
my $STREAM = 'FANOUT';

sub source_args {
    return ('--stacks-api', $api, '--once', '--from-height', '500',
            '--runes-api', $api, '--runes-from-height', '840500',
            '--parallel', '4', '--rate', '50');
}
sub pub_args { return ($MIRROR, '--db', "$root/pub", source_args(),
                       '--nats', $ns->url, '--stream', $STREAM, @_) }
sub follow_args { return ($LOAD, '--db', $_[0], '--nats', $ns->url,
                          '--stream', $STREAM, @_[1 .. $#_]) }

# the edges: an index each, served by its nginx
my %edge;
for my $name (qw(A B ref)) {
    my $db = "$root/edge-$name";
    my ($c, $o, $e) = load_index($db);
    is($c, 0, "edge $name: empty index") or diag($e);
    fixup_index_perms($db);
    $edge{$name} = { db => $db, log => "$root/follow-$name.log",
        ng => ChainData::Test::Nginx->start(db => $db,
            locations => "        location /extended/v1/tx/ { chaindata_tx; }\n"
                . "        location = /chaindata/status { chaindata_status; }\n") };
}

sub spawn {
    my ($log, @argv) = @_;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>>', $log or POSIX::_exit(126);
        open STDERR, '>>', $log or POSIX::_exit(126);
        exec(@argv) or POSIX::_exit(127);
    }
    return $pid;
}

sub follower_start {
    my ($name) = @_;
    $edge{$name}{pid} = spawn($edge{$name}{log}, follow_args($edge{$name}{db}));
}

sub follower_end {
    my ($name, $sig) = @_;
    my $pid = delete $edge{$name}{pid} or return;
    kill $sig, $pid;
    waitpid($pid, 0);
    return $?;
}

follower_start($_) for qw(A B);

# one publisher pass to the tip: killed once at a random point and run
# again; follower A killed and restarted, nats-server restarted, at random
my ($a_kills, $pub_kills, $nats_restarts) = (0, 0, 0);
sub publish_with_faults {
    my ($restart_nats) = @_;
    # upstream at 50 requests a second: a pass takes some seconds
    my $kill_pub_at = 0.1 + rand(0.6);
    my $nats_at = $restart_nats ? 0.1 + rand(0.6) : undef;
    for my $try (1 .. 5) {
        my $t0 = time;
        my $pid = spawn("$root/pub.log", pub_args());
        while (waitpid($pid, WNOHANG) == 0) {
            sleep(0.05 + rand(0.2));
            if (rand() < 0.25 && $edge{A}{pid}) {
                follower_end('A', 'KILL');
                $a_kills++;
                follower_start('A');
            }
            if (defined $kill_pub_at && time - $t0 > $kill_pub_at) {
                undef $kill_pub_at;
                kill 'KILL', $pid;
                $pub_kills++;
            }
            if (defined $nats_at && time - $t0 > $nats_at) {
                undef $nats_at;
                $ns->stop;
                sleep(0.3 + rand(0.7));
                $ns->start;
                $nats_restarts++;
            }
        }
        my $st = $?;
        diag(sprintf('publisher pass %d: %.1f s', $try, time - $t0));
        if (defined $nats_at) {    # done before the chosen point: now
            $ns->stop;
            $ns->start;
            $nats_restarts++;
            undef $nats_at;
        }
        return 0 if $st == 0;
        return $st >> 8 unless ($st & 127) == 9;
    }
    return -1;
}

is(publish_with_faults(0), 0, 'first chain published');

# a snapshot of edge A's index taken while its follower runs
# (chaindata-load --snapshot: LMDB's compacting copy) carries its stream
# position: a follower on the copy continues from there
sub has_position {
    my ($c, $o) = run_cmd(['mdb_dump', '-s', 'feed', $_[0]]);
    return $o =~ /^ \Q${\ unpack('H*', "stream:$STREAM")}\E$/m;
}
for (1 .. 200) { last if has_position($edge{A}{db}); sleep(0.05) }
my ($c, $o, $e) = load_index($edge{A}{db}, '--snapshot', "$root/copy");
is($c, 0, 'a snapshot of edge A taken while it follows') or diag($e);
($a) = run_cmd([$MIRROR, '--db', $edge{ref}{db}, source_args()], timeout => 120);
is($a, 0, 'the direct mirror: first chain');

write_chain($root, $chain2, mempool => [$pending]);
write_runes($root, $rblocks, $bal);
is(publish_with_faults(1), 0, 'grown chain with a reorg published');
($c, $o, $e) = run_cmd([$MIRROR, '--db', $edge{ref}{db}, source_args()], timeout => 120);
is($c, 0, 'the direct mirror: the reorg') or diag($e);
like($e, qr/reorg: stacks blocks above 507/, 'the direct mirror rolled back to 507');
like(slurp("$root/pub.log"), qr/reorg: stacks blocks above 507/, 'so did the publisher');
diag("follower A killed $a_kills times, the publisher $pub_kills, "
     . "nats-server restarted $nats_restarts");
ok($nats_restarts == 1, 'nats-server was restarted');

# the followers stop on SIGTERM; one --once pass each takes what is left
is(follower_end($_, 'TERM'), 0, "follower $_: exit 0 on SIGTERM") for qw(A B);
for my $name (qw(A B)) {
    ($c, $o, $e) = run_cmd([follow_args($edge{$name}{db}, '--once')], timeout => 120);
    is($c, 0, "follower $name --once: exit 0") or diag($e);
}
like(slurp($edge{B}{log}), qr/connection to NATS is lost.*reconnected to NATS/s,
     'follower B: lost the connection and reconnected, and said so');
# B ran from the start, never killed: more messages than units means a
# unit (the 1,000-event transaction's block) came in several parts
my ($units, $seq) = (slurp($edge{B}{log})
    =~ /applied (\d+) units .* sequence (\d+) /g)[-2, -1];
ok($units && $seq > $units, "follower B: $units units in $seq messages");

# the feed without the stream position and the commit times (bytes 24-31
# of a position, lmdb-schema/feed.md)
sub feed_dump {
    my @l = split /\n/, mdb_dump_of($_[0], 'feed') =~ s/\A.*?HEADER=END\n//sr;
    my $out = '';
    # the stream's position, and the mirror's own state and view of its
    # upstream's tip (never published), are each index's own
    my $own = join '|', map { unpack('H*', $_) } 'stream:', 'streamtip:',
                                                   'state:', 'tip:';
    for (my $i = 0; $i + 1 < @l; $i += 2) {
        my ($k, $v) = map { s/^\s+//r } @l[$i, $i + 1];
        next if $k =~ /^(?:$own)/;
        substr($v, 48, 16) = 'x' x 16 if length $v >= 64;
        $out .= "$k $v\n";
    }
    return $out;
}

($c, $o, $e) = run_cmd([follow_args("$root/copy", '--once')], timeout => 120);
is($c, 0, 'a follower on the copy: exit 0') or diag($e);
unlike($e, qr/from sequence 1 /, 'it started after the copied sequence');

for my $dir ("$root/pub", $edge{A}{db}, $edge{B}{db}, "$root/copy") {
    my $who = $dir =~ /edge-(\w)/ ? "edge $1"
            : $dir =~ /copy/ ? 'the copy of edge A' : 'the publisher';
    for my $name (qw(meta tx tx_event rune_activity rune_activity_entry
                     rune_balances rune_balance_entry chainhook block)) {
        ok(mdb_dump_of($dir, $name) eq mdb_dump_of($edge{ref}{db}, $name),
           "$who: $name is the direct mirror's");
    }
    is(feed_dump($dir), feed_dump($edge{ref}{db}),
       "$who: feed positions are the direct mirror's (commit times aside)");
    like(mdb_dump_of($dir, 'feed'), qr/^ \Q${\ unpack('H*', "stream:$STREAM")}\E$/m,
         "$who: the stream position is in the index");
}

# every transaction answers at both edges as at the direct mirror's
my @ids = ((map { tx_id($_) } map { @{ $_->{txs} } } @$chain1, @$chain2), tx_id($pending));
my ($n, $bad) = (0, 0);
for my $id (@ids) {
    my $r = http_get($edge{ref}{ng}->port, "/extended/v1/tx/$id");
    for my $name (qw(A B)) {
        my $s = http_get($edge{$name}{ng}->port, "/extended/v1/tx/$id");
        $n++;
        next if $s->{status} == $r->{status} && $s->{body} eq $r->{body};
        diag("edge $name: $id: $s->{status}, the direct mirror's $r->{status}") if $bad++ < 5;
    }
}
is($bad, 0, "both edges answer as the direct mirror for $n requests");

# each edge tells its stream position, the publisher's own; the direct
# mirror's edge follows no stream
my ($pst) = grep { $_->{stream} eq $STREAM }
    @{ json_decode((load_index("$root/pub", '--stats'))[1])->{streams} };
ok($pst && $pst->{sequence} >= $seq,
   "--stats: the publisher's index at sequence $pst->{sequence}");
for my $name (qw(A B ref)) {
    # a follower also tells the publisher's last sequence as it last saw it
    my $want = $name eq 'ref' ? [] : [{ stream => $STREAM, sequence => $pst->{sequence},
                                        published => $pst->{sequence} }];
    my $r = http_get($edge{$name}{ng}->port, '/chaindata/status');
    is_deeply(json_decode($r->{body})->{streams}, $want,
              "edge $name: chaindata_status tells its stream position");
    next if $name eq 'ref';
    $r = http_get($edge{$name}{ng}->port, '/chaindata/status?format=prometheus');
    like($r->{body}, qr/^chaindata_stream_sequence\{stream="$STREAM"\} $pst->{sequence}$/m,
         "edge $name: and in the Prometheus text");
    like($r->{body}, qr/^chaindata_stream_published_sequence\{stream="$STREAM"\} $pst->{sequence}$/m,
         "edge $name: the publisher's last sequence beside it");
}

# a follower behind what a stream still holds: a clear error, exit 1
{
    my @small = ('--stream', 'SMALL', '--max-msgs', '3');
    ($c, $o, $e) = run_cmd([$MIRROR, '--db', "$root/pub-small", source_args(),
                            '--nats', $ns->url, @small], timeout => 120);
    is($c, 0, 'a stream keeping 3 messages: published') or diag($e);
    ($c, $o, $e) = load_index("$root/edge-late", '--nats', $ns->url,
                              '--stream', 'SMALL', '--once');
    is($c, 1, 'a follower behind the discarded messages: exit 1');
    like($e, qr/no longer holds sequence 1 .*seed it from a snapshot/,
         'it tells the operator to seed from a snapshot');
}

# no secret on the command line
($c, $o, $e) = load_index("$root/edge-x", '--nats', 'nats://u:secret@127.0.0.1:1',
                          '--stream', $STREAM, '--once');
is($c, 2, 'a password in the URL: exit 2');
like($e, qr/NATS_PASSWORD/, 'it names the environment instead');

# the processes started in the background: no sanitizer report (make
# test-asan) in their logs
my $logs = join '', map { -e $_ ? slurp($_) : '' }
    "$root/pub.log", map { $_->{log} } values %edge;
unlike($logs, $ChainData::Test::SANITIZER_REPORT,
       'no sanitizer report from the publisher and the followers');

$_->{ng}->stop for values %edge;
$up->stop;
$ns->stop;
done_testing();
