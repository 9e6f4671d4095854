#!/usr/bin/perl
# The index's lifecycle under a running nginx: a reload refused because
# the index cannot be used (the running configuration keeps serving), an
# index renamed over the old one (workers switch to it without a reload),
# an index that stays unreadable (logged once, not once per request), the
# LMDB reader table (more than LMDB's default 126 readers), and a second
# loader after the first grew the map.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

my $fx = fixture_path('tx.ndjson');
my @txs = tx_fixtures($fx);
my ($tx) = grep { $_->{event_count} } @txs;
ok($tx, 'a fixture transaction with events') or BAIL_OUT('fixtures incomplete');

my $LOC = "        location /extended/v1/tx/ { chaindata_tx; }\n";
my $P = '/extended/v1/tx/';

# a copy of a fixture transaction ($tx unless $of) under a new id, as a
# loader record
sub tx_copy {
    my ($n, $of) = @_;
    $of //= $tx;
    my $id = sprintf '0x%056x%08x', 0x5a4b, $n;
    (my $raw = $of->{data_raw}) =~ s/\Q$of->{tx_id}\E/$id/g;
    return ($id, qq({"kind":"tx","data":$raw}\n));
}

# an index in $dir of the fixtures plus the given records
sub build_index {
    my ($dir, @records) = @_;
    my ($code, $out, $err) = load_index($dir, '--quiet', $fx,
                                        { stdin => join '', @records }, '-');
    die "chaindata-load into $dir failed (exit $code): $err" if $code;
    fixup_index_perms($dir);
    return $dir;
}

sub status_of {
    my ($ng, $id) = @_;
    return http_get($ng->port, "$P$id")->{status};
}

# the lines of /proc/PID/maps that map an index file already deleted
sub deleted_maps {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/maps" or return "no /proc/$pid/maps";
    return join '', grep { /\.mdb \(deleted\)$/ } <$fh>;
}

# nginx with the configuration in $prefix, as the harness runs it (under
# `make test-asan`, with the sanitizers' runtimes)
sub run_nginx {
    my ($prefix, @args) = @_;
    return run_cmd([nginx_binary(), '-p', "$prefix/",
                    '-c', "$prefix/nginx.conf", @args],
                   env => ChainData::Test::Nginx::_sanitizer_env($prefix));
}

# running, not a zombie nobody reaped
sub alive {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/stat" or return 0;
    my $stat = <$fh> // '';
    return $stat =~ /\)\s+([^ZX])\s/ ? 1 : 0;
}

sub count {
    my ($text, $re) = @_;
    my $n = () = $text =~ /$re/g;
    return $n;
}


# --- a reload refused because the index cannot be used -------------------

{
    my $db = build_index(temp_dir() . '/index');
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $LOC);
    $ng->expect_log(qr/\[emerg\].*chaindata_db ".*" cannot be read/);
    my $master = $ng->pid;
    my @workers = $ng->worker_pids;
    is(status_of($ng, $tx->{tx_id}), 200, 'refused reload: serving first');

    rename $db, "$db.away" or die "rename: $!";

    kill 'HUP', $master or die "kill HUP: $!";
    ok(eventually(10, sub { $ng->error_log =~ /\[emerg\].*cannot be read/ }),
       'SIGHUP with the index gone: the reload is refused, saying why');
    sleep 0.5;    # time for a master that died of it to be gone
    ok(alive($master), 'the master is still running') or last;
    is_deeply([$ng->worker_pids], \@workers, 'its workers too');
    is(status_of($ng, $tx->{tx_id}), 200,
       'and the running configuration still serves');

    # the same through "nginx -s reload"
    my $before = count($ng->error_log, qr/\[emerg\].*cannot be read/);
    my ($code, $out, $err) = run_nginx($ng->prefix, '-s', 'reload');
    is($code, 0, 'nginx -s reload sends the signal') or diag($err);
    ok(eventually(10, sub {
        count($ng->error_log, qr/\[emerg\].*cannot be read/) > $before }),
       'nginx -s reload: refused too');
    sleep 0.5;
    ok(alive($master), 'the master is still running');
    is(status_of($ng, $tx->{tx_id}), 200, 'still serving');

    rename "$db.away", $db or die "rename back: $!";
    ok($ng->reload, 'the index back: the reload succeeds');
    is(status_of($ng, $tx->{tx_id}), 200, 'and the new workers serve');
    $ng->stop;
}


# --- the worker user is the one nginx ends up with -----------------------

