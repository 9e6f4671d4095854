#!/usr/bin/perl
# Faults under load (wrk): a worker killed, the index made unreadable and
# restored, the loader writing.  Every HTTP answer must be 200 or 404, and
# 503 only while the index cannot be read; the master and the service
# survive.  Connections cut by a killed worker are counted apart (they are
# not answers).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

my $wrk = '/usr/bin/wrk';
plan skip_all => 'wrk is not installed (make test installs it)' unless -x $wrk;

my @files = (fixture_path('tx.ndjson'), fixture_path('tx-many-events.ndjson'));
my @txs = tx_fixtures(@files);
my $db = new_index(@files);
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);
$ng->expect_log(qr/exited on signal 9|(?:cannot|may not) open the index/);

my $paths = temp_dir() . '/paths';
spew($paths, join('', map { "/extended/v1/tx/$_->{tx_id}\n" } @txs)
             . "/extended/v1/tx/0x" . ('0' x 64) . "\n"
             . "/extended/v1/tx/$txs[-1]{tx_id}?event_offset=600&event_limit=40\n");

# runs wrk for $seconds in the background while $during->() acts
sub under_load {
    my ($seconds, $during) = @_;
    my $out = temp_dir() . '/wrk.out';
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', $out or POSIX::_exit(1);
        open STDERR, '>&', \*STDOUT;
        {
            no warnings 'exec';
            exec $wrk, '-t', '2', '-c', '8', '-d', "${seconds}s",
                '--timeout', '5s', '-s', "$FindBin::Bin/tools/wrk-statuses.lua",
                'http://127.0.0.1:' . $ng->port, '--', $paths;
        }
        POSIX::_exit(127);
    }
    $during->();
    waitpid($pid, 0);
    my %status = slurp($out) =~ /^STATUS (\d+) (\d+)$/mg;
    my ($errors) = slurp($out) =~ /^ERRORS (.*)$/m;
    diag("statuses: " . join(', ', map { "$_ x$status{$_}" } sort keys %status)
         . "; socket errors: " . ($errors // '?'));
    return \%status;
}

sub only {
    my ($status, $allowed, $name) = @_;
    my @bad = grep { !$allowed->{$_} } keys %$status;
    is_deeply(\@bad, [], "$name: no answer other than "
              . join('/', sort keys %$allowed));
    cmp_ok($status->{200} || 0, '>', 100, "$name: served under load");
}

sub kill_worker {
    my @w = $ng->worker_pids;
    kill 'KILL', @w;
    my $deadline = time + 5;
    while (time < $deadline) {
        my @now = $ng->worker_pids;
        return 1 if @now && !grep { my $n = $_; grep { $_ == $n } @w } @now;
        sleep 0.05;
    }
    return 0;
}

# 1. a worker killed twice under load
my $s = under_load(4, sub {
    sleep 1;
    ok(kill_worker(), 'killed worker replaced');
    sleep 1;
    ok(kill_worker(), 'killed again, replaced again');
});
only($s, { 200 => 1, 404 => 1 }, 'worker killed');

# 2. the index unreadable to the worker user (and a new worker that must
#    open it), then restored
SKIP: {
    skip 'needs root: the workers run as nobody', 4 unless is_root();
    my $t503;
    $s = under_load(5, sub {
        sleep 1;
        chmod 0700, $db or die "chmod: $!";
        kill_worker();
        sleep 1.5;
        chmod 0755, $db or die "chmod: $!";
        $t503 = time;
    });
    only($s, { 200 => 1, 404 => 1, 503 => 1 }, 'index unreadable');
    ok($s->{503}, 'the documented 503 while it could not be read');
    my $r = http_get($ng->port, "/extended/v1/tx/$txs[0]{tx_id}");
    is($r->{status}, 200, 'serving again once restored, without a reload');
}

# 3. the loader rewriting every transaction in a loop under load
$s = under_load(4, sub {
    my $deadline = time + 3;
    my $n = 0;
    while (time < $deadline) {
        my ($code, $out, $err) = load_index($db, '--quiet', @files);
        $n++;
        last if $code;
    }
    cmp_ok($n, '>', 2, "the loader ran $n times under load");
});
only($s, { 200 => 1, 404 => 1 }, 'loader writing');

my $master = $ng->pid;
ok(kill(0, $master), 'the master is still running');
$ng->stop;

done_testing();
