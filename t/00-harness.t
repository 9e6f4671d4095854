#!/usr/bin/perl
# Unit tests of the test harness itself (no nginx, no build needed).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use IO::Socket::INET;
use POSIX ();
use ChainData::Test qw(:all);

# ---------------------------------------------------------------- JSON spans

{
    my $s = '{"a":"x\\"}y","b":[1,{"c":"]"}],"d":-1.5e+3,"e":true,"f":null}';
    my @m = json_members($s);
    is_deeply([map { $_->{key} } @m], [qw(a b d e f)],
        'json_members: keys in order');
    is(json_member_value($s, 'a'), '"x\\"}y"', 'string with escaped quote and brace');
    is(json_member_value($s, 'b'), '[1,{"c":"]"}]', 'nested array with bracket in string');
    is(json_member_value($s, 'd'), '-1.5e+3', 'number text kept');
    is(json_member_value($s, 'f'), 'null', 'null');
    is(json_member_value($s, 'zz'), undef, 'absent member');
    is(json_remove_member($s, 'a'), '{"b":[1,{"c":"]"}],"d":-1.5e+3,"e":true,"f":null}',
        'remove first member');
    is(json_remove_member($s, 'd'), '{"a":"x\\"}y","b":[1,{"c":"]"}],"e":true,"f":null}',
        'remove middle member');
    is(json_remove_member($s, 'f'), '{"a":"x\\"}y","b":[1,{"c":"]"}],"d":-1.5e+3,"e":true}',
        'remove last member');
    is(json_remove_member('{"only":[1]}', 'only'), '{}', 'remove only member');
    is(json_remove_member($s, 'nope'), $s, 'remove absent member: unchanged');
    is(json_replace_member($s, 'e', 'false'),
        '{"a":"x\\"}y","b":[1,{"c":"]"}],"d":-1.5e+3,"e":false,"f":null}', 'replace member');
    my @e = json_array_elements('[ 1 , "a,b" ,{"x":[2,3]},[]]');
    is(scalar @e, 4, 'array elements count');
    is(json_member_value('{"k" : {"x" : 1} }', 'k'), '{"x" : 1}', 'whitespace tolerated');
    ok(!eval { json_members('[1]'); 1 }, 'json_members dies on non-object');
    is(json_member_value('{"u":"\\u005c\\\\","v":1}', 'v'), '1', 'escaped backslash before quote');
}

# ---------------------------------------------------------------- splice_events

