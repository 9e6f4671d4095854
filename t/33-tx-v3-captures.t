#!/usr/bin/perl
# chaindata_tx_v3 (and chaindata_tx's Warning) against the captures of the
# real Stacks Blockchain API 9.0.2 kept in t/captures/stacks-api-9.0.2
# (README-v3.md there): each data set's records loaded, every captured
# answer replayed, equal in status, body bytes, Content-Type,
# Cache-Control, CORS, Warning, and an ETag where upstream sends one; the
# deliberate differences of doc/api.md aside (an id without 0x: 302);
# and the 503 of a transaction held without its v3 document.
# t/32-tx-v3.t replays the whole reference when ../shared is there.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use JSON::PP ();
use ChainData::Test qw(:all);
use ChainData::TxV3 qw(replay_answers v3_locations);

require_build();

my $dir = "$FindBin::Bin/captures/stacks-api-9.0.2";
my $J = JSON::PP->new;
my @sets = sort glob "$dir/*.v3-answers.json";
ok(@sets >= 6, 'the captures are here');

# --bulk builds the same v3 records
{
    my ($a, $b) = map { temp_dir() . "/$_" } qw(normal bulk);
    my $f = "$dir/synth.v3-records.ndjson";
    my ($c1) = load_index($a, $f);
    my ($c2) = load_index($b, '--bulk', $f);
    is($c1 + $c2, 0, 'loaded normally and with --bulk');
    is(mdb_dump_of($b, $_), mdb_dump_of($a, $_), "--bulk: $_ the same")
        for qw(tx_v3 tx_v3_event);
}

# one index a data set: some share transactions (a test network's first
# block), which their chains answer otherwise
my (@answers, $ng);
for my $f (@sets) {
    my ($name) = $f =~ m{([^/]+)\.v3-answers\.json$};
    my $db = temp_dir() . '/idx';
    my ($c, $o, $e) = load_index($db, "$dir/$name.v3-records.ndjson");
    is($c, 0, "$name: loaded") or diag($e);
    fixup_index_perms($db);
    my $list = $J->decode(slurp($f));
    push @answers, [$name, $list];
    $ng->stop if $ng;
    $ng = ChainData::Test::Nginx->start(db => $db, locations => v3_locations());
    my ($n, $bad) = replay_answers($ng->port, $list, $name);
    ok($n > 20, "$name: $n answers replayed, $bad differ");
}

# the last data set's (synth) nginx serves what follows

# gzip: the same documents, from the same pieces
my ($lean) = grep { $_->{note} eq 'all heavy fields, comma form' && $_->{status} == 200 }
    @{ $answers[-1][1] };
