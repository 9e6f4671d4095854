#!/usr/bin/perl
# The mirror fills what the v3 transaction routes need: each transaction
# record carries its block's index_block_hash and parent_index_block_hash
# from the block's answer it reads anyway (/extended/v2/blocks/{h}), so
# chaindata_tx_v3 serves what it mirrored with no request more than v1's.
# A new pending transaction's receipt_block_height comes from upstream's
# v3 mempool listing, read once --mempool-v3-batch new ones (20) are to be
# written: one request for 20 transactions at most, so v3 adds no more
# than 0.05 requests a transaction (issue 30); a smaller set is written
# without and waits for more, across passes and restarts, until a run
# that ends (--once) asks for it at one request.  Without that listing (an
# upstream before 9.0) the pending one has no v3 document.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use JSON::PP ();
use Digest::SHA qw(sha256_hex);
use ChainData::Test qw(:all);
use ChainData::TxV3 qw(v3_locations);
require ChainData::Upstream;

require_build();

my $root = temp_dir();
my @docs = grep { !/"event_count":640/ } ChainData::Upstream::confirmed_docs();
my ($pending) = map { $_->{data_raw} }
    grep { ($_->{tx_status} // '') eq 'pending' } tx_fixtures(fixture_path('tx.ndjson'));
my ($pid) = $pending =~ /"tx_id":"(0x[0-9a-f]{64})"/;
my $chain = ChainData::Upstream::make_chain(700,
    [[ChainData::Upstream::derive_doc($docs[0], 'v3a')],
     [ChainData::Upstream::derive_doc($docs[1], 'v3b'),
      ChainData::Upstream::derive_doc($docs[2], 'v3c')]]);
ChainData::Upstream::write_chain("$root/m", $chain, mempool => [$pending]);
my $up = ChainData::Test::Nginx->start(
    locations => ChainData::Upstream::nginx_locations("$root/m"));
my $db = "$root/idx";
my @mirror = (build_path('chaindata-mirror'), '--db', $db,
    '--stacks-api', 'http://127.0.0.1:' . $up->port . '/up', '--once',
    '--from-height', '700', '--retries', '0', '--mempool-v3-batch', '1');
my ($c, $o, $e) = run_cmd([@mirror], timeout => 120);
is($c, 0, 'the mirror follows the chain and the mempool') or diag($e);
my $no_v3 = mdb_dump_of($db, 'tx_v3');
(my $hex = substr($pid, 2)) =~ s/(..)/$1/g;
unlike($no_v3, qr/^ \Q$hex\E$/m,
       'no v3 listing upstream: the pending one has no v3 document');

# upstream's v3 mempool listing (src/api/routes/v3/mempool.ts), a new
# pending transaction in a new index
my $v3dir = "$root/m/up/extended/v3/mempool/transactions";
system('mkdir', '-p', $v3dir);
spew("$v3dir/q=limit=50", qq({"limit":50,"total":1,"cursor":{"next":null,"previous":null,)
    . qq("current":null},"results":[{"tx_id":"$pid","receipt_block_height":4321}]}));
$db = "$root/idx2";
$mirror[2] = $db;
($c, $o, $e) = run_cmd([@mirror], timeout => 120);
is($c, 0, 'again, upstream with its v3 mempool listing') or diag($e);
$up->stop;
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(db => $db, locations => v3_locations());
my $J = JSON::PP->new;
for my $b (@$chain) {
    for my $doc (@{ $b->{txs} }) {
        my ($id) = $doc =~ /"tx_id":"(0x[0-9a-f]{64})"/;
        my $r = http_get($ng->port, "/extended/v3/transactions/$id");
        is($r->{status}, 200, "block $b->{height}: v3 serves $id");
        my $d = $J->decode($r->{body});
        is($d->{block}{index_hash}, '0x' . sha256_hex("index/$b->{hash}"),
           '… its block\'s index hash');
        is($d->{parent_block}{index_hash}, '0x' . sha256_hex("index/$b->{parent}"),
           '… its parent\'s');
        my ($n) = $doc =~ /"event_count":(\d+)/;
        $r = http_get($ng->port, "/extended/v3/transactions/$id/events?limit=100");
        is($J->decode($r->{body})->{total}, $n, '… and its events');
    }
}
my $p = $J->decode(http_get($ng->port, "/extended/v3/transactions/$pid")->{body});
is($p->{receipt_block_height}, 4321, 'the pending one: its receipt_block_height');
is($p->{status}, 'pending', '… a mempool document');
my $r = http_get($ng->port, "/extended/v3/transactions/$pid/events");
is($r->{status}, 400, '… whose events are upstream\'s 400');

# mirrored from block 700: the index cannot say "not there" (as v1's)
my $none = '0x' . ('cd' x 32);
is(http_get($ng->port, "/extended/v3/transactions/$none")->{status}, 503,
   'an unknown id, the history partial, no fallback: 503');
is(http_get($ng->port, "/extended/v3/transactions/$none/events")->{status}, 503,
   '… its events too');
$ng->stop;

# a batch: 19 new pending transactions, fewer than a batch, wait for more
# while the mirror follows; a --once run that ends asks for them at one
# request (issue 41: they were left to answer 503 until a later run); 2
# more are 2 new at the next run's end; 20 new at once are a batch, one
# page of the v3 listing in the pass, none left for the end; a pass with
# none new or waiting asks nothing
my @pool = map { ChainData::Upstream::derive_doc($pending, "pool$_") } 1 .. 41;
my @pids = map { ChainData::Upstream::tx_id($_) } @pool;
my %height = map { $pids[$_] => 5000 + $_ } 0 .. $#pids;
my $broot = "$root/b";
my $listing = sub {    # upstream's v3 listing: newest first
    my @r = reverse @_;
    system('mkdir', '-p', "$broot/up/extended/v3/mempool/transactions");
    spew("$broot/up/extended/v3/mempool/transactions/q=limit=50",
         qq({"limit":50,"total":) . scalar(@r) . qq(,"cursor":{"next":null,)
         . qq("previous":null,"current":null},"results":[)
         . join(',', map { qq({"tx_id":"$_","receipt_block_height":$height{$_}}) } @r)
         . ']}');
};
ChainData::Upstream::write_chain($broot, $chain, mempool => [@pool[0 .. 18]]);
$listing->(@pids[0 .. 18]);
$up = ChainData::Test::Nginx->start(
    locations => ChainData::Upstream::nginx_locations($broot));
$db = "$root/idx3";
my @batch = (build_path('chaindata-mirror'), '--db', $db,
    '--stacks-api', 'http://127.0.0.1:' . $up->port . '/up', '--once',
    '--from-height', '700', '--retries', '0');
my $v3_asked = sub {
    scalar grep { m{GET /up/extended/v3/mempool/} }
        split /\n/, slurp($up->prefix . '/access.log');
};
my $v3_held = sub {
    my ($in, @ids) = @_;
    my $dump = mdb_dump_of($in, 'tx_v3');
    scalar grep { (my $h = substr($_, 2)) =~ s/(..)/$1/g;
                  $dump =~ /^ \Q$h\E$/m } @ids;
};
my $v1_held = sub {
    my ($in, @ids) = @_;
    my $dump = mdb_dump_of($in, 'tx');
    scalar grep { (my $h = substr($_, 2)) =~ s/(..)/$1/g;
                  $dump =~ /^ \Q$h\E$/m } @ids;
};
($c, $o, $e) = run_cmd([@batch], timeout => 120);
is($c, 0, '19 new pending transactions, --once: the mirror exits 0') or diag($e);
is($v3_asked->(), 1, '… its end asks the v3 listing once for the 19');
is($v3_held->($db, @pids[0 .. 18]), 19, '… each has its v3 document');
is($v1_held->($db, @pids[0 .. 18]), 19, '… and its v1 one');
like($e, qr/msg="mempool: the run ends: 19 of the 19 pending transactions waiting for a batch got their receipt_block_height"/,
     '… said in its log');

ChainData::Upstream::write_chain($broot, $chain, mempool => [@pool[0 .. 20]]);
$listing->(@pids[0 .. 20]);
($c, $o, $e) = run_cmd([@batch], timeout => 120);
is($c, 0, 'a restart, 2 more: 21') or diag($e);
is($v3_asked->(), 2, '… one request more, at its end, for the 2');
is($v3_held->($db, @pids[0 .. 20]), 21, '… each has its v3 document');

ChainData::Upstream::write_chain($broot, $chain, mempool => [@pool]);
$listing->(@pids);
($c, $o, $e) = run_cmd([@batch], timeout => 120);
is($c, 0, '20 more at once: a batch') or diag($e);
is($v3_asked->(), 3, '… one page of the v3 listing for them in the pass, '
   . 'none left for its end');
is($v3_held->($db, @pids), 41, '… each has its v3 document');
unlike($e, qr/the run ends/, '… nothing waits at its end');
($c, $o, $e) = run_cmd([@batch], timeout => 120);
is($v3_asked->(), 3, 'a pass with none new nor waiting asks nothing more');

# an upstream without the v3 listing (before 9.0): asked for the 41 new,
# and the pending ones stay in the index without their v3 documents: it
# cannot tell v3's answer (a 503 without chaindata_miss_fallback, the
# fallback with one), but for their events, which upstream answers 400
# for any pending one
system('rm', '-rf', "$broot/up/extended/v3");
my $wdb = "$root/idx4";
($c, $o, $e) = run_cmd([@batch[0 .. 1], $wdb, @batch[3 .. $#batch]],
                       timeout => 120);
is($c, 0, 'no v3 listing upstream: the mirror exits 0') or diag($e);
is($v3_asked->(), 4, '… asked the listing once');
is($v3_held->($wdb, @pids), 0, '… no v3 document');
is($v1_held->($wdb, @pids), 41, '… each is served by v1 at once');
fixup_index_perms($wdb);
my $ng3 = ChainData::Test::Nginx->start(db => $wdb, locations => v3_locations()
    . "        location = /st { chaindata_status; }\n");
my $w = http_get($ng3->port, "/extended/v3/transactions/$pids[0]");
is($w->{status}, 503, 'a pending one\'s v3 document: 503, not 404');
like($w->{body}, qr/without its v3 document yet/, '… saying why');
$w = http_get($ng3->port, "/extended/v3/transactions/$pids[0]/events");
is($w->{status}, 400, '… its events: upstream\'s 400');
like($w->{body}, qr/Transaction not found/, '… as upstream says it');
is(http_get($ng3->port, "/extended/v1/tx/$pids[0]")->{status}, 200,
   '… its v1 document: served');
is($J->decode(http_get($ng3->port, '/st')->{body})->{traffic}{unavailable}{no_v3},
   1, '… the 503 counted as no_v3');
$ng3->stop;

$up->stop;
fixup_index_perms($db);
$ng = ChainData::Test::Nginx->start(db => $db, locations => v3_locations());
for my $i (0, 18, 20, 40) {
    my $r = http_get($ng->port, "/extended/v3/transactions/$pids[$i]");
    is($J->decode($r->{body})->{receipt_block_height}, 5000 + $i,
       "pool $i: its receipt_block_height");
}
$ng->stop;

done_testing();