SKIP: {
    skip 'needs root: only a root master switches users', 3 unless is_root();
    my $db = build_index(temp_dir() . '/index');
    my $daemon = getpwnam('daemon');
    skip 'no user daemon', 3 unless defined $daemon;
    chown $daemon, -1, "$db/lock.mdb" or die "chown: $!";
    chmod 0600, "$db/lock.mdb" or die "chmod: $!";
    chmod 0644, "$db/data.mdb" or die "chmod: $!";    # nobody's, 0640

    # nginx -t with the "user" line moved to the end of the file
    my $test = sub {
        my ($user) = @_;
        my ($c, $o, $prefix) = ChainData::Test::Nginx->test_config(
            db => $db, locations => $LOC);
        my $conf = slurp("$prefix/nginx.conf");
        $conf =~ s/^user [^;]*;\n//m;
        $conf .= "user $user;\n" if defined $user;
        spew("$prefix/nginx.conf", $conf);
        return run_nginx($prefix, '-t');
    };

    my ($code, $out, $err) = $test->('daemon');
    is($code, 0, '"user daemon" after the http block, lock.mdb daemon\'s: '
       . 'nginx -t succeeds') or diag($err);
    ($code, $out, $err) = $test->('nobody nogroup');
    isnt($code, 0, '"user nobody" after the http block: nginx -t fails');
    like($err, qr/worker user "nobody" cannot write .*lock\.mdb/,
         'naming that user');
}


# --- an index renamed over the old one -------------------------------------

{
    my $dir = temp_dir();
    my $db = build_index("$dir/index");
    my ($id1, $rec1) = tx_copy(1);
    my ($id2, $rec2) = tx_copy(2);
    build_index("$dir/index.new", $rec1);

    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $LOC);
    my ($worker) = $ng->worker_pids;
    is(status_of($ng, $id1), 404, 'swap: not in the index served');

    # the directory: mv db db.old; mv db.new db
    rename $db, "$db.old" or die "rename: $!";
    rename "$dir/index.new", $db or die "rename: $!";
    ok(eventually(10, sub { status_of($ng, $id1) == 200 }),
       'directory renamed over: the new index is served, without a reload');
    is(status_of($ng, $tx->{tx_id}), 200, 'all of it');
    system('rm', '-rf', "$db.old") == 0 or die "rm: $?";
    is(deleted_maps($worker), '', 'the worker maps no deleted index file');

    # the files, in the order "mv db.new/* db/" renames them
    build_index("$dir/index.new2", $rec2);
    for my $f (qw(data.mdb lock.mdb)) {
        rename "$dir/index.new2/$f", "$db/$f" or die "rename $f: $!";
    }
    ok(eventually(10, sub {
        status_of($ng, $id2) == 200 && deleted_maps($worker) eq '' }),
       'files renamed over: the new index is served');
    is(status_of($ng, $id1), 404, 'and only it');
    is(deleted_maps($worker), '', 'the worker maps no deleted index file');
    is_deeply([$ng->worker_pids], [$worker], 'by the same worker');

    # a moment without any index there: the open one goes on serving
    rename $db, "$db.moved" or die "rename: $!";
    sleep 1.2;
    is(status_of($ng, $id2), 200, 'index moved away: still served');
    rename "$db.moved", $db or die "rename: $!";
    $ng->stop;
}


# --- an index that stays unreadable: logged once -------------------------

{
    my $db = build_index(temp_dir() . '/index');
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $LOC);
    $ng->expect_log(
        qr/exited on signal 9|chaindata_db .* cannot open the index/);

    rename $db, "$db.away" or die "rename: $!";
    mkdir $db or die "mkdir: $!";
    chmod 0755, $db;
    my @workers = $ng->worker_pids;
    kill 'KILL', @workers;
    ok(eventually(10, sub {
        my @now = $ng->worker_pids;
        @now && !grep { my $w = $_; grep { $w == $_ } @workers } @now }),
       'a new worker, that cannot open the index');

    # requests over more than two seconds: the worker tries the index again
    # every second, and fails every time
    my %status;
    my $until = time + 2.5;
    while (time < $until) {
        $status{ status_of($ng, $tx->{tx_id}) }++;
        sleep 0.1;
    }
    is_deeply([keys %status], [503], 'unreadable: every answer a 503');
    my $log = $ng->error_log;
    is(count($log, qr/cannot open the index/), 1,
       'logged once, not once per request or attempt') or diag($log);

    rmdir $db or die "rmdir: $!";
    rename "$db.away", $db or die "rename back: $!";
    ok(eventually(10, sub { status_of($ng, $tx->{tx_id}) == 200 }),
       'readable again: served');
    status_of($ng, $tx->{tx_id}) for 1 .. 5;
    $log = $ng->error_log;
    is(count($log, qr/\[notice\].*chaindata_db .* can be read again/), 1,
       'a notice says so, once');
    is(count($log, qr/cannot open the index/), 1, 'no more errors');
    $ng->stop;
}


# --- the reader table ----------------------------------------------------

