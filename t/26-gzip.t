#!/usr/bin/perl
# Transactions served gzip from their stored pieces (doc/module.md,
# "Transactions"): every gzipped answer inflates to exactly the plain one,
# Accept-Encoding is read with its q-values, HEAD and Content-Length
# match GET, and nginx's own gzip never compresses a second time (gzip on,
# as nginx.conf.example has it, and gzip off with gzip_vary off).  Pages
# of events stored in chunks of 20: aligned, cut at either end, past the
# end, without function_args, a damaged chunk, the first chunk inside
# the transaction's value or not (just within LMDB's node limit and just
# over it), and a 330,000-event genesis-like transaction at offsets up to
# past its end.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my @files = map { fixture_path($_) } qw(tx.ndjson tx-many-events.ndjson);
my @txs = tx_fixtures(@files);
ok(@txs > 5, 'transactions') or BAIL_OUT('fixtures');

my $db = new_index(@files);
my %example = example_config();
my $on = ChainData::Test::Nginx->start(db => $db, %example);
my $off = ChainData::Test::Nginx->start(
    db => $db,
    http => "gzip off;\n",
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);

my %GZ = ('Accept-Encoding' => 'gzip');

# every transaction, pages, function_args left out: gzip inflates to plain
for my $ng ($on, $off) {
    my $port = $ng->port;
    my $name = $ng == $on ? 'gzip on' : 'gzip off';
    my ($n, $bad) = (0, 0);
    for my $tx (@txs) {
        for my $q ('', '?event_limit=1', '?event_offset=3&event_limit=7',
                   '?exclude_function_args=true', '?event_offset=100000')
        {
            my $path = "/extended/v1/tx/$tx->{tx_id}$q";
            my $plain = http_get($port, $path);
            my $gz = http_get($port, $path, %GZ);
            $n++;
            my $body = gunzip_body($gz->{body});
            my $good = $plain->{status} == 200 && $gz->{status} == 200
                && !defined $plain->{headers}{'content-encoding'}
                && ($gz->{headers}{'content-encoding'} // '') eq 'gzip'
                && defined $body && $body eq $plain->{body}
                && $gz->{headers}{'content-length'} == length $gz->{body}
                && ($gz->{headers}{vary} // '') eq 'Accept-Encoding'
                && ($plain->{headers}{vary} // '') eq 'Accept-Encoding';
            $bad++, diag("$name $path") unless $good;
        }
    }
    is($bad, 0, "$name: $n gzip answers inflate once to exactly the plain "
                . 'one, with one Vary');
}

my $port = $on->port;
my ($TX) = grep { ($_->{event_count} // 0) > 30 } @txs;
my $P = "/extended/v1/tx/$TX->{tx_id}";
my $plain = http_get($port, $P);

# Accept-Encoding, with q-values (RFC 9110, 12.5.3)
my @ae = (
    ['gzip', 1], ['GZIP', 1], ['x-gzip', 1], ['deflate, gzip', 1],
    ['gzip;q=0.5', 1], ['gzip; q=1.000', 1], ['gzip ;q=0.001', 1],
    ['*', 1], ['*;q=0.1', 1], ['br, *', 1],
    ['gzip;q=0', 0], ['gzip;q=0.000', 0], ['gzip;q=0, *', 0],
    ['*;q=0', 0], ['identity', 0], ['deflate, br', 0], ['', 0],
    ['gzip;q=2', 0], ['gzip;q=0.0001', 0], ['gzipx', 0],
    ['*;q=0, gzip', 1], ['identity;q=0, gzip;q=0.2', 1],
);
for my $c (@ae) {
    my ($ae, $want) = @$c;
    my $r = http_get($port, $P, 'Accept-Encoding' => $ae);
    my $enc = $r->{headers}{'content-encoding'} // '';
    is($enc, $want ? 'gzip' : '', "Accept-Encoding: '$ae': "
                                  . ($want ? 'gzip' : 'plain'));
    my $body = $want ? gunzip_body($r->{body}) : $r->{body};
    is($body, $plain->{body}, '... the same document');
}

# HEAD: the headers of GET, no body
for my $h (\%GZ, {}) {
    my $get = http_get($port, $P, %$h);
    my $head = http_request($port, 'HEAD', $P, %$h);
    is($head->{status}, 200, 'HEAD: 200');
    is($head->{body}, '', 'HEAD: no body');
    for my $hd (qw(content-length content-encoding etag vary)) {
        is($head->{headers}{$hd}, $get->{headers}{$hd}, "HEAD: the $hd of GET");
    }
}

# pages of events stored in chunks of 20 (lmdb-schema/pieces.md, "Chunks"):
# aligned on chunks (pieces copied), cut at either end or both (the cut
# chunk's events as stored blocks), past the end, with function_args left
# out; each plain page is the fixture's, each gzip one inflates to it
{
    my ($big) = grep { ($_->{event_count} // 0) == 640 } @txs;
    my $id = $big->{tx_id};
    my ($n, $bad) = (0, 0);
    for my $page ([0, 20], [20, 40], [600, 40], [620, 20], [540, 100],
                  [7, 50], [19, 2], [21, 100], [39, 1], [3, 7], [630, 100],
                  [639, 100], [0, 100], [1, 20], [640, 20], [641, 5],
                  [100000, 20])
    {
        my ($off, $lim) = @$page;
        for my $ex (0, 1) {
            my $q = "?event_offset=$off&event_limit=$lim"
                  . ($ex ? '&exclude_function_args=true' : '');
            my $path = "/extended/v1/tx/$id$q";
            my $want = splice_events($big->{data_raw}, $off, $lim, $ex);
            my $plain = http_get($port, $path);
            my $gz = http_get($port, $path, %GZ);
            my $body = gunzip_body($gz->{body});
            $n++;
            my $good = $plain->{status} == 200 && $plain->{body} eq $want
                && ($gz->{headers}{'content-encoding'} // '') eq 'gzip'
                && defined $body && $body eq $want;
            $bad++, diag("640 events: $q") unless $good;
        }
    }
    is($bad, 0, "640 events: $n pages, aligned, cut, past the end, with and "
                . 'without function_args: plain as stored, gzip inflates '
                . 'to it');
}

# a damaged chunk (its deflate bytes changed, mdb_load): a page that cuts
# it, or takes it whole, plain (inflated) or gzip (its piece copied after
# its stored CRC-32 is checked), is a 500, logged; pages of the other
# chunks are served as before
{
    my ($big) = grep { ($_->{event_count} // 0) == 640 } @txs;
    my $id = $big->{tx_id};
    my $ddb = new_index(@files);
    my $dump = mdb_dump_of($ddb, 'tx_event');
    my $key = substr($id, 2) . '00000001';
    my $n = ($dump =~ s/^ \Q$key\E\n (\S+)\n/" $key\n " . damage($1) . "\n"/me);
    ok($n, 'damaged chunk: chunk 1 of the 640-event transaction changed');
    my $in = temp_dir() . '/tx_event.dump';
    spew($in, $dump);
    my ($code, undef, $err) = run_cmd(['mdb_load', '-s', 'tx_event', '-f', $in,
                                       $ddb]);
    is($code, 0, 'damaged chunk: loaded') or diag($err);
    my $ng = ChainData::Test::Nginx->start(db => $ddb, %example);
    $ng->expect_log(qr/does not inflate|damaged/);
    my $P = "/extended/v1/tx/$id";
    for my $c (["?event_offset=25&event_limit=5", 500, 500],
               ["?event_offset=15&event_limit=10", 500, 500],
               ["?event_offset=20&event_limit=20", 500, 500],
               ["?event_offset=40&event_limit=20", 200, 200],
               ['', 200, 200])
    {
        my ($q, $plain, $gz) = @$c;
        is(http_get($ng->port, "$P$q")->{status}, $plain,
           "damaged chunk: plain $q: $plain");
        is(http_get($ng->port, "$P$q", %GZ)->{status}, $gz,
           "damaged chunk: gzip $q: $gz");
    }
}

# the hex of a chunk value with one byte of its piece's deflate changed
sub damage {
    my ($hex) = @_;
    my $at = length($hex) - 20;    # inside the deflate bytes, before 03 00
    my $b = hex(substr($hex, $at, 2)) ^ 0x5a;
    substr($hex, $at, 2) = sprintf('%02x', $b);
    return $hex;
}

# a genesis-like transaction of 330,000 events (bench/gen-dataset.pl)
{
    my $dir = temp_dir();
    my $nd = "$dir/genesis.ndjson";
    my $gen = repo_root() . '/bench/gen-dataset.pl';
    my ($code, undef, $err) = run_cmd([$^X, $gen, '--txs', 2,
                                       '--genesis-events', 330000,
                                       '--out', $nd], timeout => 300);
    is($code, 0, 'genesis: generated') or diag($err);
    my ($line) = grep { /"event_count":330000/ } split /\n/, slurp($nd);
    my ($gid) = $line =~ /"tx_id":"(0x[0-9a-f]{64})"/;
    my $gdb = new_index($nd);
    my $ng = ChainData::Test::Nginx->start(db => $gdb, %example);
    my ($n, $bad) = (0, 0);
    for my $page ([0, 20], [0, 100], [19, 3], [20, 20], [123457, 50],
                  [164980, 100], [200000, 100], [329900, 100],
                  [329990, 100], [329999, 1], [330000, 20], [330001, 20])
    {
        my ($off, $lim) = @$page;
        my $path = "/extended/v1/tx/$gid?event_offset=$off&event_limit=$lim";
        my $plain = http_get($ng->port, $path);
        my $gz = http_get($ng->port, $path, %GZ);
        my $doc = eval { json_decode($plain->{body}) } || {};
        my @idx = map { $_->{event_index} } @{ $doc->{events} || [] };
        my $last = $off + $lim > 330000 ? 330000 : $off + $lim;
        my @want = $off < 330000 ? ($off .. $last - 1) : ();
        my $body = gunzip_body($gz->{body});
        $n++;
        my $good = $plain->{status} == 200 && "@idx" eq "@want"
            && defined $body && $body eq $plain->{body};
        $bad++, diag("genesis: $off, $lim: " . scalar(@idx) . ' events')
            unless $good;
    }
    is($bad, 0, "genesis: $n pages at offsets from 0 to past 330,000: the "
                . 'events asked for, gzip inflates to plain');
}

# the first chunk of events inside the "tx" value when key and value stay
# within LMDB's node limit (lmdb-schema/pieces.md, "The first chunk inside
# the header"), else under "tx_event": a memo grown 16 random hex digits
# at a time takes one transaction from well under the limit to over it;
# the ones nearest the limit on either side, and all the others, are
# served plain as stored and gzip inflating to it
{
    my ($max) = slurp(repo_root() . '/src/core/chaindata_layout.h')
                =~ /#define CHAINDATA_NODE_MAX\s+(\d+)/;
    my ($base) = grep { /"event_count":1,/ && /"memo":"0x/ }
                 split /\n/, slurp($files[0]);
    my ($old) = $base =~ /"tx_id":"0x([0-9a-f]{64})"/;
    srand(13);
    my ($memo, @lines) = ('');
    for my $i (0 .. 249) {
        my $id = sprintf('%056x%08x', 0xc0de, $i);
        (my $l = $base) =~ s/$old/$id/g;
        $l =~ s/"memo":"0x/"memo":"0x$memo/;
        push @lines, $l;
        $memo .= join '', map { sprintf '%x', int rand 16 } 1 .. 16;
    }
    my $nd = temp_dir() . '/limit.ndjson';
    spew($nd, join("\n", @lines) . "\n");
    my @ltx = tx_fixtures($nd);
    my $ldb = new_index($nd);
    my %tx = mdb_dump_pairs(mdb_dump_of($ldb, 'tx'));
    my %ev = mdb_dump_pairs(mdb_dump_of($ldb, 'tx_event'));
    my ($under, $over, $both) = (0, 1e9, 0);
    for my $t (@ltx) {
        my $id = substr($t->{tx_id}, 2);
        my $v = $tx{$id} // '';
        my $c0 = $ev{"${id}00000000"};
        my $inline = hex(substr($v, 2, 2)) & 0x08;
        my $node = 32 + length($v) / 2 + ($c0 ? length($c0) / 2 : 0);
        $both++ if $inline && $c0;
        if ($inline) {
            $under = $node if $node > $under;
        } elsif ($c0) {
            $over = $node if $node < $over;
        }
    }
    ok($max && $under > $max - 40 && $under <= $max,
       "inline: the largest key and value with chunk 0 inside, $under "
       . "bytes, just within the limit ($max)");
    ok($over > $max && $over < $max + 40,
       "not inline: the smallest with chunk 0 in tx_event, $over bytes, "
       . 'just over the limit');
    is($both, 0, 'no chunk 0 both inline and in tx_event');
    my $ng = ChainData::Test::Nginx->start(db => $ldb, %example);
    my ($n, $bad) = (0, 0);
    for my $t (@ltx) {
        for my $q ('', '?event_limit=1&event_offset=0', '?event_offset=1',
                   '?exclude_function_args=true')
        {
            my $path = "/extended/v1/tx/$t->{tx_id}$q";
            my ($off, $lim) = $q =~ /event_offset=1/ ? (1, 20)
                            : $q =~ /event_limit=1/ ? (0, 1) : (0, 20);
            my $want = splice_events($t->{data_raw}, $off, $lim,
                                     $q =~ /exclude/ ? 1 : 0);
            my $plain = http_get($ng->port, $path);
            my $gz = http_get($ng->port, $path, %GZ);
            my $body = gunzip_body($gz->{body});
            $n++;
            my $good = $plain->{status} == 200 && $plain->{body} eq $want
                && ($gz->{headers}{'content-encoding'} // '') eq 'gzip'
                && defined $body && $body eq $want;
            $bad++, diag("limit: $path") unless $good;
        }
    }
    is($bad, 0, "limit: $n pages of transactions with chunk 0 inside the "
                . 'value and not: plain as stored, gzip inflates to it');
}

# a 404 is not made of pieces: nginx's gzip may compress it, once
{
    my $r = http_get($port, '/extended/v1/tx/0x' . ('0' x 64), %GZ);
    is($r->{status}, 404, 'unknown transaction: 404');
    my $body = ($r->{headers}{'content-encoding'} // '') eq 'gzip'
             ? gunzip_body($r->{body}) : $r->{body};
    like($body, qr/^\{"statusCode":404,/, '... a JSON body, compressed at most once');
}

done_testing();
