#!/usr/bin/perl
# make test-upstream (not in CI): chaindata-mirror against the real Runes
# API run by ../shared/upstream (setup-runes-upstream, seed-runes: its
# README), over growth and reorgs made by its runes-chain.  Skipped, with
# the reason, when the API does not answer or PEER_DIR (the upstream's
# work dir, which runes-chain needs) is not set.
#
#   CHAINDATA_RUNES_API  the API's base URL (default http://127.0.0.1:3999)
#   PEER_DIR             setup-runes-upstream's work dir
#   CHAINDATA_SHARED_UPSTREAM  ../shared/upstream, if elsewhere
#
# The chain grows by blocks of 50, 200, 500 and 1,000 transactions; one
# index follows them block by block (--catch-up replay), another fills
# them (--catch-up fill): the two must be equal (mdb_dump, but for what
# two runs write differently: lmdb-schema/feed.md), and the edge must
# answer every transaction and address the blocks name as upstream does,
# answer for answer (activity byte for byte; balances byte for byte, or
# the same entries when upstream orders equal balances otherwise: it has
# no tie-breaker).  Then reorgs at the tip (2 blocks replaced by 1, by 3),
# followed by both, and compared again.  The one expected difference: a
# transaction orphaned before the mirror saw it, which upstream answers
# empty, is a 503 at the edge, whose index starts above the chain's first
# block and cannot tell (doc/module.md).  The chain is left grown (each
# run grows it).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";

use Test::More;
use HTTP::Tiny;
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_locations);
use ChainData::Upstream qw(runes_chain_do index_dump json_canonical RUNES_LIMITS);

my $API = $ENV{CHAINDATA_RUNES_API} || 'http://127.0.0.1:3999';
my $CHAIN = ($ENV{CHAINDATA_SHARED_UPSTREAM} || repo_root() . '/../shared/upstream')
    . '/runes-chain';

my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 60,
                           default_headers => { Accept => 'application/json' });

sub upstream_get {
    my ($path) = @_;
    my $r = $http->get("$API$path");
    return $r->{success} ? $r->{content} : undef;
}

my $status = upstream_get('/runes/v1/');
plan skip_all => "no Runes API at $API (../shared/upstream: "
    . "setup-runes-upstream start)"
    unless defined $status && $status =~ /"block_height":(\d+)/;
plan skip_all => "PEER_DIR (setup-runes-upstream's work dir) is not set"
    unless $ENV{PEER_DIR} && -s "$ENV{PEER_DIR}/peer.env";
plan skip_all => "no $CHAIN (CHAINDATA_SHARED_UPSTREAM names ../shared/upstream)"
    unless -x $CHAIN;

require_build();
my $MIRROR = build_path('chaindata-mirror');
my ($T0) = $status =~ /"block_height":(\d+)/;
my $seed = 1000 + time % 100000;       # never seed-runes' own seed

# runes-chain OP ARGS: its JSON line (--keys: the keys it touched)
sub chain { return runes_chain_do($CHAIN, $seed++, @_) }

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

# the transactions the chain's changes named (orphaned ones too), and the
# addresses a transaction of the chain names (once named, the index holds
# their lists)
my (%txs, %addresses);
sub keys_of {
    my ($r) = @_;
    $txs{$_} = 1 for @{ $r->{txids} || [] }, @{ $r->{orphaned_txids} || [] };
}

# a list's entries over its pages of $limit, to the first short page
sub pages_of {
    my ($get, $path, $limit) = @_;
    my @all;
    for (my $off = 0; ; $off += $limit) {
        my $d = eval { json_decode($get->("$path?offset=$off&limit=$limit")) };
        return undef unless $d && ref $d->{results} eq 'ARRAY';
        push @all, @{ $d->{results} };
        return \@all if @{ $d->{results} } < $limit;
    }
}

# a balance list as a set: rune id => entry
sub balance_set {
    my %s = map { $_->{rune}{id} => json_canonical($_) } map { @$_ } grep { $_ } @_;
    return json_canonical(\%s);
}

# activity page by page, byte for byte; balances as the whole list's
# entries (doc/api.md: the edge's "total" counts entries, upstream's its
# history rows; upstream orders equal balances in no fixed order, so its
# pages of 60 may repeat one and skip another: the other page sizes
# the mirror pages with too, until they hold the edge's)
sub same_as_upstream {
    my ($what) = @_;
    my ($n, $bad, $partial) = (0, 0, 0);
    my $edge = sub { http_get($port, $_[0])->{body} };
    for my $id (sort keys %txs) {
        my $path = "/runes/v1/transactions/$id/activity";
        for (my $off = 0; ; $off += 60) {
            my $q = "$path?offset=$off&limit=60";
            my $up = upstream_get($q) // '';
            my $r = http_get($port, $q);
            my $e = $r->{body};
            $n++;
            # a transaction the index never held (orphaned before the
            # mirror saw it): the index starts above the chain's first
            # block, so it cannot tell, a 503 (doc/module.md)
            if ($up =~ /"total":0,/ && $r->{status} == 503
                && $e =~ /holds blocks from \d+ on, not from the chain's first/)
            {
                $partial++;
            } elsif ($e ne $up) {
                $bad++;
                diag("$what: $q: edge " . substr($e, 0, 120) . ' / upstream '
                     . substr($up, 0, 120)) if $bad <= 3;
            }
            my ($total) = $up =~ /"total":(\d+)/;
            last if !$total || $off + 60 >= $total;
        }
        # the addresses the chain names now: their lists are the index's
        my $d = eval { json_decode(upstream_get("$path?offset=0&limit=60")) };
        for my $e (@{ $d->{results} || [] }) {
            $addresses{$_} = 1 for grep { defined } $e->{address}, $e->{receiver_address};
        }
    }
    for my $a (sort keys %addresses) {
        my $path = "/runes/v1/addresses/$a/balances";
        my $e = balance_set(pages_of($edge, $path, 60));
        my (@up, $up);
        for my $limit (RUNES_LIMITS) {     # the mirror's page sizes
            push @up, pages_of(\&upstream_get, $path, $limit);
            $up = balance_set(@up);
            last if $up eq $e;
        }
        $n++;
        next if $e eq $up;
        $bad++;
        diag("$what: $path: edge " . substr($e, 0, 100) . ' / upstream '
             . substr($up, 0, 100)) if $bad <= 6;
    }
    is($bad, 0, "$what: the edge answers as upstream: " . keys(%txs)
       . ' transactions page by page, ' . keys(%addresses) . ' balance lists'
       . " ($partial unknown to an index that starts at "
       . ($T0 + 1) . ': 503)');
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
