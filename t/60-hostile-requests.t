#!/usr/bin/perl
# Hostile requests against every route, configured as nginx.conf.example
# configures them (the error page included): percent-encoded slashes and
# NULs, 64 KiB segments (and nginx's own 414 and 431 at its default
# buffer sizes), repeated and huge query parameters, integers past 2^64,
# negative zero, non-UTF-8 bytes, CR and LF, methods other than GET and
# HEAD, Range and conditional headers, pipelining, HTTP/1.0, HTTP/0.9 and
# keep-alive.  Each gets a deliberate status and, where a body is due, a
# JSON one; error bodies never echo the request; the worker stays the same
# process throughout (doc/api.md, "Hostile requests"; doc/developer.md, "Hardening").

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use IO::Select;
use IO::Socket::INET;
use Test::More;
use Time::HiRes qw(time);
use ChainData::Test qw(:all);
use ChainData::Chainhook qw(chainhook_fixtures pct hook_path);
use ChainData::Runes qw(rune_locations);

require_build();

$SIG{PIPE} = 'IGNORE';    # a server that closes is an answer here

my $JSON_CT = 'application/json; charset=utf-8';

# ---------------------------------------------------------------- fixtures

my @files = map { fixture_path($_) }
            qw(tx.ndjson tx-many-events.ndjson runes.ndjson chainhook.ndjson);
