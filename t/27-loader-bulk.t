#!/usr/bin/perl
# chaindata-load --bulk (doc/loader.md "Bulk load"): the same index as a normal
# load of the same input (mdb_dump), batches parsed ahead on parser
# threads but committed and reported in the input's order, a bad line
# reported with its file and line and the index left with exactly the
# batches before it, the mark a bulk run cut short leaves behind, and
# the index rewritten with full leaves at the end.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX ();
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

my $dir = temp_dir();
my @fixtures = map { fixture_path($_) }
               qw(tx.ndjson tx-many-events.ndjson runes.ndjson chainhook.ndjson);

# 3,000 transactions of the benchmark's shape, in two files
my $gen = "$dir/gen.ndjson";
my ($gcode, $gout, $gerr) = run_cmd([$^X, repo_root() . '/bench/gen-dataset.pl',
    '--txs', 3000, '--genesis-events', 100, '--seed', 'bulk-test', '--out', $gen]);
$gcode == 0 or BAIL_OUT("bench/gen-dataset.pl failed: $gerr");
my @gen = split /^/m, slurp($gen);
spew("$dir/a.ndjson", join '', @gen[0 .. 1499]);
spew("$dir/b.ndjson", join '', @gen[1500 .. $#gen]);
my @input = (@fixtures, "$dir/a.ndjson", "$dir/b.ndjson");

sub load_ok {
    my ($db, $name, @args) = @_;
    my ($code, $out, $err) = load_index($db, '--quiet', @args);
    is($code, 0, "$name: exit 0") or diag($err);
    return $err;
}

my $normal = "$dir/normal";
load_ok($normal, 'a normal load', @input);

for my $batch (undef, 1, 97, 1000) {
    my $db = "$dir/bulk-" . ($batch // 'default');
    my @b = defined $batch ? ('--batch', $batch) : ();
    my $name = '--bulk' . (defined $batch ? " --batch $batch" : '');
    load_ok($db, $name, '--bulk', @b, @input);
    ok(mdb_dump_of($db) eq mdb_dump_of($normal), "$name: the same index (mdb_dump)");
    ok(!-e "$db/bulk-load.unfinished", "$name: no mark left");
}

# the bulk load's last step rewrites the index with full leaves (doc/loader.md
# "Bulk load"): fewer pages in use than the normal load's, nothing left
# beside the index
sub pages_in_use {
    my ($db) = @_;
    my ($code, $out) = run_cmd(['mdb_stat', '-ef', $db]);
    my ($used) = $out =~ /Number of pages used: (\d+)/;
    my ($free) = $out =~ /Free pages: (\d+)/;
    return ($used // 0) - ($free // 0);
}
{
    my ($n, $b) = (pages_in_use($normal), pages_in_use("$dir/bulk-default"));
    ok($b > 0 && $b < 0.85 * $n,
       "--bulk: full leaves, $b pages in use against the normal load's $n");
    my @left = grep { !m{/(?:data|lock)\.mdb$} } glob("$dir/bulk-default/*");
    is("@left", '', '--bulk: no copy left beside the index');
}

my $db = "$dir/stdin";
load_ok($db, '--bulk from standard input', '--bulk', '--batch', 250,
        @fixtures, '-', { stdin => slurp("$dir/a.ndjson") . slurp("$dir/b.ndjson") });
ok(mdb_dump_of($db) eq mdb_dump_of($normal), '--bulk from standard input: the same index');


# --- a bad line ------------------------------------------------------------

my @bad = @gen[0 .. 999];
$bad[449] = qq({"kind":"tx","data":{"tx_id":"nope"}}\n);    # line 450
$bad[849] = "not json\n";                                   # line 850
spew("$dir/bad.ndjson", join '', @bad);

$db = "$dir/bad";
my ($code, $out, $err) = load_index($db, '--bulk', '--batch', 100,
                                    "$dir/bad.ndjson");
is($code, 1, 'a bad line: exit 1');
like($err, qr/^chaindata-load: \Q$dir\E\/bad\.ndjson:450: data\.tx_id /m,
     'a bad line: reported with its file and line');
like($err, qr/bad\.ndjson: batch of lines 401-500 rejected \(1 invalid\); none of it was applied/,
     'a bad line: its batch rejected');
unlike($err, qr/:850:/, 'a bad line: nothing read after its batch is reported');
like($err, qr/4 batches committed \(400 tx upserts/, 'a bad line: the batches before it committed');
ok(!-e "$db/bulk-load.unfinished", 'a bad line: the index is synced and unmarked');

spew("$dir/first400.ndjson", join '', @gen[0 .. 399]);
load_ok("$dir/first400", 'the first 400 lines alone', "$dir/first400.ndjson");
ok(mdb_dump_of($db) eq mdb_dump_of("$dir/first400"),
   'a bad line: the index holds exactly the batches before it');

$db = "$dir/skip";
load_ok($db, '--bulk --skip-invalid', '--bulk', '--batch', 100, '--skip-invalid',
        "$dir/bad.ndjson");
load_ok("$dir/skip-normal", 'a normal --skip-invalid', '--skip-invalid',
        "$dir/bad.ndjson");
ok(mdb_dump_of($db) eq mdb_dump_of("$dir/skip-normal"),
   '--bulk --skip-invalid: the same index as without --bulk');

($code, $out, $err) = load_index("$dir/framed", '--bulk', '-', { stdin =>
    qq({"kind":"block","source":"stacks","height":1,"hash":"a1","parent":"a0","time":1}\n) });
is($code, 1, 'block framing: exit 1');
like($err, qr/<stdin>:1: block framing .* is loaded without --bulk/, 'block framing: says why');

($code, $out, $err) = load_index("$dir/none", '--bulk', '--follow', $gen);
is($code, 2, '--bulk --follow: a usage error');


# --- a bulk run cut short ---------------------------------------------------

$db = "$dir/killed";
my $pid = fork;
die "fork: $!" unless defined $pid;
if ($pid == 0) {
    open STDERR, '>', '/dev/null';
    { no warnings 'exec';
      exec build_path('chaindata-load'), '--db', $db, '--bulk', '--batch', 50,
           ($gen) x 20; }
    POSIX::_exit(127);
}
# the mark is there before the first commit; 60 s bounds a hang only
my $deadline = time + 60;
sleep 0.01 until -e "$db/bulk-load.unfinished" || time > $deadline;
kill 'KILL', $pid;
waitpid($pid, 0);
ok(-e "$db/bulk-load.unfinished", 'killed: the mark stays');

($code, $out, $err) = load_index($db, $gen);
is($code, 3, 'killed: another load refuses the index');
like($err, qr/a --bulk load into this index did not finish .*remove \Q$db\E and run the bulk load again/,
     'killed: says why and what to do');
($code, $out, $err) = load_index($db, '--bulk', $gen);
is($code, 3, 'killed: so does another bulk load');
($code, $out, $err) = load_index($db, '--snapshot', "$dir/snap");
is($code, 3, 'killed: and a snapshot');
($code, $out, $err) = load_index($db, '--stats');
is($code, 0, 'killed: --stats still reads it');
like($err, qr/did not finish/, 'killed: --stats warns');

done_testing();
