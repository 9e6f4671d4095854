#!/usr/bin/perl
# The workers' side of the index: the map growing under a running nginx
# (MDB_MAP_RESIZED), reader slots of killed workers, and an index that
# cannot be read (503, then recovery without a reload).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

my @files = (fixture_path('tx.ndjson'), fixture_path('tx-many-events.ndjson'));
my @txs = tx_fixtures(@files);
my ($big) = grep { ($_->{event_count} || 0) == 640 } @txs;
ok($big, 'the 640-event fixture') or BAIL_OUT('fixtures incomplete');

# a small map to start with, so that loading grows it under nginx
my $db = temp_dir() . '/index';
my ($code, $out, $err) = load_index($db, '--map-size', '1M', @files);
is($code, 0, 'index built with a 1 MiB map') or BAIL_OUT($err);
fixup_index_perms($db);
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);
my $P = '/extended/v1/tx/';

# this test kills workers and hides the index on purpose
$ng->expect_log(qr/exited on signal 9|chaindata_db .* cannot open the index/);

sub get { return http_get($ng->port, @_) }

sub map_size {
    my ($code, $out) = run_cmd(['mdb_stat', '-e', $db]);
    return $out =~ /Map size: (\d+)/ ? $1 : 0;
}

sub wait_new_worker {
    my (%old) = map { $_ => 1 } @_;
    my $deadline = time + 10;
    while (time < $deadline) {
        my @now = $ng->worker_pids;
        return $now[0] if @now && !grep { $old{$_} } @now;
        sleep 0.05;
    }
    return undef;
}

# --- the loader grows the map several times while nginx serves -----------

my $before = map_size();
ok($before > 0, "map size read ($before)");
is(get("$P$big->{tx_id}")->{status}, 200, 'served before growth');

# copies of the 640-event transaction under new ids: enough to double the
# map a few times
my (@ids, $bulk);
for my $i (1 .. 120) {
    my $id = sprintf '0x%056x%08x', 0xc0ffee, $i;
    push @ids, $id;
    (my $raw = $big->{data_raw}) =~ s/\Q$big->{tx_id}\E/$id/g;
    $bulk .= qq({"kind":"tx","data":$raw}\n);
}
($code, $out, $err) = load_index($db, '--map-size', '1M',
                                 { stdin => $bulk });
is($code, 0, 'bulk load') or diag($err);
my $after = map_size();
cmp_ok($after, '>=', 4 * $before, "map grew from $before to $after");

for my $id (@ids[0, 59, 119]) {
    (my $want = splice_events($big->{data_raw}, 0, 20)) =~ s/\Q$big->{tx_id}\E/$id/g;
    my $r = get("$P$id");
    is($r->{status}, 200, "new transaction served after growth ($id)");
    is($r->{body}, $want, 'with its body');
}
is(get("$P$big->{tx_id}")->{body}, splice_events($big->{data_raw}, 0, 20),
   'old transaction still served');

# --- a killed worker's reader slot is cleared by the next worker ---------

# Only while another process has the index open does a new worker find
# the dead one's slot (the first opener resets the table): a loader waiting
# on its standard input is that process.
my $loader = build_path('chaindata-load');
open my $pipe, '|-', $loader, '--quiet', '--db', $db
    or die "cannot start the loader: $!";
sleep 0.3;

my @workers = $ng->worker_pids;
is(scalar @workers, 1, 'one worker');
kill 'KILL', $workers[0];
my $new = wait_new_worker(@workers);
ok($new, 'master started a new worker');
is(get("$P$big->{tx_id}")->{status}, 200, 'served by the new worker');
like($ng->error_log, qr/cleared 1 stale LMDB reader slots/,
     'the new worker cleared the dead reader slot');
close $pipe;
is($? >> 8, 0, 'the waiting loader ended cleanly');

# --- an index that cannot be read: 503, then recovery ---------------------

rename $db, "$db.away" or die "rename: $!";
mkdir $db or die "mkdir: $!";
chmod 0755, $db;
@workers = $ng->worker_pids;
kill 'KILL', $workers[0];
ok(wait_new_worker(@workers), 'a worker that cannot open the index');

my $r = get("$P$big->{tx_id}");
is($r->{status}, 503, 'index unreadable: 503');
is($r->{headers}{'content-type'}, 'application/json; charset=utf-8', 'JSON');
is($r->{body}, '{"statusCode":503,"error":"Service Unavailable","message":'
             . '"the chain data index cannot be read right now"}', '503 body');
is($r->{headers}{'retry-after'}, '1', 'Retry-After');
is($r->{headers}{'cache-control'}, 'no-store', 'not cached');
like($ng->error_log, qr/\[alert\].*cannot open the index/, 'logged why');

rmdir $db or die "rmdir: $!";
rename "$db.away", $db or die "rename back: $!";
sleep 1.2;
$r = get("$P$big->{tx_id}");
is($r->{status}, 200, 'the worker found the index again, without a reload');
is($r->{body}, splice_events($big->{data_raw}, 0, 20), 'and serves it');

my @crashes = grep { /exited on signal (?!9)/ } split /\n/, $ng->error_log;
is_deeply(\@crashes, [], 'no worker crashed');

done_testing();
