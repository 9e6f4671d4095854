package ChainData::Test;

# Small test harness for the chaindata nginx module and its loader.
# Core Perl only. Modeled loosely on Test::Nginx from nginx-tests.

use strict;
use warnings;

use Cwd qw(abs_path);
use Digest::SHA ();
use Errno qw(EINTR);
use Exporter qw(import);
use File::Basename qw(basename dirname);
use File::Copy ();
use File::Path qw(make_path);
use File::Spec;
use File::Temp ();
use IO::Select;
use IO::Uncompress::Gunzip ();
use IO::Socket::INET;
use JSON::PP ();
use Socket ();
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);

our @EXPORT_OK = qw(
    repo_root build_path require_build nginx_binary program_for_anyone
    debian_nginx_conf
    load_index new_index fixup_index_perms fixture_path fixture_records
    tx_fixtures run_cmd
    http http_get http_request parse_response
    json_decode json_encode_canonical
    json_value_end json_members json_array_elements json_member_value
    json_replace_member json_remove_member
    splice_events validate_tx_schema schema_path
    temp_dir slurp spew is_root random_tx_id example_config eventually
    mdb_dump_of mdb_dump_pairs gunzip_body slow_client log_events_tx
    index_with_values random_hex
);
our %EXPORT_TAGS = (all => \@EXPORT_OK);

our $HTTP_TIMEOUT = 10;

my @KEEP_DIRS;    # File::Temp::Dir objects kept alive until exit

# --------------------------------------------------------------------------
# Paths

sub repo_root {
    # t/lib/ChainData/Test.pm -> repo root is three levels above this dir.
    my $here = abs_path(dirname(__FILE__));
    return abs_path("$here/../../..");
}

# CHAINDATA_BUILD names another build directory, e.g. build/asan for
# `make test-asan`; relative to the repository root.
sub build_dir {
    my $dir = $ENV{CHAINDATA_BUILD} || 'build';
    return $dir =~ m{^/} ? $dir : repo_root() . "/$dir";
}

sub build_path {
    my ($name) = @_;
    return build_dir() . "/$name";
}

# What a sanitizer prints when it finds something.
# (valgrind -q prints only errors, each line behind ==PID==)
our $SANITIZER_REPORT = qr/AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer|^==\d+== /m;

# Reports a failure through Test::More (no extra test when all is well).
sub fail_quietly {
    my ($name, $detail) = @_;
    return unless Test::More->can('builder');
    my $tb = Test::More->builder;
    $tb->ok(0, $name);
    $tb->diag($detail) if defined $detail;
}

sub fixture_path {
    my ($name) = @_;
    return repo_root() . "/t/fixtures/$name";
}

our $SCHEMA_PATH;    # override (tests of the harness)
sub schema_path {
    return $SCHEMA_PATH if defined $SCHEMA_PATH;
    return File::Spec->canonpath(
        repo_root() . '/../shared/reference/stacks-tx.strict.schema.json');
}

sub nginx_binary { return $ENV{CHAINDATA_NGINX} || '/usr/sbin/nginx' }

# Make test always builds first: a missing build output is a failure, not a skip.
sub require_build {
    my @missing = grep { !-f build_path($_) }
        qw(ngx_http_chaindata_module.so chaindata-load);
    if (@missing) {
        my $msg = 'missing build output(s): '
            . join(', ', map { "build/$_" } @missing) . ' - run make first';
        if (Test::More->can('builder')) {
            Test::More::BAIL_OUT($msg);
        }
        die "$msg\n";
    }
    return 1;
}

sub is_root { return $> == 0 }

# A copy of the program at $path in a temporary directory, for a process
# run as another user (nobody): the build may be out of its reach, in a
# clone under a private directory (root's home is 0700 on Debian)
sub program_for_anyone {
    my ($path) = @_;
    my $copy = temp_dir() . '/' . basename($path);
    File::Copy::copy($path, $copy) or die "copy $path to $copy: $!";
    chmod 0755, $copy or die "chmod $copy: $!";
    return $copy;
}

# mdb_dump of one database of an index (all of them without $name), less
# the header lines that differ between equal indexes (the map's size and
# the reader slots); dies when mdb_dump fails
sub mdb_dump_of {
    my ($dir, $name) = @_;
    my ($code, $out, $err) = run_cmd(['mdb_dump', defined $name
        ? ('-s', $name) : '-a', $dir]);
    die "mdb_dump $dir: $err" if $code;
    $out =~ s/^(?:mapsize|maxreaders)=.*\n//mg;
    return $out;
}