{
    my @ev = map {
        qq({"event_index":$_,"event_type":"smart_contract_log","tx_id":"0xab","contract_log":{"contract_id":"SP1.c","topic":"print","value":{"hex":"0x0$_","repr":"u$_ \\"]},["}}})
    } 0 .. 4;
    my $doc = '{"tx_id":"0xab","fee_rate":"180","event_count":5,"events":['
        . join(',', @ev)
        . '],"tx_type":"contract_call","contract_call":{"contract_id":"SP1.c","function_name":"f","function_signature":"(define-public (f))","function_args":[{"hex":"0x01","repr":"u1","name":"a","type":"uint"}]}}';
    my $pre  = '{"tx_id":"0xab","fee_rate":"180","event_count":5,"events":[';
    my $post = '],"tx_type":"contract_call","contract_call":{"contract_id":"SP1.c","function_name":"f","function_signature":"(define-public (f))","function_args":[{"hex":"0x01","repr":"u1","name":"a","type":"uint"}]}}';
    my $post_nofa = '],"tx_type":"contract_call","contract_call":{"contract_id":"SP1.c","function_name":"f","function_signature":"(define-public (f))"}}';

    is(splice_events($doc, 0, 20), $doc, 'page covering all events: unchanged');
    is(splice_events($doc, 0, 2), $pre . join(',', @ev[0, 1]) . $post, 'first page of 2');
    is(splice_events($doc, 3, 20), $pre . join(',', @ev[3, 4]) . $post, 'offset 3');
    is(splice_events($doc, 4, 1), $pre . $ev[4] . $post, 'last event');
    is(splice_events($doc, 5, 20), $pre . $post, 'offset = count: empty page');
    is(splice_events($doc, 99999999999999999999, 20), $pre . $post, 'huge offset: empty page');
    is(splice_events($doc, 0, 20, 1), $pre . join(',', @ev) . $post_nofa,
        'exclude_function_args removes contract_call.function_args');
    is(splice_events($doc, 1, 1, 1), $pre . $ev[1] . $post_nofa, 'page + exclude');
    is(splice_events($doc, 0, 20, 0), $doc, 'exclude false: unchanged');

    # events out of order are served ordered by event_index
    my $unordered = '{"events":[' . join(',', @ev[2, 0, 1]) . '],"x":1}';
    is(splice_events($unordered, 0, 2), '{"events":[' . join(',', @ev[0, 1]) . '],"x":1}',
        'events ordered by event_index');

    # function_args as first member of contract_call; other objects untouched
    my $d2 = '{"function_args":[1],"contract_call":{"function_args":[],"contract_id":"a"},"events":[]}';
    is(splice_events($d2, 0, 20, 1),
        '{"function_args":[1],"contract_call":{"contract_id":"a"},"events":[]}',
        'only the top-level contract_call member is touched');

    # mempool-like doc without events: unchanged
    my $mp = '{"tx_id":"0xcd","tx_status":"pending","receipt_time":1}';
    is(splice_events($mp, 0, 20), $mp, 'no events key: unchanged');
    is(splice_events($mp, 3, 1, 1), $mp, 'no events, no contract_call: unchanged');

    # a string value that looks like the events key inside a nested object
    my $d3 = '{"a":{"events":[1,2,3]},"events":[{"event_index":0},{"event_index":1}]}';
    is(splice_events($d3, 1, 5), '{"a":{"events":[1,2,3]},"events":[{"event_index":1}]}',
        'only the top-level events member is paged');
}

# ---------------------------------------------------------------- HTTP parsing

{
    my $r = parse_response("HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
        . "Content-Length: 7\r\nX-A: 1\r\nx-a: 2\r\nETag: \"abc\"\r\n\r\n{\"a\":1}", 'GET');
    is($r->{status}, 200, 'status');
    is($r->{headers}{'content-type'}, 'application/json; charset=utf-8', 'content-type');
    is($r->{headers}{'x-a'}, '1, 2', 'repeated headers joined');
    is(scalar @{ $r->{header_list} }, 5, 'header_list keeps all');
    is($r->{header_list}[3][0], 'x-a', 'header_list keeps original case');
    is($r->{headers}{etag}, '"abc"', 'etag');
    is($r->{body}, '{"a":1}', 'body');

    $r = parse_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        . "4\r\n{\"a\"\r\na;ext=1\r\n:12345678}\r\n0\r\n\r\n", 'GET');
    is($r->{body}, '{"a":12345678}', 'chunked body decoded');
    ok($r->{chunked} && !$r->{chunked_error}, 'chunked ok');

    $r = parse_response("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", 'GET');
    ok($r->{chunked_error}, 'truncated chunked body flagged');

    $r = parse_response("HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", 'GET');
    is($r->{status}, 304, 'status Not Modified');
    is($r->{body}, '', 'empty body');

    $r = parse_response("HTTP/1.1 302 Moved Temporarily\r\nLocation: /a?b\r\nContent-Length: 0\r\n\r\n", 'HEAD');
    is($r->{headers}{location}, '/a?b', 'location');

    $r = parse_response("garbage", 'GET');
    ok(!defined $r->{status} && $r->{error}, 'bad status line reported');
}

# ---------------------------------------------------------------- HTTP client against a canned server

{
    my $srv = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
        Listen => 5, Proto => 'tcp', ReuseAddr => 1) or die "listen: $@";
    my $port = $srv->sockport;
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        for my $i (1 .. 2) {
            my $c = $srv->accept or POSIX::_exit(1);
            my $req = '';
            while ($req !~ /\r\n\r\n/) {
                my $n = sysread($c, my $buf, 4096);
                last unless $n;
                $req .= $buf;
            }
            my ($cl) = $req =~ /Content-Length: (\d+)/i;
            if ($cl) {
                my ($body) = $req =~ /\r\n\r\n(.*)\z/s;
                while (length($body) < $cl) {
                    my $n = sysread($c, my $buf, 4096);
                    last unless $n;
                    $body .= $buf;
                }
                $req = "$req";
                $req =~ s/\r\n\r\n.*\z/\r\n\r\n$body/s;
            }
            (my $echo = $req) =~ s/\r\n/|/g;
            my $resp = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                . sprintf("%x\r\n%s\r\n0\r\n\r\n", length $echo, $echo);
            syswrite($c, $resp);
            close $c;
        }
        POSIX::_exit(0);
    }
    close $srv;
    my $r = http_get($port, '/p/x?y=1', 'If-None-Match' => '"e"');
    is($r->{status}, 200, 'client: status');
    like($r->{body}, qr{^GET /p/x\?y=1 HTTP/1\.1\|}, 'client: request line');
    like($r->{body}, qr{\|Connection: close\|}, 'client: Connection: close sent');
    like($r->{body}, qr{\|If-None-Match: "e"\|}, 'client: extra header sent');
    $r = http_request($port, 'POST', '/q', _body => 'hello');
    like($r->{body}, qr{^POST /q HTTP/1\.1\|.*\|Content-Length: 5\|\|hello$}, 'client: POST with body');
    waitpid($pid, 0);
    is($?, 0, 'canned server exited cleanly');
}

# ---------------------------------------------------------------- schema validator plumbing

{
    local $ChainData::Test::SCHEMA_PATH = repo_root() . '/t/no-such-schema.json';
    my @r = validate_tx_schema('{}');
    ok(!defined $r[0], 'absent schema: undef result');
    like($r[1] || '', qr/absent/, 'absent schema: reason says so');
}
SKIP: {
    my ($tx) = grep { $_->{tx_type} eq 'contract_call' && !$_->{mempool} }
        tx_fixtures(fixture_path('tx.ndjson'));
    skip 'no contract_call fixture', 4 unless $tx;
    my $good = splice_events($tx->{data_raw}, 0, 1, 1);
    my $extra = json_replace_member($good, 'nonce', '"7"');
    my @r = validate_tx_schema($good, $extra, $tx->{data_raw});
    skip "schema check: $r[1]", 4 unless defined $r[0];
    is(scalar @r, 3, 'validator: one result per document');
    ok($r[0]{ok}, 'validator: spliced fixture document is valid') or diag($r[0]{msg});
    ok(!$r[1]{ok}, 'validator: nonce as a string is invalid');
    ok($r[2]{ok}, 'validator: raw fixture document is valid') or diag($r[2]{msg});
}

# ---------------------------------------------------------------- misc

like(random_tx_id(), qr/^0x[0-9a-f]{64}\z/, 'random_tx_id');
ok(-d repo_root() . '/t', 'repo_root');
like(build_path('chaindata-load'), qr{/build(?:/asan)?/chaindata-load\z}, 'build_path');

{
    my ($code, $out, $err) = ChainData::Test::run_cmd(['/bin/sh', '-c', 'cat; echo E >&2; exit 3'],
        stdin => "in\n");
    is($code, 3, 'run_cmd exit code');
    is($out, "in\n", 'run_cmd stdin/stdout');
    is($err, "E\n", 'run_cmd stderr');
}

done_testing;
