#!/usr/bin/perl
# chaindata-load: input rejection, batches, --skip-invalid, usage.
# A rejected batch must leave the index exactly as it was.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $fx = fixture_path('tx.ndjson');
-f $fx or BAIL_OUT("fixture $fx missing");
my @txs = tx_fixtures($fx);
my ($tt) = grep { !$_->{mempool} && $_->{tx_type} eq 'token_transfer' && $_->{event_count} } @txs;
ok($tt, 'a confirmed token_transfer fixture with events') or BAIL_OUT('fixture missing');
my ($mp) = grep { $_->{mempool} } @txs;

my $db = new_index($fx);
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);
my $port = $ng->port;
my $P = '/extended/v1/tx/';
my $tmp = temp_dir();

sub get { return http_get($port, $_[0]) }

my %body0;
for my $tx (@txs) {
    my $r = get("$P$tx->{tx_id}");
    is($r->{status}, 200, "initial $tx->{tx_id}: 200");
    $body0{ $tx->{tx_id} } = $r->{body};
}

# a new valid transaction (raw data text) cloned from a template under a new id
sub new_tx {
    my ($tmpl) = @_;
    $tmpl ||= $tt;
    my $id = random_tx_id();
    (my $raw = $tmpl->{data_raw}) =~ s/\Q$tmpl->{tx_id}\E/$id/g;
    return ($id, $raw);
}

sub line { my ($raw) = @_; return qq({"kind":"tx","data":$raw}) }

my $nfile = 0;
sub write_input {
    my (@lines) = @_;
    my $f = "$tmp/input-" . ++$nfile . '.ndjson';
    spew($f, join('', map { "$_\n" } @lines));
    return $f;
}

sub fixtures_unchanged {
    my ($name) = @_;
    my @diff;
    for my $tx (@txs) {
        my $r = get("$P$tx->{tx_id}");
        push @diff, "$tx->{tx_id}: status $r->{status}"
            unless $r->{status} == 200 && $r->{body} eq $body0{ $tx->{tx_id} };
    }
    ok(!@diff, "$name: every fixture still served byte-identical") or diag(join "\n", @diff);
}

sub absent {
    my ($id, $name) = @_;
    is(get("$P$id")->{status}, 404, "$name: $id not applied (404)");
}

sub present {
    my ($id, $raw, $name) = @_;
    my $r = get("$P$id");
    is($r->{status}, 200, "$name: $id applied (200)");
    is($r->{body}, splice_events($raw, 0, 20), "$name: $id body");
}

sub error_at {
    my ($err, $file, $lineno, $name) = @_;
    like($err, qr/^chaindata-load: \Q$file\E:$lineno: \S/m,
        "$name: stderr names $file:$lineno");
}

# ---------------------------------------------------------------- rejected lines

my ($bid, $braw) = new_tx();    # the transaction the bad lines are built from
my $bline = line($braw);
my $ec = json_decode(json_member_value($braw, 'event_count'));

my @bad = (
    ['malformed JSON (truncated)', substr($bline, 0, int(length($bline) / 2))],
    ['not JSON', 'hello'],
    ['trailing garbage', "$bline x"],
    ['two documents on a line', "$bline$bline"],
    ['top level is an array', "[$bline]"],
    ['unknown kind', qq({"kind":"block","data":$braw})],
    ['missing kind', qq({"data":$braw})],
    ['missing data', '{"kind":"tx"}'],
    ['data is not an object', '{"kind":"tx","data":[1]}'],
    ['data.tx_id missing', line(json_remove_member($braw, 'tx_id'))],
    ['data.tx_id too short', line(json_replace_member($braw, 'tx_id', '"0x1234"'))],
    ['data.tx_id without 0x', line(json_replace_member($braw, 'tx_id', '"' . substr($bid, 2) . '"'))],
    ['data.tx_id non-hex', line(json_replace_member($braw, 'tx_id', '"0x' . ('g' x 64) . '"'))],
    ['data.tx_id 66 hex', line(json_replace_member($braw, 'tx_id', qq("${bid}00")))],
    ['data.tx_id a number', line(json_replace_member($braw, 'tx_id', '12345'))],
    ['tx_type missing', line(json_remove_member($braw, 'tx_type'))],
    ['nonce missing', line(json_remove_member($braw, 'nonce'))],
    ['nonce as a string', line(json_replace_member($braw, 'nonce', '"5"'))],
    ['sponsored as a string', line(json_replace_member($braw, 'sponsored', '"false"'))],
    ['events not an array', line(json_replace_member($braw, 'events', '{}'))],
    ['fee_rate as a number', line(json_replace_member($braw, 'fee_rate', '180'))],
    # (a tx_type upstream added is stored as given: t/36; one that is not
    # a string is refused)
    ['tx_type not a string', line(json_replace_member($braw, 'tx_type', '7'))],
    ['event_count too high', line(json_replace_member($braw, 'event_count', $ec + 1))],
    ['event_count too low', line(json_replace_member($braw, 'event_count', $ec - 1))],
    ['delete with a short id', '{"kind":"tx","delete":"0x1234"}'],
    ['delete with a non-hex id', '{"kind":"tx","delete":"0x' . ('z' x 64) . '"}'],
    ['delete with a number', '{"kind":"tx","delete":5}'],
);

