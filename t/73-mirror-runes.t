#!/usr/bin/perl
# chaindata-mirror --runes-api against a recorded Runes API
# (ChainData::Upstream write_runes: runehook's served shapes): blocks with
# and without activity, a transaction of 150 entries (3 pages), chain
# growth, a reorg at the tip (the orphaned block's activity goes, the
# balances it wrote are fetched again), and an address of 61 balances whose
# pages of 60 repeat one rune and skip another (upstream orders balances by
# balance alone): the mirror notices and stores the complete list.  After
# each run the edge serves every list as upstream pages it.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Digest::SHA qw(sha256_hex);
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_lists rune_locations);
use ChainData::Upstream qw(write_runes runes_page btc_hash nginx_locations);

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
my %bad61 = ($path61 => {
    'offset=0&limit=60'  => runes_page([@b61[0 .. 58], $b61[60]], 0, 60) =~ s/"total":60/"total":61/r,
    'offset=60&limit=60' => runes_page([(undef) x 60, $b61[60]], 60, 60),
});
$bad61{$path61}{'offset=0&limit=60'} =~ s/"offset":0,"total":\d+/"offset":0,"total":61/;
my %balances = (%bal, $a61 => \@b61);
# what the mirror stores: upstream's order, the tie in the order first seen
my %expect_bal = (%bal, $a61 => [@b61[0 .. 58], $b61[60], $b61[59]]);

my $root = temp_dir();
my $db = "$root/index";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => "    limit_req_zone \$binary_remote_addr zone=up:1m rate=200r/s;\n",
    locations => rune_locations() . nginx_locations($root, burst => 20),
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
    $lists{$_} = [] for keys %gone;
    for my $path (sort keys %lists) {
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
# the 130 balances it wrote are fetched again with the new block
my $other = derived_tx('fork', $a1);
my @fork = (@chain[0 .. 2], block(840303, 'b', $other), block(840304, ''));
write_runes($root, [@fork], \%balances);
($code, $out, $err) = mirror();
is($code, 0, 'reorg: exit 0') or diag($err);
like($err, qr/reorg: runes blocks above 840302/, 'reorg: rolled back to the fork point');
edge_equals_upstream(\@fork, 'reorg', "/runes/v1/transactions/$d130->[0]/activity" => 1);
is(http_get($port, "/runes/v1/addresses/$a130/balances?offset=0&limit=60")->{body},
   runes_page($bal{$a130}, 0, 60), 'reorg: the orphaned block\'s balances are fetched again');
is(feed(), '840304 none', 'reorg: at 840304, a block without activity');

# 4. upstream behind the index (another node, restarted): nothing is
# rolled back, the mirror waits
write_runes($root, [@fork[0 .. 2]], \%balances);
($code, $out, $err) = mirror();
is($code, 0, 'upstream behind: exit 0') or diag($err);
unlike($err, qr/reorg/, 'upstream behind: no reorg');
is(feed(), '840304 none', 'upstream behind: the position stays');

$ng->stop;
done_testing();
