#!/usr/bin/perl
# The traffic counters (doc/operations.md "Monitoring"): a scripted set of requests
# to two workers, counted exactly in the shared zone, per route and status
# class, 304s, body bytes plain and gzip, the latency histogram; a reload
# keeps them; the Prometheus text says the same, served on a scrape's
# Accept header; an index that cannot be read counts its 503s by reason;
# and "chaindata_metrics off" counts nothing.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use Time::HiRes qw(sleep time);

require_build();

my @files = map { fixture_path($_) } qw(tx.ndjson runes.ndjson);
my @txs = grep { !$_->{mempool} } tx_fixtures(@files);
my ($RTX) = map { $_->{doc}{tx_id} }
            grep { $_->{kind} eq 'rune_activity' && @{ $_->{doc}{results} } }
            fixture_records(fixture_path('runes.ndjson'));
ok(@txs >= 4 && $RTX, 'fixtures: transactions and a rune activity list')
    or BAIL_OUT('fixtures');

my $db = new_index(@files);
my %example = example_config();

# the access log names the worker of each request
my $http = $example{http} . <<'EOF';
    log_format chaindata_pid '$pid $status';
    access_log access-pid.log chaindata_pid;
EOF

my $ng = ChainData::Test::Nginx->start(
    db => $db, %example, http => $http, workers => 2, listen => 'reuseport');
my $port = $ng->port;
is(scalar(my @w = $ng->worker_pids), 2, 'two workers');

my %want;       # route => class => count
my %bytes;      # route => plain/gzip => body bytes
my $not_modified = 0;

