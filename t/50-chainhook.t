#!/usr/bin/perl
# GET /v1/ext/{apiKey}/chainhooks/{chainhookUuid}/status: the six status
# types byte for byte, enabled both ways, a wrong key answered exactly like
# an unknown chainhook, malformed parameters, Cache-Control: no-store, the
# loader's checks, and no API key anywhere in the index files
# (upstream-behaviour.md section 5, lmdb-schema/chainhook.md).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Digest::SHA qw(sha256);
use Test::More;
use ChainData::Test qw(:all);
use ChainData::Chainhook qw(:all);

require_build();

my $JSON_CT = 'application/json; charset=utf-8';
my $NOT_FOUND = '{"statusCode":404,"error":"Not Found","message":"chainhook not found"}';
my $NO_ROUTE = '{"statusCode":404,"error":"Not Found","message":"Route not found: '
    . 'the path ends in /{apiKey}/chainhooks/{chainhookUuid}/status"}';

sub bad_request {
    my ($msg) = @_;
    return '{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request","message":"'
        . $msg . '"}';
}

my $KEY_SHORT = bad_request('params/apiKey must NOT have fewer than 1 characters');
my $KEY_LONG = bad_request('params/apiKey must NOT have more than 128 characters');
my $BAD_UUID = bad_request('params/chainhookUuid must match format \"uuid\"');

# ---------------------------------------------------------------- fixtures

my $fx = fixture_path('chainhook.ndjson');
-f $fx or BAIL_OUT("fixture $fx missing");
my ($hooks, $all_keys) = chainhook_fixtures($fx);
my %hook = map { $_->{uuid} => $_ } @$hooks;
my $UNKNOWN = '0badc0de-0000-4000-8000-00000000beef';
my $DELETED = '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0b';

is_deeply([sort map { $_->{type} } @$hooks],
    [sort qw(new new new scanning scanning streaming streaming
             unconfirmed_expiration confirmed_expiration interrupted)],
    'fixtures: every status type, as expected');
ok((grep { $_->{enabled} } @$hooks) && (grep { !$_->{enabled} } @$hooks),
    'fixtures: enabled true and false');
ok(!$hook{$DELETED}, 'fixtures: one chainhook is deleted');
ok((grep { length $_->{key} == 128 } @$hooks), 'fixtures: a key of 128 bytes');
ok((grep { $_->{key} =~ m{[/?% ]} } @$hooks), 'fixtures: a key that needs percent-encoding');

my $db = new_index($fx);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => <<'EOF',
        location /v1/ext/ {
            chaindata_chainhook_status;
        }
        location /platform/ {
            client_max_body_size 4;
            chaindata_chainhook_status;
        }
EOF
);
my $port = $ng->port;

sub get { my ($path, %h) = @_; return http_get($port, $path, %h) }
sub head { my ($path) = @_; return http_request($port, 'HEAD', $path) }

sub is_reply {
    my ($r, $status, $body, $name) = @_;
    is($r->{status}, $status, "$name: status $status");
    is($r->{headers}{'content-type'}, $JSON_CT, "$name: content-type");
    is($r->{headers}{'cache-control'}, 'no-store', "$name: Cache-Control: no-store");
    is($r->{body}, $body, "$name: body") if defined $body;
    is($r->{headers}{'content-length'}, length $r->{body}, "$name: content-length")
        if defined $body;
}

# ---------------------------------------------------------------- served byte for byte

my %types_served;
my %enabled_served;
for my $h (@$hooks) {
    my $name = "$h->{type} $h->{uuid}";
    my $r = get(hook_path($h->{key}, $h->{uuid}));
    is_reply($r, 200, $h->{data_raw}, $name);
    ok(!exists $r->{headers}{etag}, "$name: no ETag");
    if ($r->{status} == 200) {
        $types_served{ $h->{type} }++;
        my $doc = json_decode($r->{body});
        $enabled_served{ $doc->{enabled} ? 'true' : 'false' }++;
        is($doc->{status}{type}, $h->{type}, "$name: status.type");
    }

    # HEAD: the same headers, no body
    my $hr = head(hook_path($h->{key}, $h->{uuid}));
    is($hr->{status}, 200, "$name HEAD: 200");
    is($hr->{body}, '', "$name HEAD: no body");
    is_deeply(headers_but_date($hr), headers_but_date($r), "$name HEAD: same headers");

    # the UUID in upper case; another location prefix
    is_reply(get(hook_path($h->{key}, uc $h->{uuid})), 200, $h->{data_raw},
        "$name, upper-case UUID");
    is_reply(get(hook_path($h->{key}, $h->{uuid}, '/platform/')), 200, $h->{data_raw},
        "$name via /platform/");
}

