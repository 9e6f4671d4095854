#!/usr/bin/perl
# GET /extended/v1/tx/{tx_id}: documents, id validation, event paging,
# caching, methods (upstream-behaviour.md section 1).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $JSON_CT = 'application/json; charset=utf-8';
my $BAD_ID_BODY = '{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request",'
    . '"message":"params/tx_id must match pattern \"^(0x)?[a-fA-F0-9]{64}$\""}';
my $NOT_FOUND_BODY = '{"statusCode":404,"error":"Not Found","message":"could not find transaction by ID"}';

sub qs_error_body {
    my ($msg) = @_;
    return '{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"'
        . $msg . '"}';
}

# ---------------------------------------------------------------- fixtures

my @files = (fixture_path('tx.ndjson'), fixture_path('tx-many-events.ndjson'));
-f $_ or BAIL_OUT("fixture $_ missing") for @files;

my @txs = tx_fixtures(@files);
my @confirmed = grep { !$_->{mempool} } @txs;
my @mempool = grep { $_->{mempool} } @txs;
my ($big) = grep { ($_->{event_count} || 0) == 640 } @txs;

cmp_ok(scalar @txs, '>=', 10, 'fixtures: at least 10 transactions');
cmp_ok(scalar @mempool, '>=', 2, 'fixtures: at least 2 mempool transactions');
ok($big, 'fixtures: a transaction with 640 events') or BAIL_OUT('no 640-event fixture');
is($big->{tx_type}, 'contract_call', 'fixtures: the 640-event tx is a contract_call');
ok((grep { $_->{tx_type} eq 'contract_call' && !$_->{mempool} && $_ != $big } @txs),
    'fixtures: another confirmed contract_call');

my $db = new_index(@files);
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => <<'EOF',
        location /extended/v1/tx/ {
            chaindata_tx;
        }
        location /other/prefix/ {
            chaindata_tx;
        }
EOF
);
my $port = $ng->port;
my $P = '/extended/v1/tx/';

sub get { my ($path, %h) = @_; return http_get($port, $path, %h) }

sub hex_of { my ($id) = @_; return substr($id, 2) }

# is_json_response($r, $status, $body, $name)
sub is_response {
    my ($r, $status, $body, $name) = @_;
    my $ok = 1;
    $ok &&= is($r->{status}, $status, "$name: status $status");
    $ok &&= is($r->{headers}{'content-type'}, $JSON_CT, "$name: content-type");
    $ok &&= is($r->{body}, $body, "$name: body") if defined $body;
    if (defined $r->{headers}{'content-length'}) {
        $ok &&= is($r->{headers}{'content-length'}, length $r->{body}, "$name: content-length");
    }
    ok(!$r->{chunked_error}, "$name: well-formed chunked body") if $r->{chunked};
    return $ok;
}

my @served_bodies;    # for schema validation

# ---------------------------------------------------------------- every fixture

my %etag_of;
for my $tx (@txs) {
    my $id = $tx->{tx_id};
    like($id, qr/^0x[0-9a-f]{64}\z/, "fixture $id: lowercase 0x id");
    my $want = splice_events($tx->{data_raw}, 0, 20);
    my $r = get("$P$id");
    is_response($r, 200, $want, "$tx->{tx_type} $id");
    my $etag = $r->{headers}{etag};
    like($etag, qr/^"[^"]+"\z/, "$id: strong ETag");
    is($r->{headers}{'cache-control'}, 'public, no-cache, must-revalidate', "$id: cache-control");
    $etag_of{$id} = $etag;
    push @served_bodies, $r->{body};

    my $doc = eval { json_decode($r->{body}) } || {};
    is($doc->{tx_id}, $id, "$id: tx_id in document");
    if ($tx->{mempool}) {
        ok(!exists $doc->{events} && !exists $doc->{event_count}, "$id: mempool tx has no events");
    } else {
        is($doc->{event_count}, $tx->{event_count}, "$id: event_count is the total");
        is(scalar @{ $doc->{events} || [] },
            ($tx->{event_count} > 20 ? 20 : $tx->{event_count}), "$id: events page size");
    }

    # upper-case hex
    my $r2 = get($P . '0x' . uc hex_of($id));
    is_response($r2, 200, $want, "$id upper-case hex");

    # exclude_function_args on every tx type
    my $r3 = get("$P$id?exclude_function_args=true");
    is_response($r3, 200, splice_events($tx->{data_raw}, 0, 20, 1),
        "$id exclude_function_args=true");
    push @served_bodies, $r3->{body};

    # the other location prefix
    my $r4 = get("/other/prefix/$id");
    is_response($r4, 200, $want, "$id via /other/prefix/");
}

