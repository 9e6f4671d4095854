#!/usr/bin/perl
# make test-upstream (not in CI): chaindata_runes, every route of the
# Runes API, against the real API run by ../shared/upstream, after growth
# and reorgs made by its runes-chain.  Skipped, with the reason, when the
# API does not answer or PEER_DIR (which runes-chain needs) is not set.
#
#   CHAINDATA_RUNES_API  the API's base URL (default http://127.0.0.1:3999)
#   PEER_DIR             setup-runes-upstream's work dir
#   CHAINDATA_SHARED_UPSTREAM  ../shared/upstream, if elsewhere
#
# The index is filled from the chain's first block (840000), so that it
# holds the whole history the derived lists need (doc/module.md, "Runes
# API"); then the chain grows and is reorganised, the mirror follows, and
# after each step every route is asked for what the step touched (its
# blocks, their runes and addresses) and compared with upstream, with
# the differences doc/api.md's table lists and nothing else:
# server_version; an address's activity `total`; holders' `total` and
# the order of their equal balances, and of an address's balances.  The
# chain is left grown.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";

use Test::More;
use HTTP::Tiny;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(runes_chain_do);

my $API = $ENV{CHAINDATA_RUNES_API} || 'http://127.0.0.1:3999';
my $CHAIN = ($ENV{CHAINDATA_SHARED_UPSTREAM} || repo_root() . '/../shared/upstream')
    . '/runes-chain';

my $http = HTTP::Tiny->new(keep_alive => 1, timeout => 60);

sub upstream {
    my ($path) = @_;
    my $r = $http->get("$API$path");
    return ($r->{status}, $r->{content} // '');
}

my ($st, $status) = upstream('/runes/v1/');
plan skip_all => "no Runes API at $API (../shared/upstream: "
    . "setup-runes-upstream start)"
    unless $st == 200 && $status =~ /"block_height":(\d+)/;
plan skip_all => "PEER_DIR (setup-runes-upstream's work dir) is not set"
    unless $ENV{PEER_DIR} && -s "$ENV{PEER_DIR}/peer.env";
plan skip_all => "no $CHAIN (CHAINDATA_SHARED_UPSTREAM names ../shared/upstream)"
    unless -x $CHAIN;

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $seed = 2000 + time % 100000;

sub chain { return runes_chain_do($CHAIN, $seed++, @_) }

my $root = temp_dir();
my $db = "$root/index";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index') or diag($err);
fixup_index_perms($db);
my $ng = ChainData::Test::Nginx->start(db => $db, locations =>
    "        location /runes {\n            chaindata_runes;\n        }\n");
my $port = $ng->port;

sub mirror {
    my (@o) = @_;
    my ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--runes-api',
        $API, '--once', '--runes-from-height', 840000, '--parallel', '8',
        @o], timeout => 3600);
    is($code, 0, "mirror @o: exit 0") or diag(substr($err, -2000));
}

# what a page's comparison sets aside (doc/api.md's table)
sub comparable {
    my ($path, $body) = @_;
    my $doc = eval { json_decode($body) };
    return $body unless ref $doc eq 'HASH';
    $doc->{server_version} = 'V' if exists $doc->{server_version};
    $doc->{total} = 'T'
        if $path =~ m{/addresses/[^/]+/(?:activity|balances)|/holders(?:\?|$)}
           || ref $doc->{results} eq 'ARRAY' && !@{ $doc->{results} };
    if ($path =~ m{/holders(?:\?|$)|/balances(?:\?|$)}
        && ref $doc->{results} eq 'ARRAY')
    {
        my @r = @{ $doc->{results} };
        my @b = map { $_->{balance} } @r;
        my %edge = map { $_ => 1 } @b ? @b[0, -1] : ();
        $doc->{balances} = join ',', @b;
        $doc->{results} = [sort map { json_encode_canonical($_) }
                           grep { !$edge{ $_->{balance} } } @r];
    }
    return json_encode_canonical($doc);
}

my ($n, $bad);
sub same {
    my ($what, $path) = @_;
    my ($us, $ub) = upstream($path);
    my $r = http_get($port, $path);
    $n++;
    return if $r->{status} == $us
              && comparable($path, $r->{body}) eq comparable($path, $ub);
    $bad++;
    diag("$what: $path: edge $r->{status} " . substr($r->{body}, 0, 160)
         . " / upstream $us " . substr($ub, 0, 160)) if $bad <= 30;
}

# every page of a list (60 a page) and its first default page
sub same_list {
    my ($what, $path) = @_;
    same($what, $path);
    my ($s, $b) = upstream("$path?offset=0&limit=60");
    my ($total) = $b =~ /"total":(\d+)/;
    $total //= 0;
    for (my $off = 0; $off < $total + 60; $off += 60) {
        same($what, "$path?offset=$off&limit=60");
    }
}

sub every_route {
    my ($what, @heights) = @_;
    ($n, $bad) = (0, 0);
    my (%runes, %addresses);
    same($what, '/runes/v1/');
    same($what, '/runes/');
    same_list($what, '/runes/v1/etchings');
    for my $h (@heights) {
        same_list($what, "/runes/v1/blocks/$h/activity");
        my ($s, $b) = upstream("/runes/v1/blocks/$h/activity?limit=60");
        my $d = eval { json_decode($b) } || {};
        my ($hash) = map { $_->{location}{block_hash} } @{ $d->{results} || [] };
        same($what, "/runes/v1/blocks/$hash/activity?limit=60") if $hash;
        for my $e (@{ $d->{results} || [] }) {
            $runes{ $e->{rune}{id} } = $e->{rune};
            $addresses{ $e->{address} } = $e->{rune}{id} if $e->{address};
            same($what, "/runes/v1/transactions/$e->{location}{tx_id}/activity");
        }
    }
    for my $id ((sort keys %runes)[0 .. 19]) {
        next unless defined $id;
        my $rune = $runes{$id};
        same($what, "/runes/v1/etchings/$id");
        same($what, "/runes/v1/etchings/$rune->{number}");
        same($what, "/runes/v1/etchings/$rune->{name}");
        same_list($what, "/runes/v1/etchings/$id/activity");
        same_list($what, "/runes/v1/etchings/$id/holders");
    }
    for my $a ((sort keys %addresses)[0 .. 29]) {
        next unless defined $a;
        my $id = $addresses{$a};
        same_list($what, "/runes/v1/addresses/$a/activity");
        same($what, "/runes/v1/addresses/$a/balances?limit=60");
        same($what, "/runes/v1/etchings/$id/activity/$a?limit=60");
        same($what, "/runes/v1/etchings/$id/holders/$a");
    }
    is($bad, 0, "$what: $n answers as upstream's ("
       . keys(%runes) . ' runes, ' . keys(%addresses) . ' addresses)');
}

sub tip { (upstream('/runes/v1/'))[1] =~ /"block_height":(\d+)/; $1 }

mirror('--catch-up', 'fill');
my $t0 = tip();
every_route('the chain filled', $t0);

for my $k (50, 500) {
    chain('append', 1, '--txs', $k);
}
mirror('--catch-up', 'replay');
every_route('blocks of 50 and 500 transactions', $t0 + 1, $t0 + 2);

chain('reorg', 2, 1, '--txs', 300);
mirror('--catch-up', 'replay');
every_route('reorg 2 -> 1', $t0 + 1);

chain('reorg', 1, 3, '--txs', 100);
mirror('--catch-up', 'replay');
every_route('reorg 1 -> 3', $t0 + 1, $t0 + 2, $t0 + 3);

$ng->stop;
done_testing();
