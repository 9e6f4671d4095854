#!/usr/bin/perl
# The path parameters of the rune routes: tx_id (^[a-fA-F0-9]{64}$, any
# case) and address (Bitcoin base58 or bech32/bech32m, by length and
# characters, before any lookup).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(:all);

require_build();

my $TXID_BODY = '{"statusCode":400,"error":"Bad Request",'
    . '"message":"params/tx_id must match pattern \"^[a-fA-F0-9]{64}$\""}';

my $fx = fixture_path('runes.ndjson');
my $L = rune_lists($fx);
my $db = new_index($fx);
my $ng = ChainData::Test::Nginx->start(db => $db, locations => rune_locations());
my $port = $ng->port;
my $paths = rune_paths();

sub get { return http_get($port, $_[0]) }

# ---------------------------------------------------------------- tx_id

{
    my ($tx) = grep { @{ $L->{activity}{$_} } == 5 } keys %{ $L->{activity} };
    ok($tx, 'fixture: a 5-entry activity list');
    my @bad = (
        [substr($tx, 1), '63 hex digits'],
        [$tx . 'a', '65 hex digits'],
        [substr($tx, 0, 63) . 'g', 'a non-hex character'],
        ["0x$tx", '0x prefix'],
        ['0x' . substr($tx, 2), '0x prefix, 64 characters in all'],
        ['', 'empty'],
        ['xyz', 'a word'],
        [substr($tx, 0, 32) . '-' . substr($tx, 33), 'a dash'],
        [substr($tx, 0, 62) . '%C3%A9', 'UTF-8 inside'],
        [substr($tx, 0, 63) . '%20', 'a space'],
        ['%20' x 64, 'spaces'],
    );
    for my $b (@bad) {
        my ($id, $name) = @$b;
        my $r = get("/runes/v1/transactions/$id/activity");
        is($r->{status}, 400, "tx_id $name: 400");
        is($r->{body}, $TXID_BODY, "tx_id $name: body (no \"code\" member)");
        is($r->{headers}{deprecation}, DEPRECATION_AT, "tx_id $name: Deprecation");
    }
    for my $id ($tx, uc $tx, ucfirst $tx) {
        my $r = get($paths->{activity}->($id));
        is($r->{status}, 200, "tx_id $id: 200");
        is($r->{body}, expected_page($L->{activity}{$tx}, 0, 20), "tx_id $id: the list");
    }
    # percent-encoded hex digits are the same id
    (my $enc = $tx) =~ s/^(.)/sprintf('%%%02X', ord $1)/e;
    is(get($paths->{activity}->($enc))->{body}, expected_page($L->{activity}{$tx}, 0, 20),
        'percent-encoded tx_id');
}

# ---------------------------------------------------------------- addresses

my $ADDR_RE = qr/^\{"statusCode":400,"error":"Bad Request","message":"params\/address must be a Bitcoin address[^"]*"\}\z/;

# every stored address, as stored, and in upper case when bech32
for my $key (sort keys %{ $L->{balances} }) {
    my $given = $L->{address}{$key};
    my $want = expected_page($L->{balances}{$key}, 0, 20);
    my $r = get($paths->{balances}->($given));
    is($r->{status}, 200, "address $given: 200");
    is($r->{body}, $want, "address $given: its balances");
    if ($key =~ /^(?:bc|tb|bcrt)1/) {
        my $u = get($paths->{balances}->(uc $given));
        is($u->{body}, $want, "address $given in upper case: the same balances");
        is($u->{headers}{etag}, $r->{headers}{etag}, "address $given in upper case: same ETag");
    } else {
        my $swapped = $given =~ tr/a-zA-Z/A-Za-z/r;
        my $s = get($paths->{balances}->($swapped));
        ok($s->{status} == 400 || $s->{body} eq expected_page([], 0, 20),
            "base58 $given with swapped case: not the same address");
    }
}