{
    my %seen;
    $seen{$_}++ for values %etag_of;
    is(scalar keys %seen, scalar @txs, 'ETags differ between transactions');
}

# mixed case
{
    my $tx = $confirmed[0];
    my $hex = hex_of($tx->{tx_id});
    my $i = 0;
    (my $mixed = $hex) =~ s/([a-f])/$i++ % 2 ? uc $1 : $1/ge;
    isnt($mixed, $hex, 'mixed-case id differs from the lowercase one') if $hex =~ /[a-f].*[a-f]/;
    is_response(get("${P}0x$mixed"), 200, splice_events($tx->{data_raw}, 0, 20), 'mixed-case hex');
}

# ---------------------------------------------------------------- redirect without 0x

{
    my $tx = $confirmed[0];
    my $hex = hex_of($tx->{tx_id});
    my @cases = (
        ["$P$hex", "${P}0x$hex", 'no 0x'],
        ["$P$hex?event_limit=5&foo=bar", "${P}0x$hex?event_limit=5&foo=bar", 'no 0x, with query'],
        ['/other/prefix/' . uc($hex), '/other/prefix/0x' . uc($hex), 'no 0x, upper-case, other prefix'],
        ["$P$hex?exclude_function_args=true", "${P}0x$hex?exclude_function_args=true", 'no 0x, exclude_function_args'],
        # upstream ignores a trailing slash, and its Location has none
        ["$P$hex/", "${P}0x$hex", 'no 0x, trailing slash'],
        ["$P$hex/?event_limit=5", "${P}0x$hex?event_limit=5", 'no 0x, trailing slash, with query'],
    );
    my $unknown_hex = hex_of(random_tx_id());
    push @cases, ["$P$unknown_hex", "${P}0x$unknown_hex", 'no 0x, unknown id'];
    for my $c (@cases) {
        my ($path, $loc, $name) = @$c;
        my $r = get($path);
        is($r->{status}, 302, "redirect $name: 302");
        is($r->{headers}{location}, $loc, "redirect $name: Location");
        is($r->{body}, '', "redirect $name: empty body");
        my $h = http_request($port, 'HEAD', $path);
        is($h->{status}, 302, "redirect $name: HEAD 302");
        is($h->{headers}{location}, $loc, "redirect $name: HEAD Location");
    }
    # following the redirect gives the document
    my $r = get("$P$hex?event_limit=1");
    my $f = get($r->{headers}{location} || '/');
    is_response($f, 200, splice_events($tx->{data_raw}, 0, 1), 'redirect target serves the document');
}

# ---------------------------------------------------------------- a trailing slash

{
    my $tx = $confirmed[0];
    my $id = $tx->{tx_id};
    my $plain = get("$P$id");
    for my $c (["$P$id/", 0, 20, 'trailing slash'],
               ["$P$id/?event_limit=1", 0, 1, 'trailing slash, with query'],
               ['/other/prefix/0x' . uc(hex_of($id)) . '/', 0, 20, 'trailing slash, other prefix'])
    {
        my ($path, $off, $lim, $name) = @$c;
        my $r = get($path);
        is_response($r, 200, splice_events($tx->{data_raw}, $off, $lim), "$name: the document");
        is($r->{headers}{etag}, $plain->{headers}{etag}, "$name: the same ETag") if $lim == 20;
    }
    is_response(get('/extended/v1/tx/' . random_tx_id() . '/'), 404, $NOT_FOUND_BODY,
        'trailing slash, unknown id: 404');
    is_response(get("$P$id/?event_limit=101"), 400,
        qs_error_body('querystring/event_limit must be <= 100'), 'trailing slash: the query checked');
}

# ---------------------------------------------------------------- bad ids