{
    my $dir = temp_dir();
    # the many events too: the dump must stay larger than a pipe holds
    # though documents are stored compressed
    open my $many, '<', fixture_path('tx-many-events.ndjson') or die $!;
    my $db = build_index("$dir/index", <$many>);
    close $many;
    my ($code, $out) = run_cmd(['mdb_stat', '-e', $db]);
    my ($max) = $out =~ /Max readers: (\d+)/;
    cmp_ok($max // 0, '>', 126, "the loader's reader table is large ($max)");

    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $LOC);
    is(status_of($ng, $tx->{tx_id}), 200, 'readers: serving');

    # readers that stay: each mdb_dump holds its read transaction while it
    # waits for its pipe to be read (the dump is far larger than a pipe)
    my @dumps;
    for (1 .. 140) {
        my $pid = open my $fh, '-|', 'mdb_dump', '-a', $db
            or die "mdb_dump: $!";
        push @dumps, [$pid, $fh];
    }
    my $readers = sub {
        my ($c, $o) = run_cmd(['mdb_stat', '-r', $db]);
        return scalar(() = $o =~ /^\s*\d+\s+[0-9a-f]+\s+(?:\d+|-)\s*$/mg);
    };
    ok(eventually(20, sub { $readers->() >= 141 }),
       '140 more readers beside the worker: all hold a slot')
        or diag('readers: ' . $readers->());
    ok($ng->reload, 'a reload meanwhile');
    is(status_of($ng, $tx->{tx_id}), 200, 'the new worker gets a slot too');
    kill 'KILL', map { $_->[0] } @dumps;
    close $_->[1] for @dumps;

    # chaindata-load --max-readers and chaindata_max_readers: the first
    # process to open the lock file sizes the table
    my $small = "$dir/small";
    ($code, $out, my $err) = load_index($small, '--quiet', '--max-readers',
                                         '10', $fx);
    is($code, 0, 'chaindata-load --max-readers 10') or diag($err);
    fixup_index_perms($small);
    my $ng2 = ChainData::Test::Nginx->start(db => $small, locations => $LOC,
        http => "    chaindata_max_readers 200;\n");
    ($code, $out) = run_cmd(['mdb_stat', '-e', $small]);
    like($out, qr/Max readers: 200\b/,
         'chaindata_max_readers 200: nginx opened it first, so 200');
    $ng2->stop;

    my $big = "$dir/big";
    ($code, $out, $err) = load_index($big, '--quiet', '--max-readers',
                                     '300', $fx);
    is($code, 0, 'chaindata-load --max-readers 300') or diag($err);
    ($code, $out) = run_cmd(['mdb_stat', '-e', $big]);
    like($out, qr/Max readers: 300\b/, 'the loader sized the table: 300');

    ($code, $out, $err) = load_index("$dir/none", '--max-readers', '0');
    is($code, 2, '--max-readers 0: a usage error');
    ($code, $out) = ChainData::Test::Nginx->test_config(db => $db,
        locations => $LOC, http => "    chaindata_max_readers 0;\n");
    isnt($code, 0, 'chaindata_max_readers 0: nginx -t fails');
}


# --- a second loader, after the first grew the map -------------------------

{
    my $db = temp_dir() . '/index';
    my ($code, $out, $err) = load_index($db, '--quiet', '--map-size', '1M',
                                        $fx);
    is($code, 0, 'an index with a 1 MiB map') or BAIL_OUT($err);

    # the second loader opens the index and waits for its input
    my $loader = build_path('chaindata-load');
    my $pid = open my $second, '|-', $loader, '--quiet', '--map-size', '1M',
        '--db', $db or die "cannot start the loader: $!";
    ok(eventually(10, sub {
        open my $m, '<', "/proc/$pid/maps" or return 0;
        grep { m{\Q$db\E/data\.mdb} } <$m> }),
       'the second loader has the index open');

    # the first loader grows the map meanwhile: copies of the transaction
    # with 640 events
    my ($big) = grep { ($_->{event_count} || 0) == 640 }
                tx_fixtures(fixture_path('tx-many-events.ndjson'));
    my $bulk = join '', map { (tx_copy($_, $big))[1] } 100 .. 219;
    ($code, $out, $err) = load_index($db, '--quiet', '--map-size', '1M',
                                     { stdin => $bulk });
    is($code, 0, 'the first loader grew the map') or diag($err);
    ($code, $out) = run_cmd(['mdb_stat', '-e', $db]);
    my ($size) = $out =~ /Map size: (\d+)/;
    cmp_ok($size, '>=', 4 << 20, "to $size bytes");

    my ($id, $rec) = tx_copy(3);
    print {$second} $rec;
    close $second;
    is($? >> 8, 0, 'the second loader adopted the new size and committed');
    (my $hex = substr($id, 2)) =~ tr/A-F/a-f/;
    ($code, $out) = run_cmd(['mdb_dump', '-s', 'tx', $db]);
    like($out, qr/^ \Q$hex\E$/m, 'its record is in the index');
}

done_testing();
