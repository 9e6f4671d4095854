#!/usr/bin/perl
# chaindata_threads: every route (transactions, both rune routes,
# chainhook status) through nginx's thread pool answers byte for byte what
# it answers without it; a lookup answered a moment ago stays inline; a
# pool too small for the load (threads=1 max_queue=1, 30 requests at
# once) answers everything right, inline when its queue is full;
# an index renamed over the one open while tasks are in flight is closed
# only when they end, and neither it nor the new one keeps a reader slot
# beyond one per thread; clients that go away with their lookup in the
# pool leak nothing; the pool's threads run "nice=" steps (8 unless told)
# below their worker, the worker itself where it was.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use File::Copy qw(move);
use IO::Socket::INET;
use Test::More;
use Time::HiRes qw(sleep);
use ChainData::Test qw(:all);
use ChainData::Runes qw(:all);
use ChainData::Chainhook qw(:all);

require_build();

my @files = map { fixture_path($_) }
    qw(tx.ndjson tx-many-events.ndjson runes.ndjson chainhook.ndjson);
my $db = new_index(@files);

my @txs = tx_fixtures(fixture_path('tx.ndjson'),
                      fixture_path('tx-many-events.ndjson'));
my $lists = rune_lists(fixture_path('runes.ndjson'));
my ($hooks) = chainhook_fixtures(fixture_path('chainhook.ndjson'));
my $rp = rune_paths();

# every route, found and not found, plain and gzip, pages past the first
my @paths;
push @paths, "/extended/v1/tx/$_->{tx_id}" for @txs;
push @paths, "/extended/v1/tx/$txs[-1]{tx_id}?event_offset=5&event_limit=3";
# a page of the 640 events in a chunk of its own, asked for apart below
my $late = "/extended/v1/tx/$txs[-1]{tx_id}?event_offset=400&event_limit=20";
push @paths, '/extended/v1/tx/0x' . ('ab' x 32);
push @paths, $rp->{activity}->($_) for sort keys %{ $lists->{activity} };
push @paths, $rp->{activity}->($_) . '?offset=1&limit=2'
    for sort keys %{ $lists->{activity} };
push @paths, $rp->{balances}->($lists->{address}{$_})
    for sort keys %{ $lists->{balances} };
push @paths, $rp->{activity}->('cd' x 32);
push @paths, hook_path($_->{key}, $_->{uuid}) for @$hooks;
push @paths, hook_path('wrong key', $hooks->[0]{uuid});
push @paths, hook_path('any', '0badc0de-0000-4000-8000-00000000beef');

my $locations = rune_locations() . <<'EOF';
        location /extended/v1/tx/ { chaindata_tx; }
        location /v1/ext/ { chaindata_chainhook_status; }
EOF

# what a client sees, but the date
sub seen {
    my ($r) = @_;
    return join("\n", $r->{status}, @{ headers_but_date($r) }, '', $r->{body});
}

my $plain = ChainData::Test::Nginx->start(db => $db, locations => $locations);

my %want;
for my $p (@paths) {
    $want{$p} = seen(http_get($plain->port, $p));
    $want{"gz $p"} = seen(http_get($plain->port, $p,
                                   'Accept-Encoding' => 'gzip'));
}
$want{$late} = seen(http_get($plain->port, $late));
$plain->stop;

# the nice values of a worker's threads: { tid => nice }, the worker's own
# under its pid
sub nice_of {
    my ($pid) = @_;
    my %nice;
    for my $stat (glob "/proc/$pid/task/*/stat") {
        my ($tid) = $stat =~ m{/task/(\d+)/};
        my $line = slurp($stat);
        $line =~ s/^.*\)\s+//s;
        $nice{$tid} = (split ' ', $line)[16];
    }
    return \%nice;
}

# requests of the thread pool, told by the debug log
sub pooled {
    my ($ng) = @_;
    my $log = slurp($ng->prefix . '/debug.log');
    my %n;
    $n{$1}++ while $log =~ /chaindata: lookup of "([a-z_]+)" to the thread pool/g;
    return \%n;
}

# --- every route through the pool, answers as without it -----------------

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    main => "thread_pool chaindata threads=2;\n",
    http => "    chaindata_threads chaindata;\n"
            . "    error_log debug.log debug;\n",
    locations => $locations,
);

my $same = 0;
for my $p (@paths) {
    $same++ if seen(http_get($ng->port, $p)) eq $want{$p};
    $same++ if seen(http_get($ng->port, $p, 'Accept-Encoding' => 'gzip'))
               eq $want{"gz $p"};
}
is($same, 2 * @paths, 'through the pool: every answer as without it ('
   . (2 * @paths) . ' answers)');

my $first = pooled($ng);
for my $db_name (qw(tx rune_activity rune_balances chainhook)) {
    ok($first->{$db_name}, "the pool warmed \"$db_name\" lookups"
       . " ($db_name: " . ($first->{$db_name} || 0) . ')');
}