{
    my $hex = hex_of($confirmed[0]{tx_id});
    my @bad = (
        ['0x' . substr($hex, 1), 'too short (63 hex)'],
        ['0x' . $hex . 'a', 'too long (65 hex)'],
        ['0x' . substr($hex, 0, 63) . 'g', 'non-hex character'],
        ['0x' . substr($hex, 0, 62) . 'zz', 'non-hex characters'],
        ['0X' . $hex, '0X prefix'],
        ['', 'empty last segment'],
        ['0x', '0x only'],
        [substr($hex, 1), 'no 0x, 63 hex'],
        [$hex . '0', 'no 0x, 65 hex'],
        ['0x0x' . substr($hex, 2), 'double 0x'],
        ['xyz', 'word'],
        ['0x' . substr($hex, 0, 32) . '-' . substr($hex, 33), 'dash inside'],
    );
    for my $b (@bad) {
        my ($id, $name) = @$b;
        my $r = get("$P$id");
        is_response($r, 400, $BAD_ID_BODY, "bad id: $name");
    }
    is_response(get("/other/prefix/0x12"), 400, $BAD_ID_BODY, 'bad id via other prefix');
    # param validation comes before querystring validation
    is_response(get("${P}0x12?event_limit=101"), 400, $BAD_ID_BODY,
        'bad id and bad event_limit: the id error wins');
    my $h = http_request($port, 'HEAD', "${P}0x12");
    is($h->{status}, 400, 'bad id: HEAD 400');
    is($h->{body}, '', 'bad id: HEAD has no body');
}

# ---------------------------------------------------------------- unknown id

{
    my $id = random_tx_id();
    for my $path ("$P$id", $P . '0x' . uc(hex_of($id)), "$P$id?event_offset=3&exclude_function_args=true",
                  "/other/prefix/$id") {
        my $r = get($path);
        is_response($r, 404, $NOT_FOUND_BODY, "unknown id $path");
        is($r->{headers}{'cache-control'}, 'no-store', "unknown id: Cache-Control no-store");
    }
    my $h = http_request($port, 'HEAD', "$P$id");
    is($h->{status}, 404, 'unknown id: HEAD 404');
    is($h->{body}, '', 'unknown id: HEAD no body');
    is($h->{headers}{'cache-control'}, 'no-store', 'unknown id: HEAD Cache-Control');
    is_response(get("$P$id?event_limit=101"), 400, qs_error_body('querystring/event_limit must be <= 100'),
        'unknown id with bad event_limit: 400 (validation before lookup)');
}

# ---------------------------------------------------------------- event paging (640 events)

