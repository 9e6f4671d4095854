#!/usr/bin/perl
# GET /runes/v1/transactions/{tx_id}/activity and
# GET /runes/v1/addresses/{address}/balances: every stored list, every page
# boundary, query validation, caching, methods, route shapes
# (upstream-behaviour.md sections 2 to 4).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(:all);

require_build();

my $JSON_CT = 'application/json; charset=utf-8';
my $PUBLIC = 'public, no-cache, must-revalidate';

sub err400 {
    my ($msg) = @_;
    return '{"statusCode":400,"error":"Bad Request","message":"' . $msg . '"}';
}

my $TXID_MSG = 'params/tx_id must match pattern \"^[a-fA-F0-9]{64}$\"';

# ---------------------------------------------------------------- fixtures

my $fx = fixture_path('runes.ndjson');
-f $fx or BAIL_OUT("fixture $fx missing");
my $L = rune_lists($fx);

my ($big_tx) = grep { @{ $L->{activity}{$_} } == 150 } keys %{ $L->{activity} };
my ($big_addr) = grep { @{ $L->{balances}{$_} } == 130 } keys %{ $L->{balances} };
my ($addr61) = grep { @{ $L->{balances}{$_} } == 61 } keys %{ $L->{balances} };
ok($big_tx, 'fixtures: a transaction with 150 activity entries') or BAIL_OUT('fixture incomplete');
ok($big_addr, 'fixtures: an address with 130 balances') or BAIL_OUT('fixture incomplete');
ok($addr61, 'fixtures: an address with 61 balances') or BAIL_OUT('fixture incomplete');

