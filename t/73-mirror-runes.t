#!/usr/bin/perl
# chaindata-mirror --runes-api against a recorded Runes API
# (ChainData::Upstream write_runes: bitcoin-indexer's served shapes and
# semantics: balances' "total" counting history rows, the tip being the
# last block with activity, empty pages for blocks without activity):
# blocks with and without activity, a transaction of 150 entries (3
# pages), chain growth, a reorg at the tip (the orphaned block's activity
# goes, the balances it wrote are fetched again), and an address of 61
# balances whose pages of 60 repeat one rune and skip another (upstream
# orders balances by balance alone): the mirror notices and stores the
# complete list.  After each run the edge serves every list as upstream
# pages it.  A mirror killed (SIGKILL) right after a rollback's commit and
# restarted ends with the orphaned blocks' balance lists as upstream
# serves them.  Then reorgs that a block without activity (recorded
# "none") hides: a fork below an empty block, an empty block replaced by
# one with activity; a reorg that lowers upstream's tip; upstream behind
# the index (waited for, said once); and a list whose pages keep
# disagreeing (paged again from its first page, a bounded number of
# times, then the pass fails with nothing written).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use Digest::SHA qw(sha256_hex);
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_lists rune_locations);
use ChainData::Upstream qw(write_runes runes_page runes_history btc_hash
                           nginx_locations runes_held served_etchings);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my $L = rune_lists(fixture_path('runes.ndjson'));
my %act = %{ $L->{activity} };
my %bal = map { $L->{address}{$_} => $L->{balances}{$_} } keys %{ $L->{balances} };
my ($tx150) = grep { @{ $act{$_} } == 150 } keys %act;
my ($tx1) = grep { @{ $act{$_} } == 1 } keys %act;
my ($tx2) = grep { @{ $act{$_} } == 2 } keys %act;
my ($tx5) = grep { @{ $act{$_} } == 5 } keys %act;
my ($a61) = grep { @{ $bal{$_} } == 61 } keys %bal;
my ($a130) = grep { @{ $bal{$_} } == 130 } keys %bal;
my ($a1) = grep { @{ $bal{$_} } == 1 && /^3/ } keys %bal;
ok($tx150 && $tx1 && $tx2 && $tx5 && $a61 && $a130 && $a1, 'fixtures present')
    or BAIL_OUT('fixtures incomplete');

# a transaction of its own whose one entry names $address
sub derived_tx {
    my ($salt, $address) = @_;
    my $id = sha256_hex("runes/$salt");
    (my $e = $act{$tx1}[0]) =~ s/\Q$tx1\E/$id/g;
    $e =~ s/"address":"[^"]+"/"address":"$address"/;
    return [$id, [$e]];
}

sub block {
    my ($h, $fork, @txs) = @_;
    return { height => $h, hash => btc_hash($h, $fork), txs => \@txs };
}

# the 61 balances with a tie at the page boundary (entries 59 and 60), and
# the pages of 60 an unstable order gives: the tie's second entry twice,
# its first never
my @b61 = @{ $bal{$a61} };
my ($tied) = $b61[59] =~ /"balance":"([^"]+)"/;
$b61[60] =~ s/"balance":"[^"]+"/"balance":"$tied"/;
my $path61 = "/runes/v1/addresses/$a61/balances";
my $hist61 = runes_history(\@b61);
my %bad61 = ($path61 => {
    'offset=0&limit=60'  => runes_page([@b61[0 .. 58], $b61[60]], 0, 60, $hist61),
    'offset=60&limit=60' => runes_page([(undef) x 60, $b61[60]], 60, 60, $hist61),
});
my %balances = (%bal, $a61 => \@b61);
# what the mirror stores: upstream's order, the tie in the order first seen
my %expect_bal = (%bal, $a61 => [@b61[0 .. 58], $b61[60], $b61[59]]);

my $root = temp_dir();
my $db = "$root/index";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

# the recorded upstream again under /stall/, where the activity of one
# transaction trickles at 1 byte a second: a mirror asking for it waits
my $stall = derived_tx('stall', $a130);
my $stall_locations = <<"EOF";
        location ~ ^/stall(/runes/v1/transactions/$stall->[0]/activity)\$ {
            root $root/up;
            default_type application/json;
            limit_rate 1;
            try_files "\$1/q=\$args" =404;
        }
        location /stall/ {
            rewrite ^/stall(/.*)\$ /up\$1 last;
        }
EOF

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => "    limit_req_zone \$binary_remote_addr zone=up:1m rate=200r/s;\n",
    locations => rune_locations() . nginx_locations($root, burst => 20)
                 . $stall_locations,
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

