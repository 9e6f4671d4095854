#!/usr/bin/perl
# chaindata-load --snapshot (doc/loader.md "Snapshots"): a copy taken while a
# follower writes blocks and nginx serves holds whole blocks and the feed
# position of one moment; renamed into place under the running nginx it
# is served without a reload; a follower then continues it to the tip
# from its feed position, and the result equals a direct load.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX ();
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

my ($tx) = grep { !$_->{mempool} && $_->{event_count} }
           tx_fixtures(fixture_path('tx.ndjson'));
ok($tx, 'a fixture transaction with events') or BAIL_OUT('fixtures incomplete');

my $P = '/extended/v1/tx/';
my $TXS = 3;    # transactions a block

sub tx_id { sprintf '0x%056x%04x%04x', 0x5a4b, $_[0], $_[1] }

# block $h as block-framed NDJSON (lmdb-schema/feed.md)
sub block {
    my ($h) = @_;
    my $s = qq({"kind":"block","source":"stacks","height":$h,"hash":"b$h",)
          . qq("parent":"b${\ ($h - 1)}","time":${\ (1000 + $h)}}\n);
    for my $i (1 .. $TXS) {
        my $id = tx_id($h, $i);
        (my $raw = $tx->{data_raw}) =~ s/\Q$tx->{tx_id}\E/$id/g;
        $s .= qq({"kind":"tx","data":$raw}\n);
    }
    return $s . qq({"kind":"block_end","source":"stacks","height":$h}\n);
}

sub blocks { my ($from, $to) = @_; return join '', map { block($_) } $from .. $to }

sub feed_height {
    my ($db) = @_;
    my ($code, $out, $err) = load_index($db, '--stats');
    return -1 if $code;
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($out)->{feeds} };
    return $f ? $f->{height} : 0;
}

# the ids in an index's tx database
sub tx_ids {
    my ($db) = @_;
    my ($code, $out) = run_cmd(['mdb_dump', '-s', 'tx', $db]);
    return { map { ("0x$_" => 1) } $out =~ /^ ([0-9a-f]{64})$/mg };
}

sub status_of {
    my ($ng, $id) = @_;
    return http_get($ng->port, "$P$id")->{status};
}

my $dir = temp_dir();
my $db = "$dir/index";
my $snap = "$dir/snapshot";

my ($code, $out, $err) = load_index($db, '--follow', '-', { stdin => block(1) });
is($code, 0, 'first block loaded') or diag($err);
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location $P { chaindata_tx; }\n",
);
is(status_of($ng, tx_id(1, 1)), 200, 'nginx serves the index');


# --- a follower writes block after block while the snapshot is taken ------

my $stop = "$dir/stop-writing";
my $tip_file = "$dir/tip";
my $pid = fork;
die "fork: $!" unless defined $pid;
if ($pid == 0) {
    # the writer: blocks until told to stop, then ten more; at most 3,000
    # blocks, should the parent never say (a bound only a hang reaches)
    open my $to, '|-', build_path('chaindata-load'), '--quiet', '--db', $db,
        '--follow', '-' or POSIX::_exit(2);
    select((select($to), $| = 1)[0]);
    my ($h, $last) = (1, 3000);
    while (++$h <= $last) {
        print {$to} block($h);
        $last = $h + 10 if -e $stop && $last > $h + 10;
        sleep 0.002;
    }
    close $to;
    spew($tip_file, $h - 1);
    POSIX::_exit($? >> 8);
}

ok(eventually(60, sub { feed_height($db) >= 5 }), 'the follower writes');
($code, $out, $err) = load_index($db, '--snapshot', $snap);
spew($stop, '');
is($code, 0, '--snapshot under load: exit 0') or diag($err);
like($err, qr/snapshot written to \Q$snap\E/, '--snapshot: says where');
waitpid($pid, 0);
is($? >> 8, 0, 'the follower wrote on to its tip');
my $tip = slurp($tip_file);
is(feed_height($db), $tip, "the live index is at the tip ($tip)");

ok(-f "$snap/data.mdb", 'the snapshot is a directory with data.mdb');
ok(!glob("$snap.tmp-*"), 'no temporary copy left beside it');

my $at = feed_height($snap);
ok($at >= 5 && $at < $tip, "the snapshot carries a feed position ($at)");
my $ids = tx_ids($snap);
is(scalar(keys %$ids), $at * $TXS, 'it has whole blocks: every transaction up to its position');
is(scalar(grep { $ids->{ tx_id($_, 1) } && $ids->{ tx_id($_, $TXS) } } 1 .. $at),
   $at, 'each of them');

($code, $out, $err) = load_index($db, '--snapshot', $snap);
is($code, 3, '--snapshot to an existing name: exit 3');
like($err, qr/\Q$snap\E: it exists already/, '--snapshot to an existing name: says why');
($code, $out, $err) = load_index("$dir/none", '--snapshot', "$dir/other");
is($code, 3, '--snapshot of no index: exit 3');
like($err, qr/no index to copy at \Q$dir\E\/none\/data.mdb/, '--snapshot of no index: says why');


# --- moved into place under the running nginx ------------------------------

is(status_of($ng, tx_id($tip, 1)), 200, 'before the swap: the tip is served');
fixup_index_perms($snap);
rename $db, "$db.old" or die "rename: $!";
rename $snap, $db or die "rename: $!";
ok(eventually(10, sub { status_of($ng, tx_id($tip, 1)) == 404 }),
   'renamed into place: the snapshot is served, without a reload');
is(status_of($ng, tx_id($at, $TXS)), 200, 'its last block too');
$ng->expect_log(qr/another index was renamed over the one open/);


# --- followed from its feed position to the tip ----------------------------

($code, $out, $err) = load_index($db, '--follow', '-',
                                 { stdin => blocks($at + 1, $tip + 5) });
is($code, 0, 'followed from the snapshot: exit 0') or diag($err);
is(feed_height($db), $tip + 5, 'at the new tip');
is(status_of($ng, tx_id($tip + 5, $TXS)), 200, 'nginx serves the new blocks');

my $direct = "$dir/direct";
($code, $out, $err) = load_index($direct, '--follow', '-',
                                 { stdin => blocks(1, $tip + 5) });
is($code, 0, 'a direct load of the same blocks') or diag($err);
is(mdb_dump_of($db, 'tx'), mdb_dump_of($direct, 'tx'), 'the followed snapshot equals it (mdb_dump)');

$ng->stop;
done_testing();
