#!/usr/bin/perl
# Faults under load (wrk) on every route, configured as nginx.conf.example
# configures them: a worker killed, the index made unreadable and
# restored, the loader writing.  Every HTTP answer must be 200 or 404 (410
# for the deprecated endpoints, by design), and 503 only while the index
# cannot be read; the master and the service survive.  Connections cut by
# a killed worker are counted apart (they are not answers).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Chainhook qw(chainhook_fixtures hook_path);

require_build();

my $wrk = '/usr/bin/wrk';
plan skip_all => 'wrk is not installed (make test installs it)' unless -x $wrk;

my @files = map { fixture_path($_) }
            qw(tx.ndjson tx-many-events.ndjson runes.ndjson chainhook.ndjson);
my @txs = tx_fixtures(@files);
my @runes = fixture_records(fixture_path('runes.ndjson'));
my @rune_txs = map { $_->{doc}{tx_id} }
               grep { $_->{kind} eq 'rune_activity' } @runes;
my @addresses = map { $_->{doc}{address} }
                grep { $_->{kind} eq 'rune_balances' } @runes;
my ($hooks) = chainhook_fixtures(fixture_path('chainhook.ndjson'));
my $db = new_index(@files);

# the example's rate limits would answer 429 to wrk by design
my %example = example_config();
$example{http} =~ s{rate=\d+r/s}{rate=1000000r/s}g;
my $ng = ChainData::Test::Nginx->start(db => $db, %example);
$ng->expect_log(qr/exited on signal 9|(?:cannot|may not) open the index/);

my $paths = temp_dir() . '/paths';
spew($paths, join('', map { "$_\n" }
    (map { "/extended/v1/tx/$_->{tx_id}" } @txs),
    "/extended/v1/tx/0x" . ('0' x 64),
    "/extended/v1/tx/$txs[-1]{tx_id}?event_offset=600&event_limit=40",
    (map { "/runes/v1/transactions/$_/activity?limit=60" }
         grep { defined } @rune_txs[0 .. 4]),
    (map { "/runes/v1/addresses/$_/balances?offset=1" }
         grep { defined } @addresses[0 .. 4]),
    (map { hook_path($_->{key}, $_->{uuid}) } grep { defined } @$hooks[0 .. 4]),
    hook_path('not-the-key', $hooks->[0]{uuid}),
    '/ordinals/v1/inscriptions/abc123i0',
    '/ordinals/v1/brc-20/balances/bc1qa667e6hcnwx2p4rm2vr08cla79ka8g2mkvvcd9',
    '/ordinals/v1/'));

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
only($s, { 200 => 1, 404 => 1, 410 => 1 }, 'worker killed');

# 2. the index unreadable to the worker user (and a new worker that must
#    open it), then restored
SKIP: {
    skip 'needs root: the workers run as nobody', 5 unless is_root();
    my $t503;
    $s = under_load(5, sub {
        sleep 1;
        # root's, 0700: nobody's workers cannot search it
        chown 0, 0, $db or die "chown: $!";
        chmod 0700, $db or die "chmod: $!";
        kill_worker();
        sleep 1.5;
        fixup_index_perms($db);
        $t503 = time;
    });
    only($s, { 200 => 1, 404 => 1, 410 => 1, 503 => 1 }, 'index unreadable');
    ok($s->{503}, 'the documented 503 while it could not be read');
    ok($s->{410}, 'the deprecated endpoints, which read no index, answered');
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
only($s, { 200 => 1, 404 => 1, 410 => 1 }, 'loader writing');

my $master = $ng->pid;
ok(kill(0, $master), 'the master is still running');
$ng->stop;

done_testing();
