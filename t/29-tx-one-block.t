#!/usr/bin/perl
# One transaction, one block (lmdb-schema/feed.md "Framing records"): a
# block that lists a transaction the index holds confirmed already (in
# another block) is refused with a message naming both, by the loader
# (NDJSON with block framing) and by a stream follower, the index left as
# it was; so a rollback never deletes a transaction that a block still
# standing lists.  A pending transaction is what a block confirms: a
# block may list it.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Nats qw(require_nats);

require_build();

my @tx = grep { /^\{"kind":"tx","data"/ && !/"tx_status":"(pending|dropped)/ }
    split /\n/, slurp(fixture_path('tx.ndjson'));
my ($pending) = grep { /"tx_status":"pending"/ } split /\n/, slurp(fixture_path('tx.ndjson'));
my ($pid) = $pending =~ /"tx_id":"(0x[0-9a-f]{64})"/;
my @ids = map { /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die } @tx;

sub block {
    my ($h, @lines) = @_;
    return join '', map { "$_\n" }
        qq({"kind":"block","source":"stacks","height":$h,"hash":"0xb$h","parent":"0xb${\ ($h - 1)}","time":$h}),
        @lines, qq({"kind":"block_end","source":"stacks","height":$h});
}
sub rollback { return qq({"kind":"rollback","source":"stacks","height":$_[0]}\n) }

my $root = temp_dir();
my $db = "$root/idx";
sub status_of {
    my ($port, $id) = @_;
    return http_get($port, "/extended/v1/tx/$id")->{status};
}
sub has {
    my ($dir, $id) = @_;
    (my $hex = substr($id, 2)) =~ s/(..)/$1/g;
    return mdb_dump_of($dir, 'tx') =~ /^ \Q$hex\E$/m ? 1 : 0;
}

# the loader: block 1 lists tx 0 and 1, block 2 lists tx 2 and tx 0 again
my ($c, $o, $e) = load_index($db, { stdin => block(1, @tx[0, 1]) });
is($c, 0, 'block 1 loaded') or diag($e);
my $before = mdb_dump_of($db, 'tx') . mdb_dump_of($db, 'block') . mdb_dump_of($db, 'feed');
($c, $o, $e) = load_index($db, { stdin => block(2, $tx[2], $tx[0]) });
is($c, 1, 'block 2 listing a transaction of block 1: exit 1');
like($e, qr/<stdin>:3: block 2 of stacks lists the transaction $ids[0], which the index holds confirmed already \(in another block\)/,
     'the line, the block and the transaction named');
is(mdb_dump_of($db, 'tx') . mdb_dump_of($db, 'block') . mdb_dump_of($db, 'feed'),
   $before, 'the index is exactly as before');

# so the rollback of a later block cannot delete it from block 1
($c, $o, $e) = load_index($db, { stdin => block(2, $tx[2]) . rollback(1) });
is($c, 0, 'block 2 without it, then rolled back') or diag($e);
ok(has($db, $ids[0]) && has($db, $ids[1]) && !has($db, $ids[2]),
   'block 1 keeps both its transactions, block 2 is undone');

# a pending transaction, then the block that confirms it
($c, $o, $e) = load_index($db, { stdin => "$pending\n" });
is($c, 0, 'a pending transaction') or diag($e);
(my $confirmed = $tx[3]) =~ s/"tx_id":"0x[0-9a-f]{64}"/"tx_id":"$pid"/g;
($c, $o, $e) = load_index($db, { stdin => block(2, $confirmed) });
is($c, 0, 'a block may list a pending transaction') or diag($e);

# the mirror, from a recorded upstream whose block 501 lists a
# transaction of block 500 again: it stops at block 501, says why, and
# keeps block 500 whole
{
    require ChainData::Upstream;
    my @docs = grep { !/"event_count":640/ } ChainData::Upstream::confirmed_docs();
    my $dup = ChainData::Upstream::derive_doc($docs[0], 'dup');
    (my $again = $dup) =~ s/"block_height":\d+/"block_height":501/;
    my $chain = ChainData::Upstream::make_chain(500,
        [[$dup, ChainData::Upstream::derive_doc($docs[1], 'a')],
         [ChainData::Upstream::derive_doc($docs[2], 'b'), $again]]);
    ChainData::Upstream::write_chain("$root/m", $chain);
    my $up = ChainData::Test::Nginx->start(
        locations => ChainData::Upstream::nginx_locations("$root/m"));
    my $mdb = "$root/mirror";
    ($c, $o, $e) = run_cmd([build_path('chaindata-mirror'), '--db', $mdb,
        '--stacks-api', 'http://127.0.0.1:' . $up->port . '/up', '--once',
        '--from-height', '500', '--no-mempool', '--retries', '0'], timeout => 120);
    isnt($c, 0, 'the mirror: block 501 listing a transaction of block 500 stops it');
    my $id = $dup =~ /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die;
    like($e, qr/block 501 of stacks: .*block 501 of stacks lists the transaction $id, which the index holds confirmed already/,
         'it says which block and which transaction');
    ok(has($mdb, $id), 'block 500 keeps it');
    $up->stop;
}

# a stream follower: the same block as a unit, refused, the index intact
SKIP: {
    skip 'nats-server is not installed', 5 unless -x ChainData::Nats::nats_server();
    my $ns = ChainData::Nats->start;
    like($ns->request('$JS.API.STREAM.CREATE.ONE',
        '{"name":"ONE","subjects":["chaindata.ONE"],"storage":"file"}'),
        qr/stream_create_response/, 'stream ONE created');
    my $n = 0;
    for my $unit (block(1, @tx[0, 1]), block(2, $tx[2], $tx[0]), rollback(1)) {
        $n++;
        $ns->request('chaindata.ONE', $unit, { 'Chaindata-Unit' => "u.$n",
            'Chaindata-Part' => 0, 'Chaindata-Parts' => 1 });
    }
    my $edge = "$root/edge";
    ($c, $o, $e) = load_index($edge, '--nats', $ns->url, '--stream', 'ONE', '--once');
    is($c, 1, 'a follower: the unit listing it again stops it, exit 1');
    like($e, qr/the unit ending at sequence 2 is refused: block 2 of stacks lists the transaction $ids[0], which the index holds confirmed already/,
         'it says which unit and why');
    ok(has($edge, $ids[0]) && has($edge, $ids[1]) && !has($edge, $ids[2]),
       'the index has block 1 only');
    my ($k) = unpack('H*', 'stream:ONE');
    like(mdb_dump_of($edge, 'feed'), qr/^ \Q$k\E\n 02[0-9a-f]{14}0100000000000000$/m,
         'its position is the unit before');
    $ns->stop;
}

done_testing();