# the pairs of an mdb_dump_of() of one database (hex): key => value
sub mdb_dump_pairs {
    my ($dump) = @_;
    my ($body) = $dump =~ /^HEADER=END\n(.*?)^DATA=END/ms;
    my @l = map { s/^ //r } split /\n/, $body // '';
    return @l % 2 ? () : @l;
}

# index_with_values($dir, $name, { key_hex => value_hex, ... }): a copy
# of the index $dir whose database $name holds these values under these
# keys (put over what was there, mdb_load), made readable by the workers
sub index_with_values {
    my ($dir, $name, $values) = @_;
    my $copy = temp_dir() . '/index';
    make_path($copy);
    spew("$copy/data.mdb", slurp("$dir/data.mdb"));
    my $dump = "VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n"
        . join('', map { " $_\n $values->{$_}\n" } sort keys %$values)
        . "DATA=END\n";
    my $in = spew(temp_dir() . "/$name.dump", $dump);
    my ($code, undef, $err) = run_cmd(['mdb_load', '-s', $name, '-f', $in,
                                       $copy]);
    die "mdb_load -s $name $copy: $err" if $code;
    return fixup_index_perms($copy);
}

# random_hex($bytes, $seed): as many bytes as hex digits, the same for a
# seed every run (SHA-256 in counter mode)
sub random_hex {
    my ($bytes, $seed) = @_;
    my $hex = '';
    $hex .= Digest::SHA::sha256_hex("$seed/" . length $hex)
        while length $hex < 2 * $bytes;
    return substr($hex, 0, 2 * $bytes);
}

# a gzip member's plain bytes, or undef when it is not one whole member
sub gunzip_body {
    my ($z) = @_;
    my $out;
    IO::Uncompress::Gunzip::gunzip(\$z => \$out, Transparent => 0)
        or return undef;
    return $out;
}

# polls $cond (a sub) for up to $seconds; true when it held
sub eventually {
    my ($seconds, $cond) = @_;
    my $deadline = time + $seconds;
    while (time < $deadline) {
        return 1 if $cond->();
        sleep 0.1;
    }
    return $cond->();
}

sub temp_dir {
    my (%opt) = @_;
    my $d = File::Temp->newdir('chaindata-test-XXXXXXXX', TMPDIR => 1,
        CLEANUP => ($ENV{CHAINDATA_TEST_KEEP} ? 0 : 1));
    push @KEEP_DIRS, $d;
    my $path = $d->dirname;
    chmod 0755, $path or die "chmod $path: $!";
    return $path;
}

sub slurp {
    my ($file) = @_;
    open my $fh, '<:raw', $file or die "open $file: $!";
    local $/;
    my $s = <$fh>;
    close $fh;
    return defined $s ? $s : '';
}

sub spew {
    my ($file, $content) = @_;
    open my $fh, '>:raw', $file or die "open $file: $!";
    print {$fh} $content;
    close $fh or die "close $file: $!";
    return $file;
}

my $RAND_SEEDED;
sub random_tx_id {
    unless ($RAND_SEEDED) { srand(time() ^ $$); $RAND_SEEDED = 1 }
    return '0x' . join '', map { sprintf '%x', int rand 16 } 1 .. 64;
}

# example_config() -> (http => $text, locations => $text), for
# ChainData::Test::Nginx->start: the http block of nginx.conf.example
# without its server and chaindata_db (the harness sets those), log files
# put in the test's prefix, and the body of its server without "listen".
sub example_config {
    my $conf = slurp(repo_root() . '/nginx.conf.example');
    $conf =~ s/^\s*#.*\n//mg;
    my $http = _block_body($conf, qr/^http\s*\{/m)
        or die "nginx.conf.example: no http block\n";
    my ($start, $end) = _block_span($http, qr/^\s*server\s*\{/m)
        or die "nginx.conf.example: no server block\n";
    my $server = substr($http, $start, $end - $start);
    substr($http, $start, $end - $start) = '';
    $server =~ s/^\s*server\s*\{//;
    $server =~ s/\}\s*\z//;
    $server =~ s/^\s*listen\s[^;]*;\n//mg;
    $http =~ s/^\s*chaindata_db\s[^;]*;\n//mg;
    $http =~ s{(\b(?:access|error)_log\s+)/var/log/nginx/}{$1}g;
    return (http => $http, locations => $server);
}

# the text between the braces of the block whose opening matches $re
sub _block_body {
    my ($text, $re) = @_;
    my ($start, $end) = _block_span($text, $re) or return;
    my $block = substr($text, $start, $end - $start);
    $block =~ s/^[^{]*\{//;
    $block =~ s/\}\z//;
    return $block;
}

# where the block whose opening matches $re starts and ends (quotes are
# skipped: a "return 404 '{...}'" holds braces)
sub _block_span {
    my ($text, $re) = @_;
    return unless $text =~ $re;
    my $start = $-[0];
    my $p = index($text, '{', $start);
    my $depth = 0;
    while ($p < length $text) {
        my $c = substr($text, $p, 1);
        if ($c eq "'" || $c eq '"') {
            my $q = index($text, $c, $p + 1);
            return if $q < 0;
            $p = $q + 1;
            next;
        }
        $depth++ if $c eq '{';
        if ($c eq '}' && --$depth == 0) {
            return ($start, $p + 1);
        }
        $p++;
    }
    return;
}

# --------------------------------------------------------------------------
# Loader

# load_index($dir, @args): each element of @args is either a string passed
# verbatim to the loader (file names and options like '--batch', '1',
# '--skip-invalid', '-') or a hashref {stdin => $text} giving the loader's
# standard input. Returns ($exit_code, $stdout, $stderr).
sub load_index {
    my ($dir, @items) = @_;
    my (@args, $stdin);
    for my $it (@items) {
        if (ref $it eq 'HASH') {
            $stdin = $it->{stdin} if exists $it->{stdin};
        } else {
            push @args, $it;
        }
    }
    # `make test-valgrind` runs the loader under valgrind
    my @wrap = split ' ', ($ENV{CHAINDATA_LOADER_WRAPPER} || '');
    return run_cmd([@wrap, build_path('chaindata-load'), '--db', $dir, @args],
        stdin => $stdin, timeout => (@wrap ? 600 : 120));
}

# run_cmd(\@argv, stdin => $text) -> ($exit, $stdout, $stderr)
# $exit is the exit status, or 128+signal when killed by a signal.
sub run_cmd {
    my ($argv, %opt) = @_;
    my $tmp = File::Temp->newdir('chaindata-run-XXXXXXXX', TMPDIR => 1);
    my $in  = "$tmp/stdin";
    my $out = "$tmp/stdout";
    my $err = "$tmp/stderr";
    spew($in, defined $opt{stdin} ? $opt{stdin} : '');

    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        open STDIN,  '<', $in  or POSIX::_exit(126);
        open STDOUT, '>', $out or POSIX::_exit(126);
        open STDERR, '>', $err or POSIX::_exit(126);
        @ENV{ keys %{ $opt{env} } } = values %{ $opt{env} } if $opt{env};
        { no warnings "exec"; exec { $argv->[0] } @$argv; }
        print STDERR "exec $argv->[0]: $!\n";
        POSIX::_exit(127);
    }
    my $deadline = time + ($opt{timeout} || 120);
    my $status;
    while (1) {
        my $r = waitpid($pid, WNOHANG);
        if ($r == $pid) { $status = $?; last }
        if (time > $deadline) {
            kill 'KILL', $pid;
            waitpid($pid, 0);
            $status = $?;
            last;
        }
        sleep 0.01;
    }
    my $code = ($status & 127) ? 128 + ($status & 127) : $status >> 8;
    my ($stdout, $stderr) = (slurp($out), slurp($err));
    if ($stderr =~ $SANITIZER_REPORT) {
        fail_quietly("no sanitizer report from $argv->[0]", $stderr);
    }
    return ($code, $stdout, $stderr);
}

# Debian's nginx.conf in $etc, its includes where Debian has them
# (modules-enabled/*.conf, then in the http block conf.d/*.conf and
# sites-enabled/*; the directories made, sites-available too), workers as
# nobody when root; the pid, logs and temporary files in $var.  Its path.
sub debian_nginx_conf {
    my ($etc, $var) = @_;
    make_path(map { "$etc/$_" }
              qw(modules-enabled conf.d sites-available sites-enabled));
    my $user = is_root() ? "user nobody nogroup;\n" : '';
    my $temp = join '', map { "    ${_}_temp_path $var/$_;\n" }
                        qw(client_body proxy fastcgi uwsgi scgi);
    spew("$etc/nginx.conf", <<"CONF");
${user}worker_processes 1;
pid $var/nginx.pid;
error_log $var/error.log;
include $etc/modules-enabled/*.conf;

events {
    worker_connections 64;
}

http {
    access_log $var/access.log;
$temp    include $etc/conf.d/*.conf;
    include $etc/sites-enabled/*;
}
CONF
    return "$etc/nginx.conf";
}

# Make an index usable by nginx workers when the tests run as root: the
# directory and its files become the worker user's, as doc/operations.md
# "Install" has it (the tools, run as root later, keep creating files as that user).
sub fixup_index_perms {
    my ($dir) = @_;
    chmod 0755, $dir;
    if (is_root()) {
        my $uid = getpwnam('nobody');
        my $gid = getgrnam('nogroup');
        die "no user nobody / group nogroup" unless defined $uid && defined $gid;
        for my $f ($dir, map { "$dir/$_" } qw(data.mdb lock.mdb)) {
            next unless -e $f;
            chown $uid, $gid, $f or die "chown $f: $!";
        }
    }
    return $dir;
}

# new_index(@fixture_files) -> fresh temp index directory built from the files.
sub new_index {
    my (@files) = @_;
    my $dir = temp_dir() . '/index';
    my ($code, $out, $err) = load_index($dir, @files);
    die "chaindata-load failed (exit $code) building index from "
        . join(' ', @files) . ":\n$err" if $code != 0;
    fixup_index_perms($dir);
    return $dir;
}

# fixture_records($file) -> list of hashrefs, one per non-empty line:
#   { line => N, text => raw line, kind => ..., doc => decoded,
#     tx_id => ..., data_raw => raw text of the "data" member (or undef),
#     mempool => bool, tx_type => ... }
sub fixture_records {
    my ($file) = @_;
    my @recs;
    my $n = 0;
    for my $line (split /\n/, slurp($file)) {
        $n++;
        $line =~ s/\r\z//;
        next if $line =~ /^\s*\z/;
        my $doc = json_decode($line);
        my $rec = { line => $n, text => $line, doc => $doc, kind => $doc->{kind} };
        if (ref $doc->{data} eq 'HASH') {
            $rec->{data_raw} = json_member_value($line, 'data');
            my $d = $doc->{data};
            $rec->{tx_id}   = $d->{tx_id};
            $rec->{tx_type} = $d->{tx_type};
            $rec->{tx_status} = $d->{tx_status};
            $rec->{mempool} = exists $d->{events} ? 0 : 1;
            $rec->{event_count} = ref $d->{events} eq 'ARRAY' ? scalar @{ $d->{events} } : undef;
        }
        push @recs, $rec;
    }
    return @recs;
}

# tx_fixtures(@files) -> list of records (as fixture_records) for the
# transactions present after loading the files in order: later upserts of
# the same tx_id replace earlier ones, deletes remove them. Order: first
# appearance.
sub tx_fixtures {
    my (@files) = @_;
    my (%by, @order);
    for my $f (@files) {
        for my $r (fixture_records($f)) {
            next unless defined $r->{kind} && $r->{kind} eq 'tx';
            if (defined $r->{doc}{delete}) {
                delete $by{ lc $r->{doc}{delete} };
                next;
            }
            next unless defined $r->{tx_id};
            push @order, $r->{tx_id} unless exists $by{ $r->{tx_id} };
            $by{ $r->{tx_id} } = $r;
        }
    }
    my %seen;
    return map { $by{$_} } grep { exists $by{$_} && !$seen{$_}++ } @order;
}

# --------------------------------------------------------------------------
# HTTP client

sub http_get {
    my ($port, $path, %headers) = @_;
    return http_request($port, 'GET', $path, %headers);
}

# log_events_tx($count, $repr) -> ($tx_id, $raw): the 640-event fixture
# under a new id with $count contract log events, the repr of event $i
# being $repr->($repr_of_the_fixture_log, $i): a large page to order
sub log_events_tx {
    my ($count, $repr) = @_;
    my ($base) = grep { ($_->{event_count} // 0) == 640 }
                 tx_fixtures(fixture_path('tx-many-events.ndjson'));
    die "the 640-event fixture is missing\n" unless $base;
    my $id = random_tx_id();
    my $doc = json_decode($base->{data_raw});
    my ($log) = grep { $_->{event_type} eq 'smart_contract_log' }
                @{ $doc->{events} };
    $doc->{tx_id} = $id;
    $doc->{event_count} = $count;
    $doc->{events} = [ map {
        my $ev = json_decode(json_encode_canonical($log));
        $ev->{event_index} = $_;
        $ev->{tx_id} = $id;
        $ev->{contract_log}{value}{repr} =
            $repr->($ev->{contract_log}{value}{repr}, $_);
        $ev
    } 0 .. $count - 1 ];
    return ($id, json_encode_canonical($doc));
}

# slow_client($port, $path, @header_lines) -> ($socket, $response): a real
# client that sends its request, reads the status line and headers of its
# answer, and no more (a small receive buffer: nginx keeps what it could
# not send); $response as parse_response makes it of the headers
sub slow_client {
    my ($port, $path, @headers) = @_;
    socket(my $s, Socket::PF_INET(), Socket::SOCK_STREAM(), 0)
        or die "socket: $!";
    setsockopt($s, Socket::SOL_SOCKET(), Socket::SO_RCVBUF(), pack('i', 4096))
        or die "SO_RCVBUF: $!";
    connect($s, Socket::pack_sockaddr_in($port,
                                         Socket::inet_aton('127.0.0.1')))
        or die "connect: $!";
    binmode $s;
    my $req = "GET $path HTTP/1.1\r\nHost: localhost\r\n"
        . join('', map { "$_\r\n" } @headers) . "\r\n";
    syswrite($s, $req) == length $req or die "write: $!";
    my ($head, $sel) = ('', IO::Select->new($s));
    while (index($head, "\r\n\r\n") < 0) {
        $sel->can_read(30) or die "no answer within 30 s\n";
        sysread($s, my $buf, 1024) or die "closed before the headers\n";
        $head .= $buf;
    }
    my $r = parse_response(substr($head, 0, index($head, "\r\n\r\n") + 4),
                           'HEAD');
    return ($s, $r);
}

# http_request($port, $method, $path, %headers); a pseudo header '_body'
# gives a request body (Content-Length is added).
sub http_request {
    my ($port, $method, $path, %headers) = @_;
    my $body = delete $headers{_body};
    my $req = "$method $path HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n";
    for my $k (sort keys %headers) {
        $req .= "$k: $headers{$k}\r\n";
    }
    if (defined $body) {
        $req .= 'Content-Length: ' . length($body) . "\r\n";
    }
    $req .= "\r\n";
    $req .= $body if defined $body;
    return http($port, $req, method => $method);
}

# http($port, $raw_request, method => 'HEAD'?) -> parsed response hashref
sub http {
    my ($port, $request, %opt) = @_;
    my $method = $opt{method};
    ($method) = $request =~ /^(\S+)/ unless defined $method;
    my $s = IO::Socket::INET->new(
        PeerAddr => '127.0.0.1',
        PeerPort => $port,
        Proto    => 'tcp',
        Timeout  => $HTTP_TIMEOUT,
    ) or die "connect 127.0.0.1:$port: $@";
    binmode $s;
    $s->autoflush(1);
    my $off = 0;
    while ($off < length $request) {
        my $n = syswrite($s, $request, length($request) - $off, $off);
        die "write: $!" unless defined $n;
        $off += $n;
    }
    my $raw = '';
    my $sel = IO::Select->new($s);
    my $deadline = time + $HTTP_TIMEOUT;
    while (1) {
        my $left = $deadline - time;
        die "timeout reading response from 127.0.0.1:$port\n"
            . "request:\n$request\npartial response:\n$raw\n" if $left <= 0;
        next unless $sel->can_read($left);
        my $n = sysread($s, my $buf, 65536);
        if (!defined $n) {
            next if $! == EINTR;
            last if length $raw;    # e.g. ECONNRESET after a full response
            die "read: $!";
        }
        last if $n == 0;
        $raw .= $buf;
    }
    close $s;
    return parse_response($raw, $method);
}

# parse_response($raw, $method) -> {status, reason, headers, header_list, body, raw}
sub parse_response {
    my ($raw, $method) = @_;
    my %r = (raw => $raw, headers => {}, header_list => [], body => '');
    my $end = index($raw, "\r\n\r\n");
    my $head = $end >= 0 ? substr($raw, 0, $end) : $raw;
    my $body = $end >= 0 ? substr($raw, $end + 4) : '';
    my @lines = split /\r\n/, $head;
    my $status_line = shift @lines;
    if (defined $status_line && $status_line =~ m{^HTTP/(\d\.\d) (\d{3})(?: (.*))?$}) {
        $r{version} = $1;
        $r{status}  = $2 + 0;
        $r{reason}  = defined $3 ? $3 : '';
    } else {
        $r{status} = undef;
        $r{error}  = 'bad status line: ' . (defined $status_line ? $status_line : '(none)');
    }
    for my $l (@lines) {
        my ($k, $v) = $l =~ /^([^:]+):[ \t]*(.*?)[ \t]*$/ or next;
        push @{ $r{header_list} }, [$k, $v];
        my $lk = lc $k;
        if (exists $r{headers}{$lk}) {
            $r{headers}{$lk} .= ", $v";
        } else {
            $r{headers}{$lk} = $v;
        }
    }
    if (defined $method && uc($method) eq 'HEAD') {
        $r{body} = $body;    # should be empty; kept so tests can check
    } elsif (($r{headers}{'transfer-encoding'} || '') =~ /\bchunked\b/i) {
        my ($decoded, $ok) = _dechunk($body);
        $r{body} = $decoded;
        $r{chunked} = 1;
        $r{chunked_error} = 1 unless $ok;
    } else {
        $r{body} = $body;
    }
    return \%r;
}

sub _dechunk {
    my ($s) = @_;
    my $out = '';
    my $pos = 0;
    while (1) {
        my $eol = index($s, "\r\n", $pos);
        return ($out, 0) if $eol < 0;
        my $line = substr($s, $pos, $eol - $pos);
        $line =~ s/;.*//;
        return ($out, 0) unless $line =~ /^\s*([0-9a-fA-F]+)\s*$/;
        my $size = hex $1;
        $pos = $eol + 2;
        if ($size == 0) {
            return ($out, 1);
        }
        return ($out, 0) if $pos + $size > length $s;
        $out .= substr($s, $pos, $size);
        $pos += $size;
        return ($out, 0) unless substr($s, $pos, 2) eq "\r\n";
        $pos += 2;
    }
}

# --------------------------------------------------------------------------
# JSON helpers

my $JSON = JSON::PP->new->utf8->allow_nonref;

sub json_decode { return $JSON->decode($_[0]) }

sub json_encode_canonical {
    return JSON::PP->new->utf8->canonical->allow_nonref->encode($_[0]);
}

sub _skip_ws {
    my ($s, $p) = @_;
    $p++ while $p < length($s) && substr($s, $p, 1) =~ /[ \t\r\n]/;
    return $p;
}

# json_value_end($text, $pos): $pos is at the first character of a JSON
# value (whitespace allowed before it); returns the offset just past it.
sub json_value_end {
    my ($s, $p) = @_;
    my $len = length $s;
    $p = _skip_ws($s, $p);
    die "json_value_end: unexpected end of text\n" if $p >= $len;
    my $c = substr($s, $p, 1);
    if ($c eq '"') {
        $p++;
        while ($p < $len) {
            my $ch = substr($s, $p, 1);
            if ($ch eq '\\') { $p += 2; next }
            return $p + 1 if $ch eq '"';
            $p++;
        }
        die "json_value_end: unterminated string\n";
    }
    if ($c eq '{' || $c eq '[') {
        my $depth = 0;
        while ($p < $len) {
            my $ch = substr($s, $p, 1);
            if ($ch eq '"') {
                $p = json_value_end($s, $p);
                next;
            }
            if ($ch eq '{' || $ch eq '[') { $depth++ }
            elsif ($ch eq '}' || $ch eq ']') {
                $depth--;
                return $p + 1 if $depth == 0;
            }
            $p++;
        }
        die "json_value_end: unterminated container\n";
    }
    # number, true, false, null
    my $q = $p;
    $q++ while $q < $len && substr($s, $q, 1) =~ /[-+0-9.eEa-z]/;
    die "json_value_end: bad value at offset $p\n" if $q == $p;
    return $q;
}

# json_members($text, $pos=0): members of the object starting at $pos.
# Returns list of hashrefs {key, start (key quote), vstart, vend}.
sub json_members {
    my ($s, $p) = @_;
    $p = _skip_ws($s, $p || 0);
    die "json_members: not an object\n" unless substr($s, $p, 1) eq '{';
    $p++;
    my @m;
    while (1) {
        $p = _skip_ws($s, $p);
        my $c = substr($s, $p, 1);
        if ($c eq '}') { last }
        if ($c eq ',') { $p++; next }
        die "json_members: expected key at offset $p\n" unless $c eq '"';
        my $kend = json_value_end($s, $p);
        my $key = $JSON->decode(substr($s, $p, $kend - $p));
        my $q = _skip_ws($s, $kend);
        die "json_members: expected ':' at offset $q\n" unless substr($s, $q, 1) eq ':';
        my $vstart = _skip_ws($s, $q + 1);
        my $vend = json_value_end($s, $vstart);
        push @m, { key => $key, start => $p, vstart => $vstart, vend => $vend };
        $p = $vend;
    }
    return @m;
}

# json_array_elements($text, $pos): elements of the array starting at $pos,
# as list of [start, end].
sub json_array_elements {
    my ($s, $p) = @_;
    $p = _skip_ws($s, $p || 0);
    die "json_array_elements: not an array\n" unless substr($s, $p, 1) eq '[';
    $p++;
    my @e;
    while (1) {
        $p = _skip_ws($s, $p);
        my $c = substr($s, $p, 1);
        last if $c eq ']';
        if ($c eq ',') { $p++; next }
        my $end = json_value_end($s, $p);
        push @e, [$p, $end];
        $p = $end;
    }
    return @e;
}

# Raw text of top-level member $key of the object $text (undef if absent).
sub json_member_value {
    my ($s, $key) = @_;
    for my $m (json_members($s, 0)) {
        return substr($s, $m->{vstart}, $m->{vend} - $m->{vstart}) if $m->{key} eq $key;
    }
    return undef;
}

# Replace the raw value of top-level member $key (dies if absent).
sub json_replace_member {
    my ($s, $key, $new_raw) = @_;
    for my $m (json_members($s, 0)) {
        next unless $m->{key} eq $key;
        substr($s, $m->{vstart}, $m->{vend} - $m->{vstart}) = $new_raw;
        return $s;
    }
    die "json_replace_member: no member '$key'\n";
}

# Remove top-level member $key together with its separating comma.
# Returns the text unchanged if the member is absent.
sub json_remove_member {
    my ($s, $key, $obj_pos) = @_;
    $obj_pos ||= 0;
    my @m = json_members($s, $obj_pos);
    for my $i (0 .. $#m) {
        next unless $m[$i]{key} eq $key;
        my ($from, $to);
        if ($i > 0) {
            # from the end of the previous value through this value
            $from = $m[$i - 1]{vend};
            $to   = $m[$i]{vend};
        } elsif ($i < $#m) {
            # first member: through the comma up to the next key
            $from = $m[$i]{start};
            $to   = $m[$i + 1]{start};
        } else {
            # only member: leave "{}" (keep surrounding whitespace simple)
            $from = $m[$i]{start};
            $to   = $m[$i]{vend};
        }
        substr($s, $from, $to - $from) = '';
        return $s;
    }
    return $s;
}

# splice_events($raw_doc, $offset, $limit, $exclude_function_args)
# Expected served body for a stored transaction document: the same bytes,
# with the top-level "events" array replaced by the page
# events[offset .. offset+limit-1] (events ordered by event_index ascending,
# raw texts kept byte for byte), and with contract_call.function_args removed
# when $exclude_function_args is true.
sub splice_events {
    my ($doc, $offset, $limit, $exclude) = @_;
    $offset ||= 0;
    for my $m (json_members($doc, 0)) {
        next unless $m->{key} eq 'events';
        my @els = json_array_elements($doc, $m->{vstart});
        my @texts = map { substr($doc, $_->[0], $_->[1] - $_->[0]) } @els;
        # order by event_index ascending (stable; fixtures are normally sorted)
        my $i = 0;
        my @keyed = map {
            my $ei = eval { $JSON->decode($_)->{event_index} };
            [defined $ei ? $ei : 0, $i++, $_]
        } @texts;
        @texts = map { $_->[2] } sort { $a->[0] <=> $b->[0] || $a->[1] <=> $b->[1] } @keyed;
        my @page;
        if ($offset < @texts) {
            my $last = $offset + $limit - 1;
            $last = $#texts if $last > $#texts;
            @page = @texts[$offset .. $last] if $limit > 0;
        }
        substr($doc, $m->{vstart}, $m->{vend} - $m->{vstart}) = '[' . join(',', @page) . ']';
        last;
    }
    if ($exclude) {
        for my $m (json_members($doc, 0)) {
            next unless $m->{key} eq 'contract_call';
            next unless substr($doc, $m->{vstart}, 1) eq '{';
            my $inner = substr($doc, $m->{vstart}, $m->{vend} - $m->{vstart});
            my $new = json_remove_member($inner, 'function_args');
            substr($doc, $m->{vstart}, $m->{vend} - $m->{vstart}) = $new;
            last;
        }
    }
    return $doc;
}

# --------------------------------------------------------------------------
# Schema validation

# validate_tx_schema(@docs): returns (undef, $reason) when the schema file or
# the python jsonschema package is unavailable (caller should skip); else a
# list with one hashref {ok => 0|1, msg => '...'} per document.
sub validate_tx_schema {
    my (@docs) = @_;
    my $schema = schema_path();
    return (undef, "schema $schema is absent (not in this clone)") unless -f $schema;
    my $py = '/usr/bin/python3';
    return (undef, "$py not found") unless -x $py;
    my $tool = repo_root() . '/t/tools/validate-tx-schema.py';
    die "schema validator $tool is missing\n" unless -f $tool;
    for (@docs) {
        die "validate_tx_schema: document contains a newline\n" if /\n/;
    }
    my ($code, $out, $err) = run_cmd([$py, $tool, $schema],
        stdin => join('', map { "$_\n" } @docs), timeout => 300);
    return (undef, "python jsonschema unavailable: $err") if $code == 2;
    die "validator failed (exit $code): $err\n" unless $code == 0 || $code == 1;
    my %res;
    for my $l (split /\n/, $out) {
        if ($l =~ /^ok (\d+)\s*$/) {
            $res{$1} = { ok => 1, msg => '' };
        } elsif ($l =~ /^not ok (\d+)(?::\s*(.*))?$/) {
            $res{$1} = { ok => 0, msg => defined $2 ? $2 : '' };
        }
    }
    # validator numbering: 1-based by input line; accept 0-based too
    my $base = exists $res{0} ? 0 : 1;
    my @r;
    for my $i (0 .. $#docs) {
        push @r, $res{ $i + $base }
            || { ok => 0, msg => "validator printed no result for document " . ($i + $base)
                   . " (exit $code)\n$out$err" };
    }
    return @r;
}

# --------------------------------------------------------------------------
# Global cleanup: make sure no nginx we started outlives the test.

END {
    my $status = $?;
    ChainData::Test::Nginx::_stop_all();
    $? = $status;
}

# ==========================================================================
package ChainData::Test::Nginx;

use strict;
use warnings;

use IO::Socket::INET;
use POSIX qw(:sys_wait_h);
use Scalar::Util ();
use Time::HiRes qw(sleep time);

my %RUNNING;    # master pid => { prefix, obj (weak) }

sub _free_port {
    my $s = IO::Socket::INET->new(
        LocalAddr => '127.0.0.1', LocalPort => 0, Proto => 'tcp',
        Listen => 1, ReuseAddr => 1,
    ) or die "cannot bind 127.0.0.1:0: $@";
    my $port = $s->sockport;
    close $s;
    return $port;
}

sub _write_conf {
    my ($class, %o) = @_;
    my $prefix = $o{prefix};
    my $port = $o{port};
    my $module = ChainData::Test::build_path('ngx_http_chaindata_module.so');
    my $user = ChainData::Test::is_root() ? "user nobody nogroup;\n" : '';
    my $db = defined $o{db} ? "    chaindata_db $o{db};\n" : '';
    my $main = defined $o{main} ? $o{main} : '';
    my $http = defined $o{http} ? $o{http} : '';
    my $locations = defined $o{locations} ? $o{locations} : '';
    my $load = $o{no_load_module} ? '' : "load_module $module;\n";
    # more parameters of the listen directive (say "sndbuf=64k")
    my $listen = defined $o{listen} ? " $o{listen}" : '';
    # the main error log's level (error_log_level => 'debug')
    my $level = $o{error_log_level} || 'info';
    my $workers = $o{workers} || 1;
    # CHAINDATA_TEST_THREADS=1: every lookup through chaindata_threads'
    # pool (doc/developer.md), to run any test file's routes through it
    if ($ENV{CHAINDATA_TEST_THREADS} && defined $o{db}) {
        $main .= "thread_pool chaindata_test threads=2;\n"
                 . "env CHAINDATA_THREADS_GUESS=all;\n";
        $db .= "    chaindata_threads chaindata_test;\n";
    }
    my $conf = <<"EOF";
${load}daemon on;
master_process on;
worker_processes $workers;
${user}error_log $prefix/error.log $level;
pid $prefix/nginx.pid;
$main
events {
    worker_connections 128;
}

http {
    access_log $prefix/access.log;
    client_body_temp_path $prefix/client_body_temp;
    proxy_temp_path $prefix/proxy_temp;
    fastcgi_temp_path $prefix/fastcgi_temp;
    uwsgi_temp_path $prefix/uwsgi_temp;
    scgi_temp_path $prefix/scgi_temp;
$db$http
    server {
        listen 127.0.0.1:$port$listen;
        server_name localhost;
$locations
    }
}
EOF
    ChainData::Test::spew("$prefix/nginx.conf", $conf);
    return "$prefix/nginx.conf";
}

# ChainData::Test::Nginx->test_config(db => ..., locations => ..., http => ...,
# main => ..., listen => ..., workers => ...) -> ($exit, $output) of `nginx -t`.
sub test_config {
    my ($class, %o) = @_;
    my $prefix = ChainData::Test::temp_dir();
    my $port = $o{port} || _free_port();
    my $conf = $class->_write_conf(%o, prefix => $prefix, port => $port);
    my ($code, $out, $err) = ChainData::Test::run_cmd(
        [_nginx_argv($prefix), '-t', '-p', "$prefix/", '-c', $conf],
        env => _sanitizer_env($prefix));
    return ($code, $out . $err, $prefix);
}

sub start {
    my ($class, %o) = @_;
    my $prefix = ChainData::Test::temp_dir();
    my $port = _free_port();
    # prefix_setup => sub { my ($prefix) = @_; … }: files nginx.conf names
    $o{prefix_setup}->($prefix) if $o{prefix_setup};
    my $conf = $class->_write_conf(%o, prefix => $prefix, port => $port);
    my $self = bless { prefix => $prefix, port => $port, conf => $conf, owner => $$ }, $class;
    $self->{expect} = $o{expect_log} ? [ $o{expect_log} ] : [];
    # default_log => 1: what nginx logs before it has read error_log to
    # the prefix's error.log (-e), as Debian's default error log
    # (/var/log/nginx/error.log) is its stock error_log
    my @e = $o{default_log} ? ('-e', "$prefix/error.log") : ();
    my ($code, $out, $err) = ChainData::Test::run_cmd(
        [_nginx_argv($prefix), @e, '-p', "$prefix/", '-c', $conf],
        env => _sanitizer_env($prefix));
    $self->{start_output} = $out . $err;
    if ($code != 0) {
        die "nginx failed to start (exit $code):\n$out$err\n--- error.log:\n"
            . $self->error_log . "\n";
    }
    my $deadline = time + ($ENV{CHAINDATA_NGINX_VALGRIND} ? 60 : 5);
    my $ok;
    while (time < $deadline) {
        if (!$self->{pid} && -s "$prefix/nginx.pid") {
            my $pid = ChainData::Test::slurp("$prefix/nginx.pid");
            $pid =~ s/\s+//g;
            if ($pid =~ /^\d+$/) {
                $self->{pid} = $pid;
                $RUNNING{$pid} = { prefix => $prefix, obj => $self };
                Scalar::Util::weaken($RUNNING{$pid}{obj});
            }
        }
        if ($self->{pid}) {
            my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                Proto => 'tcp', Timeout => 1);
            if ($s) { close $s; $ok = 1; last }
        }
        sleep 0.05;
    }
    unless ($ok) {
        my $log = $self->error_log;
        $self->stop;
        die "nginx did not start accepting on 127.0.0.1:$port within 5 s\n"
            . "--- error.log:\n$log\n";
    }
    # wait (briefly) for every worker to come up: the port answers once
    # the first one runs, the others may still be starting (slowly under
    # the sanitizers)
    my $want = $o{workers} || 1;
    $deadline = time + ($ENV{CHAINDATA_NGINX_VALGRIND} ? 60 : 10);
    while (time < $deadline) {
        my @workers = $self->worker_pids;
        last if @workers >= $want;
        sleep 0.02;
    }
    return $self;
}

# Under `make test-valgrind` (CHAINDATA_NGINX_VALGRIND=1) nginx, its
# workers and the module run under valgrind's memcheck; its reports go to
# files in the prefix, which stop() reads (leaks aside: nginx frees little
# at exit by design).
sub _nginx_argv {
    my ($prefix) = @_;
    return (ChainData::Test::nginx_binary()) unless $ENV{CHAINDATA_NGINX_VALGRIND};
    return ('valgrind', '-q', '--trace-children=yes', '--leak-check=no',
            '--vgdb=no',
            "--log-file=$prefix/valgrind.%p", ChainData::Test::nginx_binary());
}

# Under `make test-asan` the module is built with ASan and UBSan and
# Debian's nginx gets their runtimes preloaded (CHAINDATA_PRELOAD); reports
# go to files in the prefix, which stop() reads.  nginx frees little at
# exit by design, so leak detection is for the loader, not for nginx.
sub _sanitizer_env {
    my ($prefix) = @_;
    return {} unless $ENV{CHAINDATA_PRELOAD};
    return {
        LD_PRELOAD => $ENV{CHAINDATA_PRELOAD},
        ASAN_OPTIONS => "detect_leaks=0:log_path=$prefix/sanitizer",
        UBSAN_OPTIONS => "print_stacktrace=1:log_path=$prefix/sanitizer",
    };
}

# error log lines a test expects (a deliberate SIGKILL, an index made
# unreadable on purpose): not reported by stop()
sub expect_log {
    my ($self, $re) = @_;
    push @{ $self->{expect} }, $re;
}

# After the server stopped: alerts, crashes and sanitizer reports that no
# test expected fail the test file.
sub _check_logs {
    my ($self) = @_;
    my @bad = grep {
        my $line = $_;
        !grep { $line =~ $_ } @{ $self->{expect} || [] }
    } $self->bad_log_lines;
    if (@bad) {
        ChainData::Test::fail_quietly(
            'no unexpected alerts or crashes in the error log', join("\n", @bad));
    }
    for my $f (glob "$self->{prefix}/sanitizer*") {
        ChainData::Test::fail_quietly('no sanitizer report from nginx',
            ChainData::Test::slurp($f));
    }
    for my $f (grep { -s $_ } glob "$self->{prefix}/valgrind.*") {
        ChainData::Test::fail_quietly('no valgrind report from nginx',
            ChainData::Test::slurp($f));
    }
}

sub port   { $_[0]{port} }
sub prefix { $_[0]{prefix} }
sub pid    { $_[0]{pid} }

# what the start command printed (stdout and stderr)
sub start_output { return $_[0]{start_output} }

sub error_log {
    my ($self) = @_;
    my $f = "$self->{prefix}/error.log";
    return -f $f ? ChainData::Test::slurp($f) : '';
}

# error log lines that indicate a server problem (crashes, alerts)
sub bad_log_lines {
    my ($self) = @_;
    return grep {
        /\[(?:alert|crit|emerg)\]/ || /exited on signal/
            || $_ =~ $ChainData::Test::SANITIZER_REPORT
    } split /\n/, $self->error_log;
}

sub _children_of {
    my ($ppid) = @_;
    my @kids;
    opendir my $d, '/proc' or return;
    for my $p (grep { /^\d+$/ } readdir $d) {
        open my $fh, '<', "/proc/$p/stat" or next;
        my $stat = <$fh>;
        close $fh;
        next unless defined $stat;
        # pid (comm) state ppid ...
        if ($stat =~ /\)\s+\S+\s+(\d+)/ && $1 == $ppid) {
            push @kids, $p + 0;
        }
    }
    closedir $d;
    return sort { $a <=> $b } @kids;
}