sub mirror {
    return run_cmd([$MIRROR, '--db', $db, '--runes-api', $api, '--once',
                    '--parallel', '8', @_], timeout => 300);
}

# every list of the chain answers at the edge as upstream pages it
sub edge_equals_upstream {
    my ($blocks, $name, %gone) = @_;
    my ($n, $bad) = (0, 0);
    my %lists;
    for my $b (@$blocks) {
        for my $t (@{ $b->{txs} }) {
            my @e = map {
                (my $x = $_) =~ s/"block_hash":"[0-9a-f]{64}"/"block_hash":"$b->{hash}"/;
                $x =~ s/"block_height":\d+/"block_height":$b->{height}/;
                $x;
            } @{ $t->[1] };
            $lists{"/runes/v1/transactions/$t->[0]/activity"} = \@e;
            for my $e (@e) {
                while ($e =~ /"(?:address|receiver_address)":"([^"]+)"/g) {
                    $lists{"/runes/v1/addresses/$1/balances"} = $expect_bal{$1} || [];
                }
            }
        }
    }
    # an orphaned transaction's activity is gone from the index, whose
    # runes feed starts at 840300: the edge cannot say upstream holds
    # none (lmdb-schema/feed.md, "The history a feed holds"), so not the
    # empty page but a 503 (or, in front of upstream, upstream's answer)
    for my $path (sort keys %gone) {
        my $r = http_get($port, "$path?offset=0&limit=60");
        $n++;
        next if $r->{status} == 503 && $r->{body} =~ /runes feed holds blocks from 840300 on/;
        $bad++;
        diag("$name: $path (gone): $r->{status}") if $bad < 5;
    }
    for my $path (sort keys %lists) {
        next if $gone{$path};
        my $texts = $lists{$path};
        for (my $off = 0; $off == 0 || $off < @$texts; $off += 60) {
            my $r = http_get($port, "$path?offset=$off&limit=60");
            $n++;
            next if $r->{status} == 200 && $r->{body} eq runes_page($texts, $off, 60);
            $bad++;
            diag("$name: $path offset $off: $r->{status}") if $bad < 5;
        }
    }
    is($bad, 0, "$name: the edge answers as upstream for all $n pages");
}

sub feed {
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'runes' } @{ json_decode($o)->{feeds} };
    return $f ? "$f->{height} $f->{hash}" : 'none';
}

# 1. three blocks, the middle one without activity
my $d130 = derived_tx('big', $a130);
my @chain = (block(840300, '', [$tx1, $act{$tx1}], [$tx2, $act{$tx2}]),
             block(840301, ''),
             block(840302, '', [$tx5, $act{$tx5}], [$tx150, $act{$tx150}]));
write_runes($root, [@chain], \%balances, pages => \%bad61);
($code, $out, $err) = mirror('--runes-from-height', '840300');
is($code, 0, 'first run: exit 0') or diag($err);
like($err, qr/rune balances of \Q$a61\E: pages of equal balances overlapped/,
     'the overlapping pages of 60 are noticed');
edge_equals_upstream(\@chain, 'first run');
{
    my $r = http_get($port, "$path61?offset=0&limit=60");
    my $d = json_decode($r->{body});
    my $r2 = json_decode(http_get($port, "$path61?offset=60&limit=60")->{body});
    my %ids = map { $_->{rune}{id} => 1 } @{ $d->{results} }, @{ $r2->{results} };
    is(scalar keys %ids, 61, 'the 61 balances: each rune once');
}
is(feed(), '840302 ' . btc_hash(840302), 'first run: the runes feed at 840302');

# 2. the chain grows by a block naming the address of 130 balances
push @chain, block(840303, '', $d130);
write_runes($root, [@chain], \%balances);
($code, $out, $err) = mirror();
is($code, 0, 'chain grown: exit 0') or diag($err);
edge_equals_upstream(\@chain, 'chain grown');
is(feed(), '840303 ' . btc_hash(840303), 'chain grown: at 840303');

# 3. a reorg at the tip: 840303 replaced; its transaction's activity goes,
# the 130 balances it wrote are fetched again (with the rollback).  The
# empty 840304 above it is not upstream's tip: the tip is the last block
# with activity
my $other = derived_tx('fork', $a1);
my @fork = (@chain[0 .. 2], block(840303, 'b', $other), block(840304, ''));
write_runes($root, [@fork], \%balances);
($code, $out, $err) = mirror();
is($code, 0, 'reorg: exit 0') or diag($err);
like($err, qr/reorg: runes blocks above 840302/, 'reorg: rolled back to the fork point');
edge_equals_upstream(\@fork, 'reorg', "/runes/v1/transactions/$d130->[0]/activity" => 1);
is(http_get($port, "/runes/v1/addresses/$a130/balances?offset=0&limit=60")->{body},
   runes_page($bal{$a130}, 0, 60), 'reorg: the orphaned block\'s balances are fetched again');
