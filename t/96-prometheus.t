#!/usr/bin/perl
# The shipped alert rules and dashboard (doc/monitoring/, doc/operations.md
# "Monitoring") with Debian's Prometheus: `promtool check rules` takes the
# rules; a `prometheus` scrapes a test nginx's chaindata_status (asking by
# its own Accept header, no ?format) and evaluates the rules against it,
# the rules' cases in t/promtool/ pass `promtool test rules`,
# their "for" durations made 0s: ChaindataUnhealthy fires (a feed an hour
# behind a 10m chaindata_status_max_lag), ChaindataHigh5xxRate does not;
# then a bad swap: the scrape goes on and says chaindata_index_up 0.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use Time::HiRes qw(sleep time);

require_build();

for my $tool (qw(promtool prometheus)) {
    plan skip_all => "$tool is missing (apt-get install prometheus; "
                   . 'tools/deps.sh test)'
        unless -x "/usr/bin/$tool";
}

my $RULES = repo_root() . '/doc/monitoring/chaindata.rules.yml';
my $DASHBOARD = repo_root() . '/doc/monitoring/chaindata-dashboard.json';

my ($code, $out, $err) = run_cmd(['promtool', 'check', 'rules', $RULES]);
is($code, 0, 'promtool check rules: the shipped rules') or diag($out . $err);
like($out, qr/SUCCESS: \d+ rules found/, 'promtool: rules found');

# the rules' cases (t/promtool/): what on-call must see while it lasts.
# promtool compares the annotations too: the cases are about when the
# alerts fire, so they run on a copy of the rules without them.
{
    my $tmp = temp_dir();
    (my $bare = slurp($RULES)) =~ s/^ {8}annotations:\n(?: {10,}.*\n)*//mg;
    spew("$tmp/rules.yml", $bare);
    (my $cases = slurp("$FindBin::Bin/promtool/chaindata.rules.test.yml"))
        =~ s{\Q../../doc/monitoring/chaindata.rules.yml\E}{$tmp/rules.yml}
        or die 'the cases name no rule file';
    spew("$tmp/cases.yml", $cases);
    my ($c, $o, $e) = run_cmd(['promtool', 'test', 'rules', "$tmp/cases.yml"]);
    is($c, 0, 'promtool test rules: a killed or stopped mirror, an '
              . 'unreadable index, health checks and client 5xx')
        or diag($o . $e);
}

my $dash = json_decode(slurp($DASHBOARD));
my @exprs = map { $_->{expr} } map { @{ $_->{targets} } } @{ $dash->{panels} };
ok(@exprs > 10, 'the dashboard: panels with queries');
my @names = map { /\b(chaindata_\w+?)(?:_bucket)?\b/g } @exprs;

# --- an edge a feed of which is an hour behind ---------------------------

my $db = new_index(fixture_path('tx.ndjson'));
my $t = time - 3600;
($code, $out, $err) = load_index($db, '-', { stdin =>
    qq({"kind":"block","source":"stacks","height":7,"hash":"b7",)
  . qq("parent":"b6","time":${\ int $t}}\n)
  . qq({"kind":"block_end","source":"stacks","height":7}\n) });
is($code, 0, 'a block an hour old') or diag($err);

my $ng = ChainData::Test::Nginx->start(db => $db, locations => <<'EOF');
        location /extended/v1/tx/ { chaindata_tx; }
        location = /chaindata/status {
            chaindata_status;
            chaindata_status_max_lag 10m;
        }
EOF

