#!/usr/bin/perl
# A Runes catch-up fill ends without the pages its windows freed
# (src/ingest/chaindata_index_compact.c, doc/first-fill.md "Disk"), on
# answers the real Runes API 3.0.2 served (capture
# t/captures/runes-api-3.0.2/big-blocks.gz, its README says how it was
# made: blocks 844010 and 844011, 3,500 transactions), filled a block a
# window (--catch-up-window 1) into an index an nginx serves:
#
#   - the second window writes into most leaf pages of the first (the
#     keys are transaction ids and addresses: hashes), so LMDB copies them
#     and frees the old ones; before, the filled index kept them (about a
#     third of its pages here).  Now the fill ends with the index rewritten
#     compact: at most 32 free pages left, those of the few commits after
#     the compaction (the pass's state and tip records and the reorg
#     check: each commit frees the pages it copies, a path from a root to
#     a leaf in each database it writes, a handful);
#   - what it holds is unchanged: mdb_dump equals a fill's that kept its
#     free pages (a second writer held the index open, below), and the edge
#     answers every transaction as upstream did;
#   - readers open on the index all along: an edge worker answering the
#     first block's transactions from the moment it first could never
#     answers otherwise (a reader on a wrong meta page would answer 404 or
#     an error), and it goes over to the compact file (its log says so);
#   - refused when it cannot be done safely: another writer (a
#     chaindata-load waiting on its input) has the index open: the fill
#     says why, leaves its free pages, and the index is whole.
# Not a timed test: the reader's answers are compared, not timed.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(_exit);
use Time::HiRes qw(sleep);
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_locations);
use ChainData::Upstream qw(write_capture capture_path captured_activity
                           nginx_locations index_dump);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $LOAD = build_path('chaindata-load');
my $CAPTURE = capture_path('runes-api-3.0.2') . '/big-blocks.gz';
my $BOUND = 32;

my $root = temp_dir();
my $answers = write_capture($root, $CAPTURE);
ok($answers > 9000, "capture $CAPTURE: $answers answers");

my %tx = %{ captured_activity($root) };
is(scalar keys %tx, 3500, 'the capture holds 3,500 transactions');
my ($first) = sort grep { $tx{$_} =~ /"block_height":844010/ } keys %tx;

# two empty indexes: the one the edge serves, and the one another writer
# holds open while it is filled
my ($db, $kept) = ("$root/fill", "$root/kept");
for my $dir ($db, $kept) {
    my ($code, $out, $err) = load_index($dir);
    is($code, 0, "empty index $dir") or diag($err);
}
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(db => $db,
    locations => rune_locations() . nginx_locations($root, captured => 1));
my $port = $ng->port;
my ($code, $out, $err);

# a block a window: the second window writes into the first's pages
sub fill {
    my ($dir) = @_;
    return run_cmd([$MIRROR, '--db', $dir, '--catch-up', 'fill',
                    '--catch-up-window', '1', '--once', '--runes-api',
                    "http://127.0.0.1:$port/up", '--runes-from-height',
                    '844010', '--parallel', '8'], timeout => 600);
}

# mdb_stat -ef: pages used, free pages
sub pages {
    my ($dir) = @_;
    my $st = `mdb_stat -ef $dir 2>&1`;
    my ($used) = $st =~ /Number of pages used: (\d+)/;
    my ($free) = $st =~ /Free pages: (\d+)/;
    return ($used // -1, $free // -1);
}

# the reader: the first block's first transaction, asked again and again;
# once answered as upstream does, every answer after must be the same
my $stop = "$root/reader.stop";
my $seen = "$root/reader.out";
my $reader = fork // die "fork: $!";
if ($reader == 0) {
    my ($good, $asked, $bad) = (0, 0, 0);
    my $detail = '';
    until (-e $stop) {
        my $r = http_get($port,
            "/runes/v1/transactions/$first/activity?offset=0&limit=60");
        my $ok = $r->{status} == 200 && $r->{body} eq $tx{$first};
        $good ||= $ok;
        if ($good) {
            $asked++;
            if (!$ok) {
                $bad++;
                $detail ||= "$r->{status} " . substr($r->{body} // '', 0, 80);
            }
        }
        sleep 0.002;
    }
    spew($seen, "$asked $bad $detail");
    _exit(0);
}

($code, $out, $err) = fill($db);
is($code, 0, 'filled a block a window: exit 0') or diag($err);
like($err, qr/filled blocks 844010 to 844011 in 2 windows: 3500 transactions/,
     'filled: two windows, every transaction');
like($err, qr/the index compacted after the fill: \d+ pages of \d+ given back/,
     'the fill says it compacted the index');
my ($used, $free) = pages($db);
cmp_ok($free, '<=', $BOUND, "filled index: $free free pages of $used "
       . "(at most $BOUND)");
ok(!-e "$db/data.mdb.compact", 'no copy left beside data.mdb');

# the edge goes over to the compact file, and its reader never wavered
ok(eventually(10, sub {
        http_get($port, "/runes/v1/transactions/$first/activity?offset=0&limit=60");
        $ng->error_log =~ /another index was renamed over the one open/
    }), 'the edge opened the compact index');
sleep 0.2;
spew($stop, '');
waitpid($reader, 0);
my ($asked, $bad, $detail) = split / /, slurp($seen), 3;
ok($asked > 0, "the reader asked $asked times after its first good answer");
is($bad, 0, 'the reader never answered otherwise while the fill committed '
   . 'and compacted') or diag($detail);

my $wrong = 0;
for my $id (sort keys %tx) {
    my $r = http_get($port, "/runes/v1/transactions/$id/activity?offset=0&limit=60");
    next if $r->{status} == 200 && $r->{body} eq $tx{$id};
    diag("$id: $r->{status} " . substr($r->{body}, 0, 80)) if !$wrong++;
}
is($wrong, 0, 'the compact index answers all 3,500 transactions as upstream');

# another writer has the index open: refused, the free pages kept
my $pid = open(my $hold, '|-', $LOAD, '--db', $kept, '--quiet', '-')
    // die "chaindata-load: $!";
ok(eventually(10, sub {
        grep { (readlink($_) // '') =~ m{/data\.mdb$} } glob "/proc/$pid/fd/*"
    }), 'chaindata-load holds the second index open');
($code, $out, $err) = fill($kept);
is($code, 0, 'filled beside another writer: exit 0') or diag($err);
like($err, qr/keeps the \d+ free pages of the fill .*not compacted: another writer \(chaindata-load\?\) has the index open/,
     'the fill says why it did not compact');
close $hold;
my ($kused, $kfree) = pages($kept);
cmp_ok($kfree, '>', $BOUND, "not compacted: $kfree free pages of $kused");
ok(!-e "$kept/data.mdb.compact", 'no copy left');
ok(index_dump($db) eq index_dump($kept),
   'compacted index = the one that kept its free pages (mdb_dump)');

$ng->stop;
done_testing();