sub worker_pids {
    my ($self) = @_;
    return () unless $self->{pid};
    # under valgrind, /proc/PID/cmdline is valgrind's: every child
    return _children_of($self->{pid}) if $ENV{CHAINDATA_NGINX_VALGRIND};
    return grep {
        my $cmd = '';
        if (open my $fh, '<', "/proc/$_/cmdline") { local $/; $cmd = <$fh> // ''; }
        $cmd =~ /worker process/ && $cmd !~ /is shutting down/;
    } _children_of($self->{pid});
}

# reload: SIGHUP, then wait until the old workers are gone and a new one runs.
# Returns true on success.
sub reload {
    my ($self) = @_;
    my %old = map { $_ => 1 } $self->worker_pids;
    kill 'HUP', $self->{pid} or die "kill HUP $self->{pid}: $!";
    my $deadline = time + ($ENV{CHAINDATA_NGINX_VALGRIND} ? 60 : 10);
    while (time < $deadline) {
        my @now = $self->worker_pids;
        return 1 if @now && !grep { $old{$_} } @now;
        sleep 0.05;
    }
    return 0;
}

sub _alive { my ($pid) = @_; return kill(0, $pid) }

sub stop {
    my ($self) = @_;
    my $pid = $self->{pid} or return;
    return if $self->{owner} != $$;    # never from a forked child
    _stop_pid($pid, $self->{prefix});
    delete $RUNNING{$pid};
    delete $self->{pid};
    $self->_check_logs;
    return 1;
}

sub _stop_pid {
    my ($pid, $prefix) = @_;
    return unless _alive($pid);
    kill 'QUIT', $pid;
    my $deadline = time + 5;
    while (time < $deadline) {
        last if !-e "$prefix/nginx.pid" && !_alive($pid);
        sleep 0.05;
    }
    for my $sig ('TERM', 'KILL') {
        last unless _alive($pid);
        kill $sig, $pid;
        my $d = time + 3;
        sleep 0.05 while _alive($pid) && time < $d;
    }
}

my $OWNER = $$;
sub _stop_all {
    return if $$ != $OWNER;
    for my $pid (keys %RUNNING) {
        my $r = delete $RUNNING{$pid};
        if ($r->{obj}) {
            $r->{obj}->stop;    # also reports what the error log holds
        } else {
            _stop_pid($pid, $r->{prefix});
        }
    }
}

sub DESTROY {
    my ($self) = @_;
    local ($?, $@, $!);
    $self->stop if $self->{pid};
}

1;
