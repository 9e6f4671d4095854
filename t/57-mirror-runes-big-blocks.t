#!/usr/bin/perl
# chaindata-mirror following Runes blocks of many transactions, on answers
# the real Runes API 3.0.2 served (capture
# t/captures/runes-api-3.0.2/big-blocks.gz, its README says how it was
# made): block 844010 of 1,000 transactions (2,000 activity rows, 34
# pages) and block 844011 of 2,500 transactions whose activity is 5,000
# rows (84 pages, more than a round of 64 requests).  Following block by
# block (--catch-up replay) asks each transaction's activity from the
# transaction route: every one of the 3,500 transactions must be written
# with every entry upstream serves (the pages of a round used to end the
# lists that got no request in it: 936 and 2,436 transactions written
# empty), and the index must equal a fill's of the same blocks, which
# takes the activity from the block's pages (mdb_dump, but for what two
# runs write differently).  Both hold each block's activity as its
# rune_block record and the etching of every rune the blocks name, as
# upstream served it (the capture's /runes/v1/etchings/{id}: its README
# says how they were added).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_locations);
use ChainData::Upstream qw(write_capture capture_path captured_activity
                           nginx_locations index_dump runes_held
                           served_etchings);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $CAPTURE = capture_path('runes-api-3.0.2') . '/big-blocks.gz';

my $root = temp_dir();
my $answers = write_capture($root, $CAPTURE);
ok($answers > 9000, "capture $CAPTURE: $answers answers");

# what upstream serves for each transaction: its first page (none has
# more than 60 entries here), from the capture
my %tx = %{ captured_activity($root) };
my %rows = (844010 => 0, 844011 => 0);
for my $id (keys %tx) {
    my ($h) = $tx{$id} =~ /"block_height":(\d+)/;
    my ($n) = $tx{$id} =~ /"total":(\d+)/;
    $rows{$h} += $n;
}
is(scalar keys %tx, 3500, 'the capture holds 3,500 transactions');
is("$rows{844010} $rows{844011}", '2000 5000',
   'block 844010: 2,000 activity rows; block 844011: 5,000');

# the runes the blocks name, each with its etching in the capture
my %named;
for my $f (glob "$root/up/runes/v1/blocks/*/activity/q=*") {
    $named{ $_->{rune}{id} } = 1
        for @{ json_decode(slurp($f))->{results} };
}
my $etchings = served_etchings($root);
is(join(' ', sort keys %$etchings), join(' ', sort keys %named),
   'the capture holds the etching of each of the ' . keys(%named)
   . ' runes the blocks name');

my $db = "$root/replay";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);
my $fill = "$root/fill";
($code, $out, $err) = load_index($fill);
is($code, 0, 'second empty index created') or diag($err);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => rune_locations() . nginx_locations($root, captured => 1),
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

sub mirror {
    my ($dir, @o) = @_;
    return run_cmd([$MIRROR, '--db', $dir, '--runes-api', $api, '--once',
                    '--runes-from-height', '844010', '--parallel', '8', @o],
                   timeout => 600);
}

($code, $out, $err) = mirror($db, '--catch-up', 'replay');
is($code, 0, 'followed block by block: exit 0') or diag($err);
unlike($err, qr/filling/, 'followed, not filled');
like($err, qr/height=844011 .*txs=3500/, 'both blocks followed: 3,500 transactions');

# the edge answers each transaction as upstream does
my ($bad, $empty) = (0, 0);
for my $id (sort keys %tx) {
    my $r = http_get($port, "/runes/v1/transactions/$id/activity?offset=0&limit=60");
    next if $r->{status} == 200 && $r->{body} eq $tx{$id};
    $bad++;
    $empty++ if $r->{body} =~ /"total":0,/;
    diag("$id: $r->{status} " . substr($r->{body}, 0, 80)) if $bad <= 3;
}
is($bad, 0, "followed: the edge answers all 3,500 transactions as upstream "
   . "($empty written empty)");

($code, $out, $err) = mirror($fill, '--catch-up', 'fill');
is($code, 0, 'filled: exit 0') or diag($err);
like($err, qr/filled blocks 844010 to 844011 in 1 windows: 3500 transactions/,
     'filled: every transaction');
my ($r, $f) = (index_dump($db, 'fill'), index_dump($fill, 'fill'));
ok($r =~ /database=rune_activity/ && $r =~ /database=rune_balances/,
   'the followed index holds the lists');
ok($r eq $f, 'followed index = filled index (mdb_dump)');
my ($heights, $docs) = runes_held($db);
is("@$heights", '844010 844011', 'a rune_block record each block');
ok(keys %$docs == keys %$etchings
   && !grep({ ($docs->{$_} // '') ne $etchings->{$_} } keys %$etchings),
   'the etching of every rune, as upstream served it');

$ng->stop;
done_testing();