# answered a moment ago, its record in memory: inline
my $before = 0;
$before += $_ for values %$first;
for my $p (@paths[0 .. 3]) {
    is(seen(http_get($ng->port, $p)), $want{$p}, "again: $p");
}
my $after = 0;
$after += $_ for values %{ pooled($ng) };
is($after, $before, 'a record answered a moment ago is answered inline');

my ($npid) = $ng->worker_pids;
my $nice = nice_of($npid);
is($nice->{$npid}, 0, 'the worker runs at its own priority');
my @threads = grep { $_ != $npid } keys %$nice;
is(scalar @threads, 2, 'two threads in the pool');
# a thread that never had a task (the other took them all) is as it was
my @lowered = grep { $nice->{$_} == 8 } @threads;
ok(@lowered && !grep({ $nice->{$_} != 8 && $nice->{$_} != 0 } @threads),
   'the threads that warmed lookups run 8 nice steps below the worker ('
   . join(', ', map { $nice->{$_} } sort @threads) . ')');

# --- a page of events whose chunk left memory while the record stayed ----
#
# bench/evict pages the index out of the worker (process_madvise
# MADV_PAGEOUT, root) but for the transaction's record and its first
# chunk of events, which it maps itself: a later page of the events, in
# a chunk that left, goes to the pool, not inline to fault in the event
# loop.  The hint remembers the chunk a page read, and each page of a
# list apart.

SKIP: {
    skip 'paging a worker out needs root (process_madvise)', 4 if $> != 0;
    my $tmp = temp_dir();
    my $evict = "$tmp/evict";
    my $root = repo_root();
    system('cc', '-O2', "-I$root/src/core", '-o', $evict,
           "$root/bench/evict.c", "$root/src/core/chaindata_schema.c",
           '-llmdb') == 0
        or skip 'bench/evict.c does not build here', 4;
    spew("$tmp/keep.paths", "/extended/v1/tx/$txs[-1]{tx_id}\n");

    my $n = sub { pooled($ng)->{tx} || 0 };
    my $was = $n->();
    http_get($ng->port, $late);
    is($n->(), $was + 1, 'a page of events not read before goes to the pool, '
       . 'though its record was answered');
    http_get($ng->port, $late);
    is($n->(), $was + 1, '... and inline once read');

    # pages out every 100 ms for 1.2 s: past the second a hint trusts a
    # record's pages without asking mincore() again
    my ($wpid) = $ng->worker_pids;
    my $out = `$evict $wpid $db $tmp/keep.paths 1.2 100 2>&1`;
    my ($evictions) = $out =~ /evictions=(\d+)/;
    skip "bench/evict could not page the worker out: $out", 2
        unless $evictions;
    is(seen(http_get($ng->port, $late)), $want{$late},
       'the late page after its chunk left: the same answer');
    is($n->(), $was + 2, '... warmed in the pool first: its record in memory '
       . 'did not make the hint guess its chunk was');
}

$ng->stop;

# --- a pool too small for the load --------------------------------------

# n clients at once, each asking for paths in turn; returns the answers
# that differ from the expected ones
sub at_once {
    my ($port, $n, $rounds) = @_;
    my @kids;
    for my $k (1 .. $n) {
        my $pid = fork();
        die "fork: $!" unless defined $pid;
        if (!$pid) {
            my $bad = 0;
            for my $i (1 .. $rounds) {
                my $p = $paths[($k * 7 + $i) % @paths];
                my $r = eval { http_get($port, $p) };
                $bad++ unless $r && seen($r) eq $want{$p};
            }
            POSIX::_exit($bad > 255 ? 255 : $bad);
        }
        push @kids, $pid;
    }
    my $bad = 0;
    for (@kids) { waitpid($_, 0); $bad += $? >> 8 }
    return $bad;
}

require POSIX;

# n requests on n connections, all sent before any answer is read: the
# worker reads them in one go and posts n tasks; returns the wrong answers
sub burst {
    my ($port, $n) = @_;
    my @socks;
    for my $i (1 .. $n) {
        my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
                                      PeerPort => $port) or die "connect: $!";
        push @socks, [$s, $paths[$i % @paths]];
    }
    sleep 0.2;
    for (@socks) {
        syswrite($_->[0], "GET $_->[1] HTTP/1.1\r\nHost: localhost\r\n"
                          . "Connection: close\r\n\r\n");
    }
    my $bad = 0;
    for (@socks) {
        my ($s, $p) = @$_;
        my $raw = '';
        while (sysread($s, my $buf, 65536)) { $raw .= $buf }
        close $s;
        my $r = eval { ChainData::Test::parse_response($raw, 'GET') };
        $bad++ unless $r && seen($r) eq $want{$p};
    }
    return $bad;
}