{
    my $id = $big->{tx_id};
    my $raw = $big->{data_raw};
    my @ok = (
        ['', 0, 20],
        ['event_limit=0', 0, 20],
        ['event_limit=1', 0, 1],
        ['event_limit=20', 0, 20],
        ['event_limit=57', 0, 57],
        ['event_limit=100', 0, 100],
        ['event_offset=0', 0, 20],
        ['event_offset=19', 19, 20],
        ['event_offset=20', 20, 20],
        ['event_offset=600', 600, 20],
        ['event_offset=630', 630, 20],
        ['event_offset=639', 639, 20],
        ['event_offset=640', 640, 20],
        ['event_offset=641', 641, 20],
        ['event_offset=10000', 10000, 20],
        ['event_offset=99999999999999999999', 99999999999999999999, 20],
        ['event_offset=3&event_limit=7', 3, 7],
        ['event_limit=7&event_offset=3', 3, 7],
        ['event_offset=540&event_limit=100', 540, 100],
        ['event_offset=630&event_limit=100', 630, 100],
        ['event_offset=639&event_limit=1', 639, 1],
        ['event_offset=5&event_limit=0', 5, 20],
        ['exclude_function_args=true', 0, 20, 1],
        ['exclude_function_args=false', 0, 20, 0],
        ['event_offset=5&event_limit=3&exclude_function_args=true', 5, 3, 1],
        ['exclude_function_args=false&event_offset=100', 100, 20, 0],
        ['unanchored=true', 0, 20],
        ['unanchored=false', 0, 20],
        ['unanchored=true&event_limit=2&event_offset=2', 2, 2],
        ['foo=bar&event_limit=2', 0, 2],
        ['limit=5&offset=7', 0, 20],
        ['x=&y&event_offset=1', 1, 20],
        ['event_limit=%35', 0, 5],
        ['event_offset=%32%30&exclude_function_args=%74rue', 20, 20, 1],
        ['event_offset=007', 7, 20],
        # coerced as upstream coerces them (JavaScript's Number(), then an
        # integer check)
        ['event_limit=2&event_offset=3', 3, 2],
        ['event_limit=+2&event_offset=%2B3', 3, 2],
        ['event_limit=0x10&event_offset=0X14', 20, 16],
        ['event_limit=1.0&event_offset=1e1', 10, 1],
        ['event_limit=1E1&event_offset=2.50e1', 25, 10],
        ['event_limit=%205&event_offset=%0A4%20', 4, 5],
        ['event_limit=0b11&event_offset=0o17', 15, 3],
        ['event_limit=-0&event_offset=-0.0', 0, 20],
        ['event_offset=1e21', 1e21, 20],
        # parameter names percent-decoded
        ['event%5Flimit=4&%65vent_offset=2', 2, 4],
        ['%65xclude_function_args=true', 0, 20, 1],
    );
    my %etags;
    for my $c (@ok) {
        my ($q, $off, $lim, $ex) = @$c;
        my $path = "$P$id" . ($q ne '' ? "?$q" : '');
        my $want = splice_events($raw, $off, $lim, $ex);
        my $r = get($path);
        is_response($r, 200, $want, "paging ?$q");
        my $doc = eval { json_decode($r->{body}) } || {};
        is($doc->{event_count}, 640, "paging ?$q: event_count 640");
        my $n = $off >= 640 ? 0 : ($off + $lim > 640 ? 640 - $off : $lim);
        is(scalar @{ $doc->{events} || [] }, $n, "paging ?$q: $n events");
        if ($n) {
            is($doc->{events}[0]{event_index}, $off, "paging ?$q: first event_index $off");
        }
        ok((exists(($doc->{contract_call} || {})->{function_args}) ? 1 : 0) == ($ex ? 0 : 1),
            "paging ?$q: function_args " . ($ex ? 'absent' : 'present'));
        $etags{$q} = $r->{headers}{etag};
        push @served_bodies, $r->{body} if $q =~ /^(|event_offset=640|exclude_function_args=true|event_offset=639|event_limit=100)$/;
    }

    # ETag behaviour across pages
    my $e0 = $etags{''};
    like($e0, qr/^"[^"]+"\z/, 'big tx: strong ETag');
    is(get("$P$id")->{headers}{etag}, $e0, 'ETag stable for repeated identical requests');
    isnt($etags{'event_offset=20'}, $e0, 'ETag differs: event_offset=20');
    isnt($etags{'event_limit=1'}, $e0, 'ETag differs: event_limit=1');
    isnt($etags{'event_offset=640'}, $e0, 'ETag differs: empty page');
    isnt($etags{'exclude_function_args=true'}, $e0, 'ETag differs: exclude_function_args');
    isnt($etags{'event_offset=5&event_limit=3&exclude_function_args=true'},
        $etags{'event_offset=3&event_limit=7'}, 'ETag differs between different pages');
    isnt($etags{'event_offset=20'}, $etags{'event_offset=19'}, 'ETag differs: offset 19 vs 20');
    is($etags{'event_limit=+2&event_offset=%2B3'}, $etags{'event_limit=2&event_offset=3'},
        'ETag: +2 and +3 are 2 and 3');

    # invalid query parameters
    my @bad = (
        ['event_limit=101', 'querystring/event_limit must be <= 100'],
        ['event_limit=1000', 'querystring/event_limit must be <= 100'],
        ['event_limit=99999999999999999999', 'querystring/event_limit must be <= 100'],
        ['event_limit=abc', 'querystring/event_limit must be integer'],
        ['event_limit=1.5', 'querystring/event_limit must be integer'],
        ['event_limit=', 'querystring/event_limit must be integer'],
        ['event_limit=5x', 'querystring/event_limit must be integer'],
        ['event_limit=%20', 'querystring/event_limit must be integer'],
        ['event_limit=Infinity', 'querystring/event_limit must be integer'],
        ['event_limit=0x', 'querystring/event_limit must be integer'],
        ['event_limit=1&event_limit=2', 'querystring/event_limit must be integer'],
        ['event_limit=1&event%5Flimit=1', 'querystring/event_limit must be integer'],
        ['event_limit=1.01e2', 'querystring/event_limit must be <= 100'],
        ['event_limit=0x65', 'querystring/event_limit must be <= 100'],
        ['event%5Flimit=1000', 'querystring/event_limit must be <= 100'],
        ['event%5flimit=101&event_offset=x', 'querystring/event_limit must be <= 100'],
        ['event_offset=-1e1', 'querystring/event_offset must be >= 0'],
        ['%65vent_offset=-1', 'querystring/event_offset must be >= 0'],
        ['event_offset=Infinity', 'querystring/event_offset must be integer'],
        ['event_offset=0.5', 'querystring/event_offset must be integer'],
        ['exclude%5Ffunction_args=1', 'querystring/exclude_function_args must be boolean'],
        ['event_offset=-1', 'querystring/event_offset must be >= 0'],
        ['event_offset=-100&event_limit=5', 'querystring/event_offset must be >= 0'],
        ['event_offset=abc', 'querystring/event_offset must be integer'],
        ['event_offset=2.5', 'querystring/event_offset must be integer'],
        ['event_offset=', 'querystring/event_offset must be integer'],
        ['exclude_function_args=1', 'querystring/exclude_function_args must be boolean'],
        ['exclude_function_args=yes', 'querystring/exclude_function_args must be boolean'],
        ['exclude_function_args=TRUEISH', 'querystring/exclude_function_args must be boolean'],
        ['event_limit=20&exclude_function_args=no', 'querystring/exclude_function_args must be boolean'],
    );
    for my $c (@bad) {
        my ($q, $msg) = @$c;
        my $r = get("$P$id?$q");
        is_response($r, 400, qs_error_body($msg), "bad query ?$q");
        ok(!defined $r->{headers}{etag}, "bad query ?$q: no ETag");
    }
    # below the minimum of event_limit: a 400 validation error (message not pinned)
    {
        my $r = get("$P$id?event_limit=-1");
        is($r->{status}, 400, 'event_limit=-1: 400');
        my $d = eval { json_decode($r->{body}) } || {};
        is($d->{code}, 'FST_ERR_VALIDATION', 'event_limit=-1: FST_ERR_VALIDATION');
        like($d->{message} || '', qr{^querystring/event_limit }, 'event_limit=-1: message names the parameter');
    }
    is_response(get("$P$mempool[0]{tx_id}?event_limit=101"), 400,
        qs_error_body('querystring/event_limit must be <= 100'), 'mempool tx: bad event_limit still 400');
}

