#!/usr/bin/perl
# API keys stay out of every error log of the http block, whoever writes
# the line: requests for key-carrying paths that reach a server or
# location without chaindata (root and open() failed, log_not_found,
# proxy_pass to a closed port, try_files, nested, regex and named
# locations), requests nginx refuses before any phase, at info and (when
# the nginx binary has it) debug, into files and into syslog; and access
# logs as doc/operations.md recommends.  Afterwards no file of the prefix holds a
# key, raw or percent-encoded (doc/operations.md, "Keeping API keys
# out of logs").

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use File::Find ();
use IO::Select;
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
my $K1 = $hook{$U1}{key};
my ($ODD) = grep { $_->{key} =~ m{/} && $_->{key} =~ / / } @$hooks;
$ODD or BAIL_OUT('the fixture has no key with "/" and a space');

my $db = new_index($fx);

my (undef, $vout, $verr) = run_cmd([nginx_binary(), '-V']);
my $debug = ($vout . $verr) =~ /--with-debug/ ? 1 : 0;
my $level = $debug ? 'debug' : 'info';
note($debug ? 'nginx has debug logging: the other server logs at debug'
            : 'nginx without debug logging: the other server logs at info');

sub free_port {
    my ($proto) = @_;
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
        Proto => $proto, ($proto eq 'tcp' ? (Listen => 1, ReuseAddr => 1) : ()))
        or die "bind: $@";
    return $s;
}

# a port where nothing listens, for proxy_pass
my $closed = do { my $s = free_port('tcp'); my $p = $s->sockport; close $s; $p };
my $other = do { my $s = free_port('tcp'); my $p = $s->sockport; close $s; $p };
my $syslog = free_port('udp');
my $udp = $syslog->sockport;

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => <<"EOF",
    log_format chaindata '\$remote_addr - \$remote_user [\$time_local] '
                         '"\$request_method \$chaindata_redacted_uri '
                         '\$server_protocol" \$status \$body_bytes_sent '
                         '"\$http_referer" "\$http_user_agent" '
                         'key=\$chaindata_api_key_digest';

    # a server without chaindata (relative paths are the prefix's)
    server {
        listen 127.0.0.1:$other;
        server_name other;
        access_log other-access.log chaindata;
        error_log other-error.log $level;
        error_log syslog:server=127.0.0.1:$udp,nohostname,tag=chaindata info;
        root www;
        log_not_found on;

        location /proxy/ {
            proxy_pass http://127.0.0.1:$closed;
        }
        location /try/ {
            try_files \$uri =404;
        }
        location /nested/ {
            location /nested/inner/ {
                error_log nested-error.log info;
            }
        }
        location ~ ^/regex/ {
            error_log regex-error.log info;
        }
        location /named/ {
            try_files \$uri \@fallback;
        }
        location \@fallback {
            error_log named-error.log info;
            proxy_pass http://127.0.0.1:$closed;
        }
    }
EOF
    locations => <<'EOF',
        access_log redacted.log chaindata;

        location /v1/ext/ {
            chaindata_chainhook_status;
        }
        location /files/ {
            root www;
        }
EOF
);
my $port = $ng->port;
my $prefix = $ng->prefix;

my $n = 0;
my @secrets;
sub secret { my $s = sprintf('sekrit%02d', ++$n) . ('q' x 20); push @secrets, $s; return $s }

# Each case: the port, a raw request target, the status, a log file with
# a line the redaction must have left readable (a regular expression),
# and a name (else the target, its key shown as KEY).
my $PFX = qr{\Q$prefix\E/www};
my @cases;
{
    my $s = secret();
    push @cases, [$other, hook_path($s, $U1), 404, 'other-error.log',
        qr{\[error\].*open\(\) "$PFX/v1/ext/\*\*\*/chainhooks/$U1/status" failed \(2: No such file or directory\).*request: "GET /v1/ext/\*\*\*/chainhooks/$U1/status HTTP/1\.1"}];
}
push @cases, [$other, hook_path($K1, $U1), 404, 'other-error.log',
    qr{open\(\) "$PFX/v1/ext/\*\*\*/chainhooks/$U1/status" failed}];
push @secrets, $K1;
push @cases, [$other, hook_path($ODD->{key}, $ODD->{uuid}), 404, 'other-error.log',
    qr{open\(\) "$PFX/v1/ext/\*\*\*/chainhooks/$ODD->{uuid}/status" failed}];
