#!/usr/bin/perl
# The loader updates a live index: nginx serves the new state immediately,
# without a reload.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX ();
use Time::HiRes qw(time);
use ChainData::Test qw(:all);

require_build();

my @files = (fixture_path('tx.ndjson'), fixture_path('tx-many-events.ndjson'));
-f $_ or BAIL_OUT("fixture $_ missing") for @files;
my @txs = tx_fixtures(@files);
my @confirmed = grep { !$_->{mempool} } @txs;
my @mempool = grep { $_->{mempool} } @txs;
my ($big) = grep { ($_->{event_count} || 0) == 640 } @txs;
ok($big && @mempool && @confirmed > 2, 'fixtures present') or BAIL_OUT('fixtures incomplete');
my ($small) = grep { $_ != $big && $_->{event_count} } @confirmed;
ok($small, 'a confirmed tx with events') or BAIL_OUT('no confirmed tx with events');

my $db = new_index(@files);
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);
my $port = $ng->port;
my $P = '/extended/v1/tx/';
my @workers = $ng->worker_pids;
ok(@workers, 'nginx worker running');

sub get { my ($path, %h) = @_; return http_get($port, $path, %h) }

sub load_ok {
    my ($name, @args) = @_;
    my ($code, $out, $err) = load_index($db, @args);
    is($code, 0, "$name: loader exit 0") or diag($err);
    return $code == 0;
}

sub tx_line { my ($raw) = @_; return qq({"kind":"tx","data":$raw}\n) }

sub served_ok {
    my ($id, $want, $name, $q) = @_;
    $q = '' unless defined $q;
    my $r = get("$P$id$q");
    is($r->{status}, 200, "$name: 200");
    is($r->{body}, $want, "$name: body");
    return $r;
}

# snapshot of every fixture as served initially
my (%body0, %etag0);
for my $tx (@txs) {
    my $r = get("$P$tx->{tx_id}");
    is($r->{body}, splice_events($tx->{data_raw}, 0, 20), "initial $tx->{tx_id}");
    $body0{ $tx->{tx_id} } = $r->{body};
    $etag0{ $tx->{tx_id} } = $r->{headers}{etag};
}

# ---------------------------------------------------------------- update a field

{
    my $id = $small->{tx_id};
    my $fee = json_decode(json_member_value($small->{data_raw}, 'fee_rate'));
    my $new_fee = $fee + 1234;
    my $mod = json_replace_member($small->{data_raw}, 'fee_rate', qq("$new_fee"));
    isnt($mod, $small->{data_raw}, 'modified document differs');
    load_ok('update fee_rate', { stdin => tx_line($mod) });
    my $r = served_ok($id, splice_events($mod, 0, 20), 'updated fee_rate served immediately');
    isnt($r->{headers}{etag}, $etag0{$id}, 'updated document: different ETag');
    my $old = get("$P$id", 'If-None-Match' => $etag0{$id});
    is($old->{status}, 200, 'old ETag no longer matches');
    is(get("$P$id", 'If-None-Match' => $r->{headers}{etag})->{status}, 304, 'new ETag matches');

    # second update: integer field, through a file argument
    my $nonce = json_decode(json_member_value($mod, 'nonce'));
    my $mod2 = json_replace_member($mod, 'nonce', $nonce + 7);
    my $f = temp_dir() . '/update.ndjson';
    spew($f, tx_line($mod2));
    load_ok('update nonce from a file', $f);
    my $r2 = served_ok($id, splice_events($mod2, 0, 20), 'updated nonce served immediately');
    isnt($r2->{headers}{etag}, $r->{headers}{etag}, 'second update: different ETag again');
    is(json_decode($r2->{body})->{nonce}, $nonce + 7, 'nonce value updated');

    # the other documents are untouched
    for my $tx (grep { $_->{tx_id} ne $id } @txs) {
        is(get("$P$tx->{tx_id}")->{body}, $body0{ $tx->{tx_id} }, "unrelated $tx->{tx_id} unchanged");
    }
}

# ---------------------------------------------------------------- mempool tx gets mined

{
    my $mp = $mempool[0];
    my $id = $mp->{tx_id};
    served_ok($id, $mp->{data_raw}, 'mempool tx before');
    # a confirmed document (of the same type if possible) re-keyed to the mempool id
    my ($tmpl) = (grep({ $_->{tx_type} eq $mp->{tx_type} && $_ != $big } @confirmed), $small);
    (my $mined = $tmpl->{data_raw}) =~ s/\Q$tmpl->{tx_id}\E/$id/g;
    load_ok('mempool -> confirmed', { stdin => tx_line($mined) });
    my $r = served_ok($id, splice_events($mined, 0, 20), 'mined tx served as confirmed');
    isnt($r->{headers}{etag}, $etag0{$id}, 'mined tx: different ETag');
    # and back to the mempool document
    load_ok('confirmed -> mempool', { stdin => tx_line($mp->{data_raw}) });
    served_ok($id, $mp->{data_raw}, 'mempool document again');
    my $d = json_decode(get("$P$id")->{body});
    ok(!exists $d->{events}, 'mempool document has no events after the round trip');
}

# ---------------------------------------------------------------- events shrink and grow