for my $c (@bad) {
    my ($name, $badline) = @$c;
    my ($nid, $nraw) = new_tx();
    my $f = write_input(line($nraw), $badline);
    my ($code, $out, $err) = load_index($db, $f);
    is($code, 1, "$name: exit 1") or diag("stderr: $err");
    error_at($err, $f, 2, $name);
    unlike($err, qr/\Q$f\E:1:/, "$name: line 1 not reported");
    absent($nid, $name);
    absent($bid, $name);
}
fixtures_unchanged('after all rejected batches');

# the bad line on stdin; earlier deletes and updates of the batch are undone
{
    my ($nid, $nraw) = new_tx();
    my $victim = $txs[0]{tx_id};
    my $upd = $txs[1];
    my $mod = json_replace_member($upd->{data_raw}, 'nonce', 999999);
    my $input = join '', map { "$_\n" }
        qq({"kind":"tx","delete":"$victim"}), line($mod), line($nraw),
        line(json_remove_member($braw, 'nonce'));
    for my $args (['-'], []) {
        my $how = @$args ? "'-'" : 'no file';
        my ($code, $out, $err) = load_index($db, @$args, { stdin => $input });
        is($code, 1, "stdin ($how): exit 1");
        error_at($err, '<stdin>', 4, "stdin ($how)");
        absent($nid, "stdin ($how)");
        fixtures_unchanged("stdin ($how): delete and update of the rejected batch not applied");
    }
}

# several files: line numbers are per file
{
    my ($id1, $raw1) = new_tx();
    my ($id2, $raw2) = new_tx();
    my $f1 = write_input(line($raw1), line($raw2));
    my $f2 = write_input(line($raw2), '{"kind":"tx"', line($raw1));
    my ($code, $out, $err) = load_index($db, $f1, $f2);
    is($code, 1, 'two files, bad line in the second: exit 1');
    error_at($err, $f2, 2, 'two files');
    unlike($err, qr/\Q$f1\E:\d+:/, 'two files: nothing reported for the first file');
    # clean up whatever was applied so later checks start from the fixtures
    load_index($db, { stdin => qq({"kind":"tx","delete":"$id1"}\n{"kind":"tx","delete":"$id2"}\n) });
}

# ---------------------------------------------------------------- --skip-invalid

{
    my ($ia, $araw) = new_tx();
    my ($ib, $braw2) = new_tx($mp);
    my ($ic, $craw) = new_tx();
    my $f = write_input(line($araw), '{"kind":"tx","data":', line($braw2),
        line(json_replace_member($craw, 'sponsored', '"no"')), line($craw));
    my ($code, $out, $err) = load_index($db, '--skip-invalid', $f);
    is($code, 0, '--skip-invalid: exit 0') or diag($err);
    error_at($err, $f, 2, '--skip-invalid');
    error_at($err, $f, 4, '--skip-invalid');
    unlike($err, qr/\Q$f\E:[135]:/, '--skip-invalid: good lines not reported');
    present($ia, $araw, '--skip-invalid line 1');
    present($ib, $braw2, '--skip-invalid line 3');
    present($ic, $craw, '--skip-invalid line 5');
    fixtures_unchanged('--skip-invalid');
}

# ---------------------------------------------------------------- batches

{
    my ($ia, $araw) = new_tx();
    my ($ib, $braw2) = new_tx();
    my ($ic, $craw) = new_tx();
    my $f = write_input(line($araw), line($braw2), line(json_remove_member($craw, 'tx_type')));
    my ($code, $out, $err) = load_index($db, '--batch', '1', $f);
    is($code, 1, '--batch 1, bad line 3: exit 1');
    error_at($err, $f, 3, '--batch 1');
    present($ia, $araw, '--batch 1 line 1');
    present($ib, $braw2, '--batch 1 line 2');
    absent($ic, '--batch 1 line 3');
}