# well-formed, unknown: 200 and an empty page
my @good = (
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'P2WPKH (BIP-173 vector)'],
    ['BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4', 'P2WPKH upper case'],
    ['bc1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3qccfmv3', 'P2WSH'],
    ['bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0', 'P2TR (BIP-350 vector)'],
    ['bc1pw508d6qejxtdg4y5r3zarvary0c5xw7kw508d6qejxtdg4y5r3zarvary0c5xw7kt5nd6y', 'v1, 40-byte program'],
    ['BC1SW50QGDZ25J', 'v16, 2-byte program'],
    ['bc1zw508d6qejxtdg4y5r3zarvaryvaxxpcs', 'v2, 16-byte program'],
    ['tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', 'testnet P2WSH'],
    ['tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c', 'testnet P2TR'],
    ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 'regtest P2WPKH'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'P2PKH'],
    ['1111111111111111111114oLvT2', 'P2PKH of zero bytes (27 characters)'],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'P2SH'],
    ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', 'testnet P2PKH (m)'],
    ['n3GNqMveyvaPvUbH469vDRadqpJMPc84JA', 'testnet P2PKH (n)'],
    ['2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc', 'testnet P2SH (35 characters)'],
);
for my $g (@good) {
    my ($a, $name) = @$g;
    my $r = get($paths->{balances}->($a));
    is($r->{status}, 200, "$name: 200");
    is($r->{body}, expected_page([], 0, 20), "$name: empty page");
    like($r->{headers}{etag} // '', qr/^"[^"]+"\z/, "$name: ETag");
    is($r->{headers}{'cache-control'}, 'public, no-cache, must-revalidate', "$name: Cache-Control");
}

# malformed: 400 before any lookup
my @bad = (
    ['', 'empty'],
    ['x', 'one letter'],
    ['not-an-address', 'a word with dashes'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3T4', 'bech32 mixed case'],
    ['Bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'bech32 mixed case in the prefix'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3b4', 'bech32 with "b" in the data'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3i4', 'bech32 with "i" in the data'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3o4', 'bech32 with "o" in the data'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f314', 'bech32 with "1" in the data'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t', 'P2WPKH one character short'],
    ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4q', 'bech32 data of no whole number of bytes'],
    ['bc1q', 'prefix and version only'],
    ['bc1qqqqqqq', 'no room for a program'],
    ['bc1', 'prefix only'],
    ['bc1sw5qqqqqqq', 'v16 with a 1-byte program'],
    ['bc1' . ('q' x 88), 'bech32 of 91 characters'],
    ['ltc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'a Litecoin prefix'],
    ['bc2qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', 'no separator'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN0', 'base58 with 0'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVNO', 'base58 with O'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVNI', 'base58 with I'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVNl', 'base58 with l'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7x', 'base58 of 28 characters but it is fine'],
    ['1BvBMSEYstWetqTFn5Au4m', 'base58 too short (22)'],
    ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy3J', 'base58 too long (36)'],
    ['4J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'base58 with an unknown first character'],
    ['xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
        'an extended public key'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2%0A', 'a newline'],
    ['1BvBMSEYstWetqTFn5Au4m4GFg7xJaNV%C3%A9', 'UTF-8 inside'],
    ['%201BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'a leading space'],
    ['0x1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', 'a 0x prefix'],
    ['SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7', 'a Stacks address'],
);
for my $b (@bad) {
    my ($a, $name) = @$b;
    my $r = get($paths->{balances}->($a));
    if ($name =~ /but it is fine/) {
        is($r->{status}, 200, "$name: 200");
        next;
    }
    is($r->{status}, 400, "address $name: 400");
    like($r->{body}, $ADDR_RE, "address $name: the address message, no \"code\"");
    is($r->{headers}{'cache-control'}, 'no-store', "address $name: no-store");
    is($r->{headers}{deprecation}, DEPRECATION_AT, "address $name: Deprecation");
}

is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
$ng->stop;

done_testing;