{
    my $id = $big->{tx_id};
    my $five = json_replace_member(splice_events($big->{data_raw}, 0, 5), 'event_count', 5);
    load_ok('640 events -> 5 events', { stdin => tx_line($five) });
    served_ok($id, $five, '5-event version');
    served_ok($id, splice_events($five, 5, 20), '5-event version, offset 5: empty', '?event_offset=5');
    served_ok($id, splice_events($five, 20, 20), '5-event version, offset 20: no stale events',
        '?event_offset=20');
    my $r = get("$P$id?event_offset=600");
    my $d = eval { json_decode($r->{body}) } || {};
    is_deeply($d->{events}, [], 'offset 600 after shrink: no stale events');
    is($d->{event_count}, 5, 'event_count 5 after shrink');

    load_ok('back to 640 events', $files[1]);
    for my $q (['', 0], ['?event_offset=600', 600], ['?event_offset=639&event_limit=100', 639]) {
        served_ok($id, splice_events($big->{data_raw}, $q->[1], $q->[0] =~ /limit=100/ ? 100 : 20),
            "640 events restored$q->[0]", $q->[0]);
    }
    is(get("$P$id")->{body}, $body0{$id}, '640-event tx identical to the initial body');
}

# ---------------------------------------------------------------- readers during writes
# Every response is one consistent version of the document (one read
# transaction): never a mix of the 640-event and the 5-event versions.
{
    my $id = $big->{tx_id};
    my $five = json_replace_member(splice_events($big->{data_raw}, 0, 5), 'event_count', 5);
    my $five_file = temp_dir() . '/five.ndjson';
    spew($five_file, tx_line($five));
    my %allowed = (
        ''                 => [splice_events($big->{data_raw}, 0, 20), $five],
        '?event_offset=3'  => [splice_events($big->{data_raw}, 3, 20), splice_events($five, 3, 20)],
        '?event_offset=20' => [splice_events($big->{data_raw}, 20, 20), splice_events($five, 20, 20)],
    );
    pipe(my $rd, my $wr) or die "pipe: $!";
    my $pid = fork;
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        close $rd;
        my ($n, $bad, %seen) = (0, 0);
        my $msg = '';
        my $until = time + 4;
        while (time < $until) {
            for my $q (sort keys %allowed) {
                my $r = eval { http_get($port, "$P$id$q") };
                $n++;
                my $body = $r ? $r->{body} : '';
                my ($which) = grep { $body eq $allowed{$q}[$_] } 0, 1;
                if (!$r || $r->{status} != 200 || !defined $which) {
                    $bad++;
                    $msg ||= "$q: " . ($r ? "status $r->{status}, body " . substr($body, 0, 300) : "error $@");
                } else {
                    $seen{$which}++;
                }
            }
        }
        print {$wr} join("\t", $n, $bad, $seen{0} || 0, $seen{1} || 0, $msg), "\n";
        close $wr;
        POSIX::_exit(0);
    }
    close $wr;
    my ($loads, $load_fail) = (0, 0);
    my $until = time + 3.5;
    while (time < $until) {
        my ($c1, undef, $e1) = load_index($db, $five_file);
        my ($c2, undef, $e2) = load_index($db, $files[1]);
        $loads += 2;
        $load_fail++ if $c1 || $c2;
    }
    my $res = <$rd>;
    waitpid($pid, 0);
    chomp(my $line = defined $res ? $res : '');
    my ($n, $bad, $s0, $s1, $msg) = split /\t/, $line, 5;
    is($load_fail, 0, "concurrent writes: $loads loader runs succeeded");
    cmp_ok($n || 0, '>', 10, 'concurrent reads: requests made');
    is($bad, 0, "concurrent reads: every response is a consistent version ($s0 x 640-event, $s1 x 5-event)")
        or diag($msg);
    served_ok($id, $body0{$id}, 'after concurrent writes: the 640-event version');
}

# ---------------------------------------------------------------- delete and re-insert

for my $tx ($confirmed[0], $big, $mempool[-1]) {
    my $id = $tx->{tx_id};
    load_ok("delete $id", { stdin => qq({"kind":"tx","delete":"$id"}\n) });
    my $r = get("$P$id");
    is($r->{status}, 404, "deleted $id: 404");
    is($r->{headers}{'cache-control'}, 'no-store', "deleted $id: no-store");
    is(get("$P$id?event_offset=20")->{status}, 404, "deleted $id: paged request 404");
    is(get("$P$id", 'If-None-Match' => $etag0{$id})->{status}, 404, "deleted $id: old ETag gives 404");

    load_ok("re-insert $id", { stdin => $tx->{text} . "\n" });
    served_ok($id, $body0{$id}, "re-inserted $id");
    served_ok($id, splice_events($tx->{data_raw}, 20, 20), "re-inserted $id, page 2", '?event_offset=20')
        unless $tx->{mempool};
}

# delete and upsert of the same id in one batch: the later record wins
{
    my $tx = $confirmed[1];
    my $id = $tx->{tx_id};
    load_ok('delete then upsert in one batch',
        { stdin => qq({"kind":"tx","delete":"$id"}\n) . $tx->{text} . "\n" });
    served_ok($id, $body0{$id}, 'delete+upsert: present');
    load_ok('upsert then delete in one batch',
        { stdin => $tx->{text} . "\n" . qq({"kind":"tx","delete":"$id"}\n) });
    is(get("$P$id")->{status}, 404, 'upsert+delete: absent');
    load_ok('re-insert', { stdin => $tx->{text} . "\n" });
}

# ---------------------------------------------------------------- idempotent reload of the fixtures

load_ok('re-load tx.ndjson (1st)', $files[0]);
load_ok('re-load both fixture files (2nd)', @files);
for my $tx (@txs) {
    my $id = $tx->{tx_id};
    my $r = get("$P$id");
    is($r->{status}, 200, "after re-load $id: 200");
    is($r->{body}, $body0{$id}, "after re-load $id: identical body");
}

is_deeply([$ng->worker_pids], \@workers, 'same worker process throughout (no reload, no crash)');
is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
$ng->stop;

done_testing;
