#!/usr/bin/perl
# The memory a worker holds for replies in flight (doc/operations.md,
# "Memory"): HEAD of a large page builds no body; bodies held by clients
# that do not read count against chaindata_body_budget, a reply beyond it
# is a 503 with Retry-After, the budget comes back when those clients go,
# and a body larger than the whole budget is still served alone.
#
# The slow clients are real (ChainData::Test's slow_client): sockets with
# a small receive buffer that send a request, read the status line and
# headers, and read no more, against a listen socket with a small send
# buffer, so that nginx keeps what it could not send in the request's
# pool.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

$SIG{PIPE} = 'IGNORE';

# ---------------------------------------------------------------- fixtures

# a transaction whose first page of 100 events is about 4 MB: the
# 640-event fixture with 120 events, each a log 40 kB long
my ($BIG_ID, $raw) = log_events_tx(120, sub { $_[0] . ' ' . ('x' x 40_000) });
my $dir = temp_dir();
spew("$dir/big.ndjson", qq({"kind":"tx","data":$raw}\n));

my $BIG = "/extended/v1/tx/$BIG_ID?event_limit=100";
my $BIG_BODY = splice_events($raw, 0, 100);
cmp_ok(length $BIG_BODY, '>', 4_000_000, 'a page of over 4 MB');

my ($small) = grep { !$_->{mempool} } tx_fixtures(fixture_path('tx.ndjson'));
my $SMALL = "/extended/v1/tx/$small->{tx_id}";

my $db = new_index(fixture_path('tx.ndjson'), "$dir/big.ndjson");

# ---------------------------------------------------------------- clients

sub is_busy {
    my ($r, $name) = @_;
    is($r->{status}, 503, "$name: 503");
    is($r->{headers}{'retry-after'}, '1', "$name: Retry-After: 1");
    is($r->{headers}{'cache-control'}, 'no-store', "$name: no-store");
    my $d = eval { json_decode($r->{body}) } || {};
    is($d->{statusCode}, 503, "$name: statusCode 503");
    like($d->{message} // '', qr/busy/, "$name: the message says why");
}

# GET until it is a 200 (the worker notices closed clients at once; the
# bound only ends a test whose budget never comes back)
sub served_again {
    my ($port, $path) = @_;
    my $deadline = time + 30;
    my $r;
    while (time < $deadline) {
        $r = http_get($port, $path);
        return $r if $r->{status} == 200;
        sleep 0.1;
    }
    return $r;
}

# ---------------------------------------------------------------- a budget of 6 MB

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    listen => 'sndbuf=64k',
    http => "    chaindata_body_budget 6m;\n",
    locations => <<"EOF",
        location /extended/v1/tx/ {
            chaindata_tx;
            error_log $dir/debug.log debug;
        }
EOF
);
my $port = $ng->port;

{
    my $g = http_get($port, $BIG);
    is($g->{status}, 200, 'the large page: 200');
    ok($g->{body} eq $BIG_BODY, 'the large page: its body');

    my ($s1, $r1) = slow_client($port, $BIG);
    is($r1->{status}, 200, 'a slow client: its answer begins');
    is($r1->{headers}{'content-length'}, length $BIG_BODY,
       'a slow client: the length of the whole page');

    # the page it holds leaves room for a small one, not for another page
    my @slow = map { [slow_client($port, $BIG)] } 1 .. 3;
    for my $r (map { $_->[1] } @slow) {
        is($r->{status}, 503, 'a slow client beyond the budget: 503');
        is($r->{headers}{'retry-after'}, '1', '... with Retry-After: 1');
    }
    close $_->[0] for @slow;

    is_busy(http_get($port, $BIG), 'the large page while one is held');
    is(http_get($port, $SMALL)->{status}, 200,
       'a small document while the page is held: 200');

    # HEAD builds no body: it needs no room in the budget
    my $h = http_request($port, 'HEAD', $BIG);
    is($h->{status}, 200, 'HEAD of the page while the budget is spent: 200');
    is($h->{body}, '', 'HEAD: no body');
    is($h->{headers}{'content-length'}, length $BIG_BODY,
       'HEAD: the Content-Length of the GET');
    for my $hd ('etag', 'cache-control', 'content-type') {
        is($h->{headers}{$hd}, $g->{headers}{$hd}, "HEAD: the same $hd");
    }

    my $nm = http_request($port, 'HEAD', $BIG,
                          'If-None-Match' => $g->{headers}{etag});
    is($nm->{status}, 304, 'HEAD with If-None-Match: 304 as GET');

    close $s1;
    my $again = served_again($port, $BIG);
    is($again->{status}, 200, 'the slow client gone: the page served again');
    ok($again->{body} eq $BIG_BODY, '... whole');
}

SKIP: {
    my ($c, $out, $err) = run_cmd([nginx_binary(), '-V']);
    skip 'nginx without --with-debug', 2 unless "$out$err" =~ /--with-debug/;
    my $log = slurp("$dir/debug.log");
    my $len = length $BIG_BODY;
    like($log, qr/chaindata: HEAD, a body of $len bytes not made/,
         'debug log: HEAD made no body');
    like($log, qr/chaindata: a body of $len bytes, \d+ held/,
         'debug log: GET made it');
}

$ng->stop;

# ---------------------------------------------------------------- a body over the whole budget

$ng = ChainData::Test::Nginx->start(
    db => $db,
    listen => 'sndbuf=64k',
    locations => <<'EOF',
        location /extended/v1/tx/ {
            chaindata_tx;
            chaindata_body_budget 1m;
        }
EOF
);
$port = $ng->port;

{
    my $r = http_get($port, $BIG);
    is($r->{status}, 200, 'a page over the whole budget, alone: 200');
    ok($r->{body} eq $BIG_BODY, '... whole');

    my ($s, $held) = slow_client($port, $BIG);
    is($held->{status}, 200, 'a slow client holds it');
    is_busy(http_get($port, $SMALL), 'then even a small document');
    close $s;
    is(served_again($port, $SMALL)->{status}, 200,
       'the slow client gone: served again');
}

$ng->stop;

# ---------------------------------------------------------------- configuration

{
    my ($code, $out) = ChainData::Test::Nginx->test_config(db => $db,
        http => "    chaindata_body_budget lots;\n");
    isnt($code, 0, 'chaindata_body_budget takes a size');
    like($out, qr/"chaindata_body_budget" directive invalid value/,
         '... and says so');
}

done_testing();