is(feed(), '840303 ' . btc_hash(840303, 'b'), 'reorg: at 840303b, upstream\'s tip');

# 4. upstream behind the index (another node, restarted): it agrees at
# its tip, so nothing is rolled back; the mirror waits and says so
write_runes($root, [@fork[0 .. 2]], \%balances);
($code, $out, $err) = mirror();
is($code, 0, 'upstream behind: exit 0') or diag($err);
unlike($err, qr/reorg:/, 'upstream behind: no reorg');
like($err, qr/runes tip 840302 is below the index's 840303 and agrees/,
     'upstream behind: the wait is logged');
is(feed(), '840303 ' . btc_hash(840303, 'b'), 'upstream behind: the position stays');

# 5. killed right after a rollback: 840303b (its transaction named $a1)
# is replaced by 840303c and 840304c.  Through /stall/ the mirror rolls
# back to 840302, then waits for the activity of 840303c's transaction;
# it is killed once the position is at 840302 (the rollback committed)
# and restarted: $a1's balances are upstream's, although no block after
# the fork point names $a1.  (The 120 s bound on the wait is for a mirror
# that never rolls back, not a timing.)
my $c4 = derived_tx('fork-c', $a61);
my @fork2 = (@fork[0 .. 2], block(840303, 'c', $stall),
             block(840304, 'c', $c4));
unlike(join('', map { @{ $_->[1] } } $stall, $c4), qr/\Q$a1\E/,
       'killed: no block after the fork point names the orphaned address');
write_runes($root, [@fork2], \%balances, pages => \%bad61);
my $pid = fork // die "fork: $!";
if ($pid == 0) {
    open STDERR, '>', "$root/killed.log";
    exec($MIRROR, '--db', $db, '--runes-api', "http://127.0.0.1:$port/stall",
         '--once', '--parallel', '8') or POSIX::_exit(127);
}
my $until = time + 120;
sleep(0.1) while feed() ne '840302 ' . btc_hash(840302) && time < $until
                 && waitpid($pid, WNOHANG) == 0;
kill 'KILL', $pid;
waitpid($pid, 0);
is($? & 127, 9, 'killed: the mirror was running when killed');
is(feed(), '840302 ' . btc_hash(840302), 'killed: rolled back to 840302');
like(slurp("$root/killed.log"), qr/reorg: runes blocks above 840302/,
     'killed: it logged the rollback');
{
    # the orphaned block's rune: its undo deleted the etching, which the
    # rollback fetched again (upstream's supply now counts the new blocks)
    my ($rune) = $other->[1][0] =~ /"rune":\{"id":"([^"]+)"/;
    my ($h, $docs) = runes_held($db);
    my $want = served_etchings($root)->{$rune};
    ok(defined $want && ($docs->{$rune} // '') eq $want,
       "killed: the etching of $rune, which the orphaned block named, as "
       . 'upstream serves it now');
    is("@$h", '840300 840302', 'killed: no rune_block above 840302');
}
($code, $out, $err) = mirror();
is($code, 0, 'restarted after the kill: exit 0') or diag($err);
is(feed(), '840304 ' . btc_hash(840304, 'c'), 'restarted: at 840304c');
edge_equals_upstream(\@fork2, 'restarted',
                     "/runes/v1/transactions/$other->[0]/activity" => 1,
                     "/runes/v1/transactions/$d130->[0]/activity" => 1);
is(http_get($port, "/runes/v1/addresses/$a1/balances?offset=0&limit=60")
   ->{body}, runes_page($bal{$a1}, 0, 60),
   'restarted: the balances the orphaned block wrote are upstream\'s');
{
    my ($h, $docs, $hash) = runes_held($db);
    is(join(' ', map { "$_:" . $hash->{$_} } @$h),
       join(' ', map { "$_->{height}:$_->{hash}" }
                 grep { @{ $_->{txs} } } @fork2),
       'restarted: a rune_block record each block with activity, of '
       . 'upstream\'s chain');
    is_deeply($docs, served_etchings($root),
              'restarted: every rune\'s etching, as upstream serves it');
}

# 6. a fork below an empty block: the chain grows by an empty 840305 and
# 840306 with activity; then 840304c to 840306 are replaced by 840304d
# (its transaction names $a1), an empty 840305d and 840306d.  The walk
# back does not stop at the empty 840305, "none" on both sides: it
# proves nothing of the blocks below
my @gone = ("/runes/v1/transactions/$other->[0]/activity" => 1,
            "/runes/v1/transactions/$d130->[0]/activity" => 1);