push @secrets, $ODD->{key}, 'odd/key', 'with space';
{
    my $s = secret();
    push @cases, [$other, "/v1/ext/$s", 404, 'other-error.log',
        qr{open\(\) "$PFX/v1/ext/\*\*\*" failed .*request: "GET /v1/ext/\*\*\* HTTP/1\.1"}];
    $s = secret();
    push @cases, [$other, "/v1/ext/$s/other/thing?y=1", 404, 'other-error.log',
        qr{open\(\) "$PFX/v1/ext/\*\*\*/other/thing" failed}];
    $s = secret();
    push @cases, [$other, "/V1/%45XT/$s/%43hainhooks/$U1/status", 404, 'other-error.log',
        qr{open\(\) "$PFX/V1/EXT/\*\*\*/Chainhooks/$U1/status" failed}];
    $s = secret();
    push @cases, [$other, "/proxy/v1/ext/$s/chainhooks/$U1/status", 502, 'other-error.log',
        qr{\[error\].*connect\(\) failed .*upstream: "http://127\.0\.0\.1:$closed/proxy/v1/ext/\*\*\*/chainhooks/$U1/status"}];
    $s = secret();
    push @cases, [$other, "/try/v1/ext/$s/chainhooks/$U1/status", 404, 'other-access.log',
        qr{"GET /try/v1/ext/\*\*\*/chainhooks/$U1/status HTTP/1\.1" 404 }];
    $s = secret();
    push @cases, [$other, "/nested/inner/$s/chainhooks/$U1/status", 404, 'nested-error.log',
        qr{open\(\) "$PFX/nested/inner/\*\*\*/chainhooks/$U1/status" failed}];
    $s = secret();
    push @cases, [$other, "/regex/v1/ext/$s/chainhooks/$U1/status", 404, 'regex-error.log',
        qr{open\(\) "$PFX/regex/v1/ext/\*\*\*/chainhooks/$U1/status" failed}];
    $s = secret();
    push @cases, [$other, "/named/v1/ext/$s/chainhooks/$U1/status", 502, 'named-error.log',
        qr{connect\(\) failed .*upstream: "http://127\.0\.0\.1:$closed/named/v1/ext/\*\*\*/chainhooks/$U1/status"}];
    $s = secret();
    # the harness's server logs into the main error log
    push @cases, [$port, "/files/v1/ext/$s/chainhooks/$U1/status", 404, 'error.log',
        qr{open\(\) "$PFX/files/v1/ext/\*\*\*/chainhooks/$U1/status" failed}];
    # the chaindata route itself still answers
    push @cases, [$port, hook_path($K1, $U1), 200, 'redacted.log',
        qr{"GET /v1/ext/\*\*\*/chainhooks/$U1/status HTTP/1\.1" 200 }];
}

sub case_name {
    my ($c) = @_;
    return $c->[5] if defined $c->[5];
    (my $name = $c->[1]) =~ s/sekrit\d\dq+|\Q$K1\E|\Q@{[pct($ODD->{key})]}\E/KEY/g;
    return $name;
}

for my $c (@cases) {
    my ($p, $target, $status) = @$c;
    my $r = http_get($p, $target);
    is($r->{status}, $status, case_name($c) . ": $status");
}

