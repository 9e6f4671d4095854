#!/usr/bin/perl
# What a client of the real API also gets, configured as
# nginx.conf.example configures it: CORS as upstream's @fastify/cors sends
# it by default (every answer of a route, a browser's real preflight,
# chaindata_cors off), the 302 of an id without 0x with its target's ETag
# and Cache-Control, Content-Length: 0 on a HEAD answered 304, the tx
# route's 400 without Cache-Control (doc/module.md, "chaindata_cors"; doc/api.md, "Where
# chaindata differs from upstream").

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_lists);

require_build();

my @files = map { fixture_path($_) } qw(tx.ndjson runes.ndjson);
my $ID = (grep { !$_->{mempool} } tx_fixtures(@files))[0]{tx_id};
my $HEX = substr($ID, 2);
my $L = rune_lists($files[1]);
my $RTX = (grep { @{ $L->{activity}{$_} } } sort keys %{ $L->{activity} })[0];

my $TXP = "/extended/v1/tx/$ID";
my $RUNEP = "/runes/v1/transactions/$RTX/activity";
my $PUBLIC = 'public, no-cache, must-revalidate';
my $ORIGIN = 'https://app.example';

my $db = new_index(@files);
my %example = example_config();
my $ng = ChainData::Test::Nginx->start(db => $db, %example);
my $port = $ng->port;

sub req { my ($m, $path, %h) = @_; return http_request($port, $m, $path, %h) }

# ---------------------------------------------------------------- CORS

# every answer of a route, whatever its status: upstream's onRequest hook
my @ANSWERS = (
    ['tx 200', 'GET', $TXP, 200, 1],
    ['tx HEAD', 'HEAD', $TXP, 200, 1],
    ['tx 304', 'GET', $TXP, 304, 1, 'If-None-Match' => '*'],
    ['tx 302', 'GET', "/extended/v1/tx/$HEX", 302, 1],
    ['tx 400', 'GET', "$TXP?event_limit=x", 400, 1],
    ['tx 404', 'GET', '/extended/v1/tx/0x' . ('0' x 64), 404, 1],
    ['tx 405', 'DELETE', $TXP, 405, 1],
    ['rune 200', 'GET', $RUNEP, 200, 0],
    ['rune 400', 'GET', "$RUNEP?limit=0", 400, 0],
    ['migration 410', 'GET', '/ordinals/v1/inscriptions/1', 410, 0],
    ['error page 404', 'GET', '/not/a/route', 404, 0],
);
for my $a (@ANSWERS) {
    my ($name, $m, $path, $status, $stacks, %h) = @$a;
    my $r = req($m, $path, Origin => $ORIGIN, %h);
    is($r->{status}, $status, "$name: $status");
    is($r->{headers}{'access-control-allow-origin'}, '*',
       "$name: Access-Control-Allow-Origin: *");
    is($r->{headers}{'access-control-expose-headers'},
       $stacks ? 'X-API-Version' : undef,
       $stacks ? "$name: the Stacks API exposes its version header"
               : "$name: nothing exposed (the Runes API's defaults)");
    ok(!defined $r->{headers}{vary} || $r->{headers}{vary} !~ /\bOrigin\b/i,
       "$name: no Vary: Origin (the origin is *)");
}

my $r = req('GET', '/chaindata/status');
is($r->{status}, 200, 'status: 200');
ok(!defined $r->{headers}{'access-control-allow-origin'},
   'status: the operator\'s, no CORS');

# a browser's preflight, as it sends it
for my $p ([tx => $TXP, 'X-API-Version'], [rune => $RUNEP, undef]) {
    my ($name, $path, $expose) = @$p;
    $r = req('OPTIONS', $path, Origin => $ORIGIN,
             'Access-Control-Request-Method' => 'GET',
             'Access-Control-Request-Headers' => 'if-none-match, x-client');
    is($r->{status}, 204, "$name preflight: 204");
    is($r->{body}, '', "$name preflight: no body");
    is($r->{headers}{'access-control-allow-origin'}, '*',
       "$name preflight: any origin");
    is($r->{headers}{'access-control-allow-methods'}, 'GET, HEAD',
       "$name preflight: the route's methods");
    is($r->{headers}{'access-control-allow-headers'}, 'if-none-match, x-client',
       "$name preflight: the requested headers allowed");
    is($r->{headers}{vary}, 'Access-Control-Request-Headers',
       "$name preflight: Vary names what it echoed");
    is($r->{headers}{'access-control-expose-headers'}, $expose,
       "$name preflight: exposed headers");
    ok(!defined $r->{headers}{'content-length'},
       "$name preflight: no Content-Length on a 204 (RFC 9110 8.6)");
    ok(!defined $r->{headers}{allow}, "$name preflight: not a 405");
}