my ($TX) = grep { ($_->{event_count} // 0) > 30 } tx_fixtures(@files);
ok($TX, 'a transaction with many events') or BAIL_OUT('fixtures');
my $ID = $TX->{tx_id};
(my $BARE = $ID) =~ s/^0x//;

my @runes = fixture_records(fixture_path('runes.ndjson'));
my ($RTX) = map { $_->{doc}{tx_id} }
            grep { $_->{kind} eq 'rune_activity' && @{ $_->{doc}{results} } }
            @runes;
my ($ADDR) = map { $_->{doc}{address} }
             grep { $_->{kind} eq 'rune_balances' && @{ $_->{doc}{results} } }
             @runes;
ok($RTX && $ADDR, 'a rune transaction and an address with entries')
    or BAIL_OUT('fixtures');

my ($hooks) = chainhook_fixtures(fixture_path('chainhook.ndjson'));
my ($HOOK) = @$hooks;
my ($ODD) = grep { $_->{key} =~ m{/} } @$hooks;
my $UUID = $HOOK->{uuid};
my $KEY = $HOOK->{key};

my %PATH = (
    tx        => "/extended/v1/tx/$ID",
    activity  => "/runes/v1/transactions/$RTX/activity",
    balances  => "/runes/v1/addresses/$ADDR/balances",
    chainhook => hook_path($KEY, $UUID),
    migration => '/ordinals/v1/inscriptions/abc123i0',
    table     => '/ordinals/v1/',
);
my @ROUTES = qw(tx activity balances chainhook migration);
my $ETAG;

# ---------------------------------------------------------------- servers

my $db = new_index(@files);
my %example = example_config();

# buffers that let a 64 KiB segment reach the module; a short header
# timeout for the case of a client that never finishes its headers
# (and the example's rate limits raised: this test asks much of one key)
(my $http = $example{http}) =~ s{rate=\d+r/s}{rate=100000r/s}g;
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => $http . "    large_client_header_buffers 4 128k;\n"
                  . "    client_header_timeout 1s;\n",
    # the deprecated rune routes beside the example's chaindata_runes
    locations => $example{locations} . rune_locations(),
);

# nginx's defaults: its own 414 and 431; the example's rate limits
my $small = ChainData::Test::Nginx->start(
    db => $db, http => $example{http}, locations => $example{locations});

my $PORT = $ng->port;
my @WORKERS = $ng->worker_pids;
is(scalar @WORKERS, 1, 'one worker');

sub same_worker {
    my ($what) = @_;
    is_deeply([$ng->worker_pids], \@WORKERS, "$what: the same worker serves");
}

# ---------------------------------------------------------------- client

sub connect_to {
    my ($port) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
        PeerPort => $port // $PORT, Proto => 'tcp', Timeout => 5)
        or die "connect: $@";
    binmode $s;
    ${*$s}{cd_buf} = '';
    return $s;
}

sub send_raw {
    my ($s, $bytes) = @_;
    my $off = 0;
    while ($off < length $bytes) {
        my $n = syswrite($s, $bytes, length($bytes) - $off, $off);
        die "write: $!" unless defined $n;
        $off += $n;
    }
}

# more bytes into the connection's buffer; false at the end of the stream
sub fill {
    my ($s) = @_;
    my $sel = IO::Select->new($s);
    die "no answer within 10 s\n" unless $sel->can_read(10);
    my $n = sysread($s, my $buf, 65536);
    return 0 if !$n;
    ${*$s}{cd_buf} .= $buf;
    return 1;
}

# one response from the connection (Content-Length or chunked framing,
# none for HEAD, 304 and 1xx); undef when the server closed instead
sub read_response {
    my ($s, $method) = @_;
    my $buf = \${*$s}{cd_buf};
    while (index($$buf, "\r\n\r\n") < 0) {
        fill($s) or return length $$buf ? { raw => $$buf, status => undef }
                                        : undef;
    }
    my $end = index($$buf, "\r\n\r\n") + 4;
    my $r = parse_response(substr($$buf, 0, $end), $method);
    substr($$buf, 0, $end) = '';
    my $len = $r->{headers}{'content-length'};
    if (($method // '') eq 'HEAD' || $r->{status} == 304) {
        $len = 0;
    }
    if (defined $len) {
        fill($s) or die "closed in a body\n" while length $$buf < $len;
        $r->{body} = substr($$buf, 0, $len);
        substr($$buf, 0, $len) = '';
    } elsif (($r->{headers}{'transfer-encoding'} // '') =~ /chunked/) {
        fill($s) or die "closed in a chunked body\n"
            while $$buf !~ /(?:^|\r\n)0\r\n\r\n/;
        $$buf =~ s/^(.*?(?:^|\r\n)0\r\n\r\n)//s;
        ($r->{body}) = ChainData::Test::_dechunk($1);
    } else {
        1 while fill($s);
        $r->{body} = $$buf;
        $$buf = '';
    }
    return $r;
}

# whether the server closes the connection (after what it sent)
sub closes {
    my ($s) = @_;
    return eval { 1 while fill($s); 1 } && !length ${*$s}{cd_buf};
}

# a raw request on a new connection: the response and whether the
# connection was closed after it
sub raw {
    my ($bytes, %o) = @_;
    my $s = connect_to($o{port});
    send_raw($s, $bytes);
    my ($method) = $bytes =~ /^(\S+)/;
    my $r = read_response($s, $method);
    $r->{closed} = closes($s) if $r && $o{check_close};
    close $s;
    return $r;
}

sub req {
    my ($method, $path, %h) = @_;
    my $port = delete $h{_port};
    my $body = delete $h{_body};
    my $head = "$method $path HTTP/1.1\r\nHost: localhost\r\n"
             . join('', map { "$_: $h{$_}\r\n" } sort keys %h)
             . (defined $body ? 'Content-Length: ' . length($body) . "\r\n"
                              : '')
             . "Connection: close\r\n\r\n";
    return raw($head . ($body // ''), port => $port);
}

sub get { return req('GET', @_) }

# ---------------------------------------------------------------- checks

my %FIXED;    # error messages of the error page, by status

# an error answered in the upstream shape: status, JSON body with
# statusCode, error and message, Cache-Control: no-store
sub json_error {
    my ($r, $status, $name, %o) = @_;
    my $ok = 1;
    $ok &&= is($r->{status}, $status, "$name: $status");
    if (($o{method} // '') eq 'HEAD') {
        $ok &&= is($r->{body}, '', "$name: no body");
        $ok &&= is($r->{headers}{'content-type'}, $JSON_CT, "$name: JSON");
        return $ok;
    }
    my $doc = eval { json_decode($r->{body}) };
    $ok &&= ok(ref $doc eq 'HASH', "$name: a JSON object")
        or diag(substr($r->{body} // '', 0, 300));
    return 0 unless $doc;
    $ok &&= is($r->{headers}{'content-type'}, $JSON_CT, "$name: JSON type");
    $ok &&= is($doc->{statusCode}, $status, "$name: statusCode");
    $ok &&= ok(defined $doc->{error} && defined $doc->{message},
               "$name: error and message");
    # the tx route's 400s carry no Cache-Control, as upstream's validator
    # answers before its hook that sets no-store (doc/api.md, differences)
    if ($status == 400 && $name =~ /^tx:/ && !$o{page}) {
        $ok &&= ok(!defined $r->{headers}{'cache-control'},
                   "$name: no Cache-Control, as upstream");
    } else {
        $ok &&= like($r->{headers}{'cache-control'} // '', qr/\bno-store\b/,
                     "$name: no-store");
    }
    if (defined $o{message}) {
        $ok &&= (ref $o{message}
                 ? like($doc->{message}, $o{message}, "$name: message")
                 : is($doc->{message}, $o{message}, "$name: message"));
    }
    return $ok;
}

# an answer of the error page: the fixed text of its status, nothing else
sub error_page {
    my ($r, $status, $name, %o) = @_;
    json_error($r, $status, $name, %o, page => 1);
    return if ($o{method} // '') eq 'HEAD';
    my $doc = eval { json_decode($r->{body}) } or return;
    is_deeply([sort keys %$doc], [qw(error message statusCode)],
              "$name: the three members");
    if (exists $FIXED{$status}) {
        is($doc->{message}, $FIXED{$status}, "$name: the fixed message");
    }
    $FIXED{$status} //= $doc->{message};
    unlike($r->{body}, qr/MARK/i, "$name: nothing of the request echoed")
        if $o{marked};
}

sub json_ok {
    my ($r, $status, $name) = @_;
    is($r->{status}, $status, "$name: $status");
    is($r->{headers}{'content-type'}, $JSON_CT, "$name: JSON type");
    my $doc = eval { json_decode($r->{body}) };
    ok(defined $doc, "$name: a JSON body") or diag(substr($r->{body}, 0, 300));
    return $doc;
}

# ---------------------------------------------------------------- baseline

for my $route (@ROUTES, 'table') {
    my $r = get($PATH{$route});
    my $want = $route eq 'migration' ? 410 : 200;
    json_ok($r, $want, "baseline $route");
}

# ---------------------------------------------------------------- slashes

{
    # the id is the last segment of the decoded path: %2F is a slash there
    my $r = get("/extended/v1/tx/junk%2F$ID");
    json_ok($r, 200, 'tx: %2F before the id splits the path');
    # and a trailing one is ignored, as upstream ignores a trailing slash
    $r = get("/extended/v1/tx/$ID%2F");
    json_ok($r, 200, 'tx: %2F after the id is a trailing slash');
    $r = get("/extended/v1/tx/$ID%2F%2Fx");
    json_error($r, 400, 'tx: %2F%2F and more after the id',
               message => qr/must match pattern/);
    $r = get("/extended/v1/tx/%2F%2F%2F");
    json_error($r, 400, 'tx: only %2F', message => qr/must match pattern/);

    $r = get("/runes/v1/transactions/$RTX%2Factivity");
    json_ok($r, 200, 'activity: %2F before the last segment');
    # nginx merges the slashes of the decoded path (merge_slashes on)
    $r = get("/runes/v1/addresses/$ADDR%2F/balances");
    json_ok($r, 200, 'balances: %2F after the address, merged away');
    $r = get("/runes/v1/addresses/$ADDR%2Fx/balances");
    json_error($r, 400, 'balances: %2F inside the address segment',
               message => qr/must be a Bitcoin address/);

    # the chainhook route reads the path as sent: %2F stays in the key
    $r = get(hook_path($ODD->{key}, $ODD->{uuid}));
    json_ok($r, 200, 'chainhook: a key with an encoded "/"');
    $r = get("/v1/ext/$KEY%2Fx/chainhooks/$UUID/status");
    json_error($r, 404, 'chainhook: %2F inside a key is part of it',
               message => 'chainhook not found');
    $r = get("/v1/ext/$KEY/chainhooks%2F$UUID/status");
    json_error($r, 404, 'chainhook: %2F between pieces is no slash',
               message => qr/^Route not found/);

    $r = get('/ordinals/v1/inscriptions/abc%2Fdef');
    json_error($r, 404, 'migration: %2F in a parameter makes two segments',
               message => qr/no deprecated endpoint matches/);
    $r = get('/ordinals/v1/inscriptions%2Fabc');
    json_ok($r, 410, 'migration: %2F between segments');
}

# ---------------------------------------------------------------- NULs

for my $route (@ROUTES) {
    # nginx refuses a NUL in the path before any handler: its 400, in JSON
    (my $p = $PATH{$route}) =~ s{/([^/]+)$}{/%00$1};
    error_page(get($p), 400, "$route: %00 in the path");
}

{
    json_error(get("$PATH{tx}?event_limit=%00"), 400, 'tx: %00 as a value',
               message => 'querystring/event_limit must be integer');
    json_error(get("$PATH{tx}?exclude_function_args=true%00"), 400,
               'tx: a boolean with a NUL after it',
               message => 'querystring/exclude_function_args must be boolean');
    json_error(get("$PATH{activity}?offset=1%00"), 400, 'runes: %00 in offset',
               message => 'querystring/offset must be integer');
    json_ok(get("$PATH{chainhook}?x=%00"), 200, 'chainhook: %00 in the query');
    my $r = get("$PATH{migration}?a%00b=1");
    my $doc = json_ok($r, 410, 'migration: %00 in a query name');
    is_deeply($doc->{unsupported_query}, ["a\0b"],
              'migration: the name listed, the NUL escaped in JSON');
    like($r->{body}, qr/"a\\u0000b"/, 'migration: \u0000 on the wire');
}

# ---------------------------------------------------------------- 64 KiB

{
    my $big = 'a' x 65536;
    json_error(get("/extended/v1/tx/$big"), 400, 'tx: a 64 KiB id',
               message => qr/must match pattern/);
    json_error(get("/runes/v1/transactions/$big/activity"), 400,
               'activity: a 64 KiB id', message => qr/must match pattern/);
    json_error(get("/runes/v1/addresses/$big/balances"), 400,
               'balances: a 64 KiB address',
               message => qr/must be a Bitcoin address/);
    json_error(get("/v1/ext/$big/chainhooks/$UUID/status"), 400,
               'chainhook: a 64 KiB key',
               message => 'params/apiKey must NOT have more than 128 characters');
    json_error(get("/v1/ext/$KEY/chainhooks/$big/status"), 400,
               'chainhook: a 64 KiB UUID',
               message => 'params/chainhookUuid must match format "uuid"');
    json_error(get("/ordinals/v1/inscriptions/$big"), 400,
               'migration: a 64 KiB parameter',
               message => 'params/inscriptionId must NOT be longer than 256 bytes');
    json_error(get('/ordinals/v1/inscriptions/' . ('%41' x 21000)), 400,
               'migration: 63 KiB of percent-encoded parameter',
               message => qr/must NOT be longer than 256 bytes/);

    # 64 KiB of digits is Infinity to JavaScript's Number(): no integer
    my $digits = '9' x 65536;
    json_error(get("$PATH{activity}?offset=$digits"), 400,
               'activity: a 64 KiB offset',
               message => 'querystring/offset must be integer');
    json_error(get("$PATH{activity}?limit=$digits"), 400,
               'activity: a 64 KiB limit', message => 'querystring/limit must be integer');
    json_error(get("$PATH{tx}?event_offset=-$digits"), 400,
               'tx: a 64 KiB negative offset',
               message => 'querystring/event_offset must be integer');
    # 64 KiB of zeros and a 1 is 1; 64 KiB of fraction digits rounds
    my $zeros = '0' x 65536;
    my $doc = json_ok(get("$PATH{balances}?offset=${zeros}1"), 200,
                      'balances: a 64 KiB offset of zeros and a 1');
    is($doc->{offset}, 1, 'balances: echoed as 1');
    $doc = json_ok(get("$PATH{activity}?offset=1e308&limit=3.$zeros"), 200,
                   'activity: offset 1e308, a 64 KiB limit 3.000…');
    like(get("$PATH{activity}?offset=1e308")->{body},
         qr/^\{"limit":20,"offset":1e\+308,"total":\d+,"results":\[\]\}$/,
         'activity: offset 1e308 echoed as JavaScript writes it');
    is(json_ok(get("$PATH{activity}?limit=1.${zeros}1"), 200,
               'activity: limit 1.000…1 (64 KiB)')->{limit},
       1, 'activity: limit 1.000…1 is the double 1, an integer');
    json_ok(get("$PATH{tx}?unknown=$big"), 200, 'tx: a 64 KiB unknown parameter');
    $doc = json_ok(get("$PATH{migration}?$big=1"), 410,
                   'migration: a 64 KiB parameter name');
    is(length $doc->{unsupported_query}[0], 65536, 'migration: listed whole');

    # at nginx's default buffer sizes: its 414, and 431 for its 494
    my $port = $small->port;
    error_page(get("/extended/v1/tx/$big", _port => $port), 414,
               'default buffers: 64 KiB segment');
    error_page(get("/v1/ext/MARK$big/chainhooks/$UUID/status", _port => $port),
               414, 'default buffers: 64 KiB key', marked => 1);
    error_page(get($PATH{tx}, 'X-Mark' => 'MARK' . ('h' x 16384),
                   _port => $port),
               431, 'default buffers: a 16 KiB header', marked => 1);
    error_page(get($PATH{tx}, map({ ("X-Mark-$_" => 'MARK' . ('h' x 4000)) }
                                  1 .. 40), _port => $port),
               431, 'default buffers: 160 KiB of headers', marked => 1);
    my $s = req('HEAD', "/extended/v1/tx/$big", _port => $port);
    error_page($s, 414, 'default buffers: HEAD of a 64 KiB target',
               method => 'HEAD');
}

same_worker('slashes, NULs, 64 KiB');

# ---------------------------------------------------------------- repeats

{
    json_error(get("$PATH{tx}?event_limit=1&event_limit=1"), 400,
               'tx: event_limit twice',
               message => 'querystring/event_limit must be integer');
    json_error(get("$PATH{tx}?exclude_function_args=true&exclude_function_args=true"),
               400, 'tx: a boolean twice',
               message => 'querystring/exclude_function_args must be boolean');
    json_error(get("$PATH{balances}?offset=0&offset=0"), 400, 'runes: offset twice',
               message => 'querystring/offset must be integer');
    json_error(get("$PATH{activity}?" . join('&', ('limit=5') x 5000)), 400,
               'runes: limit 5000 times',
               message => 'querystring/limit must be integer');
    json_ok(get("$PATH{tx}?" . join('&', ('x=1') x 20000)), 200,
            'tx: 20000 unknown parameters');
    json_ok(get("$PATH{chainhook}?" . join('&', ('k=v') x 20000)), 200,
            'chainhook: 20000 query parameters');

    my $doc = json_ok(get("$PATH{migration}?" . join('&', map { "p$_=1" } 1 .. 500)),
                      410, 'migration: 500 distinct parameters');
    is(scalar @{ $doc->{unsupported_query} }, 64,
       'migration: at most 64 names listed');
    $doc = json_ok(get('/ordinals/v1/inscriptions?'
                       . join('&', ('tag=x&before=1') x 3000)),
                   410, 'migration: two names 3000 times each');
    is_deeply($doc->{unsupported_query}, [qw(tag before)],
              'migration: each name once, in order');
}

# ---------------------------------------------------------------- numbers

{
    my $p64 = '18446744073709551616';
    my $huge = '9' x 40;
    my $doc = json_ok(get("$PATH{tx}?event_offset=$p64"), 200,
                      'tx: event_offset 2^64');
    is_deeply($doc->{events}, [], 'tx: past the end: no events');
    is($doc->{event_count}, $TX->{event_count}, 'tx: event_count the total');
    json_error(get("$PATH{tx}?event_limit=$p64"), 400, 'tx: event_limit 2^64',
               message => 'querystring/event_limit must be <= 100');
    json_error(get("$PATH{tx}?event_offset=-$p64"), 400,
               'tx: event_offset -2^64',
               message => 'querystring/event_offset must be >= 0');
    my $r = get("$PATH{activity}?offset=$p64");
    json_ok($r, 200, 'activity: offset 2^64');
    like($r->{body}, qr/"offset":18446744073709552000,.*"results":\[\]/,
         'activity: offset 2^64 echoed as upstream writes the number, an empty page');
    like(get("$PATH{activity}?offset=$huge")->{body},
         qr/"offset":1e\+40,/, 'activity: a 40-digit offset echoed as 1e+40');
    json_error(get("$PATH{balances}?limit=$p64"), 400, 'balances: limit 2^64',
               message => 'querystring/limit must be <= 60');
    # coerced as upstream coerces them (JavaScript's Number())
    json_error(get("$PATH{balances}?limit=1e3"), 400, 'balances: limit 1e3',
               message => 'querystring/limit must be <= 60');
    is(json_ok(get("$PATH{balances}?limit=0x10"), 200, 'balances: limit 0x10')->{limit},
       16, 'balances: limit 0x10 is 16');
    is(json_ok(get("$PATH{balances}?limit=%2B5"), 200, 'balances: limit +5')->{limit},
       5, 'balances: limit +5 is 5');
    is(json_ok(get("$PATH{balances}?limit=%205"), 200, 'balances: limit " 5"')->{limit},
       5, 'balances: limit " 5" is 5');
    json_error(get("$PATH{balances}?limit=%20"), 400, 'balances: limit " "',
               message => 'querystring/limit must be integer');
}

# ---------------------------------------------------------------- -0

{
    my $doc = json_ok(get("$PATH{tx}?event_limit=-0&event_offset=-0"), 200,
                      'tx: event_limit and event_offset -0');
    is(scalar @{ $doc->{events} }, 20, 'tx: -0 is 0, the default page of 20');
    $doc = json_ok(get("$PATH{activity}?offset=-0"), 200, 'activity: offset -0');
    is($doc->{offset}, 0, 'activity: echoed as 0');
    like(get("$PATH{activity}?offset=-000")->{body}, qr/"offset":0,/,
         'activity: offset -000 echoed as 0');
    json_error(get("$PATH{activity}?limit=-0"), 400, 'activity: limit -0',
               message => 'querystring/limit must be >= 1');
    json_error(get("$PATH{activity}?offset=-1"), 400, 'activity: offset -1',
               message => 'querystring/offset must be >= 0');
    json_error(get("$PATH{activity}?offset=--0"), 400, 'activity: offset --0',
               message => 'querystring/offset must be integer');
    json_error(get("$PATH{tx}?event_limit=-"), 400, 'tx: a lone minus',
               message => 'querystring/event_limit must be integer');
}

# ---------------------------------------------------------------- percent quirks

{
    # values decode as nginx's ngx_unescape_uri does
    my %offset = ('1%2' => 1, '1%' => 1, '%4z1' => 1, '%3%31' => 31,
                  '%32%33' => 23, '9%' => 9);
    for my $v (sort keys %offset) {
        my $doc = json_ok(get("$PATH{activity}?offset=$v"), 200,
                          "activity: offset=$v");
        is($doc->{offset}, $offset{$v}, "activity: offset=$v is $offset{$v}");
    }
    for my $v ('%z1', '%%31', '%') {
        json_error(get("$PATH{activity}?offset=$v"), 400, "activity: offset=$v",
                   message => 'querystring/offset must be integer');
    }
}

# ---------------------------------------------------------------- non-UTF-8

{
    # nginx passes raw bytes above 0x7f through: the routes judge them
    json_error(get("/extended/v1/tx/0x\xff" . ('a' x 63)), 400,
               'tx: a raw \xff in the id', message => qr/must match pattern/);
    json_error(get("/extended/v1/tx/%FF%FE"), 400, 'tx: %FF%FE as the id',
               message => qr/must match pattern/);
    json_error(get("/runes/v1/addresses/bc1\xc3\xa9/balances"), 400,
               'balances: UTF-8 in an address',
               message => qr/must be a Bitcoin address/);
    json_error(get("/v1/ext/\xff\xfe/chainhooks/$UUID/status"), 404,
               'chainhook: a raw non-UTF-8 key is just a wrong key',
               message => 'chainhook not found');
    json_error(get("/v1/ext/%FF%C0%80/chainhooks/$UUID/status"), 404,
               'chainhook: an encoded non-UTF-8 key', message => 'chainhook not found');
    json_error(get("/ordinals/v1/inscriptions/\xff"), 400,
               'migration: a raw \xff parameter',
               message => 'params/inscriptionId must be UTF-8');
    json_error(get('/ordinals/v1/brc-20/tokens/%C0%AF'), 400,
               'migration: an overlong UTF-8 parameter',
               message => 'params/ticker must be UTF-8');
    my $doc = json_ok(get('/ordinals/v1/brc-20/tokens/%F0%9F%90%B8'), 410,
                      'migration: a 4-byte UTF-8 ticker');
    is($doc->{replacement}{path}, '/v1/brc20/ticker/%F0%9F%90%B8',
       'migration: percent-encoded in the replacement path');
    $doc = json_ok(get("$PATH{migration}?\xff\xfe=1&ok%E2%80%A2=2"), 410,
                   'migration: non-UTF-8 query names');
    is_deeply($doc->{unsupported_query}, ["\x{fffd}\x{fffd}", "ok\x{2022}"],
              'migration: invalid bytes listed as U+FFFD, valid UTF-8 kept');
    json_error(get("$PATH{tx}?event_limit=\xff"), 400, 'tx: a raw \xff value',
               message => 'querystring/event_limit must be integer');
}

# ---------------------------------------------------------------- CR, LF

{
    error_page(raw("GET /extended/v1/tx/a\rMARK HTTP/1.1\r\nHost: x\r\n\r\n"),
               400, 'a bare CR in the request line', marked => 1);
    error_page(raw("GET /extended/v1/tx/$ID HTTP/1.1\r\nHost: x\r\n"
                   . "X-A: MARK\rb\r\nConnection: close\r\n\r\n"),
               400, 'a bare CR in a header value', marked => 1);
    error_page(raw("GET /extended/v1/tx/$ID?a=\x01MARK HTTP/1.1\r\nHost: x\r\n\r\n"),
               400, 'a control byte in the query', marked => 1);
    error_page(raw("GET /extended/v1/tx/a MARK b HTTP/1.1\r\nHost: x\r\n\r\n"),
               400, 'spaces in the target', marked => 1);

    json_error(get("/extended/v1/tx/%0D%0A$ID"), 400, 'tx: %0D%0A in the id',
               message => qr/must match pattern/);
    json_error(get("/v1/ext/a%0D%0AX-Injected:%201/chainhooks/$UUID/status"), 404,
               'chainhook: CR LF in a key', message => 'chainhook not found');
    my $r = get('/ordinals/v1/collections/a%0D%0ASet-Cookie:%20x=1');
    my $doc = json_ok($r, 410, 'migration: CR LF in a parameter');
    is($doc->{replacement}{path}, '/collections/a%0D%0ASet-Cookie%3A%20x%3D1',
       'migration: percent-encoded in the replacement');
    ok(!exists $r->{headers}{'set-cookie'} && !exists $r->{headers}{'x-injected'},
       'migration: no header injected');

    # the 302 of an id without 0x copies the query as it came (encoded)
    $r = get("/extended/v1/tx/$BARE?a=%0D%0ASet-Cookie:%20x");
    is($r->{status}, 302, 'tx: 302 for an id without 0x');
    is($r->{headers}{location},
       "/extended/v1/tx/0x$BARE?a=%0D%0ASet-Cookie:%20x",
       'tx: the query kept encoded in Location');
    ok(!exists $r->{headers}{'set-cookie'}, 'tx: no header injected');
}

same_worker('repeats, numbers, -0, non-UTF-8, CR/LF');

# ---------------------------------------------------------------- methods

for my $route (@ROUTES) {
    for my $m (qw(POST PUT DELETE PATCH PROPFIND FOO)) {
        my $r = req($m, $PATH{$route}, _body => $m eq 'POST' ? 'MARK=1' : undef);
        json_error($r, 405, "$route: $m",
                   message => 'only GET and HEAD are served here');
        is($r->{headers}{allow}, 'GET, HEAD', "$route: $m: Allow");
    }
    # OPTIONS is a CORS preflight (t/91-cors-headers.t); without Origin and
    # Access-Control-Request-Method not one, as @fastify/cors answers it
    json_error(req('OPTIONS', $PATH{$route}), 400,
               "$route OPTIONS without Origin",
               message => 'Invalid Preflight Request');
    my $r = req('TRACE', $PATH{$route});
    error_page($r, 405, "$route: TRACE (nginx's own 405)");
    is($r->{headers}{allow}, 'GET, HEAD', "$route: TRACE: Allow");

    my $get = get($PATH{$route});
    my $head = req('HEAD', $PATH{$route});
    is($head->{status}, $get->{status}, "$route: HEAD as GET");
    is($head->{body}, '', "$route: HEAD: no body");
    is($head->{headers}{'content-length'}, length $get->{body},
       "$route: HEAD: the length of the GET body");
}

{
    error_page(raw("get $PATH{tx} HTTP/1.1\r\nHost: x\r\n\r\n"), 400,
               'a lowercase method');
    error_page(raw("CONNECT example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n"), 400,
               'CONNECT');
    error_page(raw("G\x00ET $PATH{tx} HTTP/1.1\r\nHost: x\r\n\r\n"), 400,
               'a NUL in the method');
    error_page(get('/_chaindata/error'), 404, 'the error page asked for directly');
    error_page(req('POST', '/nothing/here', _body => 'MARK'), 404,
               'an unknown path, any method');
    error_page(req('GET', $PATH{tx}, _body => 'x' x 2_000_000), 413,
               'a 2 MB body');
    error_page(raw("GET $PATH{tx} HTTP/1.1\r\nHost: x\r\n"
                   . "Transfer-Encoding: gzip\r\n\r\n"), 501,
               'an unknown Transfer-Encoding');
    error_page(raw("GET $PATH{tx} HTTP/2.0\r\nHost: x\r\n\r\n"), 505, 'HTTP/2.0');
    error_page(raw("GET $PATH{tx} HTTP/1.1\r\n\r\n"), 400, 'HTTP/1.1 without Host');
    error_page(raw("GET $PATH{tx} HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"), 400,
               'two Host headers');
    error_page(raw("GET $PATH{tx} HTTP/1.1\r\nHost: x\r\n"
                   . "Content-Length: 5\r\nContent-Length: 6\r\n\r\n"), 400,
               'two Content-Length headers');
}

same_worker('methods');

# ---------------------------------------------------------------- Range, conditionals

{
    # Range is not served on JSON: the whole body, 200, no Accept-Ranges
    for my $route (@ROUTES) {
        my $full = get($PATH{$route});
        for my $range ('bytes=0-10', 'bytes=-5', 'bytes=5-', 'bytes=0-0,2-3',
                       'bytes=999999-', 'items=0-1')
        {
            my $r = get($PATH{$route}, Range => $range);
            is($r->{status}, $full->{status}, "$route: Range $range ignored");
            ok($r->{body} eq $full->{body}
               && !exists $r->{headers}{'content-range'}
               && !exists $r->{headers}{'accept-ranges'},
               "$route: Range $range: the whole body, no range headers");
        }
        my $r = get($PATH{$route}, Range => 'bytes=0-1', 'If-Range' => '"x"');
        is($r->{status}, $full->{status}, "$route: If-Range ignored as well");
    }

    my $etag = $ETAG = get($PATH{tx})->{headers}{etag};
    ok($etag, 'tx: an ETag');
    is(get($PATH{tx}, 'If-None-Match' => $etag)->{status}, 304,
       'tx: If-None-Match that matches: 304');
    is(get($PATH{tx}, 'If-None-Match' => '*')->{status}, 304,
       'tx: If-None-Match *: 304');
    is(get($PATH{tx}, 'If-Match' => $etag)->{status}, 200,
       'tx: If-Match that matches: 200');
    is(get($PATH{tx}, 'If-Match' => '*')->{status}, 200, 'tx: If-Match *: 200');
    error_page(get($PATH{tx}, 'If-Match' => '"MARK"'), 412,
               'tx: If-Match that does not match', marked => 1);
    my $ae = get($PATH{activity})->{headers}{etag};
    error_page(get($PATH{activity}, 'If-Match' => qq{"x", W/$ae}), 412,
               'activity: a weak If-Match never matches (strong comparison)');
    is(get($PATH{activity}, 'If-Match' => $ae)->{status}, 200,
       'activity: If-Match that matches: 200');

    # the routes answer their 412 themselves: a deprecated route's carries
    # the deprecation headers as its other answers do
    for my $route (qw(activity balances table)) {
        my $r = get($PATH{$route}, 'If-Match' => '"MARK"');
        error_page($r, 412, "$route: If-Match that does not match",
                   marked => 1);
        is($r->{headers}{deprecation}, '@1773014400',
           "$route: the 412 says the route is deprecated");
        is(get($PATH{$route}, 'If-Match' => '*')->{status}, 200,
           "$route: If-Match *: 200");
    }
    my $h = req('HEAD', $PATH{activity}, 'If-Match' => '"x"');
    is($h->{status}, 412, 'activity: HEAD, If-Match: 412');
    is($h->{headers}{deprecation}, '@1773014400', '... deprecated');

    # If-Match before If-None-Match (RFC 9110, 13.2.2)
    error_page(get($PATH{tx}, 'If-Match' => '"x"', 'If-None-Match' => $etag),
               412, 'tx: If-Match fails, If-None-Match matches');
    is(get($PATH{tx}, 'If-Match' => $etag, 'If-None-Match' => $etag)
       ->{status}, 304, 'tx: both match: 304');
    error_page(get($PATH{chainhook}, 'If-Match' => '"x"'), 412,
               'chainhook: If-Match without an ETag');
    json_error(get("/extended/v1/tx/0x" . ('0' x 64), 'If-Match' => '"x"'), 404,
               'tx: If-Match on a 404 is no matter',
               message => 'could not find transaction by ID');

    for my $route (@ROUTES, 'table') {
        my $want = get($PATH{$route})->{status};
        for my $h ('If-Modified-Since', 'If-Unmodified-Since') {
            for my $date ('Thu, 01 Jan 1970 00:00:00 GMT',
                          'Fri, 01 Jan 2100 00:00:00 GMT', 'MARK')
            {
                is(get($PATH{$route}, $h => $date)->{status}, $want,
                   "$route: $h $date: ignored (no Last-Modified)");
            }
        }
    }
}

same_worker('Range and conditionals');

# ---------------------------------------------------------------- pipelining

{
    my $s = connect_to();
    my @reqs = (
        ['GET', $PATH{tx}],
        ['POST', $PATH{activity}, 'MARK' x 100],
        ['HEAD', $PATH{balances}],
        ['GET', "$PATH{tx}?event_limit=101"],
        ['GET', $PATH{chainhook}],
        ['DELETE', $PATH{migration}],
        ['GET', $PATH{table}],
        ['GET', '/nothing'],
    );
    my $bytes = '';
    for my $q (@reqs) {
        my ($m, $p, $body) = @$q;
        $bytes .= "$m $p HTTP/1.1\r\nHost: x\r\n"
                . (defined $body ? 'Content-Length: ' . length($body) . "\r\n\r\n$body"
                                 : "\r\n");
    }
    send_raw($s, $bytes);
    my @want = (200, 405, 200, 400, 200, 405, 200, 404);
    my @got = map { my $r = read_response($s, $_->[0]); $r ? $r->{status} : 'closed' }
              @reqs;
    is_deeply(\@got, \@want, 'pipelined: every answer, in order');

    # a request nginx cannot parse ends the connection, after its answer
    send_raw($s, "GET $PATH{tx} HTTP/1.1\r\nHost: x\r\n\r\nBAD\x00 / HTTP/1.1\r\n\r\n"
                 . "GET $PATH{tx} HTTP/1.1\r\nHost: x\r\n\r\n");
    my $r1 = read_response($s, 'GET');
    my $r2 = read_response($s, 'GET');
    is($r1->{status}, 200, 'pipelined: the request before the bad one');
    error_page($r2, 400, 'pipelined: the bad one');
    ok(closes($s), 'pipelined: the connection closed after it, the rest unread');
    close $s;
}

same_worker('pipelining');

# ---------------------------------------------------------------- HTTP versions

{
    my $r = raw("GET $PATH{tx} HTTP/1.0\r\n\r\n", check_close => 1);
    json_ok($r, 200, 'HTTP/1.0');
    ok($r->{closed}, 'HTTP/1.0: closed after the answer');

    my $s = connect_to();
    for my $route (@ROUTES, 'table') {
        send_raw($s, "GET $PATH{$route} HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
        my $r = read_response($s, 'GET');
        ok($r && $r->{status}, "HTTP/1.0 keep-alive: $route answered");
        is(lc($r->{headers}{connection} // ''), 'keep-alive',
           "HTTP/1.0 keep-alive: $route: kept alive");
    }
    close $s;

    # HTTP/1.1: one connection through every route and their errors
    $s = connect_to();
    my @seq = (
        [GET => $PATH{tx}, 200], [GET => "$PATH{tx}?event_limit=x", 400],
        [GET => "/extended/v1/tx/0x" . ('0' x 64), 404],
        [HEAD => $PATH{activity}, 200], [PUT => $PATH{balances}, 405],
        [GET => $PATH{chainhook}, 200], [GET => hook_path('wrong', $UUID), 404],
        [GET => $PATH{migration}, 410], [GET => $PATH{table}, 200],
        [GET => '/nothing', 404],
        [GET => $PATH{tx}, 200, 'Range: bytes=0-1'],
        [GET => $PATH{tx}, 304, "If-None-Match: $ETAG"],
        [GET => $PATH{tx}, 200],
    );
    my $i = 0;
    for my $q (@seq) {
        my ($m, $p, $want, $h) = @$q;
        send_raw($s, "$m $p HTTP/1.1\r\nHost: x\r\n" . ($h ? "$h\r\n" : '') . "\r\n");
        my $r = read_response($s, $m);
        $i++;
        is($r && $r->{status}, $want, "keep-alive $i: $m ... $want");
        ok($r && ($r->{headers}{connection} // 'keep-alive') !~ /close/i,
           "keep-alive $i: the connection stays open");
    }

    # nginx's own 405 for TRACE comes before the request is routed, where
    # keep-alive is not decided yet: answered, then closed
    send_raw($s, "TRACE $PATH{tx} HTTP/1.1\r\nHost: x\r\n\r\n");
    error_page(read_response($s, 'TRACE'), 405, 'keep-alive: TRACE');
    ok(closes($s), 'keep-alive: closed after TRACE');
    close $s;

    # the routes answer a 412 themselves, as any other answer: the
    # connection stays open (nginx's not-modified filter would close it)
    $s = connect_to();
    for my $route (qw(tx activity)) {
        send_raw($s, "GET $PATH{$route} HTTP/1.1\r\nHost: x\r\n"
                     . "If-Match: \"x\"\r\n\r\n");
        my $r = read_response($s, 'GET');
        error_page($r, 412, "keep-alive: $route, If-Match");
        ok($r && ($r->{headers}{connection} // 'keep-alive') !~ /close/i,
           "keep-alive: $route: the connection stays open after the 412");
    }
    send_raw($s, "GET $PATH{tx} HTTP/1.1\r\nHost: x\r\n\r\n");
    is(read_response($s, 'GET')->{status}, 200, 'keep-alive: after the 412');
    close $s;

    # HTTP/0.9: nginx answers with the body alone, no status line
    $r = raw("GET $PATH{tx}\r\n");
    ok($r && !defined $r->{status}, 'HTTP/0.9: no status line');
    my $doc = eval { json_decode($r->{raw}) };
    is($doc && $doc->{tx_id}, $ID, 'HTTP/0.9: the JSON document alone');
    $r = raw("GET /extended/v1/tx/zz\r\n");
    $doc = eval { json_decode($r->{raw}) };
    is($doc && $doc->{statusCode}, 400, 'HTTP/0.9: an error as JSON alone');
}

same_worker('HTTP versions and keep-alive');

# ---------------------------------------------------------------- slow clients

{
    # headers never finished: nginx closes without an answer (it never
    # sends its 408), after client_header_timeout
    my $s = connect_to();
    send_raw($s, "GET $PATH{tx} HTTP/1.1\r\nHost: x\r\n");
    my $t = time;
    ok(closes($s), 'unfinished headers: the connection is closed');
    is(${*$s}{cd_buf}, '', 'unfinished headers: with no answer');
    close $s;

    # a body that never comes: the answer is sent, the body discarded
    $s = connect_to();
    send_raw($s, "POST $PATH{tx} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nMARK");
    my $r = read_response($s, 'POST');
    json_error($r, 405, 'a body that never comes: the 405 still sent');
    close $s;
}

same_worker('slow clients');

# ---------------------------------------------------------------- rate limits

{
    # the example's per-key limit (10 r/s, a burst of 20): limit_req's 429
    # through the error page, and no-store for a path that holds a key
    my $s = connect_to($small->port);
    my %st;
    for (1 .. 60) {
        send_raw($s, "GET $PATH{chainhook} HTTP/1.1\r\nHost: x\r\n\r\n");
        my $r = read_response($s, 'GET') or last;
        $st{ $r->{status} }++;
        error_page($r, 429, 'limit_req') if $r->{status} == 429 && $st{429} == 1;
    }
    close $s;
    ok($st{200} && $st{429}, 'limit_req: served, then 429 '
       . join(', ', map { "$_ x$st{$_}" } sort keys %st));
    is(join(',', sort keys %st), '200,429', 'limit_req: nothing but 200 and 429');
}

# ---------------------------------------------------------------- the error page

{
    # every status of the error page: the same members, a fixed message
    my %seen = map { $_ => 1 } keys %FIXED;
    ok($seen{$_}, "the error page answered $_ in this test")
        for 400, 404, 405, 412, 413, 414, 429, 431, 501, 505;
    my %msgs;
    $msgs{$FIXED{$_}}++ for keys %FIXED;
    is(scalar(keys %msgs), scalar(keys %FIXED), 'a message of its own per status');
}

# ---------------------------------------------------------------- configuration

{
    my ($code, $out) = ChainData::Test::Nginx->test_config(db => $db,
        locations => "        location /x { chaindata_tx; chaindata_error; }\n");
    isnt($code, 0, 'chaindata_error beside another handler: refused');
    like($out, qr/conflicts with another content handler/, '... saying so');

    # it reads no index: no chaindata_db needed
    my $e = ChainData::Test::Nginx->start(locations => <<'EOF');
        error_page 404 410 /_e;
        location = /_e { internal; chaindata_error; }
        location = /gone { return 410; }
EOF
    error_page(get('/anything', _port => $e->port), 404, 'without chaindata_db');

    # 410, what the deprecated endpoints answer, has its reason phrase too
    my $r = get('/gone', _port => $e->port);
    error_page($r, 410, 'a 410 of the configuration');
    is(eval { json_decode($r->{body})->{error} }, 'Gone', '410: error "Gone"');
    $e->stop;
}

my $master = $ng->pid;
same_worker('the end');
ok(kill(0, $master), 'the master is running');
unlike($ng->error_log, qr/\[(?:alert|crit|emerg)\]|exited on signal/,
       'no alert, crash or emergency in the error log');
$ng->stop;
$small->stop;

done_testing();
