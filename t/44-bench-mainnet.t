#!/usr/bin/perl
# The mainnet-size bench at CI's size (issue 43), so that it cannot rot:
# build/gen-mainnet (bench/gen-mainnet.c, `make gen-mainnet`) refuses bad
# options, gives the same bytes for the same --seed and others for
# another, writes records the loader takes whole (v3 documents included,
# the heaviest transaction's events at --max-events, rune activity and
# one balance list an address) and the paths it says; and
# `BENCH_SMALL=1 bench/mainnet` runs and prints every figure.  No
# figure's value is asserted: they are timings of a shared machine.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

# the bench measures build/ (the plain build): under test-asan's build
# its nginx would load a module built for the sanitizers' runtimes
plan skip_all => 'bench/mainnet measures build/, not CHAINDATA_BUILD '
    . "($ENV{CHAINDATA_BUILD})"
    if $ENV{CHAINDATA_BUILD}
       && ChainData::Test::build_dir() ne repo_root() . '/build';

my $gen = repo_root() . '/build/gen-mainnet';
-x $gen or BAIL_OUT('missing build/gen-mainnet - run make gen-mainnet '
                    . '(make test builds it)');

my $dir = temp_dir();
my @small = ('--stacks', 400, '--rune-txs', 60, '--max-events', 700,
             '--fixtures', repo_root() . '/t/fixtures');

# ---------------------------------------------------------------- options

for my $bad (['--stacks', 'x'], ['--stacks', '-1'], ['--nonsense'],
             ['extra'], ['--max-events', 0])
{
    my ($code, $out, $err) = run_cmd([$gen, @$bad]);
    is($code, 2, "gen-mainnet @$bad: exit 2");
    like($err, qr/^(?:gen-mainnet: .*must be|usage: gen-mainnet)/m,
         "gen-mainnet @$bad: says why");
}

# ---------------------------------------------------------------- the stream

sub gen {
    my ($seed, @more) = @_;
    my ($code, $out, $err) = run_cmd([$gen, @small, '--seed', $seed, @more],
                                     timeout => 120);
    is($code, 0, "gen-mainnet --seed $seed: exit 0") or diag($err);
    return ($out, $err);
}

my ($a, $said) = gen('one', '--paths-dir', "$dir/paths", '--paths', 50);
my ($again) = gen('one');
my ($other) = gen('two');
ok($a eq $again, 'the same seed gives the same bytes');
ok($a ne $other, 'another seed gives other bytes');

my %n;
my ($v3, $max_events, $first_events) = (0, 0);
for my $line (split /\n/, $a) {
    my $r = json_decode($line);
    $n{ $r->{kind} }++;
    next unless $r->{kind} eq 'tx';
    my $d = $r->{data};
    $first_events //= $d->{event_count} // 0;
    $max_events = $d->{event_count}
        if ($d->{event_count} // 0) > $max_events;
    $v3++ if defined $r->{index_block_hash}
             && defined $r->{parent_index_block_hash}
             || defined $r->{receipt_block_height};
}
is($n{tx}, 400, '400 Stacks transactions');
is($n{rune_activity}, 60, '60 rune transactions');
is($n{rune_balances}, 1000, 'a balance list for each of 1,000 addresses');
is($first_events, 700, 'the first transaction has --max-events events');
is($max_events, 700, 'and none more');
cmp_ok($v3, '>', 300, "most transactions carry what v3 needs ($v3)");
like($said, qr/^gen-mainnet: bytes ${\ length $a} records 1460 stacks 400 /m,
     'it says the bytes and records it wrote');

for my $f (qw(tx tx-v3 activity balances)) {
    my @p = split /\n/, slurp("$dir/paths/$f.paths");
    is(scalar @p, 50, "$f.paths: 50 paths");
}

# the records load whole: every one of them, none refused
spew("$dir/records.ndjson", $a);
my ($code, $out, $err) = load_index("$dir/index", '--bulk',
                                    "$dir/records.ndjson");
is($code, 0, 'chaindata-load --bulk takes the stream') or diag($err);
like($err, qr/400 tx upserts.*60 rune activity lists.*1000 rune balance lists/,
     'every record written');
my $v3_records = `mdb_stat -s tx_v3 '$dir/index'` =~ /Entries: (\d+)/ ? $1 : 0;
cmp_ok($v3_records, '>=', $v3, "the v3 documents stored ($v3_records)");

# ---------------------------------------------------------------- the bench

($code, $out, $err) = run_cmd([repo_root() . '/bench/mainnet'],
    env => { BENCH_SMALL => 1, BENCH_TXS => 4000, BENCH_RUNE_TXS => 400 },
    timeout => 900);
is($code, 0, 'BENCH_SMALL=1 bench/mainnet: exit 0') or diag($err);

my $num = qr/[0-9][0-9.]*/;
for my $row (
    qr/^\| NDJSON streamed \(records\) \| $num bytes \($num\) \| $num bytes/m,
    qr/^\| bulk load, wall \(load average after it\) \| $num s/m,
    qr/^\| load CPU per record \(user \+ system\) \| $num µs \| $num µs \| $num \|/m,
    qr/^\| index \(LMDB pages in use\) \/ NDJSON \| ${num}x/m,
    qr/^\| the same, less the v3 databases .* \| ${num}x \| ${num}x/m,
    qr/^\| loader's peak RSS \| $num MiB \| $num MiB \| $num \|/m,
    (map { qr/^\| worker CPU per request, \Q$_\E \| $num µs.* \| $num µs.* \| $num \|/m }
         qw(tx tx-v3 activity balances status metrics)),
    qr/^\| chaindata-load --stats, wall per call .* \| $num ms \| $num ms \| $num \|/m,
    (map { qr/^\| \Q$_\E \| \d+ \| \d+ \| \d+ \| \d+ \| $num %/m }
         qw(tx tx_v3 tx_event tx_v3_event rune_activity rune_balances)),
    qr/^load average after the run: $num/m)
{
    like($out, $row, 'a figure printed');
}

done_testing();
