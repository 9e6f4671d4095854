#!/usr/bin/perl
# chaindata_runes: every read route of the Runes API 3.0.2 from the index
# (doc/module.md, "Runes API").  The index is the loader's, from the
# records of the chain routes.gz was captured on
# (t/captures/runes-api-3.0.2/routes-index.gz: rune_etching, rune_block,
# rune_activity and rune_balances, as the real API served them); the
# capture's 118 answers are replayed, each equal to upstream's in status,
# Content-Type and body but for the differences doc/api.md lists; then
# each route's paging, errors, conditionals, gzip and miss rule, under
# both prefixes.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $CAP = repo_root() . '/t/captures/runes-api-3.0.2';
my $RECORDS = `zcat $CAP/routes-index.gz`;
ok(length $RECORDS > 1_000_000, 'the capture\'s records') or BAIL_OUT('no records');

my $CT = 'application/json; charset=utf-8';
my $CACHE = 'public, no-cache, must-revalidate';
my $ETCHING_400 = '{"statusCode":400,"error":"Bad Request","message":"params/etching must match pattern \"^[0-9]+:[0-9]+$\", params/etching must match pattern \"^[0-9]+$\", params/etching must match pattern \"^[A-Z]+$\", params/etching must match pattern \"^[A-Za-z]+(•[A-Za-z]+)+$\", params/etching must match a schema in anyOf"}';
my $BLOCK_400 = '{"statusCode":400,"error":"Bad Request","message":"params/block must match pattern \"^[0-9]+$\", params/block must match pattern \"^[0]{8}[a-fA-F0-9]{56}$\", params/block must match a schema in anyOf"}';
my $NOT_FOUND = '{"error":"Not found"}';
my $RUNE = '840000:8';
my $A1 = 'bc1pvxtfnnlpnz9dnurvz39qyk6p879f5qs75ey20hgxsw0tjpdkum3shmnemr';
my $A2 = 'bc1qhcldczs772j0qjlq8kcdcft5hku5qeldfz9zev';
my $TX = 'aea99c66b5a1e8ef97ab048e8517f5e8d94f8f52f9ab4d2ff6c4a2c4a562b64d';
my $HASH = '0000000000000000000ad90353e3151312ca0c644a37ef26c813c5d050371654';

sub index_of {
    my ($ndjson) = @_;
    my $dir = temp_dir() . '/index';
    my ($code, $out, $err) = load_index($dir, '-', { stdin => $ndjson });
    is($code, 0, 'chaindata-load takes the records') or diag($err);
    return fixup_index_perms($dir);
}

my $LOCATIONS = <<'CONF';
        location /runes/ {
            chaindata_runes;
        }
        location = /runes {
            chaindata_runes;
        }
CONF

my $db = index_of($RECORDS);
my $ng = ChainData::Test::Nginx->start(db => $db, locations => $LOCATIONS);
my $port = $ng->port;
sub get { my ($p, %h) = @_; return http_get($port, $p, %h) }

# ---------------------------------------------------------------- the holders

