#!/usr/bin/perl
# API keys stay out of the logs on disk: $chaindata_redacted_uri and
# $chaindata_api_key_digest in an access log after real requests (also
# requests answered with errors, and paths of other shapes), the redacted
# request line ($request, error log lines), limit_req keyed by the digest,
# and nginx.conf.example itself serving the route (doc/operations.md, "Keeping API keys out of logs").

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Digest::SHA qw(sha256_hex);
use IO::Socket::INET;
use Test::More;
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Chainhook qw(:all);

require_build();

my $fx = fixture_path('chainhook.ndjson');
-f $fx or BAIL_OUT("fixture $fx missing");
my ($hooks) = chainhook_fixtures($fx);
my %hook = map { $_->{uuid} => $_ } @$hooks;
my $U1 = '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01';
my $U2 = '1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a02';
my $UNKNOWN = '0badc0de-0000-4000-8000-00000000beef';
my $K1 = $hook{$U1}{key};
my $K2 = $hook{$U2}{key};
my ($ODD) = grep { $_->{key} =~ m{/} } @$hooks;

my $db = new_index($fx);

sub digest16 {
    my ($k) = @_;
    utf8::encode($k) if utf8::is_utf8($k);
    return substr(sha256_hex($k), 0, 16);
}

sub lines_of { my ($file) = @_; return -f $file ? split(/\n/, slurp($file)) : () }

# The lines of a log once it has at least $n: nginx may write a request's
# line after the client saw the connection close (a lingering close after
# an error), so wait for them rather than read too early.
sub wait_lines {
    my ($file, $n) = @_;
    my $deadline = time + 10;
    my @l;
    while (1) {
        @l = lines_of($file);
        last if @l >= $n || time > $deadline;
        sleep 0.02;
    }
    return @l;
}

# no secret, raw or percent-encoded, in any of these files
sub no_secret_in {
    my ($name, $secrets, @files) = @_;
    my @found;
    for my $f (@files) {
        next unless -f $f;
        my $text = slurp($f);
        for my $s (@$secrets) {
            my $b = $s;
            utf8::encode($b) if utf8::is_utf8($b);
            push @found, "$f: " . substr($s, 0, 12) . '…'
                if index($text, $b) >= 0 || index($text, pct($s)) >= 0;
        }
    }
    is_deeply(\@found, [], $name);
}

# ======================================================================
# A server logging the redacted URI and the digest, and $request too

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => <<'EOF',
    log_format redacted '"$request_method $chaindata_redacted_uri $server_protocol" '
                        '$status key=$chaindata_api_key_digest';
    log_format withrequest '"$request" $status';
    limit_req_zone $chaindata_api_key_digest zone=perkey:1m rate=1r/m;
EOF
    locations => <<'EOF',
        # relative to the prefix; these replace the harness's access log
        access_log redacted.log redacted;
        access_log request.log withrequest;

        location /v1/ext/ {
            chaindata_chainhook_status;
        }
        location /limited/ {
            limit_req zone=perkey;
            limit_req_status 429;
            chaindata_chainhook_status;
        }
        location /hooks/ {
            chaindata_chainhook_status;
        }
        location / {
            return 404;
        }
EOF
);
my $port = $ng->port;
my $prefix = $ng->prefix;
my $redacted_log = "$prefix/redacted.log";
my $request_log = "$prefix/request.log";