{
    my @ids;
    my @lines;
    for (1 .. 3) { my ($i, $r) = new_tx(); push @ids, $i; push @lines, line($r) }
    my $f = write_input(@lines, 'null');
    my ($code, $out, $err) = load_index($db, '--batch', '2', $f);
    is($code, 1, '--batch 2, bad line 4: exit 1');
    error_at($err, $f, 4, '--batch 2');
    is(get("$P$ids[0]")->{status}, 200, '--batch 2: line 1 (first batch) applied');
    is(get("$P$ids[1]")->{status}, 200, '--batch 2: line 2 (first batch) applied');
    absent($ids[2], '--batch 2: line 3 (same batch as the bad line)');
}

# default batch size 1000
{
    my (@ids, @lines);
    for (1 .. 1000) { my ($i, $r) = new_tx(); push @ids, $i; push @lines, line($r) }
    my $f = write_input(@lines, '{"kind":"tx","delete":"nope"}');
    my ($code, $out, $err) = load_index($db, $f);
    is($code, 1, '1000 good lines + bad line 1001: exit 1');
    error_at($err, $f, 1001, 'default batch');
    for my $n (1, 2, 500, 999, 1000) {
        is(get("$P$ids[$n - 1]")->{status}, 200, "default batch: line $n (first batch of 1000) applied");
    }

    my (@ids2, @lines2);
    for (1 .. 999) { my ($i, $r) = new_tx(); push @ids2, $i; push @lines2, line($r) }
    my $f2 = write_input(@lines2, '{"kind":"tx","delete":"nope"}');
    ($code, $out, $err) = load_index($db, $f2);
    is($code, 1, '999 good lines + bad line 1000: exit 1');
    error_at($err, $f2, 1000, 'default batch (one batch)');
    for my $n (1, 500, 999) {
        absent($ids2[$n - 1], "default batch: line $n of the rejected batch");
    }
    # remove the 1000 applied ones again
    my $del = write_input(map { qq({"kind":"tx","delete":"$_"}) } @ids);
    ($code, $out, $err) = load_index($db, $del);
    is($code, 0, 'deleting 1000 transactions: exit 0') or diag($err);
    absent($ids[0], 'deleted again');
}
fixtures_unchanged('after the batch tests');

# ---------------------------------------------------------------- empty input, usage

{
    my ($code, $out, $err) = load_index($db, { stdin => '' });
    is($code, 0, 'empty stdin: exit 0') or diag($err);
    my $f = write_input();
    ($code, $out, $err) = load_index($db, $f);
    is($code, 0, 'empty file: exit 0') or diag($err);
    fixtures_unchanged('empty input');
}

{
    my $load = build_path('chaindata-load');
    my ($code, $out, $err) = ChainData::Test::run_cmd([$load], stdin => '');
    is($code, 2, 'no --db: exit 2 (usage)');
    like($err, qr/\S/, 'no --db: a message on stderr');
    ($code) = load_index($db, '--frobnicate', { stdin => '' });
    is($code, 2, 'unknown option: exit 2');
    ($code) = load_index($db, '--batch', 'abc', { stdin => line($braw) . "\n" });
    is($code, 2, '--batch abc: exit 2');
    ($code) = ChainData::Test::run_cmd([$load, '--db', $db, '--batch'], stdin => '');
    is($code, 2, '--batch without a value: exit 2');
    absent($bid, 'usage errors apply nothing');

    my $missing = "$tmp/does-not-exist.ndjson";
    ($code, $out, $err) = load_index($db, $missing);
    isnt($code, 0, 'missing input file: non-zero exit');
    like($err, qr/\Q$missing\E/, 'missing input file: named on stderr');
    fixtures_unchanged('after usage errors');
}

# --db creates the directory
{
    my $dir = "$tmp/fresh-index";
    ok(!-e $dir, 'fresh index dir does not exist yet');
    my ($code, $out, $err) = load_index($dir, $fx);
    is($code, 0, 'loader into a missing dir: exit 0') or diag($err);
    ok(-d $dir, 'index dir created');
    ok(-f "$dir/data.mdb" && -f "$dir/lock.mdb", 'LMDB files created');
}

is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
$ng->stop;

done_testing;
