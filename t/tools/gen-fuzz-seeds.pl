#!/usr/bin/perl
# Writes the seed corpora of the request-target fuzz targets
# (t/fuzz/corpus/{tx,runes,chainhook,migration}/) from the fixtures and
# the cases the route tests use.  Deterministic: run it again after the
# fixtures change, and commit what it writes.
#
#   perl t/tools/gen-fuzz-seeds.pl
#
# Input layouts (see each t/fuzz/fuzz_*.c):
#   tx         "path?query"
#   runes      one byte (even: activity, odd: balances), "path?query"
#   chainhook  one byte (odd: the target as sent, even: a decoded URI),
#              then the target
#   migration  one byte (index into the target's location prefixes: 0
#              "/ordinals/", 2 "/ordinals/v1", 6 none), "path?query"

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";

use File::Path qw(make_path remove_tree);
use ChainData::Test qw(fixture_records slurp spew);

my $root = "$FindBin::Bin/../fuzz/corpus";

sub corpus {
    my ($target, @seeds) = @_;
    my $dir = "$root/$target";
    remove_tree($dir);
    make_path($dir);
    my %seen;
    my $n = 0;
    for my $s (grep { !$seen{$_}++ } @seeds) {
        spew(sprintf('%s/seed-%02d', $dir, ++$n), $s);
    }
    print "$target: $n seeds\n";
}

# ---------------------------------------------------------------- tx

my @tx = grep { defined $_->{tx_id} }
         map { fixture_records(ChainData::Test::fixture_path($_)) }
         qw(tx.ndjson tx-many-events.ndjson);
my ($id) = map { $_->{tx_id} } @tx;
(my $bare = $id) =~ s/^0x//;

corpus('tx',
    "/extended/v1/tx/$id",
    "/extended/v1/tx/$bare",
    "/extended/v1/tx/\U$id",
    "/extended/v1/tx/$id?event_limit=5&event_offset=2",
    "/extended/v1/tx/$id?event_limit=0&exclude_function_args=true",
    "/extended/v1/tx/$id?unanchored=false&event_offset=18446744073709551616",
    "/extended/v1/tx/$id?event_limit=101",
    "/extended/v1/tx/$id?event_limit=-0&event_offset=-1",
    "/extended/v1/tx/$id?event_limit=1&event_limit=2",
    "/extended/v1/tx/$id?event_limit=%31%30&exclude_function_args=%74rue",
    "/extended/v1/tx/$id?event_offset=1%2&event_limit=%4z1",
    "/extended/v1/tx/$bare?event_limit=5",
    "/extended/v1/tx/0xZZ",
    "/extended/v1/tx/",
    "/a/b/$id?exclude_function_args=yes",
    "/extended/v1/tx/$id/?event%5Flimit=+2&event_offset=0x1F",
    "/extended/v1/tx/$id?event_limit=1.0e1&event_offset=%20%C2%A07%E2%80%A8",
    "/extended/v1/tx/$bare/?event_limit=0b11&event_offset=0o17&event_limit=1",
);

# ---------------------------------------------------------------- runes

my @runes = fixture_records(ChainData::Test::fixture_path('runes.ndjson'));
my ($rtx) = map { $_->{doc}{tx_id} } grep { $_->{kind} eq 'rune_activity' } @runes;
my @addr = map { $_->{doc}{address} } grep { $_->{kind} eq 'rune_balances' } @runes;
my %addr_seen;
@addr = grep { defined && !$addr_seen{$_}++ } @addr;

