#!/usr/bin/perl
# Values kept in parts (lmdb-schema/README.md, "Values in parts"): an
# index of random data (bench/gen-dataset.pl --random, whose documents
# and chunks of events are often over LMDB's node limit) keeps such
# transactions, v3 documents and chunks of events in parts, with no
# overflow page for any of them; every transaction answers its document,
# plain and gzip, and pages of events across chunks in parts, on v1 and
# v3, inline and through chaindata_threads' pool byte for byte alike; a
# part taken out of the index (the database loaded again without it) is
# a 500, logged as a damaged index, the other transactions served; a part
# replaced by random bytes of its length is a 500 plain and gzip alike.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my %GZ = ('Accept-Encoding' => 'gzip');

# 300 random transactions and a genesis-like one of 2,000 events, with
# the members v3 needs (tools/v3-stand-ins, as the mirror writes them)
my $dir = temp_dir();
my $nd = "$dir/random.ndjson";
my ($code, undef, $err) = run_cmd([$^X, repo_root() . '/bench/gen-dataset.pl',
                                   '--random', '--txs', 300,
                                   '--genesis-events', 2000, '--out', "$nd.0"],
                                  timeout => 300);
is($code, 0, 'random transactions generated') or diag($err);
my $records;
($code, $records, $err) = run_cmd([repo_root() . '/tools/v3-stand-ins', "$nd.0"]);
is($code, 0, 'with what v3 needs') or diag($err);
spew($nd, $records);
my @txs = tx_fixtures($nd);
is(scalar @txs, 301, '301 transactions');

my $db = new_index($nd);

# parts: keys one byte longer than the database's own
my %parts;
for my $name (qw(tx tx_event tx_v3 tx_v3_event)) {
    my $dump = mdb_dump_of($db, $name);
    my %kv = mdb_dump_pairs($dump);
    my $klen = $name =~ /event/ ? 36 : 32;
    $parts{$name} = grep { length($_) == 2 * ($klen + 1) } keys %kv;
    ok($parts{$name} > 20, "\"$name\" keeps values in parts "
                           . "($parts{$name} parts)");
    my ($code, $out) = run_cmd(['mdb_stat', '-s', $name, $db]);
    my ($ovf) = $out =~ /Overflow pages: (\d+)/;
    # the most bytes in parts: 31 more parts, the last one byte short
    my $first = ($name =~ /event/ ? 1350 : 2030) - $klen;
    my $most = $first + 31 * ($first - 1) - 1;
    my ($big) = grep { length($kv{$_}) / 2 > $most } keys %kv;
    ok(defined $ovf && ($ovf == 0 || $big),
       "\"$name\": no overflow page but for a value over the most parts");
}

my $locations = <<'EOF';
        location /extended/v1/tx/ { chaindata_tx; }
        location /extended/v3/transactions/ { chaindata_tx_v3; }
EOF

my $inline = ChainData::Test::Nginx->start(db => $db, locations => $locations);
my $pool = ChainData::Test::Nginx->start(
    db => $db,
    main => "thread_pool chaindata threads=2;\n",
    http => "    chaindata_threads chaindata;\n",
    locations => $locations,
);

