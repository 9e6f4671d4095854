#!/usr/bin/perl
# make test-upstream (not in CI): chaindata-mirror against the real Runes
# API run by ../shared/upstream (setup-runes-upstream, seed-runes: its
# README), over growth and reorgs made by its runes-chain.  Skipped, with
# the reason, when the API does not answer or PEER_DIR (the upstream's
# work dir, which runes-chain needs) is not set.
#
#   CHAINDATA_RUNES_API  the API's base URL (default http://127.0.0.1:3999)
#   PEER_DIR             setup-runes-upstream's work dir
#   CHAINDATA_SHARED     ../shared (default: beside the project root)
#
# The chain grows by blocks of 50, 200, 500 and 1,000 transactions; one
# index follows them block by block (--catch-up replay), another fills
# them (--catch-up fill): the two must be equal (mdb_dump, but for what
# two runs write differently: lmdb-schema/feed.md), and the edge must
# answer every transaction and address the blocks name as upstream does,
# answer for answer (activity byte for byte; balances byte for byte, or
# the same entries when upstream orders equal balances otherwise: it has
# no tie-breaker).  Then reorgs at the tip (2 blocks replaced by 1, by 3),
# followed by both, and compared again; the orphaned transactions answer
# empty, as upstream's.  The chain is left grown (each run grows it).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_locations);
use ChainData::Upstream qw(index_dump json_canonical);

my $API = $ENV{CHAINDATA_RUNES_API} || 'http://127.0.0.1:3999';
my $SHARED = $ENV{CHAINDATA_SHARED} || repo_root() . '/../shared';
my $CHAIN = "$SHARED/upstream/runes-chain";

sub upstream_get {
    my ($path) = @_;
    my $body = `curl -sS --max-time 60 -H 'Accept: application/json' '$API$path'`;
    return $? == 0 ? $body : undef;
}

my $status = upstream_get('/runes/v1/');
plan skip_all => "no Runes API at $API (../shared/upstream: "
    . "setup-runes-upstream start)"
    unless defined $status && $status =~ /"block_height":(\d+)/;
plan skip_all => "PEER_DIR (setup-runes-upstream's work dir) is not set"
    unless $ENV{PEER_DIR} && -s "$ENV{PEER_DIR}/peer.env";
plan skip_all => "no $CHAIN (CHAINDATA_SHARED names ../shared)"
    unless -x $CHAIN;

require_build();
my $MIRROR = build_path('chaindata-mirror');
my ($T0) = $status =~ /"block_height":(\d+)/;
my $seed = 1000 + time % 100000;       # never seed-runes' own seed

# runes-chain OP ARGS: its JSON line (--keys: the keys it touched)
sub chain {
    my @args = @_;
    my $out = `'$CHAIN' @args --keys --seed ${\ $seed++ }`;
    die "runes-chain @args failed\n" if $?;
    return json_decode((split /\n/, $out)[-1]);
}

my $root = temp_dir();
my ($follow, $fill) = ("$root/follow", "$root/fill");
for my $db ($follow, $fill) {
    my ($code, $out, $err) = load_index($db);
    is($code, 0, "empty index $db") or diag($err);
}
fixup_index_perms($follow);
my $ng = ChainData::Test::Nginx->start(db => $follow,
                                       locations => rune_locations());
my $port = $ng->port;

sub mirror {
    my ($db, @o) = @_;
    my ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--runes-api',
        $API, '--once', '--runes-from-height', $T0 + 1, '--parallel', '8',
        @o], timeout => 1800);
    is($code, 0, "mirror @o: exit 0") or diag(substr($err, -2000));
    return $err;
}

# the lists the chain's changes named, as upstream and the edge serve them
my (%txs, %addresses);
sub keys_of {
    my ($r) = @_;
    $txs{$_} = 1 for @{ $r->{txids} || [] }, @{ $r->{orphaned_txids} || [] };
    $addresses{$_} = 1 for @{ $r->{address_list} || [] };
}

sub entries_sorted {
    my ($body) = @_;
    my $d = eval { json_decode($body) } or return $body;
    return join "\n", sort map { json_canonical($_) } @{ $d->{results} };
}

sub same_as_upstream {
    my ($what) = @_;
    my ($n, $bad, $ties) = (0, 0, 0);
    my @paths = ((map { "/runes/v1/transactions/$_/activity" } sort keys %txs),
                 (map { "/runes/v1/addresses/$_/balances" } sort keys %addresses));
    for my $path (@paths) {
        for (my $off = 0; ; $off += 60) {
            my $q = "$path?offset=$off&limit=60";
            my $up = upstream_get($q);
            my $edge = http_get($port, $q);
            $n++;
            my $page = eval { json_decode($up // '') } || {};
            my $got = @{ $page->{results} || [] };
            if (!defined $up || $edge->{status} != 200) {
                $bad++;
            } elsif ($edge->{body} ne $up) {
                if ($path =~ /balances$/
                    && entries_sorted($edge->{body}) eq entries_sorted($up))
                {
                    $ties++;
                } else {
                    $bad++;
                    diag("$what: $q: edge " . substr($edge->{body}, 0, 120)
                         . ' / upstream ' . substr($up, 0, 120)) if $bad <= 3;
                }
            }
            last if $got < 60;     # balances' "total" counts history rows
        }
    }
    is($bad, 0, "$what: the edge answers as upstream, all $n pages "
       . "($ties balance pages ordering equal balances otherwise)");
}

sub same_index {
    my ($what) = @_;
    my ($a, $b) = (index_dump($follow), index_dump($fill));
    ok($a =~ /database=rune_activity/, "$what: the followed index holds the lists");
    ok($a eq $b, "$what: followed index = filled index (mdb_dump)");
}

sub both {
    my ($what, $fill_mode) = @_;
    my $err = mirror($follow, '--catch-up', 'replay');
    like($err, qr/level=info source=runes height=\d+/, "$what: followed");
    mirror($fill, '--catch-up', $fill_mode);
    same_index($what);
    same_as_upstream($what);
}

# growth: blocks of 50 to 1,000 transactions
for my $k (50, 200, 500, 1000) {
    keys_of(chain('append', 1, '--txs', $k));
}
both('blocks of 50 to 1,000 transactions', 'fill');

# a reorg replacing the top 2 blocks by 1 (upstream's tip goes down)
keys_of(chain('reorg', 2, 1, '--txs', 300));
both('reorg 2 -> 1', 'auto');

# growth, then the top 2 replaced by 3
keys_of(chain('append', 2, '--txs', 100));
keys_of(chain('reorg', 2, 3, '--txs', 150));
both('reorg 2 -> 3', 'auto');

$ng->stop;
done_testing();
