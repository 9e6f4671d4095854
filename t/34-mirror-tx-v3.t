#!/usr/bin/perl
# The mirror fills what the v3 transaction routes need: each transaction
# record carries its block's index_block_hash and parent_index_block_hash
# from the block's answer it reads anyway (/extended/v2/blocks/{h}), so
# chaindata_tx_v3 serves what it mirrored with no request more than v1's.

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
my $chain = ChainData::Upstream::make_chain(700,
    [[ChainData::Upstream::derive_doc($docs[0], 'v3a')],
     [ChainData::Upstream::derive_doc($docs[1], 'v3b'),
      ChainData::Upstream::derive_doc($docs[2], 'v3c')]]);
ChainData::Upstream::write_chain("$root/m", $chain);
my $up = ChainData::Test::Nginx->start(
    locations => ChainData::Upstream::nginx_locations("$root/m"));
my $db = "$root/idx";
my ($c, $o, $e) = run_cmd([build_path('chaindata-mirror'), '--db', $db,
    '--stacks-api', 'http://127.0.0.1:' . $up->port . '/up', '--once',
    '--from-height', '700', '--no-mempool', '--retries', '0'], timeout => 120);
is($c, 0, 'the mirror follows the chain') or diag($e);
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
$ng->stop;

done_testing();