my ($genesis) = grep { ($_->{event_count} // 0) == 2000 } @txs;

# what a client sees, but the date
sub seen {
    my ($r) = @_;
    return join("\n", $r->{status},
                map({ "$_->[0]: $_->[1]" } grep { lc $_->[0] ne 'date' }
                    @{ $r->{header_list} }),
                '', $r->{body});
}

my ($n, $bad, $same) = (0, 0, 0);
for my $tx (@txs) {
    my $id = $tx->{tx_id};
    my @pages = ([0, 20]);
    push @pages, [15, 30], [0, 100], [1980, 40] if $tx == $genesis;
    for my $p (@pages) {
        my ($off, $lim) = @$p;
        my $path = "/extended/v1/tx/$id?event_offset=$off&event_limit=$lim";
        my $want = splice_events($tx->{data_raw}, $off, $lim, 0);
        my $plain = http_get($inline->port, $path);
        my $gz = http_get($inline->port, $path, %GZ);
        my $body = gunzip_body($gz->{body});
        $n++;
        $bad++, diag($path) unless $plain->{status} == 200
            && ($tx->{mempool} || $plain->{body} eq $want)
            && defined $body && $body eq $plain->{body};
    }
    my @v3 = ("/extended/v3/transactions/$id",
              "/extended/v3/transactions/$id?include=function_args,"
              . 'source_code,post_conditions,result');
    push @v3, "/extended/v3/transactions/$id/events?limit=100",
              "/extended/v3/transactions/$id/events?cursor=1990"
        if $tx == $genesis;
    for my $path ("/extended/v1/tx/$id", @v3) {
        for my $h ({}, \%GZ) {
            $same++ if seen(http_get($pool->port, $path, %$h))
                       eq seen(http_get($inline->port, $path, %$h));
        }
    }
}
is($bad, 0, "$n answers of v1: the documents, gzip inflating to plain");
my $v3 = 2 * (3 * @txs + 2);
is($same, $v3, "through the thread pool: $v3 answers of v1 and v3 as "
               . 'inline');

$inline->stop;
$pool->stop;

# a part taken out: the index loaded again without it
{
    my %kv = mdb_dump_pairs(mdb_dump_of($db, 'tx'));
    my ($part) = sort grep { length($_) == 66 } keys %kv;
    my $id = '0x' . substr($part, 0, 64);
    my ($other) = grep { !exists $kv{ substr($_->{tx_id}, 2) . '01' } } @txs;
    my $ddb = new_index({ stdin => '' });
    my $dump = mdb_dump_of($db, 'tx');
    my $gone = ($dump =~ s/^ \Q$part\E\n \S+\n//m);
    ok($gone, "a part of $id taken out");
    my $in = temp_dir() . '/tx.dump';
    spew($in, $dump);
    for my $name (qw(tx_event tx_v3 tx_v3_event)) {
        my $f = temp_dir() . "/$name.dump";
        spew($f, mdb_dump_of($db, $name));
        run_cmd(['mdb_load', '-s', $name, '-f', $f, $ddb]);
    }
    my ($code, undef, $err) = run_cmd(['mdb_load', '-s', 'tx', '-f', $in,
                                       $ddb]);
    is($code, 0, 'the index without it') or diag($err);
    fixup_index_perms($ddb);
    my $ng = ChainData::Test::Nginx->start(db => $ddb,
                                           locations => $locations);
    $ng->expect_log(qr/parts are not as written/);
    for my $h ({}, \%GZ) {
        my $r = http_get($ng->port, "/extended/v1/tx/$id", %$h);
        is($r->{status}, 500, 'its transaction: 500'
                              . (%$h ? ' (gzip)' : ''));
        like($r->{headers}{'content-type'} // '', qr{^application/json},
             '... a JSON error');
    }
    is(http_get($ng->port, "/extended/v1/tx/$other->{tx_id}")->{status}, 200,
       'another transaction: 200');
    $ng->stop;
    like($ng->error_log,
         qr/reading "tx" failed: a value's parts are not as written/,
         'the damaged index logged');
}

# a part replaced by random bytes of its length, the layout intact (the
# middle part of the value of each database with the most parts): a 500
# plain and gzip alike, logged as a damaged piece, for a transaction, a
# v3 document with all its parts and a page of events that is one whole
# chunk (a gzip answer copies stored pieces without inflating them: their
# stored CRC-32 is what finds it, lmdb-schema/pieces.md); another
# transaction served
{
    my (%path, %seen);
    my %route = (
        tx => sub { "/extended/v1/tx/0x$_[0]" },
        tx_v3 => sub { "/extended/v3/transactions/0x$_[0]?include="
                       . 'function_args,source_code,post_conditions,result' },
        tx_event => sub {
            my ($id, $chunk) = unpack('a64 a8', $_[0]);
            my $off = 20 * hex $chunk;
            return "/extended/v1/tx/0x$id?event_offset=$off&event_limit=20";
        },
    );
    my $ddb = $db;
    for my $name (qw(tx tx_v3 tx_event)) {
        my %kv = mdb_dump_pairs(mdb_dump_of($db, $name));
        my $klen = $name eq 'tx_event' ? 72 : 64;
        my %n;
        $n{ substr($_, 0, $klen) }++ for grep { length == $klen + 2 } keys %kv;
        # the most parts, of a transaction not damaged yet
        my ($key) = sort { $n{$b} <=> $n{$a} || $a cmp $b }
                    grep { !$seen{ substr($_, 0, 64) } } keys %n;
        $seen{ substr($key, 0, 64) } = 1;
        my $part = $key . sprintf('%02x', int(($n{$key} + 1) / 2));
        ok($n{$key} >= 2, "$name: a value of $n{$key} parts after its "
                          . 'first');
        $ddb = index_with_values($ddb, $name, {
            $part => random_hex(length($kv{$part}) / 2, "$name $part") });
        $path{$name} = $route{$name}->($key);
    }
    my ($other) = grep { !$seen{ substr($_->{tx_id}, 2) } } @txs;
    my $ng = ChainData::Test::Nginx->start(db => $ddb,
                                           locations => $locations);
    $ng->expect_log(qr/a stored piece/);
    for my $name (qw(tx tx_v3 tx_event)) {
        for my $h ({}, \%GZ) {
            my $r = http_get($ng->port, $path{$name}, %$h);
            my $what = "random part of \"$name\": $path{$name}"
                       . (%$h ? ' (gzip)' : '');
            is($r->{status}, 500, "$what: 500");
            like($r->{body}, qr/"statusCode":500/, "$what: a JSON error");
        }
    }
    for my $h ({}, \%GZ) {
        is(http_get($ng->port, "/extended/v1/tx/$other->{tx_id}", %$h)
           ->{status}, 200, 'another transaction: 200' . (%$h ? ' (gzip)'
                                                            : ''));
    }
    $ng->stop;
    my @logged = $ng->error_log =~ /\[alert\].*(a stored piece.*damaged)/g;
    my %lines = map { $_ => 1 } @logged;
    ok(@logged == 6 && keys %lines == 1, 'each of the 6 logged at alert as '
       . 'a damaged piece, the same line plain and gzip');
    unlike($ng->error_log, qr/record is damaged/,
           'the layout intact: no record refused as damaged');
}

done_testing();
