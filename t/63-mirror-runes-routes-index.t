#!/usr/bin/perl
# chaindata-mirror --catch-up fill of the real Runes API 3.0.2's small
# set (seed-runes --txs 5000 --runes 100 --addresses 4000 --airdrops 3,
# tip 840090), replayed from t/captures/runes-api-3.0.2/routes-index.gz
# (its README says how it was made): the index the capture of every
# route (routes.gz) is answered from.  Every block with activity gets its
# rune_block record (as many entries as the block's pages), every rune
# its etching as upstream served it.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(write_capture capture_path nginx_locations
                           runes_held served_etchings);

require_build();
my $CAPTURE = capture_path('runes-api-3.0.2') . '/routes-index.gz';
my $root = temp_dir();
my $answers = write_capture($root, $CAPTURE);
ok($answers > 4000, "capture $CAPTURE: $answers answers");
my $MIRROR = build_path('chaindata-mirror');

# the blocks with activity, and their entries, as the capture holds them
my %entries;
for my $f (glob "$root/up/runes/v1/blocks/*/activity/q=offset=0\\&limit=60") {
    my ($h) = $f =~ m{/blocks/(\d+)/};
    $entries{$h} = json_decode(slurp($f))->{total};
}
my @active = sort { $a <=> $b } grep { $entries{$_} } keys %entries;

my $ng = ChainData::Test::Nginx->start(
    locations => nginx_locations($root, captured => 1));
my $api = 'http://127.0.0.1:' . $ng->port . '/up';

# --parallel 16, as the capture was made (a balance list's pages are
# asked --parallel at a time, past its end too)
sub fill {
    my ($db) = @_;
    return run_cmd([$MIRROR, '--db', $db, '--runes-api', $api, '--once',
                    '--runes-from-height', '840000', '--catch-up', 'fill',
                    '--parallel', '16'], timeout => 300);
}

my ($code, $out, $err) = fill("$root/a");
is($code, 0, 'filled: exit 0') or diag($err);
like($err, qr/filled blocks 840000 to 840090 in 1 windows: 5000 transactions/,
     'filled: 91 blocks, 5,000 transactions');

my ($heights, $docs, undef, $count) = runes_held("$root/a");
is("@$heights", "@active", scalar(@active) . ' blocks with activity, each '
   . 'with its rune_block record');
is(join(' ', map { $count->{$_} // 0 } @active),
   join(' ', map { $entries{$_} } @active),
   'each with its entries, as many as its pages hold');
my $want = served_etchings($root);
is(scalar keys %$want, 101, 'the capture holds 101 etchings');
is_deeply($docs, $want, 'every etching as upstream served it');

$ng->stop;
done_testing();
