#!/usr/bin/perl
# Block framing in chaindata-load (lmdb-schema/feed.md): a block applies
# whole with its feed position, a replayed block is left out, a gap or a
# foreign parent is refused, a rollback undoes blocks from the index's own
# records, a block cut short is not applied; --follow commits as it reads.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my @txs = grep { !$_->{mempool} } tx_fixtures(fixture_path('tx.ndjson'));
ok(@txs >= 4, 'fixtures present') or BAIL_OUT('fixtures incomplete');
my @id = map { $_->{tx_id} } @txs;

sub tx { return qq({"kind":"tx","data":$txs[$_[0]]{data_raw}}\n) }
sub block {
    my ($h, $hash, $parent) = @_;
    return qq({"kind":"block","source":"stacks","height":$h,"hash":"$hash","parent":"$parent","time":${\ (1000 + $h)}}\n);
}
sub bend { return qq({"kind":"block_end","source":"stacks","height":$_[0]}\n) }

my $db = temp_dir() . '/index';
sub load { my ($in, @a) = @_; return load_index($db, @a, '-', { stdin => $in }) }
sub feed {
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feeds} };
    return $f ? "$f->{height} $f->{hash}" : 'none';
}
sub has {
    my ($id) = @_;
    my ($c, $o) = run_cmd(['mdb_dump', '-s', 'tx', $db]);
    (my $hex = $id) =~ s/^0x//;
    return $o =~ /^ \Q$hex\E$/m ? 1 : 0;
}

my ($code, $out, $err) = load(block(10, 'a10', 'a9') . tx(0) . tx(1) . bend(10)
    . block(11, 'a11', 'a10') . tx(2) . bend(11), '--follow');
is($code, 0, 'two blocks: exit 0') or diag($err);
like($err, qr/2 blocks, 0 rollbacks/, 'two blocks: summary');
is(feed(), '11 a11', 'position: block 11');
ok(has($id[0]) && has($id[2]), 'the blocks are applied');

($code, $out, $err) = load(block(11, 'a11', 'a10') . tx(3) . bend(11));
is($code, 0, 'replayed block: exit 0') or diag($err);
ok(!has($id[3]), 'replayed block: its records are left out');

($code, $out, $err) = load(block(13, 'a13', 'a12') . tx(3) . bend(13));
is($code, 1, 'gap: exit 1');
like($err, qr/block 13 of stacks leaves a gap after the committed block 11/, 'gap: says why');
($code, $out, $err) = load(block(12, 'b12', 'b11') . tx(3) . bend(12));
is($code, 1, 'foreign parent: exit 1');
like($err, qr/parent of block 12 of stacks is not the committed block 11/, 'foreign parent: says why');
($code, $out, $err) = load(qq({"kind":"block","source":"Stacks","height":12,"hash":"a12","parent":"a11","time":1}\n));
is($code, 1, 'bad source: exit 1');
like($err, qr/block\.source must be made of a-z, 0-9, _ and -/, 'bad source: says why');
($code, $out, $err) = load(qq({"kind":"block_end","source":"stacks","height":12,"x":1}\n));
like($err, qr/block_end has an unexpected member "x"/, 'unknown member: says which');
($code, $out, $err) = load(block(12, 'a12', 'a11') . tx(3));
is($code, 1, 'block cut short: exit 1');
like($err, qr/ends inside block 12 of stacks/, 'block cut short: says why');
ok(!has($id[3]) && feed() eq '11 a11', 'block cut short: not applied');

($code, $out, $err) = load(qq({"kind":"rollback","source":"stacks","height":10}\n)
    . block(11, 'b11', 'a10') . tx(3) . bend(11));
is($code, 0, 'rollback and a new block 11: exit 0') or diag($err);
ok(!has($id[2]), 'rollback: the orphaned block is undone');
ok(has($id[0]) && has($id[3]), 'rollback: the fork point stays, the new block is applied');
is(feed(), '11 b11', 'position: the new block 11');

($code, $out, $err) = load(qq({"kind":"rollback","source":"stacks","height":5}\n));
is($code, 0, 'rollback before the first block: exit 0') or diag($err);
is(feed(), 'none', 'rollback before the first block: no position');
ok(!has($id[0]) && !has($id[3]), 'rollback before the first block: every block undone');

# a replay leaves out its own records, not those after its block_end
($code, $out, $err) = load(block(20, 'c20', 'c19') . bend(20));
is($code, 0, 'block 20: exit 0') or diag($err);
($code, $out, $err) = load(block(20, 'c20', 'c19') . tx(1) . bend(20) . tx(3));
is($code, 0, 'replayed block, then a record: exit 0') or diag($err);
ok(!has($id[1]), 'replayed block: its record is left out');
ok(has($id[3]), 'the record after the replayed block is applied');

done_testing();