is_deeply([sort keys %types_served],
    [sort qw(new scanning streaming unconfirmed_expiration confirmed_expiration interrupted)],
    'all six status types served');
is_deeply([sort keys %enabled_served], [qw(false true)], 'enabled served both ways');

{
    my ($h) = grep { $_->{type} eq 'interrupted' } @$hooks;
    like($h->{data_raw}, qr/\\"[^"]*\\n[^"]*\xc3\x97.*\\\\.*\\t\\u001f/,
        'interrupted message has escapes and raw UTF-8');
    my $doc = json_decode(get(hook_path($h->{key}, $h->{uuid}))->{body});
    ok(!ref $doc->{status}{info}, 'interrupted: info is a string');

    my ($new) = grep { $_->{type} eq 'new' } @$hooks;
    $doc = json_decode(get(hook_path($new->{key}, $new->{uuid}))->{body});
    ok(!exists $doc->{status}{info}, 'new: no info member');

    my ($st) = grep { $_->{data_raw} =~ /18446744073709551615/ } @$hooks;
    like(get(hook_path($st->{key}, $st->{uuid}))->{body}, qr/:18446744073709551615,/,
        'a u64 counter is served as loaded');
}

# one key owns two chainhooks; an upper-case UUID in a record is the same hook
{
    my $key = $hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01'}{key};
    is($hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a07'}{key}, $key, 'fixtures: one key, two chainhooks');
    is(get(hook_path($key, '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a07'))->{status}, 200,
        'a key serves each of its chainhooks');
    is(get(hook_path($key, '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a02'))->{status}, 404,
        'but not another key\'s');
    is($hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0a'}{type}, 'streaming',
        'the later upsert (lower-case UUID) replaced the earlier (upper-case)');
    is(get(hook_path($hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0a'}{key},
        '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0a'))->{body},
        $hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0a'}{data_raw}, 'replaced document served');
}

# the deleted chainhook, with the key it had
{
    my ($key) = grep { $_ eq 'daba6dc3ab0f1aa8583a508f7fcc3f5e' } @$all_keys;
    ok($key, 'fixtures: the deleted chainhook\'s key');
    is_reply(get(hook_path($key, $DELETED)), 404, $NOT_FOUND, 'deleted chainhook');
}

# ---------------------------------------------------------------- wrong key = unknown chainhook

{
    my $h = $hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a03'};
    my $k = $h->{key};
    my $other = $hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a02'}{key};
    (my $last = $k) =~ s/(.)\z/$1 eq '0' ? '1' : '0'/e;

    my @wrong = (
        ['another chainhook\'s key', $other],
        ['last character changed', $last],
        ['upper case', uc $k],
        ['a prefix', substr($k, 0, 31)],
        ['one byte more', $k . 'a'],
        ['a key nobody has', 'no-such-key'],
        ['128 bytes', 'x' x 128],
    );

    my $ref = get(hook_path('no-such-key', $UNKNOWN));
    is_reply($ref, 404, $NOT_FOUND, 'unknown chainhook');
    my $ref_head = head(hook_path('no-such-key', $UNKNOWN));

    my $log_before = $ng->error_log;

    for my $w (@wrong) {
        my ($what, $key) = @$w;
        isnt($key, $k, "wrong key ($what) differs from the right one");
        my $r = get(hook_path($key, $h->{uuid}));
        is_reply($r, 404, $NOT_FOUND, "wrong key ($what)");
        is_deeply(headers_but_date($r), headers_but_date($ref),
            "wrong key ($what): headers as for an unknown chainhook");
        is($r->{body}, $ref->{body}, "wrong key ($what): body as for an unknown chainhook");

        # the same key on an unknown chainhook
        my $u = get(hook_path($key, $UNKNOWN));
        is($u->{status}, $r->{status}, "$what on an unknown chainhook: same status");
        is_deeply(headers_but_date($u), headers_but_date($r), "$what on an unknown chainhook: same headers");
        is($u->{body}, $r->{body}, "$what on an unknown chainhook: same body");

        my $hr = head(hook_path($key, $h->{uuid}));
        is_deeply([$hr->{status}, headers_but_date($hr), $hr->{body}],
            [$ref_head->{status}, headers_but_date($ref_head), $ref_head->{body}],
            "wrong key ($what), HEAD: as for an unknown chainhook");
    }

    # the right key of a chainhook on an unknown UUID
    my $r = get(hook_path($k, $UNKNOWN));
    is_deeply([$r->{status}, headers_but_date($r), $r->{body}],
        [$ref->{status}, headers_but_date($ref), $ref->{body}],
        'a valid key on an unknown UUID: as for any unknown chainhook');

    my $new_lines = substr($ng->error_log, length $log_before);
    my @above_info = grep { !/\[(?:info|debug)\]/ } split /\n/, $new_lines;
    is_deeply(\@above_info, [], 'no error log line above info for wrong keys and unknown chainhooks')
        or diag(join "\n", @above_info);
}

# ---------------------------------------------------------------- malformed parameters

{
    my $h = $hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01'};
    my ($k, $u) = ($h->{key}, $h->{uuid});

    is_reply(get("/v1/ext//chainhooks/$u/status"), 400, $KEY_SHORT, 'empty key');
    is_reply(get("/platform//chainhooks/$u/status"), 400, $KEY_SHORT, 'empty key, other prefix');
    is_reply(get('/v1/ext/' . ('k' x 129) . "/chainhooks/$u/status"), 400, $KEY_LONG,
        'key of 129 bytes');
    is_reply(get('/v1/ext/' . ('%41' x 129) . "/chainhooks/$u/status"), 400, $KEY_LONG,
        'key of 129 bytes, percent-encoded');
    is_reply(get('/v1/ext/' . ('k' x 5000) . "/chainhooks/$u/status"), 400, $KEY_LONG,
        'key of 5000 bytes');
    is_reply(get('/v1/ext/' . ('%41' x 128) . "/chainhooks/$u/status"), 404, $NOT_FOUND,
        'key of 128 bytes, percent-encoded: valid, unknown');
    my ($long) = grep { length $_->{key} == 128 } @$hooks;
    is_reply(get(hook_path($long->{key}, $long->{uuid})), 200, $long->{data_raw},
        'key of 128 bytes: served');

    for my $bad ('not-a-uuid', substr($u, 1), "${u}0", join('', split /-/, $u), "{$u}",
        "urn:uuid:$u", 'g' . substr($u, 1), '1f6e2c3a0-b4d-4e5f-8a9b-0c1d2e3f4a01',
        '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0%31x', '%20' . substr($u, 1), 'x' x 400)
    {
        is_reply(get("/v1/ext/$k/chainhooks/$bad/status"), 400, $BAD_UUID, "uuid \"$bad\"");
    }
    is_reply(get("/v1/ext/$k/chainhooks/1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0%31/status"), 200,
        $h->{data_raw}, 'a percent-encoded UUID digit is decoded');
    is_reply(get("/v1/ext//chainhooks/nope/status"), 400, $KEY_SHORT,
        'bad key and bad uuid: the key is reported');
    is_reply(get("/v1/ext/$k/chainhooks//status"), 400, $BAD_UUID, 'empty uuid');

    for my $shape ("/v1/ext/$k/chainhooks/$u/status/", "/v1/ext/$k/chainhooks/$u",
        "/v1/ext/$k/chainhook/$u/status", "/v1/ext/$k/chainhooks/$u/Status",
        "/v1/ext/$k", "/v1/ext/", "/v1/ext/$k/chainhooks/$u/status/x",
        "/v1/ext/$k/chainhooks/$u/status%2F")
    {
        is_reply(get($shape), 404, $NO_ROUTE, "path of another shape: $shape");
    }

    # a query string is ignored
    is_reply(get(hook_path($k, $u) . '?limit=1&x'), 200, $h->{data_raw}, 'query string ignored');

    for my $m (qw(POST PUT DELETE PATCH)) {
        my $r = http_request($port, $m, hook_path($k, $u), _body => '{}');
        is($r->{status}, 405, "$m: 405");
        is($r->{headers}{allow}, 'GET, HEAD', "$m: Allow");
        is($r->{headers}{'cache-control'}, 'no-store', "$m: Cache-Control: no-store");
        unlike($r->{body}, qr/\Q$k\E/, "$m: the body does not echo the key");
    }

    # nginx's own answers, in the route or to a path with a key, carry
    # no-store too
    my $r = http_request($port, 'GET', hook_path($k, $u, '/platform/'), _body => 'x' x 10);
    is($r->{status}, 413, 'nginx\'s own 413 in the route');
    is($r->{headers}{'cache-control'}, 'no-store', '  Cache-Control: no-store');
    $r = http_request($port, 'GET', hook_path($k, $u), 'Content-Length' => 'x');
    is($r->{status}, 400, 'nginx\'s own 400 before any location (bad Content-Length)');
    is($r->{headers}{'cache-control'}, 'no-store', '  Cache-Control: no-store');
    like($ng->error_log, qr/\[error\].*client intended to send too large body.*request: "GET \/platform\/\*\*\*\/chainhooks\/$u\/status HTTP\/1\.1"/,
        'the error log line of the 413 shows the redacted request line');
}

# ---------------------------------------------------------------- the index holds no key

{
    my @files = index_files($db);
    ok(scalar(grep { m{/data\.mdb\z} } @files), 'index: data.mdb is there');
    my %content = map { $_ => slurp($_) } @files;
    for my $key (@$all_keys) {
        my $bytes = $key;
        utf8::encode($bytes);
        my @holding = grep { index($content{$_}, $bytes) >= 0 } @files;
        is_deeply(\@holding, [], "index files do not hold the key \"" . substr($key, 0, 6) . "…\"");
        my @pct = grep { index($content{$_}, pct($key)) >= 0 } @files;
        is_deeply(\@pct, [], 'nor its percent-encoded form') if pct($key) ne $key;
    }
    for my $h (@$hooks) {
        my $bytes = $h->{key};
        utf8::encode($bytes);
        ok(index($content{"$db/data.mdb"}, sha256($bytes)) >= 0,
            "index holds the SHA-256 of $h->{uuid}'s key");
    }
}

# ---------------------------------------------------------------- live updates

{
    my $h = $hook{'1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a04'};
    my $doc = '{"status":{"info":"disk full","type":"interrupted"},"enabled":false}';
    my ($code, $out, $err) = load_index($db,
        { stdin => qq({"kind":"chainhook","uuid":"$h->{uuid}","api_key":"$h->{key}","data":$doc}\n) });
    is($code, 0, 'upsert while serving: loaded') or diag($err);
    like($err, qr/1 chainhook upserts, 0 chainhook deletes/, 'summary counts chainhook upserts');
    is_reply(get(hook_path($h->{key}, $h->{uuid})), 200, $doc, 'new status served');

    # a new key for the same chainhook: the old one stops working
    my $newkey = 'rotated-key-0123456789abcdef';
    ($code, $out, $err) = load_index($db,
        { stdin => qq({"kind":"chainhook","uuid":"$h->{uuid}","api_key":"$newkey","data":$doc}\n) });
    is($code, 0, 're-keyed') or diag($err);
    is_reply(get(hook_path($newkey, $h->{uuid})), 200, $doc, 'new key served');
    is_reply(get(hook_path($h->{key}, $h->{uuid})), 404, $NOT_FOUND, 'old key: not found');

    ($code, $out, $err) = load_index($db,
        { stdin => qq({"kind":"chainhook","delete":"\U$h->{uuid}\E"}\n) });
    is($code, 0, 'delete (upper-case UUID)') or diag($err);
    like($err, qr/0 chainhook upserts, 1 chainhook deletes/, 'summary counts chainhook deletes');
    is_reply(get(hook_path($newkey, $h->{uuid})), 404, $NOT_FOUND, 'deleted: not found');

    ($code, $out, $err) = load_index($db,
        { stdin => qq({"kind":"chainhook","delete":"$h->{uuid}"}\n) });
    is($code, 0, 'deleting it again is not an error');

    my @files = index_files($db);
    ok(!(grep { index(slurp($_), $newkey) >= 0 } @files), 'the new key is not in the index either');
}

# ---------------------------------------------------------------- the loader's checks

{
    my $U = '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01';
    my $K = 'secret-key-that-must-not-be-printed';
    my $info_scan = '{"last_evaluated_block_height":1,"last_occurrence":null,'
        . '"number_of_blocks_evaluated":1,"number_of_blocks_to_scan":1,"number_of_times_triggered":1}';

    sub rec {
        my (%o) = @_;
        my $uuid = exists $o{uuid} ? $o{uuid} : '"1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01"';
        my $key = exists $o{key} ? $o{key} : '"secret-key-that-must-not-be-printed"';
        my $data = $o{data};
        my @m = ('"kind":"chainhook"');
        push @m, qq("uuid":$uuid) if defined $uuid;
        push @m, qq("api_key":$key) if defined $key;
        push @m, qq("data":$data) if defined $data;
        push @m, $o{extra} if $o{extra};
        return '{' . join(',', @m) . '}';
    }

    sub st { my ($type, $info, $en) = @_; $en //= 'true';
        return '{"status":{' . (defined $info ? qq("info":$info,) : '') . qq("type":"$type"},"enabled":$en}) }

    my $before = get(hook_path($hook{$U}{key}, $U))->{body};

    my @bad = (
        [rec(data => st('new')) =~ s/"data"/"dat"/r, qr/unexpected member "dat"|either "data" or "delete"/],
        [rec(data => st('new'), extra => '"delete":"' . $U . '"'), qr/either "data" or "delete"/],
        ['{"kind":"chainhook"}', qr/either "data" or "delete"/],
        [rec(data => st('new'), extra => '"note":1'), qr/unexpected member "note" in a chainhook record/],
        [rec(data => st('new'), uuid => undef), qr/uuid must be a UUID/],
        [rec(data => st('new'), uuid => '"1f6e2c3a0b4d4e5f8a9b0c1d2e3f4a01"'), qr/uuid must be a UUID/],
        [rec(data => st('new'), uuid => '"{1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0}"'), qr/uuid must be a UUID/],
        [rec(data => st('new'), uuid => 7), qr/uuid must be a UUID/],
        [rec(data => st('new'), key => undef), qr/api_key is missing, empty or not a string/],
        [rec(data => st('new'), key => '""'), qr/api_key is missing, empty or not a string/],
        [rec(data => st('new'), key => '12345'), qr/api_key is missing, empty or not a string/],
        [rec(data => st('new'), key => '"' . ('s' x 129) . '"'), qr/api_key is longer than 128 bytes \(129\)/],
        [rec(data => '[]'), qr/data must be an object/],
        [rec(data => '{"status":{"type":"new"}}'), qr/data.enabled is missing or not a boolean/],
        [rec(data => '{"status":{"type":"new"},"enabled":"true"}'), qr/data.enabled is missing or not a boolean/],
        [rec(data => '{"enabled":true}'), qr/data.status is missing or not an object/],
        [rec(data => '{"status":{"info":{}},"enabled":true}'), qr/data.status.type must be one of/],
        [rec(data => st('new', '{}')), qr/data.status.info must be absent when type is new/],
        [rec(data => st('new', 'null')), qr/data.status.info must be absent when type is new/],
        [rec(data => st('interrupted')), qr/info must be a string \(the error message\) when type is interrupted/],
        [rec(data => st('interrupted', '{"message":"x"}')), qr/info must be a string/],
        [rec(data => st('scanning')), qr/data.status.info must be an object \(type scanning\)/],
        [rec(data => st('scanning', '"oops"')), qr/data.status.info must be an object \(type scanning\)/],
        [rec(data => st('scanning', $info_scan =~ s/,"number_of_blocks_to_scan":1//r)),
            qr/data.status.info.number_of_blocks_to_scan is missing \(type scanning\)/],
        [rec(data => st('scanning', $info_scan =~ s/"number_of_times_triggered":1/"number_of_times_triggered":-1/r)),
            qr/data.status.info.number_of_times_triggered must be a non-negative integer/],
        [rec(data => st('scanning', $info_scan =~ s/"number_of_times_triggered":1/"number_of_times_triggered":1.5/r)),
            qr/number_of_times_triggered must be a non-negative integer/],
        [rec(data => st('scanning', $info_scan =~ s/"number_of_times_triggered":1/"number_of_times_triggered":1e3/r)),
            qr/number_of_times_triggered must be a non-negative integer/],
        [rec(data => st('scanning', $info_scan =~ s/"number_of_times_triggered":1/"number_of_times_triggered":"1"/r)),
            qr/number_of_times_triggered must be a non-negative integer/],
        [rec(data => st('scanning', $info_scan =~ s/"number_of_times_triggered":1/"number_of_times_triggered":null/r)),
            qr/number_of_times_triggered must be a non-negative integer$/m],
        [rec(data => st('scanning', $info_scan =~ s/"number_of_times_triggered":1/"number_of_times_triggered":18446744073709551616/r)),
            qr/number_of_times_triggered must be a non-negative integer/],
        [rec(data => st('scanning', $info_scan =~ s/"last_occurrence":null/"last_occurrence":"never"/r)),
            qr/last_occurrence must be a non-negative integer or null/],
        [rec(data => st('streaming', $info_scan)),
            qr/data.status.info.last_evaluation is missing \(type streaming\)/],
        [rec(data => st('confirmed_expiration', $info_scan)),
            qr/data.status.info.expired_at_block_height is missing \(type confirmed_expiration\)/],
        [rec(data => '{"status":{"type":"new"},"enabled":true,"enabled":false}'), qr/duplicate member "enabled"/],
        ['{"kind":"chainhook","delete":"nope"}', qr/delete must be a UUID/],
        ['{"kind":"chainhook","delete":"' . $U . '","api_key":"x"}', qr/unexpected member "api_key"/],
    );

    for my $b (@bad) {
        my ($line, $re) = @$b;
        my ($code, $out, $err) = load_index($db, { stdin => "$line\n" });
        is($code, 1, "rejected: $line");
        like($err, qr/<stdin>:1: .*$re/, "  reason given") or diag($err);
        unlike($err, qr/secret-key-that|\Q$K\E|s{129}/, '  the key is not printed');
    }

    is(get(hook_path($hook{$U}{key}, $U))->{body}, $before, 'rejected records changed nothing');

    # accepted variants: any member order, u64 maximum, nulls where allowed,
    # insignificant whitespace (served compact)
    my $u2 = '2f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01';
    my @good = (
        [qq({"data":{"enabled":false,"status":{"type":"confirmed_expiration","info":{"number_of_times_triggered":0,"number_of_blocks_evaluated":18446744073709551615,"last_occurrence":0,"last_evaluated_block_height":0,"expired_at_block_height":9}}},"api_key":"k2","uuid":"$u2","kind":"chainhook"}),
         '{"enabled":false,"status":{"type":"confirmed_expiration","info":{"number_of_times_triggered":0,"number_of_blocks_evaluated":18446744073709551615,"last_occurrence":0,"last_evaluated_block_height":0,"expired_at_block_height":9}}}'],
        [qq({"kind":"chainhook","uuid":"$u2","api_key":"k2","data":{ "status" : { "info" : "" , "type" : "interrupted" } , "enabled" : true }}),
         '{"status":{"info":"","type":"interrupted"},"enabled":true}'],
    );
    for my $g (@good) {
        my ($line, $served) = @$g;
        my ($code, $out, $err) = load_index($db, { stdin => "$line\n" });
        is($code, 0, "accepted: $line") or diag($err);
        is_reply(get(hook_path('k2', $u2)), 200, $served, '  served');
    }

    # what upstream adds (a member, a type): stored as given, said by its
    # path, never the key; what a known type requires is still required
    my @new = (
        ['{"status":{"type":"new"},"enabled":true,"x":1}', 'data.x'],
        [st('paused'), 'data.status.type "paused"'],
        ['{"status":{"type":"new","extra":1},"enabled":true}', 'data.status.extra'],
    );
    for my $n (@new) {
        my ($data, $what) = @$n;
        my $line = rec(data => $data, uuid => qq("$u2"), key => '"k2"');
        my ($code, $out, $err) = load_index($db, { stdin => "$line\n" });
        is($code, 0, "stored as given: $data") or diag($err);
        like($err, qr/<stdin>:1: stored as given, with what the schema does not know yet: \Q$what\E/,
             '  said by its path');
        unlike($err, qr/"k2"|secret-key-that/, '  the key is not printed');
        is_reply(get(hook_path('k2', $u2)), 200, $data, '  served as given');
    }
}

$ng->stop;

done_testing();