# Each case: a raw request target, the status, what the redacted URI must
# be, the digest (a key, or undef for "-"), and the secrets it carries.
my $S = sub { my ($n) = @_; return "sekrit$n" . ('x' x 20) };    # distinct secrets
my @cases = (
    # the route, answered 200, 404 (wrong key, unknown), 400
    [hook_path($K1, $U1), 200, "/v1/ext/***/chainhooks/$U1/status", $K1, [$K1]],
    [hook_path($S->(1), $U1), 404, "/v1/ext/***/chainhooks/$U1/status", $S->(1), [$S->(1)]],
    [hook_path($S->(1), $UNKNOWN), 404, "/v1/ext/***/chainhooks/$UNKNOWN/status", $S->(1), [$S->(1)]],
    [hook_path($S->(2), 'nope'), 400, "/v1/ext/***/chainhooks/nope/status", $S->(2), [$S->(2)]],
    ["/v1/ext//chainhooks/$U1/status", 400, "/v1/ext/***/chainhooks/$U1/status", undef, []],
    [hook_path($S->(3) x 7, $U1), 400, "/v1/ext/***/chainhooks/$U1/status", $S->(3) x 7, [$S->(3) x 7]],
    [hook_path($ODD->{key}, $ODD->{uuid}), 200, "/v1/ext/***/chainhooks/$ODD->{uuid}/status",
        $ODD->{key}, [$ODD->{key}, 'odd/key', 'odd%2Fkey']],
    [hook_path($K2, $U2) . '?a=1&b=%2F', 200, "/v1/ext/***/chainhooks/$U2/status?a=1&b=%2F", $K2, [$K2]],
    # paths of other shapes, in the route's location and outside it
    ['/v1/ext/' . $S->(4), 404, '/v1/ext/***', $S->(4), [$S->(4)]],
    ['/v1/ext/' . $S->(5) . '/', 404, '/v1/ext/***/', $S->(5), [$S->(5)]],
    ['/v1/ext/' . $S->(6) . '/chainhooks', 404, '/v1/ext/***/chainhooks', $S->(6), [$S->(6)]],
    ['/v1/ext/' . $S->(7) . "/chainhooks/$U1/status/more?x=" , 404,
        "/v1/ext/***/chainhooks/$U1/status/more?x=", $S->(7), [$S->(7)]],
    ['/v1/ext/' . $S->(8) . '/other/thing?y=1', 404, '/v1/ext/***/other/thing?y=1', $S->(8), [$S->(8)]],
    ['/v1/%65xt/' . $S->(9) . "/chainhooks/$U1/status", 404,
        "/v1/%65xt/***/chainhooks/$U1/status", $S->(9), [$S->(9)]],
    ['/V1/EXT/' . $S->(10) . '/x', 404, '/V1/EXT/***/x', $S->(10), [$S->(10)]],
    ['/v1/ext/' . $S->(11) . '%2Fmore/chainhooks', 404, '/v1/ext/***/chainhooks',
        $S->(11) . '/more', [$S->(11)]],
    ['/api/v1/ext/' . $S->(12) . '/chainhooks/x', 404, '/api/v1/ext/***/chainhooks/x', $S->(12), [$S->(12)]],
    ['/anything/' . $S->(13) . '/%63hainhooks/z', 404, '/anything/***/%63hainhooks/z', $S->(13), [$S->(13)]],
    ["/hooks/" . $S->(14) . "/chainhooks/$U1/status", 404, "/hooks/***/chainhooks/$U1/status",
        $S->(14), [$S->(14)]],
    # the route's location, a shape where no piece can be told to be the key
    ['/hooks/' . $S->(15), 404, '/***', undef, [$S->(15)]],
    ['/hooks/' . $S->(16) . '?q=1', 404, '/***?q=1', undef, [$S->(16)]],
    # not the route: left alone
    ['/static/app.js?v=2', 404, '/static/app.js?v=2', undef, []],
    [hook_path($K1, $U1), 405, "/v1/ext/***/chainhooks/$U1/status", $K1, [$K1], 'POST'],
    [hook_path($K1, $U1), 200, "/v1/ext/***/chainhooks/$U1/status", $K1, [$K1], 'HEAD'],
);

my @all_secrets = map { @{ $_->[4] } } @cases;

my $n0 = () = lines_of($redacted_log);
for my $c (@cases) {
    my ($target, $status, $want, $key, $secrets, $method) = @$c;
    $method ||= 'GET';
    my $r = http_request($port, $method, $target, ($method eq 'POST' ? (_body => 'x') : ()));
    is($r->{status}, $status, "$method $want: $status");
}

# nginx answers these itself before any location is chosen
my $early = 'early' . ('y' x 24);
push @all_secrets, $early;
{
    # two Host headers: 400 after the request line was parsed
    my $r = ChainData::Test::http($port, "GET " . hook_path($early, $U1)
        . " HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n");
    is($r->{status}, 400, 'duplicate Host header: nginx\'s 400');
    is($r->{headers}{'cache-control'}, 'no-store', '  with Cache-Control: no-store');
    push @cases, [hook_path($early, $U1), 400, "/v1/ext/***/chainhooks/$U1/status", $early, [$early]];

    # a request line nginx cannot parse: nothing of the target is known
    my $bad = 'unparsable' . ('z' x 20);
    push @all_secrets, $bad;
    $r = ChainData::Test::http($port, "GET /v1/ext/$bad/chainhooks/x y HTTP/1.1\r\nHost: a\r\n"
        . "Connection: close\r\n\r\n");
    is($r->{status}, 400, 'unparsable request line: 400');
    push @cases, [undef, 400, '-', undef, [$bad]];
}

