#!/usr/bin/perl
# chaindata in front of the upstream APIs: doc/examples/front-of-upstream.conf
# as it is, its upstreams pointed at a second nginx serving recorded
# upstream answers (t/lib/ChainData/Upstream.pm's files) and logging every
# request it receives.  chaindata serves its routes from the index; every
# other request, the routes under the same prefixes included, reaches
# upstream unchanged, and so does a transaction the index does not hold
# (chaindata_miss_fallback); the upstream's log holds exactly the requests
# chaindata did not serve, and the misses it answered are counted.  On an
# index of the README's path (Stacks mirrored from upstream's tip, no runes
# feed) the rune routes are upstream's answers, never an empty page.  Its
# health location answers a load balancer: 200, and 503 once a feed is
# beyond its limits.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_lists);
use ChainData::Upstream qw(confirmed_docs make_chain write_chain);

require_build();

my $EXAMPLE = repo_root() . '/doc/examples/front-of-upstream.conf';

# ---------------------------------------------------------------- upstream

# a chain of the fixtures' confirmed transactions, and a mempool
# transaction the index never saw (submitted a moment ago)
my @docs = confirmed_docs();
my $pending = $docs[0] =~ s/"tx_id":"0x[0-9a-f]{64}"/"tx_id":"0x${\ ('ab' x 32)}"/r;
$pending =~ s/"tx_status":"success"/"tx_status":"pending"/;
my $PENDING = '0x' . ('ab' x 32);
my $root = temp_dir();
write_chain($root, make_chain(100, [[@docs]]), mempool => [$pending]);

# upstream answers a recorded file, else a JSON 404 naming nothing of the
# request; X-Upstream marks its answers
my $up = ChainData::Test::Nginx->start(
    no_load_module => 1,
    locations => <<"EOF");
        add_header X-Upstream recorded always;
        location / {
            root $root/up;
            default_type application/json;
            try_files "\$uri/q=\$args" \@none;
        }
        location \@none {
            default_type application/json;
            add_header X-Upstream recorded always;
            add_header Cache-Control no-store always;
            return 404 '{"error":"not recorded"}';
        }
EOF

# the requests upstream received, "METHOD TARGET", in order
sub upstream_log {
    my @lines = split /\n/, slurp($up->prefix . '/access.log');
    return map { /"(\S+) (\S+) HTTP\/1\.[01]"/ ? "$1 $2" : () } @lines;
}

# ---------------------------------------------------------------- the edge

# the example file: chaindata_db is the harness's (the example's,
# /var/lib/chaindata, is t/82-examples.t's), the upstreams are the
# recorded one, the server body goes into the harness's server
my $conf = slurp($EXAMPLE);
$conf =~ s/^\s*#.*\n//mg;
$conf =~ s/^chaindata_db\s[^;]*;\n//m
    or die "$EXAMPLE: no chaindata_db at the http level\n";