corpus('runes',
    "\x00/runes/v1/transactions/$rtx/activity",
    "\x00/runes/v1/transactions/\U$rtx\E/activity?offset=1&limit=60",
    "\x00/runes/v1/transactions/$rtx/activity?offset=-0&limit=-0",
    "\x00/runes/v1/transactions/$rtx/activity?offset=99999999999999999999999&limit=61",
    "\x00/runes/v1/transactions/$rtx/activity?limit=1&limit=2",
    "\x00/runes/v1/transactions/$rtx/activity?offset=000120&limit=1.5",
    "\x00/runes/v1/transactions/0x$rtx/activity",
    "\x00/runes/v1/transactions/activity",
    "\x00/activity",
    "\x00/runes/v1/transactions/$rtx/balances",
    (map { "\x01/runes/v1/addresses/$_/balances?offset=0&limit=20" }
         @addr[0 .. ($#addr < 5 ? $#addr : 5)]),
    "\x01/runes/v1/addresses/\U$addr[-1]\E/balances",
    "\x01/runes/v1/addresses/" . ('1' x 91) . "/balances",
    "\x01/runes/v1/addresses//balances?offset=%31",
    "\x00/runes/v1/transactions/$rtx/activity?offset=%2B2&limit=.5e1",
    "\x00/runes/v1/transactions/$rtx/activity?%6Fffset=1e21&limit=Infinity",
    "\x01/runes/v1/addresses/$addr[0]/balances?offset=0x20000000000001&limit=%09%35",
);

# ---------------------------------------------------------------- chainhook

my @hooks = grep { $_->{kind} eq 'chainhook' && defined $_->{doc}{api_key} }
            fixture_records(ChainData::Test::fixture_path('chainhook.ndjson'));
my ($hook) = @hooks;
my ($uuid, $key) = ($hook->{doc}{uuid}, $hook->{doc}{api_key});
my ($odd) = grep { $_->{doc}{api_key} =~ m{[/?% ]} } @hooks;
(my $odd_key = $odd->{doc}{api_key})
    =~ s/([^A-Za-z0-9\-._~])/sprintf('%%%02X', ord $1)/ge;

corpus('chainhook',
    "\x01/v1/ext/$key/chainhooks/$uuid/status",
    "\x00/v1/ext/$key/chainhooks/$uuid/status",
    "\x01/v1/ext/$odd_key/chainhooks/$odd->{doc}{uuid}/status?x=1",
    "\x01/v1/ext/$key/chainhooks/\U$uuid\E/status",
    "\x01/v1/ext//chainhooks/$uuid/status",
    "\x01/v1/ext/" . ('k' x 129) . "/chainhooks/$uuid/status",
    "\x01/v1/ext/" . ('%41' x 129) . "/chainhooks/$uuid/status",
    "\x01/v1/ext/$key/chainhooks/{$uuid}/status",
    "\x01/v1/ext/$key/chainhooks/$uuid/status/extra",
    "\x01/V1/%65xt/$key/ChainHooks/$uuid/status",
    "\x01/v1/ext/$key",
    "\x01/hooks/$key/chainhooks/$uuid/status",
    "\x01/v1/ext/v1/ext/$key?q=/v1/ext/x#frag",
    "\x01http://host/v1/ext/$key/chainhooks/$uuid/status?a=b",
    "\x01*",
    "\x00/v1/ext/a/b/c/chainhooks/chainhooks/status",
);

# ---------------------------------------------------------------- migration

corpus('migration',
    "\x00/ordinals/",
    "\x00/ordinals/v1/inscriptions?limit=1&before=2&tag=x&tag=y",
    "\x00/ordinals/v1/inscriptions/abc123i0",
    "\x00/ordinals/inscriptions/abc123i0/content",
    "\x00/ordinals/v1/inscriptions/abc123i0/sat",
    "\x00/ordinals/v1/inscriptions/block-height/840000?offset=20",
    "\x00/ordinals/v1/inscriptions/block-hash/00000000000000000002a7c4c1e48d76c5a37902165a270156b7a8d72728a054",
    "\x00/ordinals/v1/inscriptions/block-height/content",
    "\x00/ordinals/v1/collections?limit=100&offset=0",
    "\x00/ordinals/v1/collections/bitcoin-puppets/inscriptions",
    "\x00/ordinals/v1/stats",
    "\x00/ordinals/v1/brc-20/tokens?limit=5",
    "\x00/ordinals/v1/brc-20/tokens/ordi",
    "\x00/ordinals/v1/brc-20/tokens/%F0%9F%90%B8/holders",
    "\x00/ordinals/v1/brc-20/tokens/ordi/events?event_type=mint",
    "\x00/ordinals/v1/brc-20/balances/bc1qa667e6hcnwx2p4rm2vr08cla79ka8g2mkvvcd9?ticker=ordi&limit=1&%6Cimit=2&x%3Dy=1",
    "\x00/ordinals/v1/inscriptions/\xff\xfe",
    "\x00/ordinals/v1/inscriptions/" . ('i' x 257),
    "\x00/ordinals/v1/inscriptions/..",
    "\x00/ordinals/v1/nothing/here",
    "\x02/ordinals/v1/collections/c?q=%zz&r=%41",
    "\x06/ordinals/v1/stats",
    "\x06/v1/brc-20/tokens/ordi",
);