# not a preflight: strictPreflight's 400, in the JSON shape
for my $h ([], ['Origin' => $ORIGIN], ['Access-Control-Request-Method' => 'GET']) {
    $r = req('OPTIONS', $TXP, @$h);
    my $what = @$h ? "only $h->[0]" : 'no CORS header';
    is($r->{status}, 400, "OPTIONS with $what: 400");
    like($r->{body}, qr/"message":"Invalid Preflight Request"/,
         "OPTIONS with $what: Invalid Preflight Request");
    is($r->{headers}{'access-control-allow-origin'}, '*',
       "OPTIONS with $what: Access-Control-Allow-Origin");
}

# ---------------------------------------------------------------- 302

for my $enc ([plain => ()], [gzip => ('Accept-Encoding' => 'gzip')]) {
    my ($name, %h) = @$enc;
    my $target = req('GET', "$TXP?event_limit=5", %h);
    $r = req('GET', "/extended/v1/tx/$HEX?event_limit=5", %h);
    is($r->{status}, 302, "302 ($name): for an id without 0x");
    ok($target->{headers}{etag}, "302 ($name): its target has an ETag");
    is($r->{headers}{etag}, $target->{headers}{etag},
       "302 ($name): carries its target's ETag");
    is($r->{headers}{'cache-control'}, $PUBLIC,
       "302 ($name): Cache-Control as upstream's");
    like($r->{headers}{vary} // '', qr/Accept-Encoding/,
         "302 ($name): Vary: Accept-Encoding (the ETag depends on it)");
    # and the conditional on it is the target's 304
    my $c = req('GET', "/extended/v1/tx/$HEX?event_limit=5", %h,
                'If-None-Match' => $r->{headers}{etag});
    is($c->{status}, 304, "302 ($name): its ETag revalidates");
}
$r = req('GET', '/extended/v1/tx/' . ('0' x 64));
is($r->{status}, 302, '302 of an unknown transaction');
ok(!defined $r->{headers}{etag}, '302 of an unknown transaction: no ETag');
is($r->{headers}{'cache-control'}, 'no-store',
   '302 of an unknown transaction: no-store, upstream\'s default');

# ---------------------------------------------------------------- 304, 400

my $etag = req('GET', $TXP)->{headers}{etag};
$r = req('HEAD', $TXP, 'If-None-Match' => $etag);
is($r->{status}, 304, 'HEAD: 304');
is($r->{headers}{'content-length'}, '0',
   'HEAD 304: Content-Length: 0, as upstream\'s HEAD route sends');
$r = req('GET', $TXP, 'If-None-Match' => $etag);
is($r->{status}, 304, 'GET: 304');
ok(!defined $r->{headers}{'content-length'}, 'GET 304: no Content-Length');
my $retag = req('GET', $RUNEP)->{headers}{etag};
$r = req('HEAD', $RUNEP, 'If-None-Match' => $retag);
is($r->{headers}{'content-length'}, '0', 'rune HEAD 304: Content-Length: 0');

$r = req('GET', "$TXP?event_limit=x");
is($r->{status}, 400, 'tx 400');
ok(!defined $r->{headers}{'cache-control'},
   'tx 400: no Cache-Control, as upstream\'s validator answers');
$r = req('GET', '/extended/v1/tx/0x12');
ok(!defined $r->{headers}{'cache-control'}, 'tx 400 of the id: none either');

$ng->stop;

# ---------------------------------------------------------------- off

my %off = example_config();
$off{http} .= "    chaindata_cors off;\n";
$ng = ChainData::Test::Nginx->start(db => $db, %off);
$port = $ng->port;
$r = req('GET', $TXP, Origin => $ORIGIN);
is($r->{status}, 200, 'chaindata_cors off: 200');
ok(!defined $r->{headers}{'access-control-allow-origin'},
   'chaindata_cors off: no CORS header');
$r = req('OPTIONS', $TXP, Origin => $ORIGIN,
         'Access-Control-Request-Method' => 'GET');
is($r->{status}, 405, 'chaindata_cors off: OPTIONS is a 405');
is($r->{headers}{allow}, 'GET, HEAD', 'chaindata_cors off: Allow');
$ng->stop;

done_testing();