my $n = ($conf =~ s/^(\s*server\s+)127\.0\.0\.1:\d+;/${1}127.0.0.1:${\ $up->port};/mg);
is($n, 2, 'the example names two upstreams (Stacks API, Runes API)');
my ($start, $end) = ChainData::Test::_block_span($conf, qr/^server\s*\{/m)
    or die "$EXAMPLE: no server block\n";
my $server = substr($conf, $start, $end - $start);
substr($conf, $start, $end - $start) = '';
$server =~ s/^server\s*\{//;
$server =~ s/\}\s*\z//;
$server =~ s/^\s*(?:listen|server_name)\s[^;]*;\n//mg;

# one transaction with what v3 needs (lmdb-schema/README.md, "tx")
my ($v3tx) = grep { !$_->{mempool} } tx_fixtures(fixture_path('tx.ndjson'));
my $v3file = temp_dir() . '/v3.ndjson';
spew($v3file, qq({"kind":"tx","data":$v3tx->{data_raw},"index_block_hash":"0x)
    . ('1' x 64) . qq(","parent_index_block_hash":"0x) . ('2' x 64) . qq("}\n));
my $index = new_index(fixture_path('tx.ndjson'), fixture_path('runes.ndjson'),
                      $v3file);
my $edge = ChainData::Test::Nginx->start(db => $index, http => $conf,
                                         locations => $server);
my $port = $edge->port;

my ($tx) = grep { !$_->{mempool} } tx_fixtures(fixture_path('tx.ndjson'));
my $ID = $tx->{tx_id};
(my $BARE = $ID) =~ s/^0x//;
my $L = rune_lists(fixture_path('runes.ndjson'));
my ($RTX) = grep { @{ $L->{activity}{$_} } } sort keys %{ $L->{activity} };
my ($ADDR) = map { $L->{address}{$_} } grep { @{ $L->{balances}{$_} } }
             sort keys %{ $L->{balances} };

my @expected;    # what upstream must have received, in order

sub chaindata {
    my ($method, $target, $status, $name) = @_;
    my $r = http_request($port, $method, $target);
    is($r->{status}, $status, "chaindata: $name: $status");
    ok(!defined $r->{headers}{'x-upstream'}, "chaindata: $name: not upstream's");
    return $r;
}

sub upstream {
    my ($method, $target, $status, $name, %h) = @_;
    my $r = http_request($port, $method, $target, %h);
    is($r->{status}, $status, "upstream: $name: $status");
    is($r->{headers}{'x-upstream'}, 'recorded', "upstream: $name: upstream's answer");
    push @expected, "$method $target";
    return $r;
}

# ---------------------------------------------------------------- chaindata's

my $r = chaindata('GET', "/extended/v1/tx/$ID", 200, 'a transaction');
like($r->{body}, qr/"tx_id":"\Q$ID\E"/, 'chaindata: the transaction from the index');
chaindata('GET', "/extended/v1/tx/$ID?event_limit=1&event_offset=1", 200, 'a page of events');
chaindata('GET', "/extended/v1/tx/$ID/", 200, 'a trailing slash');
chaindata('HEAD', "/extended/v1/tx/$ID", 200, 'HEAD');
chaindata('GET', '/extended/v1/tx/' . uc($BARE), 302, '64 digits without 0x');
chaindata('GET', "/extended/v1/tx/$ID?event_limit=101", 400, 'a bad query');
chaindata('GET', "/runes/v1/transactions/$RTX/activity", 200, 'rune activity');
chaindata('GET', "/runes/v1/addresses/$ADDR/balances?limit=2", 200, 'rune balances');
# every Runes API route is chaindata's (chaindata_runes), its 404s too
chaindata('GET', '/runes/v1/etchings', 200, 'rune etchings');
chaindata('GET', "/runes/addresses/$ADDR/activity", 200, 'an address\'s activity');
chaindata('GET', '/runes', 200, 'the Runes status, no slash');
$r = chaindata('GET', "/runes/v1/transactions/$RTX/activity/", 404,
               'rune activity with a trailing slash');
like($r->{body}, qr/^\{"message":"Route GET:\/runes\/v1\/transactions\/[0-9a-f]{64}\/activity\/ not found"/,
     'chaindata: fastify\'s 404, as upstream\'s');
chaindata('GET', '/chaindata/status', 200, 'the status');
$r = chaindata('GET', '/chaindata/health', 200,
               'the health check, no feed beyond the limits');
is(json_decode($r->{body})->{healthy}, JSON::PP::true(),
   'the health check: healthy');
$r = chaindata('GET', "/extended/v3/transactions/$ID", 200, 'v3: a transaction');
like($r->{body}, qr/"index_hash":"0x1{64}"/, 'chaindata: v3 from the index');
chaindata('GET', "/extended/v3/transactions/$ID?include=result,post_conditions",
          200, 'v3: heavy fields');
chaindata('GET', "/extended/v3/transactions/$ID/events?limit=1", 200, 'v3: events');
chaindata('GET', "/extended/v3/transactions/$BARE/events", 302, 'v3: without 0x');
chaindata('GET', "/extended/v3/transactions/$ID?include=bogus", 400, 'v3: a bad include');

# ---------------------------------------------------------------- upstream's

# the routes under the same prefixes
upstream('GET', '/extended/v1/tx/mempool?limit=50&offset=0', 200, 'the mempool');
upstream('GET', "/extended/v1/tx/multiple?tx_id=$ID", 404, '/multiple');
upstream('GET', "/extended/v1/tx/events?tx_id=$ID&limit=1", 404, '/events');
upstream('GET', '/extended/v1/tx/block_height/100', 404, '/block_height/N');
upstream('GET', "/extended/v1/tx/$ID/raw", 404, '/{id}/raw');
upstream('GET', "/extended/v1/tx/$BARE/raw", 404, '/{id}/raw without 0x');
upstream('GET', '/extended/v1/tx/0x' . ('a' x 63), 404, 'an id of 63 digits');
upstream('GET', '/extended/v1/tx/', 404, 'the prefix alone');
upstream('GET', '/extended/v1/tx/something-new?x=1', 404, 'a route added later');
# the rest of the API, unchanged (the query as it came)
upstream('GET', '/extended/v2/blocks?limit=1', 200, 'the tip');
upstream('GET', '/extended/v2/blocks/100/transactions?limit=50&offset=0', 200,
         'a block\'s transactions');
upstream('GET', '/extended/v2/blocks?limit=1&a=%2F%20b', 404, 'an encoded query');
upstream('POST', '/v2/transactions', 404, 'a broadcast', _body => '{"tx":"00"}');

# a transaction the index does not hold: upstream's answer, as it is
$r = upstream('GET', "/extended/v1/tx/$PENDING?event_limit=100&event_offset=0",
              200, 'a mempool transaction the index lacks');
like($r->{body}, qr/"tx_status":"pending"/, 'upstream: the pending transaction');
$r = upstream('HEAD', "/extended/v1/tx/$PENDING", 404, 'HEAD of a miss');
$r = upstream('GET', '/extended/v1/tx/0x' . ('cd' x 32), 404,
              'a transaction nobody has');
is($r->{body}, '{"error":"not recorded"}', 'upstream: its own 404 body');
# upstream's headers alone: not cached as a 404 by chaindata's doing, no
# CORS header of chaindata's beside upstream's
is(scalar(grep { lc $_->[0] eq 'cache-control' } @{ $r->{header_list} }), 1,
   'upstream: one Cache-Control, upstream\'s');
is($r->{headers}{'cache-control'}, 'no-store', 'upstream: no-store, upstream\'s');
ok(!defined $r->{headers}{'access-control-allow-origin'},
   'upstream: no CORS header of chaindata\'s');

# v3: the list and the other routes are upstream's, and so is a miss
upstream('GET', '/extended/v3/transactions?limit=1', 404, 'the v3 list');
upstream('GET', '/extended/v3/mempool/transactions', 404, 'another v3 route');
upstream('GET', "/extended/v3/transactions/$PENDING", 404, 'a v3 miss');
upstream('GET', "/extended/v3/transactions/$PENDING/events?limit=2", 404,
         'a v3 miss\'s events');

# the 302 of a miss without 0x is chaindata's (as upstream's own route
# redirects first), the target then upstream's
chaindata('GET', '/extended/v1/tx/' . ('ef' x 32), 302, 'a miss without 0x');
upstream('GET', '/extended/v1/tx/0x' . ('ef' x 32), 404, 'its target');

ok(eventually(5, sub { upstream_log() >= @expected }),
   'upstream logged every request');
is_deeply([upstream_log()], \@expected,
          'upstream received exactly the requests chaindata does not serve, unchanged');

# the misses upstream answered are counted, by route and its class
my $st = json_decode(http_get($port, '/chaindata/status')->{body});
is_deeply($st->{traffic}{routes}{tx}{fallback},
          { '1xx' => 0, '2xx' => 1, '3xx' => 0, '4xx' => 3, '5xx' => 0 },
          'the misses upstream answered: counted as the tx route\'s fallback');
like(http_get($port, '/chaindata/status?format=prometheus')->{body},
     qr/^chaindata_http_fallback_total\{route="tx",class="4xx"\} 3$/m,
     'and in the Prometheus text');

$edge->stop;

# ---------------------------------------------------------------- no runes feed

# the README's path: a mirror of Stacks alone, started at upstream's tip
# (block 100 here), no --runes-api.  The rune routes have no feed behind
# them: each rune request is upstream's answer, never an empty page of
# chaindata's, and the worker says so at start
my ($block_tx) = grep { !$_->{mempool} } tx_fixtures(fixture_path('tx.ndjson'));
my $stacks_only = temp_dir() . '/index';
my ($lc, $lo, $le) = load_index($stacks_only, '-', { stdin =>
    qq({"kind":"block","source":"stacks","height":100,"hash":"a100","parent":"a99","time":1100}\n)
  . qq({"kind":"tx","data":$block_tx->{data_raw}}\n)
  . qq({"kind":"block_end","source":"stacks","height":100}\n) });
is($lc, 0, 'an index of one Stacks block') or diag($le);
fixup_index_perms($stacks_only);
$edge = ChainData::Test::Nginx->start(db => $stacks_only, http => $conf,
                                      locations => $server);
$port = $edge->port;
chaindata('GET', "/extended/v1/tx/$ID", 200, 'no runes feed: a transaction it holds');
$r = upstream('GET', "/runes/v1/transactions/$RTX/activity", 404,
              'no runes feed: rune activity');
is($r->{body}, '{"error":"not recorded"}', 'no runes feed: upstream\'s answer, not an empty page');
$r = upstream('GET', "/runes/v1/addresses/$ADDR/balances?limit=2", 404,
              'no runes feed: rune balances');
$r = upstream('GET', '/runes/v1/etchings?limit=2', 404,
              'no runes feed: the etchings, a list derived from blocks');
$r = upstream('GET', '/runes/v1/etchings/840000:8', 404,
              'no runes feed: an etching it does not hold');
$r = upstream('GET', '/extended/v1/tx/0x' . ('cd' x 32), 404,
              'a transaction older than the feed: upstream\'s');
like($edge->error_log, qr/\[warn\].*the rune routes have no feed behind them/,
     'no runes feed: the worker says so at start');
# its block made long ago, nothing newer: beyond the example's
# chaindata_status_max_lag, the health check takes the edge out
$r = chaindata('GET', '/chaindata/health', 503,
               'the health check, the Stacks feed\'s block long ago');
is(json_decode($r->{body})->{healthy}, JSON::PP::false(),
   'the health check: not healthy');
$edge->stop;
$up->stop;

# ---------------------------------------------------------------- nginx -t

my ($code, $out) = ChainData::Test::Nginx->test_config(
    db => $index,
    locations => "        location /extended/v1/tx/ {\n"
               . "            chaindata_tx;\n"
               . "            chaindata_miss_fallback \@nowhere;\n"
               . "        }\n");
isnt($code, 0, 'nginx -t: a fallback that names no named location fails');
like($out, qr/"chaindata_miss_fallback" names "\@nowhere", which is no named location of its server/,
     'nginx -t: and says so');

($code, $out) = ChainData::Test::Nginx->test_config(
    db => $index,
    locations => "        location /extended/v1/tx/ {\n"
               . "            chaindata_tx;\n"
               . "            chaindata_miss_fallback /elsewhere;\n"
               . "        }\n");
isnt($code, 0, 'nginx -t: a fallback that is not "@name" fails');
like($out, qr/"chaindata_miss_fallback" takes a named location \("\@name"\) or "off"/,
     'nginx -t: and says what it takes');

($code, $out) = ChainData::Test::Nginx->test_config(
    db => $index,
    locations => "        chaindata_miss_fallback \@up;\n"
               . "        location /extended/v1/tx/ {\n"
               . "            chaindata_tx;\n"
               . "            chaindata_miss_fallback off;\n"
               . "        }\n"
               . "        location \@up { return 204; }\n");
is($code, 0, 'nginx -t: a server-level fallback, "off" in a location') or diag($out);

done_testing();