# ---------------------------------------------------------------- mempool

for my $tx (@mempool) {
    my $id = $tx->{tx_id};
    ok($tx->{data_raw} !~ /"events"\s*:/, "mempool fixture $id has no events key");
    for my $q ('', '?event_offset=5&event_limit=1', '?event_limit=100&event_offset=0', '?unanchored=true') {
        my $r = get("$P$id$q");
        is_response($r, 200, $tx->{data_raw}, "mempool $id$q: body equals the fixture");
    }
    my $r = get("$P$id");
    my $doc = eval { json_decode($r->{body}) } || {};
    ok(!exists $doc->{events}, "mempool $id: no events");
    like($doc->{tx_status} || '', qr/^(pending|dropped_\w+)\z/, "mempool $id: tx_status");
    my $etag = $r->{headers}{etag};
    like($etag, qr/^"[^"]+"\z/, "mempool $id: strong ETag");
    my $nm = get("$P$id", 'If-None-Match' => $etag);
    is($nm->{status}, 304, "mempool $id: If-None-Match 304");
}

# ---------------------------------------------------------------- conditional requests

{
    my $id = $big->{tx_id};
    my $r = get("$P$id");
    my $e = $r->{headers}{etag};
    (my $opaque = $e) =~ s/^"|"\z//g;
    my @match = (
        [$e, 'exact'],
        ["W/$e", 'weak form'],
        [qq("nope", $e), 'comma list, second'],
        [qq($e, "nope"), 'comma list, first'],
        [qq("a",W/$e,"b"), 'comma list without spaces, weak'],
    );
    for my $m (@match) {
        my ($inm, $name) = @$m;
        my $nm = get("$P$id", 'If-None-Match' => $inm);
        is($nm->{status}, 304, "If-None-Match $name: 304");
        is($nm->{body}, '', "If-None-Match $name: empty body");
        is($nm->{headers}{etag}, $e, "If-None-Match $name: same ETag");
        ok(!$nm->{headers}{'content-length'} || $nm->{headers}{'content-length'} eq '0',
            "If-None-Match $name: no content length");
    }
    my @nomatch = (
        ['"nope"', 'other tag'],
        ["W/\"x$opaque\"", 'weak other tag'],
        [$etag_of{ $confirmed[0]{tx_id} } eq $e ? '"zz"' : $etag_of{ $confirmed[0]{tx_id} }, 'ETag of another transaction'],
    );
    for my $m (@nomatch) {
        my ($inm, $name) = @$m;
        my $nm = get("$P$id", 'If-None-Match' => $inm);
        is_response($nm, 200, $r->{body}, "If-None-Match $name: 200");
    }
    # the ETag of page 1 does not validate page 2
    my $p2 = get("$P$id?event_offset=20", 'If-None-Match' => $e);
    is_response($p2, 200, splice_events($big->{data_raw}, 20, 20), 'page-1 ETag on page 2: 200');
    my $p2b = get("$P$id?event_offset=20", 'If-None-Match' => $p2->{headers}{etag});
    is($p2b->{status}, 304, 'page-2 ETag on page 2: 304');
    my $ex = get("$P$id?exclude_function_args=true", 'If-None-Match' => $e);
    is($ex->{status}, 200, 'default ETag with exclude_function_args: 200');
    my $hn = http_request($port, 'HEAD', "$P$id", 'If-None-Match' => $e);
    is($hn->{status}, 304, 'HEAD with If-None-Match: 304');
}