my @lines = wait_lines($redacted_log, $n0 + @cases);
splice @lines, 0, $n0;
is(scalar @lines, scalar @cases, 'one access log line per request') or diag(join "\n", @lines);

for my $i (0 .. $#cases) {
    my ($target, $status, $want, $key, $secrets, $method) = @{ $cases[$i] };
    $method ||= 'GET';
    my $digest = defined $key ? digest16($key) : '-';
    my $line = $lines[$i] // '';
    if ($want eq '-') {
        like($line, qr/^"\S+ - \S+" $status key=-\z/, "access log: unparsable request line");
        next;
    }
    is($line, qq("$method $want HTTP/1.1" $status key=$digest), "access log: $method $want");
}

# wrong key and unknown chainhook: the same line but for the UUID
{
    my ($wrong, $unknown) = @lines[1, 2];
    (my $w = $wrong) =~ s/\Q$U1\E/UUID/;
    (my $u = $unknown) =~ s/\Q$UNKNOWN\E/UUID/;
    is($w, $u, 'access log: a wrong key and an unknown chainhook log alike');
}

# $request is redacted too, except where nginx refused the request before
# the module could see it (why the log format uses the variable)
{
    my @req = wait_lines($request_log, $n0 + @cases);
    my @leaking = grep { my $l = $_; grep { index($l, $_) >= 0 } grep { $_ ne $early } @all_secrets } @req;
    # the "/hooks/KEY" shape is redacted whole in the route's location;
    # the unparsable line and the duplicate Host header are nginx's own
    is_deeply([grep { !/unparsable|\Q$early\E/ } @leaking], [],
        '$request: no key, for every request that reached the phases')
        or diag(join "\n", @leaking);
    ok((grep { m{^"GET /v1/ext/\*\*\*/chainhooks/\Q$U1\E/status HTTP/1\.1" 200$} } @req),
        '$request shows the redacted line');
    ok((grep { m{^"GET /\*\*\* HTTP/1\.1" 404$} } @req),
        '$request: a path of another shape in the route is hidden whole');
}

no_secret_in('redacted access log: no key, raw or percent-encoded', \@all_secrets, $redacted_log);

# error log: nothing above info carries a key
{
    my @above_info = grep { !/\[(?:info|debug)\]/ } lines_of("$prefix/error.log");
    my @leaking = grep { my $l = $_; grep { index($l, $_) >= 0 || index($l, pct($_)) >= 0 } @all_secrets } @above_info;
    is_deeply(\@leaking, [], 'error log: no key in a line above info');
}

# ---------------------------------------------------------------- limit_req by digest

{
    my $from = length slurp("$prefix/error.log");
    my $r1 = http_get($port, hook_path($K1, $U1, '/limited/'));
    is($r1->{status}, 200, 'limit_req: first request of a key passes');
    my $r2 = http_get($port, hook_path($K1, $U1, '/limited/'));
    is($r2->{status}, 429, 'limit_req: the second request of the same key is limited');
    is($r2->{headers}{'cache-control'}, 'no-store', '  limit_req\'s 429 carries Cache-Control: no-store');
    my $r3 = http_get($port, hook_path($K2, $U2, '/limited/'));
    is($r3->{status}, 200, 'limit_req: another key has its own budget');
    my $r4 = http_get($port, hook_path($K1, $U2, '/limited/'));
    is($r4->{status}, 429, 'limit_req: the key is limited whatever chainhook it asks for');

    my $log = substr(slurp("$prefix/error.log"), $from);
    like($log, qr/\[error\].*limiting requests.*by zone "perkey".*request: "GET \/limited\/\*\*\*\/chainhooks\/\Q$U1\E\/status HTTP\/1\.1"/,
        'limit_req\'s error line shows the redacted request line');
    unlike($log, qr/\Q$K1\E/, 'and not the key');

    my @acc = wait_lines($redacted_log, $n0 + @cases + 4);
    is($acc[-1], qq("GET /limited/***/chainhooks/$U2/status HTTP/1.1" 429 key=) . digest16($K1),
        'access log: the limited request, redacted, with the digest');
}

$ng->stop;
no_secret_in('after stop: no key in the redacted log or the error log above info',
    [$K1, $K2], $redacted_log);

# ======================================================================
# nginx.conf.example itself