# requests nginx refuses before any phase, with info lines of its own
# that carry the request line
{
    my $s = secret();
    my $r = ChainData::Test::http($other, 'GET ' . hook_path($s, $U1)
        . " HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n");
    is($r->{status}, 400, 'duplicate Host header: 400');
    push @cases, [$other, undef, 400, 'other-error.log',
        qr{\[info\].*client sent duplicate host header.*request: "GET /v1/ext/\*\*\*/chainhooks/$U1/status HTTP/1\.1"},
        'duplicate Host header'];

    $s = secret();
    $r = ChainData::Test::http($other, "GET /v1/ext/$s/chainhooks/$U1/status HTTP/1.1\r\n"
        . "Host: a\r\nX-Long: " . ('x' x 9000) . "\r\nConnection: close\r\n\r\n");
    is($r->{status}, 400, 'a header line too long: 400');
    push @cases, [$other, undef, 400, 'other-error.log',
        qr{\[info\].*client sent too long header line.*request: "GET /v1/ext/\*\*\*/chainhooks/$U1/status HTTP/1\.1"},
        'a header line too long'];

    # a request line nginx cannot parse, shown as it came
    $s = secret();
    $r = ChainData::Test::http($other, "GET /v1/ext/$s/chainhooks/x y HTTP/1.1\r\n"
        . "Host: a\r\nConnection: close\r\n\r\n");
    is($r->{status}, 400, 'an unparsable request line: 400');
    push @cases, [$other, undef, 400, 'other-error.log',
        qr{\[info\].*client sent invalid request.*request: "GET /v1/ext/\*\*\*/chainhooks/x y HTTP/1\.1"},
        'an unparsable request line'];

    # absolute-form target
    $s = secret();
    $r = ChainData::Test::http($other, "GET http://other/v1/ext/$s/chainhooks/$U1/status HTTP/1.1\r\n"
        . "Host: other\r\nConnection: close\r\n\r\n");
    is($r->{status}, 404, 'absolute-form target: 404');
    push @cases, [$other, undef, 404, 'other-error.log',
        qr{open\(\) "$PFX/v1/ext/\*\*\*/chainhooks/$U1/status" failed.*request: "GET http://other/v1/ext/\*\*\*/chainhooks/$U1/status HTTP/1\.1"},
        'absolute-form target'];
}

# a reload: the new workers wrap the new configuration's logs
my %after_reload;
{
    my %from = map { $_ => length slurp("$prefix/$_") } qw(error.log other-error.log);
    ok($ng->reload, 'reload');
    my $s = secret();
    my $r = http_get($other, hook_path($s, $U1));
    is($r->{status}, 404, 'after the reload: 404');
    $s = secret();
    $r = http_get($port, "/files/v1/ext/$s/chainhooks/$U1/status");
    is($r->{status}, 404, 'after the reload, in the main error log: 404');
    %after_reload = map { $_ => substr(slurp("$prefix/$_"), $from{$_}) } keys %from;
}

# syslog: what arrives before the server stops
sub drain_syslog {
    my ($into) = @_;
    my $sel = IO::Select->new($syslog);
    while ($sel->can_read(0.5)) {
        my $buf;
        last unless defined $syslog->recv($buf, 65536);
        push @$into, $buf;
    }
}
my @datagrams;
drain_syslog(\@datagrams);

$ng->stop;
drain_syslog(\@datagrams);

# every line the cases expect, in the file each names
for my $c (@cases) {
    my ($p, $target, $status, $file, $re) = @$c;
    my $text = -f "$prefix/$file" ? slurp("$prefix/$file") : '';
    like($text, $re, case_name($c) . ": $file has the line, key hidden");
}

like($after_reload{'other-error.log'}, qr{open\(\) "$PFX/v1/ext/\*\*\*/chainhooks/$U1/status" failed},
    'after the reload: the server\'s line, key hidden');
like($after_reload{'error.log'}, qr{open\(\) "$PFX/files/v1/ext/\*\*\*/chainhooks/$U1/status" failed},
    'after the reload: the main error log\'s line, key hidden');

ok(@datagrams > 0, 'syslog received the error lines');
ok((grep { m{open\(\) "$PFX/v1/ext/\*\*\*/chainhooks/$U1/status" failed} } @datagrams),
    'syslog: a line with the key hidden');

# no secret, raw or percent-encoded, in any file of the prefix nor in syslog
{
    my @files;
    File::Find::find({ no_chdir => 1, wanted => sub { push @files, $_ if -f $_ } }, $prefix);
    my @found;
    for my $where ((map { [$_, slurp($_)] } @files), map { ['syslog', $_] } @datagrams) {
        my ($name, $text) = @$where;
        for my $s (@secrets) {
            for my $form ($s, pct($s)) {
                my $at = index($text, $form);
                next if $at < 0;
                my $from = rindex($text, "\n", $at) + 1;
                my $to = index($text, "\n", $at);
                $to = length $text if $to < 0;
                push @found, "$name: " . substr($text, $from, $to - $from);
            }
        }
    }
    is_deeply(\@found, [], 'no key, raw or percent-encoded, in any file of the prefix or in syslog')
        or diag(join "\n", @found);
    ok((grep { m{/other-error\.log\z} } @files), 'the other server\'s error log was written');
}

done_testing();