my $f6 = derived_tx('grow-6', $a130);
my @grow = (@fork2, block(840305, 'c'), block(840306, 'c', $f6));
write_runes($root, [@grow], \%balances, pages => \%bad61);
($code, $out, $err) = mirror();
is($code, 0, 'empty block below the tip: exit 0') or diag($err);
is(feed(), '840306 ' . btc_hash(840306, 'c'), 'empty block below the tip: at 840306');
my $d4 = derived_tx('fork-d', $a1);
my $d6 = derived_tx('fork-d6', $a130);
my @fork3 = (@grow[0 .. 3], block(840304, 'd', $d4), block(840305, 'd'),
             block(840306, 'd', $d6));
write_runes($root, [@fork3], \%balances, pages => \%bad61);
($code, $out, $err) = mirror();
is($code, 0, 'fork below an empty block: exit 0') or diag($err);
like($err, qr/reorg: runes blocks above 840303\b/,
     'fork below an empty block: rolled back to the fork point');
is(feed(), '840306 ' . btc_hash(840306, 'd'), 'fork below an empty block: at 840306d');
push @gone, "/runes/v1/transactions/$c4->[0]/activity" => 1,
            "/runes/v1/transactions/$f6->[0]/activity" => 1;
edge_equals_upstream(\@fork3, 'fork below an empty block', @gone);

# 7. an empty block gains activity: 840305d (recorded "none") and 840306d
# replaced by 840305e and 840306e, both with activity; 840304d, the
# newest block with a hash below, is still upstream's
my $e5 = derived_tx('fork-e', $a130);
my $e6 = derived_tx('fork-e6', $a1);
my @fork4 = (@fork3[0 .. 4], block(840305, 'e', $e5), block(840306, 'e', $e6));
write_runes($root, [@fork4], \%balances, pages => \%bad61);
($code, $out, $err) = mirror();
is($code, 0, 'empty block gains activity: exit 0') or diag($err);
like($err, qr/reorg: runes blocks above 840304\b/,
     'empty block gains activity: rolled back to the fork point');
is(feed(), '840306 ' . btc_hash(840306, 'e'), 'empty block gains activity: at 840306e');
push @gone, "/runes/v1/transactions/$d6->[0]/activity" => 1;
edge_equals_upstream(\@fork4, 'empty block gains activity', @gone);

# 8. a reorg that lowers upstream's tip: 840305e and 840306e replaced by
# 840305f alone (840306f has no activity, so upstream's tip is 840305).
# Upstream disagrees at its own tip: rolled back at once, not waited for
# until a new block comes
my $f5 = derived_tx('fork-f', $a1);
my @fork5 = (@fork4[0 .. 4], block(840305, 'f', $f5), block(840306, 'f'));
write_runes($root, [@fork5], \%balances, pages => \%bad61);
($code, $out, $err) = mirror();
is($code, 0, 'tip went down: exit 0') or diag($err);
like($err, qr/upstream's runes tip went down to 840305 \(the index is at 840306\)/,
     'tip went down: said so');
is(feed(), '840305 ' . btc_hash(840305, 'f'), 'tip went down: at 840305f');
push @gone, "/runes/v1/transactions/$e5->[0]/activity" => 1,
            "/runes/v1/transactions/$e6->[0]/activity" => 1;
edge_equals_upstream([@fork5[0 .. 5]], 'tip went down', @gone);
is(http_get($port, "/runes/v1/addresses/$a130/balances?offset=0&limit=60")->{body},
   runes_page($bal{$a130}, 0, 60),
   'tip went down: the orphaned blocks\' balances are upstream\'s');

# 9. a list whose pages disagree on their total at every try (upstream
# committing blocks under it faster than it is paged): paged again from
# its first page a bounded number of times, said each time; then the
# pass fails and nothing of the block is written
my $g6 = derived_tx('grow-g', $a61);
my @grow6 = (@fork5, block(840307, '', $g6));
my $hist = runes_history(\@b61);
write_runes($root, [@grow6], \%balances, pages => { $path61 => {
    'offset=60&limit=60' => runes_page(\@b61, 60, 60, $hist + 1) } });
($code, $out, $err) = mirror();
is($code, 1, 'a list that keeps changing: exit 1 after the pass');
my $again = () = $err =~ /\Q$a61\E\/balances changed while it was paged \(total \d+\); paging it again from its first page/g;
is($again, 5, 'a list that keeps changing: paged again 5 times, said each time');
like($err, qr/changed while it was paged, 5 times: given up for this pass/,
     'a list that keeps changing: then given up');
# 840306f, without activity, is committed before 840307 is paged
is(feed(), '840306 none', 'a list that keeps changing: nothing of 840307 written');

$ng->stop;
done_testing();
