#!/usr/bin/perl
# A bad index swap never takes the edge down nor kills a worker
# (doc/operations.md "Swapping an index"): each kind of damaged data.mdb
# renamed over the one served (empty, cut inside its meta pages, cut after
# them with valid meta pages, its pages zeroed, its meta pages zeroed,
# another program's file), and a directory renamed over it whose data.mdb
# is cut short, under a steady load: every answer keeps coming from the
# index open, no worker dies (a truncated file with valid meta pages made
# them fault on SIGBUS), the scrape answers 200 with chaindata_index_up 0
# and the reason, each refusal is counted, and a good index renamed in
# afterwards is served.  The files are made here: no upstream writes them.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use File::Copy qw(copy);
use POSIX qw(_exit);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

my $fx = fixture_path('tx.ndjson');
my @txs = grep { !$_->{mempool} } tx_fixtures($fx);
ok(@txs >= 2, 'fixture transactions') or BAIL_OUT('fixtures');
my $TX = $txs[0]{tx_id};

# a copy of the first fixture transaction under a new id, as a record
my $NEW = sprintf '0x%056x%08x', 0x5eed, 1;
(my $raw = $txs[0]{data_raw}) =~ s/\Q$TX\E/$NEW/g;

my $dir = temp_dir();
my $db = "$dir/index";
sub build {
    my ($to, @stdin) = @_;
    my ($code, $out, $err) = load_index($to, '--quiet', $fx,
        @stdin ? ({ stdin => join '', @stdin }, '-') : ());
    die "chaindata-load $to: $err" if $code;
    return fixup_index_perms($to);
}
build($db);
build("$dir/good", qq({"kind":"tx","data":$raw}\n));
my $GOOD = slurp("$dir/good/data.mdb");
ok(length $GOOD > 8 * 4096, 'a good index of more than its meta pages');

my %example = example_config();
my $ng = ChainData::Test::Nginx->start(db => $db, %example, workers => 2,
                                       listen => 'reuseport');
$ng->expect_log(qr/\[alert\].*chaindata_db .*cannot open the index|\[alert\].*chaindata_db .*(?:MDB_|schema|database)/);
my $port = $ng->port;
my @workers = sort $ng->worker_pids;
is(scalar @workers, 2, 'two workers');
is(http_get($port, "/extended/v1/tx/$TX")->{status}, 200, 'served');
is(http_get($port, "/extended/v1/tx/$NEW")->{status}, 404,
   'the good index\'s own transaction is not, yet');

# a load in a child: requests for $seconds, each status a line of $file
sub load {
    my ($seconds, $file) = @_;
    my $pid = fork // die "fork: $!";
    return $pid if $pid;
    open my $fh, '>', $file or _exit(1);
    my $until = time + $seconds;
    while (time < $until) {
        my $r = eval { http_get($port, "/extended/v1/tx/$TX") };
        print $fh ($r ? $r->{status} : 'none'), "\n";
        $r = eval { http_get($port, '/chaindata/status?format=prometheus') };
        print $fh 'scrape ', ($r ? $r->{status} : 'none'), "\n";
    }
    close $fh;
    _exit(0);
}

sub scrape { return http_get($port, '/chaindata/status?format=prometheus') }

my $PAGE = 4096;
my %damaged = (
    'empty'                  => '',
    'cut inside its meta pages' => substr($GOOD, 0, 6000),
    'cut after its meta pages'  => substr($GOOD, 0, 2 * $PAGE + 3 * $PAGE),
    'cut by one page'        => substr($GOOD, 0, length($GOOD) - $PAGE),
    'its pages zeroed'       => substr($GOOD, 0, 2 * $PAGE)
                                . ("\0" x (length($GOOD) - 2 * $PAGE)),
    'its meta pages zeroed'  => ("\0" x (2 * $PAGE))
                                . substr($GOOD, 2 * $PAGE),
    "another program's file" => "SQLite format 3\0" . ("\x5a" x 65520),
);

my $n = 0;
for my $kind (sort keys %damaged) {
    $n++;
    spew("$dir/bad$n.mdb", $damaged{$kind});
    chmod 0644, "$dir/bad$n.mdb";
    my $statuses = "$dir/load$n.txt";
    my $child = load(3, $statuses);
    sleep 0.3;
    # as "mv new/data.mdb index/" renames it: lock.mdb stays
    rename "$dir/bad$n.mdb", "$db/data.mdb" or die "rename: $!";
    my $down;
    ok(eventually(10, sub {
        $down = scrape();
        $down->{body} =~ /^chaindata_index_up 0$/m }),
       "$kind: the scrape says chaindata_index_up 0");
    is($down->{status}, 200, "$kind: the scrape is a 200");
    like($down->{body},
         qr/^chaindata_index_down_info\{reason="cannot open the index[^"]*"\} 1$/m,
         "$kind: and why") or diag($down->{body} =~ /(chaindata_index_down\S+)/);
    waitpid $child, 0;
    my @lines = split /\n/, slurp($statuses);
    my @bad = grep { !/^(?:scrape )?200$/ } @lines;
    ok(@lines > 10 && !@bad,
       "$kind: every answer under load a 200 (" . scalar(@lines) . ')')
        or diag(join ', ', @bad[0 .. ($#bad < 9 ? $#bad : 9)]);
    is(http_get($port, "/extended/v1/tx/$NEW")->{status}, 404,
       "$kind: from the index open");
    is_deeply([sort $ng->worker_pids], \@workers, "$kind: no worker died");
}

# a directory renamed over the one served, its data.mdb cut short
mkdir "$dir/cut" or die "mkdir: $!";
spew("$dir/cut/data.mdb", $damaged{'cut after its meta pages'});
copy("$dir/good/lock.mdb", "$dir/cut/lock.mdb") or die "copy: $!";
fixup_index_perms("$dir/cut");
rename $db, "$db.old" or die "rename: $!";
rename "$dir/cut", $db or die "rename: $!";
sleep 1.5;
is(http_get($port, "/extended/v1/tx/$TX")->{status}, 200,
   'a directory renamed over, its data.mdb cut short: still served');
like(scrape()->{body}, qr/^chaindata_index_up 0$/m, 'and said');
is_deeply([sort $ng->worker_pids], \@workers, 'no worker died');

my ($refused) = scrape()->{body}
    =~ /^chaindata_index_swaps_refused_total (\d+)$/m;
ok(defined $refused && $refused >= $n + 1,
   "every refusal counted, by each worker that saw it ($refused)");

# a good index renamed in: served, and said
rename "$dir/good/data.mdb", "$db/data.mdb" or die "rename: $!";
rename "$dir/good/lock.mdb", "$db/lock.mdb" or die "rename: $!";
ok(eventually(10, sub {
    http_get($port, "/extended/v1/tx/$NEW")->{status} == 200 }),
   'a good index renamed in afterwards: served');
# each worker answers for the index it has open, and sees the swap within
# a second of the other: every scrape of a run of six must say it
my $last;
ok(eventually(10, sub {
    for (1 .. 6) {
        $last = scrape()->{body};
        return 0 unless $last =~ /^chaindata_index_up 1$/m;
    }
    1 }),
   'chaindata_index_up 1 again, from every worker');
unlike($last, qr/chaindata_index_down_info/, 'no reason left');
my $log = $ng->error_log;
unlike($log, qr/exited on signal/, 'no worker exited on a signal');
like($log, qr/\[notice\].*the index can be read again/,
     'a notice says the index can be read again');
$ng->stop;

done_testing();