{
    my $example = repo_root() . '/nginx.conf.example';
    my $conf = slurp($example);
    my $dir = temp_dir();
    mkdir "$dir/logs";
    my $eport = do {
        my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0, Listen => 1, ReuseAddr => 1)
            or die "bind: $@";
        my $p = $s->sockport;
        close $s;
        $p;
    };

    my $module = build_path('ngx_http_chaindata_module.so');
    my $user = is_root() ? 'user nobody nogroup;' : '';
    my $n = 0;
    $n += $conf =~ s{^load_module \S+;}{load_module $module;}m;
    $n += $conf =~ s{^user [^;]+;}{$user}m;
    $n += $conf =~ s{^worker_processes [^;]+;}{worker_processes 1;\npid $dir/nginx.pid;\nerror_log $dir/error.log info;}m;
    $n += $conf =~ s{/var/lib/chaindata}{$db}g;
    $n += $conf =~ s{/var/log/nginx/}{$dir/logs/}g;
    $n += $conf =~ s{listen 127\.0\.0\.1:8080;}{listen 127.0.0.1:$eport;};
    $n += $conf =~ s!^http \{!http {\n    client_body_temp_path $dir/body;\n    proxy_temp_path $dir/proxy;\n    fastcgi_temp_path $dir/fastcgi;\n    uwsgi_temp_path $dir/uwsgi;\n    scgi_temp_path $dir/scgi;!m;
    is($n, 7, 'nginx.conf.example: the paths to point into the test directory are all there');
    like($conf, qr/log_format chaindata .*\$chaindata_redacted_uri/s, 'the example logs the redacted URI');
    like($conf, qr/limit_req_zone \$chaindata_api_key_digest/, 'the example rate-limits by the digest');
    unlike(join("\n", grep { !/^\s*#/ } split /\n/, $conf), qr/\$request_uri|\$uri\b|"\$request"/,
        'the example logs neither $request_uri nor $uri');
    spew("$dir/nginx.conf", $conf);

    my ($code, $out, $err) = run_cmd([nginx_binary(), '-t', '-p', "$dir/", '-c', "$dir/nginx.conf"],
        env => ChainData::Test::Nginx::_sanitizer_env($dir));
    is($code, 0, 'nginx -t accepts nginx.conf.example') or diag($out . $err);

    ($code, $out, $err) = run_cmd([nginx_binary(), '-p', "$dir/", '-c', "$dir/nginx.conf"],
        env => ChainData::Test::Nginx::_sanitizer_env($dir));
    is($code, 0, 'nginx starts with nginx.conf.example') or diag($out . $err);

    my $ex = bless { prefix => $dir, port => $eport, owner => $$, expect => [] }, 'ChainData::Test::Nginx';
    my $deadline = time + 5;
    while (time < $deadline) {
        if (!$ex->{pid} && -s "$dir/nginx.pid") {
            ($ex->{pid} = slurp("$dir/nginx.pid")) =~ s/\s+//g;
        }
        last if $ex->{pid} && IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $eport);
        sleep 0.05;
    }
    ok($ex->{pid}, 'the example server runs');

    my $r = http_get($eport, hook_path($K1, $U1));
    is($r->{status}, 200, 'example: the route serves');
    is($r->{body}, $hook{$U1}{data_raw}, 'example: the document');
    is($r->{headers}{'cache-control'}, 'no-store', 'example: no-store');
    $r = http_get($eport, hook_path('wrong' . $K1, $U1));
    is($r->{status}, 404, 'example: a wrong key');
    $r = http_get($eport, '/v1/ext/' . $K2);
    is($r->{status}, 404, 'example: another shape');
    $r = ChainData::Test::http($eport, "GET " . hook_path($K2, $U2)
        . " HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n");
    is($r->{status}, 400, 'example: a request nginx refuses early');

    my @acc = wait_lines("$dir/logs/chaindata.access.log", 4);
    is(scalar @acc, 4, 'example: four access log lines');
    my ($d1, $d2) = (digest16($K1), digest16($K2));
    like($acc[0], qr{^127\.0\.0\.1 - - \[[^\]]+\] "GET /v1/ext/\*\*\*/chainhooks/\Q$U1\E/status HTTP/1\.1" 200 \d+ "-" "-" key=$d1\z},
        'example: the log line, redacted, with the digest');
    like($acc[2], qr{"GET /v1/ext/\*\*\* HTTP/1\.1" 404 }, 'example: another shape, redacted');
    like($acc[3], qr{"GET /v1/ext/\*\*\*/chainhooks/\Q$U2\E/status HTTP/1\.1" 400 .* key=$d2\z},
        'example: nginx\'s early 400, redacted');
    no_secret_in('example: no key in the access log', [$K1, $K2, 'wrong' . $K1], "$dir/logs/chaindata.access.log");

    $ex->stop;
    $ex->{pid} = undef;
}

done_testing();