my $text = http_get($ng->port, '/chaindata/status?format=prometheus')->{body};
my %served = map { /^(chaindata_\w+?)(?:_bucket|_sum|_count)?[{ ]/ ? ($1 => 1) : () }
             split /\n/, $text;
$served{$_} = 1 for $text =~ /^# TYPE (chaindata_\w+)/mg;
my @unknown = grep { !$served{$_} } @names;
is_deeply(\@unknown, [], 'the dashboard queries metrics the module serves');
# the expressions' names (not the annotations', which name directives)
my @rule_names = map { /\b(chaindata_\w+)/g }
                 slurp($RULES) =~ /^\s*expr:((?:.*\n)(?:\s{10,}\S.*\n)*)/mg;
ok(@rule_names >= 8, 'the rules: their metric names');
@unknown = grep { !$served{$_} } @rule_names;
is_deeply(\@unknown, [], 'the rules read metrics the module serves');

# --- prometheus, scraping every second -----------------------------------

my $dir = temp_dir();
(my $rules = slurp($RULES)) =~ s/^(\s*for:\s*)\S+/${1}0s/mg;
spew("$dir/rules.yml", $rules);
my $port = ChainData::Test::Nginx::_free_port();
my $nport = $ng->port;
spew("$dir/prometheus.yml", <<"EOF");
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $dir/rules.yml
scrape_configs:
  - job_name: chaindata
    metrics_path: /chaindata/status
    static_configs:
      - targets: ['127.0.0.1:$nport']
EOF

my $pid = fork // die "fork: $!";
if ($pid == 0) {
    open STDOUT, '>', "$dir/prometheus.log";
    open STDERR, '>&', \*STDOUT;
    exec 'prometheus', "--config.file=$dir/prometheus.yml",
        "--storage.tsdb.path=$dir/data",
        "--web.listen-address=127.0.0.1:$port";
    exit 127;
}

sub api {
    my ($path) = @_;
    my $r = eval { http_get($port, $path) };
    return $r && $r->{status} == 200 ? json_decode($r->{body}) : undef;
}

# the rules' states once a firing one is seen (60 s at most: a first
# scrape and evaluation take about two)
my (%state, $up);
my $deadline = time + 60;
while (time < $deadline) {
    my $r = api('/api/v1/rules');
    if ($r) {
        %state = map { $_->{name} => $_->{state} }
                 map { @{ $_->{rules} } } @{ $r->{data}{groups} };
        last if ($state{ChaindataUnhealthy} // '') eq 'firing';
    }
    sleep 0.5;
}
my $targets = api('/api/v1/targets');
($up) = map { $_->{health} } @{ $targets->{data}{activeTargets} || [] };
is($up, 'up', 'prometheus scraped the edge (the text format on its Accept)')
    or diag(slurp("$dir/prometheus.log"));
is($state{ChaindataUnhealthy}, 'firing', 'ChaindataUnhealthy fires');
is($state{ChaindataHigh5xxRate}, 'inactive', 'ChaindataHigh5xxRate does not');
is($state{ChaindataFeedBlockOld}, 'inactive',
   'ChaindataFeedBlockOld (2 h) does not, for a block an hour old');
my $q = api('/api/v1/query?query=chaindata_feed_height');
is($q && $q->{data}{result}[0]{value}[1], '7', 'prometheus stored the feed height');

# a bad swap: a data.mdb cut short (its meta pages kept) renamed over the
# one served.  The edge answers from the index open; the scrape goes on,
# and says chaindata_index_up 0; ChaindataIndexDown fires, the series stay.
$ng->expect_log(qr/\[alert\].*cannot open the index: data\.mdb is \d+ bytes/);
my $tx = (tx_fixtures(fixture_path('tx.ndjson')))[0]{tx_id};
spew("$dir/cut.mdb", substr(slurp("$db/data.mdb"), 0, 5 * 4096));
chmod 0644, "$dir/cut.mdb";
rename "$dir/cut.mdb", "$db/data.mdb" or die "rename: $!";
my $index_up;
$deadline = time + 60;
while (time < $deadline) {
    my $r = api('/api/v1/query?query=chaindata_index_up');
    $index_up = $r && $r->{data}{result}[0] && $r->{data}{result}[0]{value}[1];
    last if defined $index_up && $index_up eq '0';
    sleep 0.5;
}
is($index_up, '0', 'a bad swap: prometheus sees chaindata_index_up 0');
is(http_get($nport, "/extended/v1/tx/$tx")->{status}, 200,
   'while the edge answers from the index it had open');
$q = api('/api/v1/query?query=chaindata_feed_height');
is($q && $q->{data}{result}[0]{value}[1], '7', 'the series stay');
$targets = api('/api/v1/targets');
($up) = map { $_->{health} } @{ $targets->{data}{activeTargets} || [] };
is($up, 'up', 'and the scrape is a success');

kill 'TERM', $pid;
waitpid $pid, 0;

done_testing();