my $tiny = ChainData::Test::Nginx->start(
    db => $db,
    main => "thread_pool tiny threads=1 max_queue=1;\n"
            . "env CHAINDATA_THREADS_GUESS=all;\n",
    http => "    chaindata_threads tiny;\n",
    locations => $locations,
);
is(burst($tiny->port, 30), 0,
   'a pool of one thread and a queue of one, 30 requests at once: '
   . 'every answer right');
is(at_once($tiny->port, 12, 20), 0, '... and 12 clients of 20 requests');

# whether the queue was full at some point is up to the machine's timing
# (nginx answers "queue overflow" then, and chaindata answers inline):
# told, not asserted
note($tiny->error_log =~ /thread pool "tiny" queue overflow/
     ? 'the queue of one was full at times: those answered inline'
     : 'the queue of one was never full this time');

# clients that go away while their lookup is in the pool
for my $i (1 .. 40) {
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
                                  PeerPort => $tiny->port) or next;
    print $s "GET $paths[$i % @paths] HTTP/1.1\r\nHost: localhost\r\n\r\n";
    close $s;
}
is(at_once($tiny->port, 2, 5), 0, 'clients gone: the next answers right');

# the reader slots of a worker: its own and one per thread, never more
sub readers_of {
    my ($dir, $pid) = @_;
    my ($code, $out) = run_cmd(['mdb_stat', '-r', $dir]);
    return scalar grep { /^\s*$pid\s/ } split /\n/, $out;
}

my ($wpid) = $tiny->worker_pids;
cmp_ok(readers_of($db, $wpid), '<=', 2,
       'one reader slot for the worker and one per thread');
$tiny->stop;

# --- an index renamed over the one open while tasks are in flight -------

my $swap_db = temp_dir() . '/index';
system('cp', '-a', $db, $swap_db) == 0 or BAIL_OUT('cp failed');

my $busy = ChainData::Test::Nginx->start(
    db => $swap_db,
    main => "thread_pool busy threads=1;\n"
            . "env CHAINDATA_THREADS_GUESS=all;\n",
    http => "    chaindata_threads busy nice=0;\n",
    locations => $locations,
);
($wpid) = $busy->worker_pids;

is(burst($busy->port, 4), 0, 'a pool at the worker\'s priority answers');
is_deeply([sort values %{ nice_of($wpid) }], [0, 0],
          'nice=0: its thread stays at the worker\'s priority');

my $rounds = 0;
my $deferred = 0;
my $bad = 0;
my $old;
while ($rounds < 5 && !$deferred) {
    $rounds++;

    # the same index, another file: the worker reopens it
    my $next = "$swap_db.next$rounds";
    system('cp', '-a', $swap_db, $next) == 0 or BAIL_OUT('cp failed');
    $old = "$swap_db.old$rounds";
    $bad += burst($busy->port, 30);
    move($swap_db, $old) && move($next, $swap_db) or BAIL_OUT("mv: $!");

    # the worker looks at the path at most once a second
    sleep 1.2;
    $bad += burst($busy->port, 30);

    $deferred = $busy->error_log
        =~ /chaindata_threads: the index renamed over is closed when/;
}
is($bad, 0, "answers right across $rounds swaps under load");
ok($deferred, 'an index was renamed over while tasks were in flight');
ok(eventually(5, sub { $busy->error_log =~ /another index was renamed/ }),
   'the worker reopened the new index');

# one request so that the worker looks again, then the slots
is(seen(http_get($busy->port, $paths[0])), $want{$paths[0]},
   'the new index answers');
is(readers_of($old, $wpid), 0,
   'the old index: no reader slot of the worker left');
cmp_ok(readers_of($swap_db, $wpid), '<=', 2,
       'the new index: its own slot and one per thread');
$busy->stop;

# --- the directive ------------------------------------------------------

my ($code, $out) = ChainData::Test::Nginx->test_config(
    db => $db,
    http => "    chaindata_threads nosuchpool;\n",
    locations => $locations,
);
isnt($code, 0, 'an unknown thread pool is refused');
like($out, qr/unknown thread pool "nosuchpool"/, '... naming it');

($code, $out) = ChainData::Test::Nginx->test_config(
    db => $db,
    http => "    chaindata_threads on;\n",
    locations => $locations,
);
is($code, 0, '"on" takes nginx\'s default pool') or diag($out);

for my $bad ('on nice=20', 'on nice=-1', 'on nice=', 'on 8', 'off nice=3') {
    ($code, $out) = ChainData::Test::Nginx->test_config(
        db => $db,
        http => "    chaindata_threads $bad;\n",
        locations => $locations,
    );
    isnt($code, 0, "\"chaindata_threads $bad\" is refused");
    like($out, $bad =~ /^off/ ? qr/takes no "nice=" when off/
                              : qr/invalid parameter .*"nice=" takes 0 to 19/,
         '... saying why');
}

($code, $out) = ChainData::Test::Nginx->test_config(
    db => $db,
    http => "    chaindata_threads on nice=19;\n",
    locations => $locations,
);
is($code, 0, '"nice=19" is taken') or diag($out);

done_testing();