sub request {
    my ($route, $path, %h) = @_;
    my $r = http_get($port, $path, %h);
    my $class = int($r->{status} / 100) . 'xx';
    $want{$route}{$class}++;
    $not_modified++ if $r->{status} == 304;
    my $enc = ($r->{headers}{'content-encoding'} // '') eq 'gzip'
              ? 'gzip' : 'plain';
    $bytes{$route}{$enc} += length $r->{body};
    return $r;
}

sub status_json {
    my $r = http_get($port, '/chaindata/status');
    $want{status}{'2xx'}++;
    $bytes{status}{plain} += length $r->{body};
    return json_decode($r->{body});
}

sub script {
    for my $tx (@txs[0 .. 3]) {
        my $r = request(tx => "/extended/v1/tx/$tx->{tx_id}");
        request(tx => "/extended/v1/tx/$tx->{tx_id}",
                'Accept-Encoding' => 'gzip');
        request(tx => "/extended/v1/tx/$tx->{tx_id}",
                'If-None-Match' => $r->{headers}{etag});
    }
    request(tx => '/extended/v1/tx/0x' . ('0' x 64)) for 1 .. 3;
    request(tx => '/extended/v1/tx/nothex') for 1 .. 2;
    # chaindata_runes: each path counted under its own id
    request(runes_tx_activity => "/runes/v1/transactions/$RTX/activity")
        for 1 .. 5;
    request(runes_tx_activity => "/runes/v1/transactions/$RTX/activity",
            'Accept-Encoding' => 'gzip');
    request(runes_etchings => '/runes/etchings?limit=2',
            'Accept-Encoding' => 'gzip') for 1 .. 2;
    request(runes_status => '/runes');
    request(migration => '/ordinals/v1/inscriptions') for 1 .. 2;
}

sub check {
    my ($st, $when) = @_;
    my $t = $st->{traffic};
    for my $route (qw(tx rune_activity rune_balances chainhook migration
                      status runes_tx_activity runes_etchings runes_status
                      runes_holders))
    {
        my $got = $t->{routes}{$route};
        my %w = map { $_ => $want{$route}{$_} // 0 } qw(1xx 2xx 3xx 4xx 5xx);
        is_deeply($got->{requests}, \%w, "$when: $route requests by class");
        my $n = 0;
        $n += $_ for values %w;
        is($got->{duration}{le_us}{'+Inf'}, $n,
           "$when: $route histogram counts every request");
        my @le = map { $got->{duration}{le_us}{$_} }
                 qw(50 100 250 500 1000 2500 5000 10000 25000 50000 100000
                    250000 500000 1000000 2500000 5000000 10000000 +Inf);
        is_deeply([sort { $a <=> $b } @le], \@le,
                  "$when: $route buckets cumulative");
        next if $route eq 'status';
        is_deeply($got->{bytes},
                  { plain => $bytes{$route}{plain} // 0,
                    gzip => $bytes{$route}{gzip} // 0 },
                  "$when: $route body bytes plain and gzip");
    }
    is($t->{routes}{tx}{not_modified}, $not_modified, "$when: 304s");
    is_deeply($t->{unavailable},
              { body_budget => 0, readers_full => 0, index_unreadable => 0,
                behind => 0, no_history => 0, no_v3 => 0 }, "$when: no 503");
}

script();
my $st = status_json();
# the status request counts once it is done: not in its own answer
$want{status}{'2xx'}--;
check($st, 'two workers');
$want{status}{'2xx'}++;
ok($bytes{tx}{gzip} > 0 && $not_modified == 4,
   'the script sent gzip bodies and 304s');
my $since = $st->{traffic}{since};

my %pids;
for (split /\n/, slurp($ng->prefix . '/access-pid.log')) {
    $pids{$1}++ if /^(\d+) /;
}
is(scalar keys %pids, 2, 'both workers answered some of the requests');

# a reload: new workers, the same zone
ok($ng->reload, 'reloaded');
script();
$st = status_json();
$want{status}{'2xx'}--;
check($st, 'after a reload');
$want{status}{'2xx'}++;
is($st->{traffic}{since}, $since, 'after a reload: counting since the start');

# the Prometheus text: what a scrape asks for by Accept
my $r = http_get($port, '/chaindata/status', 'Accept' =>
    'application/openmetrics-text;version=1.0.0,application/openmetrics-text;'
    . 'version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1');
like($r->{headers}{'content-type'}, qr{^text/plain; version=0\.0\.4},
     "Prometheus' Accept: the text format");
my $body = $r->{body};
like($body, qr/^chaindata_http_requests_total\{route="tx",class="2xx"\} \Q$want{tx}{'2xx'}\E$/m,
     'prometheus: tx 2xx');
like($body, qr/^chaindata_http_requests_total\{route="tx",class="4xx"\} \Q$want{tx}{'4xx'}\E$/m,
     'prometheus: tx 4xx');
like($body, qr/^chaindata_http_not_modified_total\{route="tx"\} $not_modified$/m,
     'prometheus: 304s');
like($body, qr/^chaindata_http_response_body_bytes_total\{route="tx",encoding="gzip"\} $bytes{tx}{gzip}$/m,
     'prometheus: gzip bytes');
my $n = 0;
$n += $_ for values %{ $want{tx} };
like($body, qr/^chaindata_http_request_duration_seconds_count\{route="tx"\} $n$/m,
     'prometheus: the histogram count');
like($body, qr/^chaindata_http_request_duration_seconds_bucket\{route="tx",le="0\.000050"\} \d+$/m,
     'prometheus: buckets in seconds');
like($body, qr/^# TYPE chaindata_http_requests_total counter$/m,
     'prometheus: counters typed');
like($body, qr/^chaindata_build_info\{version="[^"]+",schema="7"\} 1$/m,
     'prometheus: chaindata_build_info');
$r = http_get($port, '/chaindata/status', 'Accept' => 'application/json');
like($r->{headers}{'content-type'}, qr{^application/json}, 'Accept JSON: JSON');
$r = http_get($port, '/chaindata/status');
like($r->{headers}{'content-type'}, qr{^application/json}, 'no Accept: JSON');
$ng->stop;

# an index that cannot be read: each 503 counted as index_unreadable
# (the worker that opened it killed, the new one finds an empty directory)
{
    my $db2 = new_index(@files);
    my $ng2 = ChainData::Test::Nginx->start(db => $db2, %example);
    $ng2->expect_log(qr/exited on signal 9|chaindata_db .* cannot open the index/);
    rename $db2, "$db2.away" or die "rename: $!";
    mkdir $db2 or die "mkdir: $!";
    chmod 0755, $db2;
    my @old = $ng2->worker_pids;
    kill 'KILL', @old;
    my $deadline = time + 10;
    sleep 0.05 while time < $deadline
        && !grep { my $p = $_; !grep { $_ == $p } @old } $ng2->worker_pids;
    my $busy = 0;
    for (1 .. 3) {
        my $r = http_get($ng2->port, "/extended/v1/tx/$txs[0]{tx_id}");
        $busy++ if $r->{status} == 503;
    }
    is($busy, 3, 'an index that cannot be read: 503s');
    rmdir $db2 or die "rmdir: $!";
    rename "$db2.away", $db2 or die "rename back: $!";
    my $s;
    $deadline = time + 10;
    while (time < $deadline) {
        my $r = http_get($ng2->port, '/chaindata/status');
        if ($r->{status} == 200) { $s = json_decode($r->{body}); last }
        $busy++;
        sleep 0.2;
    }
    is($s && $s->{traffic}{unavailable}{index_unreadable}, $busy,
       "every such 503 counted as index_unreadable ($busy)");
    is($s && $s->{traffic}{routes}{tx}{requests}{'5xx'}, 3,
       'and as the route\'s 5xx');
    is($s && $s->{traffic}{unavailable}{readers_full}, 0,
       'none as readers_full');
    $ng2->stop;
}

# chaindata_metrics off: no zone, no counters
{
    my $ng3 = ChainData::Test::Nginx->start(
        db => $db, %example, http => $example{http}
            . "    chaindata_metrics off;\n");
    http_get($ng3->port, "/extended/v1/tx/$txs[0]{tx_id}");
    my $s = json_decode(http_get($ng3->port, '/chaindata/status')->{body});
    ok(!exists $s->{traffic}, 'chaindata_metrics off: no traffic member');
    unlike(http_get($ng3->port, '/chaindata/status?format=prometheus')->{body},
           qr/chaindata_http_/, 'chaindata_metrics off: no chaindata_http_');
    $ng3->stop;
}

done_testing();