# ---------------------------------------------------------------- HEAD

{
    my @paths = ("$P$big->{tx_id}", "$P$big->{tx_id}?event_offset=620&exclude_function_args=true",
        "$P$confirmed[0]{tx_id}", "$P$mempool[0]{tx_id}", "/other/prefix/$confirmed[-1]{tx_id}");
    for my $path (@paths) {
        my $g = get($path);
        my $h = http_request($port, 'HEAD', $path);
        is($h->{status}, $g->{status}, "HEAD $path: same status");
        is($h->{body}, '', "HEAD $path: no body");
        is($h->{headers}{'content-length'}, length $g->{body}, "HEAD $path: Content-Length of the GET body");
        for my $hd ('content-type', 'etag', 'cache-control') {
            is($h->{headers}{$hd}, $g->{headers}{$hd}, "HEAD $path: same $hd");
        }
    }
}

# ---------------------------------------------------------------- other methods

my @log_checked;    # [from, to] of error log parts already checked
{
    my $log_before = length $ng->error_log;
    my $id = $confirmed[0]{tx_id};
    for my $m (['POST', _body => '{"a":1}', 'Content-Type' => 'application/json'],
               ['PUT', _body => 'x'], ['DELETE'], ['PATCH', _body => '{}'], ['POST', _body => ''])
    {
        my ($method, %h) = @$m;
        my $r = http_request($port, $method, "$P$id", %h);
        is($r->{status}, 405, "$method: 405");
        is($r->{headers}{allow}, 'GET, HEAD', "$method: Allow");
        is($r->{headers}{'content-type'}, $JSON_CT, "$method: content-type");
        my $d = eval { json_decode($r->{body}) } || {};
        is($d->{statusCode}, 405, "$method: statusCode 405 in body");
        is($d->{error}, 'Method Not Allowed', "$method: error in body");
    }
    # the transaction is still there after a DELETE request
    is(get("$P$id")->{status}, 200, 'DELETE request did not delete anything');
    my $log = $ng->error_log;
    push @log_checked, [$log_before, length $log];
    my @alerts = grep { /\[(?:alert|crit|emerg)\]/ } split /\n/, substr($log, $log_before);
    is(join("\n", @alerts), '', '405 responses: no alerts in the error log');
}

# ---------------------------------------------------------------- keep-alive: two requests on one connection

{
    my $id = $confirmed[0]{tx_id};
    my $raw = "GET $P$id?event_limit=1 HTTP/1.1\r\nHost: localhost\r\n\r\n"
        . "GET $P$id HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    my $r = http($port, $raw);
    my $n = () = $r->{raw} =~ m{HTTP/1\.1 200 }g;
    is($n, 2, 'pipelined keep-alive requests both answered with 200');
}

# ---------------------------------------------------------------- schema

SKIP: {
    my @res = validate_tx_schema(@served_bodies);
    skip "schema check: $res[1]", 1 unless defined $res[0];
    my @bad = grep { !$res[$_]{ok} } 0 .. $#res;
    ok(!@bad, 'all ' . scalar(@served_bodies) . ' served documents validate against the strict schema')
        or diag(join "\n", map { "doc $_: $res[$_]{msg}\n  " . substr($served_bodies[$_], 0, 200) } @bad[0 .. ($#bad > 9 ? 9 : $#bad)]);
}

# ---------------------------------------------------------------- server health

{
    my $log = $ng->error_log;
    substr($log, $_->[0], $_->[1] - $_->[0]) = '' for reverse @log_checked;
    is(join("\n", grep { /\[(?:alert|crit|emerg)\]/ || /exited on signal/ } split /\n/, $log), '',
        'no (other) alerts/crashes in the error log');
}
$ng->stop;

done_testing;