my $r = http_get($ng->port, $lean->{path}, 'Accept-Encoding' => 'gzip');
is($r->{headers}{'content-encoding'}, 'gzip', 'gzip when asked');
is(gunzip_body($r->{body}), $lean->{body}, 'the same document');
like($r->{headers}{etag}, qr/-gz"$/, 'its own ETag');
my $plain = http_get($ng->port, $lean->{path});
my $same = http_get($ng->port, $lean->{path}, 'If-None-Match' => $plain->{headers}{etag});
is($same->{status}, 304, 'If-None-Match: 304');
my ($page) = grep { $_->{note} eq 'events next page 1' } @{ $answers[-1][1] };
$r = http_get($ng->port, $page->{path}, 'Accept-Encoding' => 'gzip');
is(gunzip_body($r->{body}), $page->{body}, 'an events page, gzip');
isnt(http_get($ng->port, $page->{path})->{headers}{etag},
     $plain->{headers}{etag}, 'a page has an ETag of its own');

# v3 without 0x, of the events too: 302 to the 0x form, query kept
(my $bare = $page->{path}) =~ s{/0x}{/};
$r = http_get($ng->port, $bare);
is($r->{status}, 302, 'events without 0x: 302');
is($r->{headers}{location}, $page->{path}, 'to the 0x form, /events and query kept');

# any subset of include, any order, either form
my ($call) = grep { $_->{note} eq 'all heavy fields, comma form'
                    && $_->{body} =~ /"function_args":\[\{/ } @{ $answers[-1][1] };
my $full = $J->decode($call->{body});
(my $base = $call->{path}) =~ s/\?.*//;
for my $inc ([qw(function_args)], [qw(result function_args)],
             [qw(post_conditions source_code)], []) {
    my %want = map { ($_ => 1) } @$inc;
    my $doc = $J->decode($call->{body});
    delete $doc->{post_conditions} unless $want{post_conditions};
    delete $doc->{result} unless $want{result};
    delete $doc->{contract_call}{function_args} unless $want{function_args};
    my $q = @$inc ? '?' . join('&', map { "include=$_" } reverse @$inc) : '';
    $r = http_get($ng->port, "$base$q");
    is_deeply($J->decode($r->{body}), $doc, "include: @$inc (repeated form)");
    $q = @$inc ? '?include=' . join(',', @$inc) : '';
    is(http_get($ng->port, "$base$q")->{body}, $r->{body}, "include: @$inc (comma form)");
}
$r = http_get($ng->port, "$base?include=result&include=bogus&include=result");
is($J->decode($r->{body})->{message},
   'querystring/include must NOT have duplicate items (items ## 0 and 2 are identical)',
   'duplicates are found before a bad value, as upstream\'s validator does');
$r = http_get($ng->port, "$base?include=" . join(',', ('result') x 1000));
is($J->decode($r->{body})->{message},
   'querystring/include must NOT have duplicate items (items ## 998 and 999 are identical)',
   'a long list: the pair upstream\'s validator names first (a hand-made request)');
$r = http_get($ng->port, "$base?include=result,bogus");
like($J->decode($r->{body})->{message}, qr{^querystring/include/1 must be equal to constant},
     'the first bad value named');

$ng->stop;

# memo.repr, decoded at ingest: the vectors of the unit tests of the codec
# behind upstream's memoToString (stacks-encoding-native-js, memo_normalize)
{
    my ($base) = grep { /"tx_type":"token_transfer"/ && /"tx_status":"success"/ }
        split /\n/, slurp("$dir/synth.v3-records.ndjson");
    my @vectors = (
        [unpack('H*', 'hello   world'), 'hello world'],
        ['037e180b04956b4e68627463706f6f6c2f3266646575fabe6d6df77973b452568eb2f43593285804dad9d7ef057eada5ff9f2a1634ec43f514b1020000008e9b20aa0ebfd204924b040000000000',
         '~ kNhbtcpool/2fdeu mm ys RV 5 (X ~ * 4 C K'],
        ['037c180b2cfabe6d6d5e0eb001a2eaea9c5e39b7f54edd5c23eb6e684dab1995191f664658064ba7dc10000000f09f909f092f4632506f6f6c2f6500000000000000000000000000000000000000000000000000000000000000000000000500f3fa0200',
         "| , mm^ ^9 N \\# nhM fFX K \x{1F41F} /F2Pool/e"],
        ['f09f87b3f09f87b12068656c6c6f20776f726c64', "\x{1F1F3}\x{1F1F1} hello world"],
        ['00000000000068656c6c6f20776f726c64', 'hello world'],
        ['68656c6c6f20776f726c6400000000000068656c6c6f20776f726c64', 'hello world hello world'],
        ['68656c6c6fefbfbd776f726c6420207465737420706172743120202020676f6f64627965efbfbd776f726c64202074657374207061727432202020202020',
         'hello world test part1 goodbye world test part2'],
        ['68656c6c6fff776f726c64c3', 'hello world'],
    );
    my ($recs, @ids) = ('');
    for my $i (0 .. $#vectors) {
        my $id = sprintf '0x%064x', 0xabc00 + $i;
        (my $r = $base) =~ s/"tx_id":"0x[0-9a-f]{64}"/"tx_id":"$id"/g;
        $r =~ s/("token_transfer":\{[^{}]*"memo":")0x[0-9a-f]*"/$1 . '0x' . $vectors[$i][0] . '"'/e;
        $recs .= "$r\n";
        push @ids, $id;
    }
    my $db = temp_dir() . '/memo';
    my ($c, $o, $e) = load_index($db, { stdin => $recs });
    is($c, 0, 'memo vectors loaded') or diag($e);
    fixup_index_perms($db);
    $ng = ChainData::Test::Nginx->start(db => $db, locations => v3_locations());
    my $U = JSON::PP->new->utf8;
    for my $i (0 .. $#vectors) {
        my $d = $U->decode(http_get($ng->port, "/extended/v3/transactions/$ids[$i]")->{body});
        is($d->{token_transfer}{memo}{repr}, $vectors[$i][1], "memo 0x$vectors[$i][0]: repr");
    }
    $ng->stop;
}

# what v3 needs beside the document, refused when malformed: the line and
# why, the batch rejected whole (the index as it was)
{
    my ($good, $other) = grep { /"index_block_hash"/ }
        split /\n/, slurp("$dir/synth.v3-records.ndjson");
    my $db = temp_dir() . '/refused';
    my ($c, $o, $e) = load_index($db, { stdin => "$good\n" });
    is($c, 0, 'a record with its index hashes') or diag($e);
    my $before = join '', map { mdb_dump_of($db, $_) } qw(tx tx_v3 tx_v3_event);
    for my $bad (['"index_block_hash":"0xABC"', qr/index_block_hash and parent_index_block_hash must be "0x" and 64 lowercase hex digits/],
                 ['"receipt_block_height":-1', qr/receipt_block_height must be an integer/],
                 ['"block_time":"1"', qr/block_time must be an integer/]) {
        (my $line = $other) =~ s/\}$/,$bad->[0]}/;
        $line =~ s/"index_block_hash":"0x[0-9a-f]{64}",// if $bad->[0] =~ /^"index/;
        ($c, $o, $e) = load_index($db, { stdin => "$line\n" });
        is($c, 1, "$bad->[0]: refused");
        like($e, qr/<stdin>:1: $bad->[1]/, '… the line and why');
        is(join('', map { mdb_dump_of($db, $_) } qw(tx tx_v3 tx_v3_event)), $before,
           '… the index as it was');
    }
}

# a transaction the index holds without its v3 document (the fixtures,
# loaded as they are): a 503 that speaks of pending only for a pending one
{
    my @fx = tx_fixtures(fixture_path('tx.ndjson'));
    my ($mined) = grep { ($_->{tx_status} // '') eq 'success' } @fx;
    my ($pending) = grep { ($_->{tx_status} // '') eq 'pending' } @fx;
    my $db = new_index(fixture_path('tx.ndjson'));
    $ng = ChainData::Test::Nginx->start(db => $db, locations => v3_locations());
    my $why = sub { $J->decode($_[0]{body})->{message} };
    my $r = http_get($ng->port, "/extended/v3/transactions/$mined->{tx_id}");
    is($r->{status}, 503, 'a mined one without its v3 document: 503');
    is($why->($r), 'the index holds this transaction without its v3 '
       . 'document: it was loaded without its block\'s index_block_hash and '
       . 'parent_index_block_hash', '… saying why, not that it is pending');
    $r = http_get($ng->port, "/extended/v3/transactions/$mined->{tx_id}/events");
    is("$r->{status} " . $why->($r), '503 ' . $why->(http_get($ng->port,
       "/extended/v3/transactions/$mined->{tx_id}")), '… its events the same');
    $r = http_get($ng->port, "/extended/v3/transactions/$pending->{tx_id}");
    is($r->{status}, 503, 'a pending one without its v3 document: 503');
    is($why->($r), 'the index holds this pending transaction without its '
       . 'v3 document yet: it waits for its receipt_block_height',
       '… waiting for its receipt_block_height');
    $ng->stop;
}

# a page deep in many events: the cursor is a position, upstream's cursors
{
    my ($id, $doc) = log_events_tx(1000, sub { "$_[0] $_[1]" });
    my $h = '0x' . ('ab' x 32);
    my $db = temp_dir() . '/many';
    my ($c, $o, $e) = load_index($db, { stdin => qq({"kind":"tx","data":$doc,)
        . qq("index_block_hash":"$h","parent_index_block_hash":"$h"}\n) });
    is($c, 0, 'a 1000-event transaction loaded') or diag($e);
    fixup_index_perms($db);
    $ng = ChainData::Test::Nginx->start(db => $db, locations => v3_locations());
    for my $t ([977, 7, '"984"', '"970"'], [995, 20, 'null', '"975"'],
               [5, 100, '"105"', '"0"'], [0, 20, '"20"', 'null'],
               [1000, 5, 'null', 'null'], ['99999999999999999999999', 3, 'null', 'null']) {
        my ($cur, $lim, $next, $prev) = @$t;
        my $r = http_get($ng->port, "/extended/v3/transactions/$id/events?cursor=$cur&limit=$lim");
        my $d = $J->decode($r->{body});
        my $want = $cur < 1000 ? ($lim < 1000 - $cur ? $lim : 1000 - $cur) : 0;
        my $cj = $want ? qq("$cur") : 'null';
        like($r->{body}, qr/^\{"total":1000,"limit":$lim,"cursor":\{"next":$next,"previous":$prev,"current":$cj\},"results":\[/,
             "cursor $cur, limit $lim: upstream's cursors");
        is(scalar @{ $d->{results} }, $want, "… $want events");
        is($d->{results}[0]{event_index}, $cur, '… from the cursor') if $want;
        my $g = http_get($ng->port, "/extended/v3/transactions/$id/events?cursor=$cur&limit=$lim",
                         'Accept-Encoding' => 'gzip');
        is(gunzip_body($g->{body}), $r->{body}, '… the same gzip');
    }
    $ng->stop;
}

done_testing();