# a rune's holders from the records: every address's balance of it, by
# balance (numerically, largest first), then address key (its length,
# then its bytes)
sub holders_of {
    my ($id) = @_;
    my @h;
    while ($RECORDS =~ /\{"rune":\{"id":"\Q$id\E","number":\d+,"name":"[A-Z]+","spaced_name":"[^"]+"\},"balance":"([0-9.]+)","address":"([^"]+)"\}/g) {
        push @h, [$1, $2];
    }
    my $key = sub { my ($i, $f) = split /\./, $_[0]; $f //= '';
                    (my $d = $i . $f) =~ s/^0+//; sprintf('%03d%s', length $d, $d) };
    return [sort { $key->($b->[0]) cmp $key->($a->[0])
                   || length($a->[1]) <=> length($b->[1]) || $a->[1] cmp $b->[1] } @h];
}

sub holders_page {
    my ($h, $offset, $limit) = @_;
    my @p = grep { defined } @$h[$offset .. $offset + $limit - 1];
    return sprintf('{"limit":%d,"offset":%d,"total":%d,"results":[%s]}', $limit,
                   $offset, scalar @$h,
                   join(',', map { qq({"balance":"$_->[0]","address":"$_->[1]"}) } @p));
}

my %HOLDERS = map { $_ => holders_of($_) } ($RUNE, '840000:502');
ok(@{ $HOLDERS{$RUNE} } > 100, 'the records hold the holders of ' . $RUNE);

# ---------------------------------------------------------------- the capture

# an answer past a list's end: upstream says total 0 there, the edge the
# list's total (doc/api.md)
sub past_end { return $_[0] =~ /^\{"limit":\d+,"offset":\d+,"total":0,"results":\[\]\}\z/ }

my ($exact, $differs) = (0, 0);
my %etag;
my @cap = split /\n/, `zcat $CAP/routes.gz`, -1;
for (my $i = 0; $i + 2 < @cap; $i += 3) {
    my ($target, $header) = split /\t/, $cap[$i], 2;
    my ($status, $ct) = split /\t/, $cap[$i + 1];
    my $body = $cap[$i + 2];
    my %h;
    if ($header) {
        # "$ETAG", upstream's tip hash, is each answer's own ETag here
        my ($name, $value) = split /:\s*/, $header, 2;
        $h{$name} = $value =~ /\$ETAG/ ? $etag{$target} : $value;
    }
    my $r = get($target, %h);
    $etag{$target} //= $r->{headers}{etag};
    my $got = $r->{body};
    my $name = "capture: $target" . ($header ? " ($header)" : '');
    is($r->{status}, $status, "$name: status");
    is($r->{headers}{'content-type'} // '', $ct, "$name: Content-Type");
    if ($got eq $body) {
        $exact++;
        pass("$name: body, byte for byte");
        next;
    }
    $differs++;
    if ($target =~ m{^/runes(?:/v1)?/?$}) {
        (my $want = $body) =~ s/"server_version":"[^"]*"/"server_version":"chaindata VERSION (runes-api v3.0.2)"/;
        $got =~ s/"server_version":"chaindata [^ ]+ /"server_version":"chaindata VERSION /;
        is($got, $want, "$name: body but server_version");
    } elsif (past_end($body)) {
        like($got, qr/^\{"limit":\d+,"offset":\d+,"total":[1-9]\d*,"results":\[\]\}\z/,
             "$name: past the end, the list's total");
    } elsif ($target =~ m{/etchings/([^/]+)/holders(?:\?(.*))?$}) {
        my ($e, $q) = ($1, $2 // '');
        my $id = $e =~ /^\d+:\d+$/ ? $e : $RUNE;
        my ($o) = $q =~ /offset=(\d+)/;
        my ($l) = $q =~ /limit=(\d+)/;
        is($got, holders_page($HOLDERS{$id}, $o // 0, $l // 20),
           "$name: the holders, ties by address, total the holders");
    } elsif ($target =~ m{/addresses/[^/]+/(?:balances|activity)}) {
        # upstream's total counts history rows, or sums per-rune counts
        (my $want = $body) =~ s/"total":\d+/"total":T/;
        (my $have = $got) =~ s/"total":\d+/"total":T/;
        is($have, $want, "$name: the page, total the entries");
    } else {
        fail("$name: body") or diag("got  $got\nwant $body");
    }
}
is($exact + $differs, 118, 'every answer of the capture replayed');
cmp_ok($exact, '>=', 92, "$exact of 118 answers byte for byte");
diag("capture: $exact answers equal to upstream's byte for byte, $differs "
     . 'differ as doc/api.md says');

# ---------------------------------------------------------------- paging

# a page at any offset is the same entries as the first page's slice
sub results {
    my ($b) = @_;
    my $a = json_member_value($b, 'results');
    return [map { substr($a, $_->[0], $_->[1] - $_->[0]) } json_array_elements($a)];
}

my @lists = (
    ['/runes/v1/etchings', 101],
    ["/runes/v1/etchings/$RUNE/activity", 510],
    ["/runes/etchings/RSICEPICSEVEN/activity/$A1", 25],
    ["/runes/v1/addresses/$A2/activity", undef],
    ['/runes/blocks/840089/activity', 383],
    ["/runes/v1/blocks/$HASH/activity", 283],
    ["/runes/v1/etchings/$RUNE/holders", scalar @{ $HOLDERS{$RUNE} }],
);
for my $l (@lists) {
    my ($path, $total) = @$l;
    my $first = get("$path?limit=60");
    is($first->{status}, 200, "paging: $path: 200");
    my ($t) = $first->{body} =~ /"total":(\d+)/;
    is($t, $total, "paging: $path: total $total") if defined $total;
    my $all = results($first->{body});
    for my $o (1, 17, 59) {
        next if $o >= @$all;
        my $r = get("$path?offset=$o&limit=1");
        is_deeply(results($r->{body}), [$all->[$o]], "paging: $path: offset $o");
    }
    # the last page, deep, and past the end
    my $last = $t - 1;
    my $r = get("$path?offset=$last&limit=60");
    is(scalar @{ results($r->{body}) }, 1, "paging: $path: offset $last, the last entry");
    $r = get("$path?offset=$t");
    is($r->{body}, qq({"limit":20,"offset":$t,"total":$t,"results":[]}),
       "paging: $path: past the end, the list's total");
    $r = get("$path?offset=99999999999999999999&limit=1");
    is($r->{body}, qq({"limit":1,"offset":100000000000000000000,"total":$t,"results":[]}),
       "paging: $path: an offset past 2^64, echoed as JavaScript writes it");
}

# the oldest entry of a block is the last of its page (upstream's order)
{
    my $r = get('/runes/v1/blocks/840089/activity?offset=382&limit=1');
    like($r->{body}, qr/"block_height":840089/, 'a block\'s oldest entry');
    is(get('/runes/v1/blocks/840089/activity?offset=0&limit=1')->{status}, 200,
       'a block\'s newest entry');
}

# ---------------------------------------------------------------- errors

my @etching_routes = ('', '/activity', "/activity/$A1", '/holders', "/holders/$A1");
for my $tail (@etching_routes) {
    # an empty etching before another segment: nginx merges the slashes,
    # another path (doc/api.md)
    my @empty = $tail =~ m{^/\w+/} ? () : ('');
    for my $bad ('bad!', 'rsicepicseven', '840000:', '-1', 'RSIC%E2%80%A2%E2%80%A2EPIC', @empty) {
        my $r = get("/runes/v1/etchings/$bad$tail");
        is($r->{status}, 400, "etching \"$bad\"$tail: 400");
        is($r->{body}, $ETCHING_400, "etching \"$bad\"$tail: upstream's message");
        ok(!defined $r->{headers}{etag}, "etching \"$bad\"$tail: no ETag");
        is($r->{headers}{'cache-control'}, 'no-store', "etching \"$bad\"$tail: not stored");
    }
    my $r = get("/runes/etchings/99999999999999999999$tail");
    is($r->{status}, 500, "etching past a bigint$tail: 500");
    is($r->{body}, '{"statusCode":500,"code":"22003","error":"Internal Server Error","message":"value \"99999999999999999999\" is out of range for type bigint"}',
       "etching past a bigint$tail: upstream's body");
    $r = get("/runes/etchings/9223372036854775807$tail");
    is($r->{status}, $tail =~ m{^/activity|^/holders$} ? 200 : 404,
       "etching 2^63 - 1$tail: no rune's");
}
for my $bad ('abc', '-1', "0x$HASH", '1' . substr($HASH, 1), substr($HASH, 1)) {
    my $r = get("/runes/v1/blocks/$bad/activity");
    is($r->{status} . ' ' . $r->{body}, "400 $BLOCK_400", "block \"$bad\": 400");
}
for my $bad ("0x$TX", 'xyz', substr($TX, 1)) {
    my $r = get("/runes/v1/transactions/$bad/activity");
    is($r->{status}, 400, "tx \"$bad\": 400");
    like($r->{body}, qr/params\/tx_id must match pattern/, "tx \"$bad\": upstream's message");
}
for my $path ('/runes/v1/etchings', "/runes/v1/etchings/$RUNE/activity",
              "/runes/v1/addresses/$A1/activity", '/runes/v1/blocks/840000/activity',
              "/runes/v1/etchings/$RUNE/holders", "/runes/v1/addresses/$A1/balances",
              "/runes/v1/transactions/$TX/activity") {
    for my $q (['limit=0', 'querystring/limit must be >= 1'],
               ['limit=61', 'querystring/limit must be <= 60'],
               ['limit=abc', 'querystring/limit must be integer'],
               ['offset=-1', 'querystring/offset must be >= 0'],
               ['offset=1.5', 'querystring/offset must be integer'],
               ['offset=1&offset=2', 'querystring/offset must be integer']) {
        my $r = get("$path?$q->[0]");
        is($r->{status} . ' ' . $r->{body},
           qq(400 {"statusCode":400,"error":"Bad Request","message":"$q->[1]"}),
           "$path?$q->[0]: 400");
    }
    is(get("$path?limit=010&unknown=1")->{body} =~ /^\{"limit":10,/ ? 1 : 0, 1,
       "$path: limit=010 is 10, unknown parameters ignored");
    my $r = http_request($port, 'POST', $path, _body => '{}');
    is($r->{status}, 405, "$path: POST is a 405");
    is($r->{headers}{allow}, 'GET, HEAD', "$path: Allow");
}
for my $t ('/runes/v1/nothing', "/runes/v1/etchings/$RUNE/nothing", '/runes/etchings/',
           '/runes/v1/etchings/', "/runes/v1/transactions/$TX/activity/", '/runes/v2',
           '/runes/v1/blocks/840000', '/runes/v1/nothing?a=%22b') {
    my $r = get($t);
    is($r->{status}, $t =~ m{/etchings/$} ? 400 : 404, "no route: $t");
    next if $t =~ m{/etchings/$};
    is($r->{body}, qq({"message":"Route GET:$t not found","error":"Not Found","statusCode":404}),
       "no route: $t: fastify's 404, the target as sent");
    ok(!defined $r->{headers}{etag}, "no route: $t: no ETag");
}
{
    my $r = http_request($port, 'HEAD', '/runes/v1/nothing');
    is($r->{status}, 404, 'no route, HEAD: 404');
    is($r->{headers}{'content-length'},
       length('{"message":"Route HEAD:/runes/v1/nothing not found","error":"Not Found","statusCode":404}'),
       'no route, HEAD: the length of its body naming HEAD');
    $r = http_request($port, 'DELETE', '/runes/v1/nothing');
    like($r->{body}, qr/^\{"message":"Route DELETE:\/runes\/v1\/nothing not found"/,
         'no route, DELETE: fastify\'s 404 names the method');
}

# ---------------------------------------------------------------- conditionals, gzip

my @one = ('/runes/v1/', '/runes/etchings?limit=3', "/runes/v1/etchings/$RUNE",
           "/runes/v1/etchings/$RUNE/activity?offset=3", "/runes/v1/etchings/1/activity/$A1",
           "/runes/v1/etchings/$RUNE/holders", "/runes/v1/etchings/$RUNE/holders/$A2",
           "/runes/v1/addresses/$A1/balances", "/runes/v1/addresses/$A1/activity",
           '/runes/v1/blocks/840000/activity', "/runes/v1/transactions/$TX/activity",
           '/runes/v1/etchings/999999:1', "/runes/v1/etchings/$RUNE/holders/nobody");
my %seen;
for my $p (@one) {
    my $r = get($p);
    my $etag = $r->{headers}{etag};
    like($etag // '', qr/^"[0-9a-f-]+"\z/, "$p: a strong ETag");
    ok(!$seen{$etag}++, "$p: an ETag of its own");
    is($r->{headers}{'cache-control'}, $CACHE, "$p: Cache-Control");
    my $c = get($p, 'If-None-Match' => $etag);
    is($c->{status}, 304, "$p: If-None-Match: 304");
    is($c->{headers}{etag}, $etag, "$p: the 304's ETag");
    is(get($p, 'If-None-Match' => '"0000"')->{status}, $r->{status}, "$p: another tag: the answer");
    is(get($p, 'If-Match' => '"0000"')->{status}, 412, "$p: If-Match another: 412")
        if $r->{status} == 200;
    my $z = get($p, 'Accept-Encoding' => 'gzip');
    is($z->{headers}{'content-encoding'}, 'gzip', "$p: gzip");
    is(gunzip_body($z->{body}), $r->{body}, "$p: gzip: the same body");
    like($z->{headers}{etag}, qr/-gz"\z/, "$p: gzip: its own ETag");
    like($z->{headers}{vary} // '', qr/Accept-Encoding/, "$p: Vary");
    is(get($p, 'Accept-Encoding' => 'gzip', 'If-None-Match' => $z->{headers}{etag})->{status},
       304, "$p: gzip: its 304");
    my $h = http_request($port, 'HEAD', $p);
    is($h->{status} . ' ' . $h->{headers}{'content-length'}, $r->{status} . ' ' . length($r->{body}),
       "$p: HEAD");
}

# an ETag of the runes state: another record applied changes every one
{
    my $before = get("/runes/v1/etchings/$RUNE")->{headers}{etag};
    my ($rec) = $RECORDS =~ /^(\{"kind":"rune_etching","id":"1:0",[^\n]*)$/m;
    my ($code, $out, $err) = load_index($db, '-', { stdin => "$rec\n" });
    is($code, 0, 'a record written again') or diag($err);
    isnt(get("/runes/v1/etchings/$RUNE")->{headers}{etag}, $before,
         'the runes state changed: a new ETag');
}

$ng->stop;

# ---------------------------------------------------------------- the miss rule

# a runes feed from 840089 on: the lists derived from blocks are misses,
# the records held are served, those not held are misses too
my ($b89) = $RECORDS =~ /^(\{"kind":"rune_block","block_height":840089,[^\n]*)$/m;
my ($e8) = $RECORDS =~ /^(\{"kind":"rune_etching","id":"840000:8",[^\n]*)$/m;
my ($act) = $RECORDS =~ /^(\{"kind":"rune_activity",[^\n]*)$/m;
my $partial = index_of(qq({"kind":"block","source":"runes","height":840089,"hash":"b840089","parent":"b840088","time":1713620818}\n)
                       . "$b89\n$e8\n$act\n"
                       . qq({"kind":"block_end","source":"runes","height":840089}\n));
my $held = ['/runes/v1/', '/runes/v1/etchings/840000:8', '/runes/etchings/RSICEPICSEVEN',
            '/runes/v1/blocks/840089/activity',
            '/runes/v1/blocks/000000000000000000049a8bb8c5d04a64652a8774e0db1df4e7407480a44ad5/activity',
            "/runes/v1/transactions/$TX/activity"];
my $missed = ['/runes/v1/etchings', '/runes/v1/etchings/840000:8/activity',
              "/runes/v1/etchings/840000:8/activity/$A1", '/runes/v1/etchings/840000:8/holders',
              "/runes/v1/etchings/840000:8/holders/$A1", "/runes/v1/addresses/$A1/activity",
              '/runes/v1/etchings/840000:9', '/runes/v1/blocks/840000/activity',
              "/runes/v1/addresses/$A1/balances", '/runes/v1/transactions/' . ('ab' x 32) . '/activity',
              '/runes/v1/transactions/' . uc($TX) . '/activity'];
for my $fb (0, 1) {
    my $extra = $fb ? <<'CONF' : '';
        location @up {
            default_type application/json;
            add_header X-Upstream yes always;
            return 200 '{"upstream":true}';
        }
CONF
    my $locations = $LOCATIONS;
    $locations =~ s/chaindata_runes;/chaindata_runes;\n            chaindata_miss_fallback \@up;/g
        if $fb;
    my $p = ChainData::Test::Nginx->start(db => $partial, locations => $locations . $extra);
    my $with = $fb ? 'with a fallback' : 'without a fallback';
    for my $path (@$held) {
        my $r = http_get($p->port, $path);
        is($r->{status}, 200, "partial history, $with: $path: held, served");
        ok(!defined $r->{headers}{'x-upstream'}, "partial history, $with: $path: chaindata's");
    }
    for my $path (@$missed) {
        my $r = http_get($p->port, $path);
        if ($fb) {
            is($r->{status} . ' ' . ($r->{headers}{'x-upstream'} // ''), '200 yes',
               "partial history, $with: $path: upstream's answer");
        } else {
            is($r->{status}, 503, "partial history, $with: $path: 503");
            like($r->{body}, qr/runes feed holds blocks from 840089 on/,
                 "partial history, $with: $path: says why");
        }
    }
    $p->stop;
}

# ---------------------------------------------------------------- configuration

{
    my ($code, $out) = ChainData::Test::Nginx->test_config(
        locations => "        location /runes/ {\n            chaindata_runes;\n        }\n");
    isnt($code, 0, 'chaindata_runes without chaindata_db: refused');
    like($out, qr/a location serves chain data but no "chaindata_db"/,
         'chaindata_runes without chaindata_db: says why');
    ($code, $out) = ChainData::Test::Nginx->test_config(
        db => $db,
        locations => "        location /runes/ {\n            chaindata_runes;\n            chaindata_tx;\n        }\n");
    isnt($code, 0, 'chaindata_runes beside another route: refused');
    like($out, qr/conflicts with another content handler/, 'says why');
    ($code, $out) = ChainData::Test::Nginx->test_config(
        db => $db, locations => "        chaindata_runes;\n");
    isnt($code, 0, 'chaindata_runes outside a location: refused');
}

done_testing();