# what the fixtures cover
{
    my @act = map { json_decode($_) } map { @$_ } values %{ $L->{activity} };
    my @bal = map { json_decode($_) } map { @$_ } values %{ $L->{balances} };
    my %ops = map { $_->{operation} => 1 } @act;
    is_deeply([sort keys %ops], [qw(burn etching mint receive send)], 'fixtures: all five operations');
    for my $opt (qw(address receiver_address amount)) {
        ok((grep { exists $_->{$opt} } @act) && (grep { !exists $_->{$opt} } @act),
            "fixtures: activity $opt present and absent");
    }
    for my $opt (qw(vout output)) {
        ok((grep { exists $_->{location}{$opt} } @act) && (grep { !exists $_->{location}{$opt} } @act),
            "fixtures: location.$opt present and absent");
    }
    ok((grep { exists $_->{rune}{number} } @act) && (grep { !exists $_->{rune}{number} } @act),
        'fixtures: rune.number present and absent');
    ok((grep { exists $_->{address} } @bal) && (grep { !exists $_->{address} } @bal),
        'fixtures: balance address present and absent');
    ok((grep { $_->{rune}{spaced_name} =~ /\x{2022}/ } @act, @bal), 'fixtures: spaced names with bullets');
    ok((grep { ($_->{amount} // '') eq '340282366920938463463374607431768211455' } @act),
        'fixtures: a u128-max activity amount');
    ok((grep { $_->{balance} eq '340282366920938463463374607431768211455' } @bal),
        'fixtures: a u128-max balance');
    ok((grep { ($_->{amount} // '') =~ /^\d{20,}\.\d+$/ } @act), 'fixtures: a large amount with decimals');
    ok((grep { !exists $_->{location}{vout} && exists $_->{location}{output} } @act) == 0,
        'fixtures: no output without vout');
}

my $db = new_index($fx);
my $ng = ChainData::Test::Nginx->start(db => $db, locations => rune_locations());
my $port = $ng->port;
my $paths = rune_paths();

sub get { my ($path, %h) = @_; return http_get($port, $path, %h) }

sub is_response {
    my ($r, $status, $body, $name) = @_;
    is($r->{status}, $status, "$name: status $status");
    is($r->{headers}{'content-type'}, $JSON_CT, "$name: content-type");
    is($r->{body}, $body, "$name: body") if defined $body;
    is($r->{headers}{'content-length'}, length $r->{body}, "$name: content-length")
        if defined $r->{headers}{'content-length'};
    is($r->{headers}{deprecation}, DEPRECATION_AT, "$name: Deprecation header");
}

sub page_ok {
    my ($set, $key, $query, $offset, $limit, $name, %o) = @_;
    my $param = defined $o{param} ? $o{param} : ($set eq 'balances' ? $L->{address}{$key} : $key);
    my $path = $paths->{$set}->($param) . (length $query ? "?$query" : '');
    $path = $o{prefix} . $param . "/$set" . (length $query ? "?$query" : '') if $o{prefix};
    my $want = expected_page(list_of($L, $set, $key), $offset, $limit, $o{offset_text});
    my $r = get($path);
    is_response($r, 200, $want, $name);
    like($r->{headers}{etag} // '', qr/^"[^"]+"\z/, "$name: strong ETag");
    is($r->{headers}{'cache-control'}, $PUBLIC, "$name: Cache-Control");
    return $r;
}

# ---------------------------------------------------------------- every list, default page and all pages of 60

for my $set (qw(activity balances)) {
    for my $key (sort keys %{ $L->{$set} }) {
        my $n = @{ $L->{$set}{$key} };
        page_ok($set, $key, '', 0, 20, "$set $key default page");
        for (my $off = 0; $off < $n; $off += 60) {
            page_ok($set, $key, "offset=$off&limit=60", $off, 60, "$set $key offset $off limit 60");
        }
        page_ok($set, $key, "offset=$n&limit=60", $n, 60, "$set $key offset $n (just past the end)");
    }
}

# ---------------------------------------------------------------- page boundaries of the big lists

my %etags;
for my $c ([activity => $big_tx], [balances => $big_addr], [balances => $addr61]) {
    my ($set, $key) = @$c;
    my $n = @{ $L->{$set}{$key} };
    my @cases = (
        ['', 0, 20],
        ['limit=20', 0, 20],
        ['offset=0', 0, 20],
        ['limit=1', 0, 1],
        ['limit=59', 0, 59],
        ['limit=60', 0, 60],
        ['offset=1&limit=60', 1, 60],
        ['offset=19', 19, 20],
        ['offset=20', 20, 20],
        ['offset=21', 21, 20],
        ['offset=59&limit=60', 59, 60],
        ['offset=60&limit=60', 60, 60],
        ['offset=61&limit=60', 61, 60],
        ['offset=90&limit=60', 90, 60],
        ['offset=120&limit=60', 120, 60],
        ['offset=' . ($n - 60) . '&limit=60', $n - 60, 60],
        ['offset=' . ($n - 1), $n - 1, 20],
        ['offset=' . ($n - 1) . '&limit=1', $n - 1, 1],
        ['offset=' . ($n - 2) . '&limit=2', $n - 2, 2],
        ["offset=$n", $n, 20],
        ['offset=' . ($n + 1), $n + 1, 20],
        ['offset=1000&limit=5', 1000, 5],
        ['limit=7&offset=3', 3, 7],
        ['offset=-0', 0, 20, '0'],
        ['offset=-000&limit=3', 0, 3, '0'],
        ['offset=00', 0, 20, '0'],
        ['offset=007&limit=3', 7, 3, '7'],
        ['limit=05', 0, 5],
        ['offset=4294967295', 4294967295, 20],
        ['offset=4294967296', 4294967296, 20],
        # echoed as upstream echoes the number it made of the value
        # (JavaScript's Number(), written back as JavaScript writes it)
        ['offset=18446744073709551615', 0 + 'inf', 20, '18446744073709552000'],
        ['offset=18446744073709551616', 0 + 'inf', 20, '18446744073709552000'],
        ['offset=99999999999999999999', 0 + 'inf', 20, '100000000000000000000'],
        ['offset=00099999999999999999999999999999&limit=60', 0 + 'inf', 60, '1e+29'],
        ['offset=1e21', 0 + 'inf', 20, '1e+21'],
        ['offset=%31%30', 10, 20, '10'],
        # coerced as upstream coerces them: sign, radix, fraction, exponent,
        # white space
        ['offset=2', 2, 20],
        ['offset=+2', 2, 20, '2'],
        ['offset=%2B2', 2, 20, '2'],
        ['offset=0x10&limit=0x3', 16, 3, '16'],
        ['offset=0X10&limit=0b11', 16, 3, '16'],
        ['offset=0o7', 7, 20, '7'],
        ['offset=1.0&limit=1e1', 1, 10, '1'],
        ['offset=1e1&limit=2.000', 10, 2, '10'],
        ['offset=5.&limit=.2e1', 5, 2, '5'],
        ['offset=%205&limit=%205', 5, 5, '5'],
        ['offset=%09%0A7%C2%A0&limit=4%E2%80%A8', 7, 4, '7'],
        ['offset=-0.0&limit=%2B1', 0, 1, '0'],
        ['offset=1.0000000000000001', 1, 20, '1'],
        # parameter names percent-decoded
        ['%6F%66fset=3&%6Cimit=4', 3, 4],
        ['foo=bar&limit=2', 0, 2],
        ['event_limit=5&event_offset=3', 0, 20],
        ['x=&y&offset=1', 1, 20],
    );
    # every page of 20
    for (my $off = 0; $off <= $n; $off += 20) {
        push @cases, ["offset=$off", $off, 20];
    }
    for my $c (@cases) {
        my ($q, $off, $lim, $text) = @$c;
        my $r = page_ok($set, $key, $q, $off, $lim, "$set $n entries ?$q", offset_text => $text);
        my $d = eval { json_decode($r->{body}) } || {};
        my $want_n = $off >= $n ? 0 : ($off + $lim > $n ? $n - $off : $lim);
        is(scalar @{ $d->{results} || [] }, $want_n, "$set $n entries ?$q: $want_n results");
        is($d->{total}, $n, "$set $n entries ?$q: total $n, also past the end");
        $etags{"$set $key $q"} = $r->{headers}{etag};
    }

    # ETags: stable, and different for every different page
    my $e0 = $etags{"$set $key "};
    is(get($paths->{$set}->($set eq 'balances' ? $L->{address}{$key} : $key))->{headers}{etag}, $e0,
        "$set $n: ETag stable across identical requests");
    is($etags{"$set $key limit=20"}, $e0, "$set $n: explicit defaults, same ETag");
    is($etags{"$set $key offset=-0"}, $e0, "$set $n: offset=-0 is offset 0, same ETag");
    is($etags{"$set $key offset=00"}, $e0, "$set $n: offset=00 is offset 0, same ETag");
    is($etags{"$set $key offset=+2"}, $etags{"$set $key offset=2"}, "$set $n: offset=+2 is offset 2, same ETag");
    is($etags{"$set $key offset=0x10&limit=0x3"}, $etags{"$set $key offset=0X10&limit=0b11"},
        "$set $n: the same numbers in other radixes, same ETag");
    is($etags{"$set $key offset=18446744073709551615"}, $etags{"$set $key offset=18446744073709551616"},
        "$set $n: 2^64-1 and 2^64 are the same number upstream, same ETag");
    my @distinct = ('', 'limit=1', 'offset=19', 'offset=20', 'offset=21', "offset=$n",
        'offset=' . ($n + 1), 'offset=1000&limit=5', 'offset=18446744073709551615',
        'offset=99999999999999999999', 'offset=1e21', 'offset=2');
    my %seen;
    $seen{ $etags{"$set $key $_"} }++ for @distinct;
    is(scalar keys %seen, scalar @distinct, "$set $n: a different ETag for every different page");
}

# offset echoed as upstream echoes the number, even past 2^64
{
    my $r = get($paths->{activity}->($big_tx) . '?offset=123456789012345678901234567890&limit=3');
    like($r->{body}, qr/^\{"limit":3,"offset":1\.2345678901234568e\+29,"total":150,"results":\[\]\}\z/,
        'a 30-digit offset is echoed as JavaScript writes it, not overflowed');
}

# ETags differ between lists and routes
{
    my %seen;
    for my $set (qw(activity balances)) {
        for my $key (keys %{ $L->{$set} }) {
            my $p = $set eq 'balances' ? $L->{address}{$key} : $key;
            $seen{ get($paths->{$set}->($p))->{headers}{etag} }++;
        }
    }
    is(scalar keys %seen, keys(%{ $L->{activity} }) + keys(%{ $L->{balances} }),
        'every stored list has its own ETag');
}

# ---------------------------------------------------------------- case-insensitive tx_id, other prefix

{
    my $n = 150;
    page_ok('activity', $big_tx, 'offset=40', 40, 20, 'upper-case tx_id', param => uc $big_tx);
    my $i = 0;
    (my $mixed = $big_tx) =~ s/([a-f])/$i++ % 2 ? uc $1 : $1/ge;
    page_ok('activity', $big_tx, 'limit=60&offset=60', 60, 60, 'mixed-case tx_id', param => $mixed);
    is(get($paths->{activity}->(uc $big_tx))->{headers}{etag}, get($paths->{activity}->($big_tx))->{headers}{etag},
        'upper-case tx_id: same ETag as lower-case');
    page_ok('activity', $big_tx, 'offset=130', 130, 20, 'other prefix', prefix => '/other/prefix/activity/');
    page_ok('balances', $big_addr, 'offset=120&limit=60', 120, 60, 'balances under another prefix',
        prefix => '/other/prefix/balances/');
    # a longer path before the parameter is fine too
    my $r = get("/runes/v1/transactions/deep/er/$big_tx/activity?limit=2");
    is_response($r, 200, expected_page($L->{activity}{$big_tx}, 0, 2), 'extra segments before the tx_id');
}

# ---------------------------------------------------------------- unknown but well-formed: 200, empty page

{
    my $unknown = substr(random_tx_id(), 2);
    my $empty_etag;
    for my $q (['', 0, 20], ['offset=5&limit=60', 5, 60], ['offset=-0&limit=1', 0, 1]) {
        my ($query, $off, $lim) = @$q;
        my $r = get($paths->{activity}->($unknown) . ($query ? "?$query" : ''));
        is_response($r, 200, expected_page([], $off, $lim), "unknown tx ?$query");
        is($r->{headers}{'cache-control'}, $PUBLIC, "unknown tx ?$query: Cache-Control");
        like($r->{headers}{etag} // '', qr/^"[^"]+"\z/, "unknown tx ?$query: ETag");
        $empty_etag //= $r->{headers}{etag};
    }
    is(get($paths->{activity}->($unknown), 'If-None-Match' => $empty_etag)->{status}, 304,
        'unknown tx: 304 on its ETag');
    my $deleted_tx = '9cef029f79799ac46fb4a109a80624f36e427f4896d28c3e43ae315407713499';
    ok(!$L->{activity}{$deleted_tx}, 'fixture: a transaction whose activity a later line deleted');
    is_response(get($paths->{activity}->($deleted_tx)), 200, expected_page([], 0, 20),
        'activity deleted by "results":[]: empty page');
    for my $a ('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', '1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
               '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx')
    {
        is_response(get($paths->{balances}->($a)), 200, expected_page([], 0, 20), "unknown address $a");
    }
    is_response(get($paths->{balances}->('3BwbHXLG7PxEwbADqRmZSzA6YeqkSghkX9')), 200, expected_page([], 0, 20),
        'balances deleted by "results":[]: empty page');
}

# ---------------------------------------------------------------- query validation

{
    my @bad = (
        ['limit=0', 'querystring/limit must be >= 1'],
        ['limit=-1', 'querystring/limit must be >= 1'],
        ['limit=-0', 'querystring/limit must be >= 1'],
        ['limit=-99999999999999999999', 'querystring/limit must be >= 1'],
        ['limit=61', 'querystring/limit must be <= 60'],
        ['limit=100', 'querystring/limit must be <= 60'],
        ['limit=99999999999999999999', 'querystring/limit must be <= 60'],
        ['limit=18446744073709551616', 'querystring/limit must be <= 60'],
        ['limit=1.5', 'querystring/limit must be integer'],
        ['limit=abc', 'querystring/limit must be integer'],
        ['limit=', 'querystring/limit must be integer'],
        ['limit', 'querystring/limit must be integer'],
        ['limit=5x', 'querystring/limit must be integer'],
        ['limit=%20', 'querystring/limit must be integer'],
        ['limit=1&limit=2', 'querystring/limit must be integer'],
        ['limit=1&%6Cimit=2', 'querystring/limit must be integer'],
        ['limit=Infinity', 'querystring/limit must be integer'],
        ['limit=-Infinity', 'querystring/limit must be integer'],
        ['limit=1e400', 'querystring/limit must be integer'],
        ['limit=0x', 'querystring/limit must be integer'],
        ['limit=-0x10', 'querystring/limit must be integer'],
        ['limit=1_0', 'querystring/limit must be integer'],
        ['limit=1%202', 'querystring/limit must be integer'],
        ['limit=0x3D', 'querystring/limit must be <= 60'],
        ['limit=6.1e1', 'querystring/limit must be <= 60'],
        ['limit=0.0', 'querystring/limit must be >= 1'],
        ['limit=-1e1', 'querystring/limit must be >= 1'],
        ['%6Cimit=0', 'querystring/limit must be >= 1'],
        ['offset=-1', 'querystring/offset must be >= 0'],
        ['offset=-99999999999999999999', 'querystring/offset must be >= 0'],
        ['offset=abc', 'querystring/offset must be integer'],
        ['offset=2.5', 'querystring/offset must be integer'],
        ['offset=', 'querystring/offset must be integer'],
        ['offset=1&offset=2', 'querystring/offset must be integer'],
        ['offset=%09', 'querystring/offset must be integer'],
        ['offset=0.5', 'querystring/offset must be integer'],
        ['offset=Infinity', 'querystring/offset must be integer'],
        ['offset=-1e1', 'querystring/offset must be >= 0'],
        ['offset=%2D1', 'querystring/offset must be >= 0'],
        ['o%66fset=-1&limit=0', 'querystring/offset must be >= 0'],
        # offset is checked before limit, whatever their order in the query
        ['offset=-1&limit=0', 'querystring/offset must be >= 0'],
        ['limit=0&offset=-1', 'querystring/offset must be >= 0'],
        ['limit=abc&offset=x', 'querystring/offset must be integer'],
        ['limit=61&offset=3', 'querystring/limit must be <= 60'],
        ['offset=99999999999999999999&limit=61', 'querystring/limit must be <= 60'],
    );
    for my $set (qw(activity balances)) {
        my $p = $set eq 'activity' ? $paths->{activity}->($big_tx) : $paths->{balances}->($L->{address}{$big_addr});
        for my $c (@bad) {
            my ($q, $msg) = @$c;
            my $r = get("$p?$q");
            is_response($r, 400, err400($msg), "$set ?$q");
            ok(!defined $r->{headers}{etag}, "$set ?$q: no ETag");
            is($r->{headers}{'cache-control'}, 'no-store', "$set ?$q: Cache-Control no-store");
        }
        # a well-formed unknown parameter still gets validated
        my $u = $set eq 'activity' ? $paths->{activity}->(substr(random_tx_id(), 2))
                                   : $paths->{balances}->('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq');
        is_response(get("$u?limit=61"), 400, err400('querystring/limit must be <= 60'),
            "$set unknown key with a bad limit: 400, validation before lookup");
    }
    # the path parameter is checked before the query
    is_response(get('/runes/v1/transactions/xyz/activity?limit=0&offset=-1'), 400, err400($TXID_MSG),
        'bad tx_id and bad query: the tx_id error wins');
    like(get('/runes/v1/addresses/not-an-address/balances?limit=0')->{body}, qr/params\/address/,
        'bad address and bad query: the address error wins');
}

# ---------------------------------------------------------------- route shapes under the location: 404

{
    my @shapes = (
        ["/runes/v1/transactions/$big_tx", 'activity', 'no /activity'],
        ["/runes/v1/transactions/$big_tx/", 'activity', 'trailing slash, no /activity'],
        ["/runes/v1/transactions/$big_tx/activity/", 'activity', 'trailing slash after activity'],
        ["/runes/v1/transactions/$big_tx/activityx", 'activity', 'activityx'],
        ["/runes/v1/transactions/$big_tx/Activity", 'activity', 'Activity'],
        ["/runes/v1/transactions/$big_tx/balances", 'activity', 'balances under the activity location'],
        ["/runes/v1/transactions/$big_tx/activity/extra", 'activity', 'a segment after activity'],
        ['/runes/v1/transactions/', 'activity', 'the location itself'],
        ["/runes/v1/addresses/$L->{address}{$big_addr}", 'balances', 'no /balances'],
        ["/runes/v1/addresses/$L->{address}{$big_addr}/balance", 'balances', 'balance'],
        ["/runes/v1/addresses/$L->{address}{$big_addr}/activity", 'balances', 'activity under balances'],
        ['/runes/v1/addresses/', 'balances', 'the balances location itself'],
    );
    for my $s (@shapes) {
        my ($path, $set, $name) = @$s;
        my $r = get($path);
        is($r->{status}, 404, "$name: 404");
        is($r->{headers}{'content-type'}, $JSON_CT, "$name: JSON");
        my $d = eval { json_decode($r->{body}) } || {};
        is($d->{statusCode}, 404, "$name: statusCode 404");
        is($d->{error}, 'Not Found', "$name: error Not Found");
        like($d->{message} // '', qr/\/\{(tx_id|address)\}\/$set/, "$name: message names the shape");
        is($r->{headers}{deprecation}, DEPRECATION_AT, "$name: Deprecation header");
    }
    # an empty parameter is a parameter error
    is_response(get('/runes/v1/transactions//activity'), 400, err400($TXID_MSG), 'empty tx_id: 400');
}

# ---------------------------------------------------------------- conditional requests

for my $c ([activity => $paths->{activity}->($big_tx)], [balances => $paths->{balances}->($L->{address}{$big_addr})]) {
    my ($set, $p) = @$c;
    my $r = get("$p?offset=60&limit=60");
    my $e = $r->{headers}{etag};
    for my $m ([$e, 'exact'], ["W/$e", 'weak'], [qq("x", $e), 'list'], ['*', 'star']) {
        my $nm = get("$p?offset=60&limit=60", 'If-None-Match' => $m->[0]);
        is($nm->{status}, 304, "$set If-None-Match $m->[1]: 304");
        is($nm->{body}, '', "$set If-None-Match $m->[1]: no body");
        is($nm->{headers}{etag}, $e, "$set If-None-Match $m->[1]: ETag");
        is($nm->{headers}{'cache-control'}, $PUBLIC, "$set If-None-Match $m->[1]: Cache-Control");
        is($nm->{headers}{deprecation}, DEPRECATION_AT, "$set If-None-Match $m->[1]: Deprecation");
    }
    is(get("$p?offset=0&limit=60", 'If-None-Match' => $e)->{status}, 200, "$set: another page's ETag: 200");
    is(get("$p?offset=60&limit=59", 'If-None-Match' => $e)->{status}, 200, "$set: another limit's ETag: 200");
    is(get("$p?offset=60&limit=60", 'If-None-Match' => '"nope"')->{status}, 200, "$set: other ETag: 200");
    is(http_request($port, 'HEAD', "$p?offset=60&limit=60", 'If-None-Match' => $e)->{status}, 304,
        "$set: HEAD with If-None-Match: 304");
}

# ---------------------------------------------------------------- HEAD and other methods

for my $p ($paths->{activity}->($big_tx) . '?offset=100', $paths->{balances}->($L->{address}{$addr61}),
           $paths->{activity}->('zz'), '/runes/v1/addresses/x')
{
    my $g = get($p);
    my $h = http_request($port, 'HEAD', $p);
    is($h->{status}, $g->{status}, "HEAD $p: same status");
    is($h->{body}, '', "HEAD $p: no body");
    is($h->{headers}{'content-length'}, length $g->{body}, "HEAD $p: Content-Length of the GET body");
    for my $hd (qw(content-type etag cache-control deprecation)) {
        is($h->{headers}{$hd}, $g->{headers}{$hd}, "HEAD $p: same $hd");
    }
}

for my $p ($paths->{activity}->($big_tx), $paths->{balances}->($L->{address}{$big_addr})) {
    for my $m (['POST', _body => '{}'], ['PUT', _body => 'x'], ['DELETE'], ['PATCH', _body => '']) {
        my ($method, %h) = @$m;
        my $r = http_request($port, $method, $p, %h);
        is($r->{status}, 405, "$method $p: 405");
        is($r->{headers}{allow}, 'GET, HEAD', "$method: Allow");
        is($r->{headers}{deprecation}, DEPRECATION_AT, "$method: Deprecation");
        my $d = eval { json_decode($r->{body}) } || {};
        is($d->{statusCode}, 405, "$method: statusCode 405");
    }
}

# pipelined keep-alive requests on both routes
{
    my $raw = "GET " . $paths->{activity}->($big_tx) . "?limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        . "GET " . $paths->{balances}->($L->{address}{$big_addr}) . "?limit=1 HTTP/1.1\r\nHost: localhost\r\n"
        . "Connection: close\r\n\r\n";
    my $r = http($port, $raw);
    my $n = () = $r->{raw} =~ m{HTTP/1\.1 200 }g;
    is($n, 2, 'pipelined requests on both routes answered');
}

is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
$ng->stop;

done_testing;
