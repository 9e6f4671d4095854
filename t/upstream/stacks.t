#!/usr/bin/perl
# make test-upstream (not part of make test, nor CI): chaindata-mirror
# against the real Stacks Blockchain API 9.0.2 that ../shared/upstream
# builds and runs on loopback (its README: KEEP_PG=1
# setup-stacks-upstream GIT_DIR WORK_DIR leaves its Postgres running),
# the edge compared with upstream answer for answer: for every
# transaction the data set holds (mined, pending, dropped, orphaned),
# GET /extended/v1/tx/{id} and each page of its events
# (?event_limit=100&event_offset=N), status and body bytes.
#
#   1. each data set as loaded (STACKS_DATASETS, schema ds_NAME): the
#      mirror from block 1 (--from-height 1 --once, the first fill, with
#      --mempool-v3-batch 1 so that every pending transaction has its v3
#      document), and v3 too: GET /extended/v3/transactions/{id}, with
#      every heavy field (?include=…), and each page of its events
#      (…/events?limit=100, then cursor.next);
#   2. growth and reorgs (STACKS_GROWTH, schema t_NAME, dropped and made
#      again): the data set's event messages POSTed to upstream's event
#      server one block at a time, the mirror following with --once after
#      each block (upstream's own microblock reorg fixtures reorganise
#      the chain under it), the edge compared after each, in v3 too at
#      the end (pending transactions the mirror asked v3 about in batches
#      of 20 may lack their v3 document: a 503, counted apart).
#
# The differences expected, counted apart: a transaction dropped from the
# mempool before the mirror saw it pending is upstream's 200 and the
# edge's 404 (no upstream list names it: doc/module.md,
# chaindata_miss_fallback); an id upstream does not serve (404) is the
# edge's 503 while its feed does not reach back to the chain's first
# block, before the first block is mirrored (doc/api.md); in v3, a
# transaction of an unanchored microblock, which v3 serves and no listing
# names (doc/api.md).  Any other is unexpected, and fails.
#
# Skipped, with the reason, when STACKS_PEER_DIR (the setup's work dir)
# is not set, ../shared/upstream (CHAINDATA_SHARED_UPSTREAM) is missing or
# its Postgres does not answer.  It stops and starts the API on
# 127.0.0.1:API_PORT_PEER (13999) itself (stacks-upstream/api-start and
# api-stop), and stops what it started.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../lib";

use Test::More;
use File::Path qw(make_path);
use ChainData::Test qw(:all);
use ChainData::TxV3 qw(v3_locations);
use JSON::PP ();

my $W = $ENV{STACKS_PEER_DIR};
my $U = $ENV{CHAINDATA_SHARED_UPSTREAM} || repo_root() . '/../shared/upstream';
my $API_PORT = $ENV{API_PORT_PEER} || 13999;
my $EV_PORT = $ENV{EVENT_PORT_PEER} || 13700;
my $PG_PORT = $ENV{PG_PORT_PEER} || 55491;
my @PSQL = ('psql', '-q', '-X', '-h', '127.0.0.1', '-p', $PG_PORT, '-U',
            'postgres', '-d', 'stacks_peer');

plan skip_all => 'STACKS_PEER_DIR is not set: the work dir of '
    . '../shared/upstream/setup-stacks-upstream (its README)'
    unless $W && -d "$W/src";
plan skip_all => "no $U/stacks-upstream/api-start: ../shared/upstream is "
    . 'missing (CHAINDATA_SHARED_UPSTREAM names it)'
    unless -x "$U/stacks-upstream/api-start";
plan skip_all => "the upstream's Postgres does not answer on port $PG_PORT "
    . '(KEEP_PG=1 setup-stacks-upstream leaves it running)'
    unless (run_cmd([@PSQL, '-tAc', 'select 1'], env => { PGPASSWORD => 'postgres' }))[0] == 0;

require_build();
my $MIRROR = build_path('chaindata-mirror');

my %CHAIN = (synth => '0x80000000', poison => '0x00000001',
    mocknet => '0x80000000', mainnet_block0 => '0x00000001',
    mb_reorg1 => '0x00000001', mb_reorg2 => '0x00000001',
    mb_out_of_order => '0x00000001', fuzzed => '0x80000000',
    ooo_multisig => '0x80000000', pox4_s1 => '0x80000000',
    pox4_s2 => '0x80000000', pox4_s3 => '0x80000000');
my $E3 = 'tests/api/event-server/tsv/epoch-3-transition.tsv';
my %FILES = (
    synth => [$E3, "raw:$W/synth.tsv"],
    mb_reorg1 => ['tests/api/microblocks/event-replay-logs/mainnet-reorg-scenario1.tsv'],
    mb_reorg2 => ['tests/api/microblocks/event-replay-logs/mainnet-reorg-scenario2.tsv'],
    mb_out_of_order => ['tests/api/microblocks/event-replay-logs/mainnet-out-of-order-microblock.tsv'],
    mainnet_block0 => ['tests/api/event-replay/tsv/mainnet-block0.tsv'],
    mocknet => ['tests/api/event-replay/tsv/mocknet.tsv'],
);
my @STATIC = split ' ', ($ENV{STACKS_DATASETS}
    || 'mainnet_block0 synth poison mocknet mb_reorg1 mb_reorg2 fuzzed');
my @GROWTH = split ' ', ($ENV{STACKS_GROWTH} || 'mb_reorg1 mb_reorg2 synth');

my $env = { STACKS_PEER_DIR => $W, API_PORT_PEER => $API_PORT,
            EVENT_PORT_PEER => $EV_PORT, PG_PORT_PEER => $PG_PORT,
            PGPASSWORD => 'postgres' };

sub api_stop { run_cmd(["$U/stacks-upstream/api-stop"], env => $env) }

# what it started is stopped, however the test ends
my $started;
END { api_stop() if $started }

sub api_start {
    my ($schema, $cid) = @_;
    api_stop();
    $started = 1;
    my ($c, $o, $e) = run_cmd(["$U/stacks-upstream/api-start", $schema, $cid],
                              env => $env, timeout => 180);
    return $c == 0 ? undef : "api-start $schema: $o$e";
}

sub psql {
    my ($sql) = @_;
    my ($c, $o, $e) = run_cmd([@PSQL, '-tAc', $sql], env => $env);
    die "psql: $e" if $c;
    return $o;
}

# every transaction the schema holds, mined (any branch) or in the mempool
sub schema_ids {
    my ($schema) = @_;
    return grep { /^0x[0-9a-f]{64}$/ } split /\n/, psql("set search_path=$schema; "
        . "select '0x'||encode(tx_id,'hex') from txs union "
        . "select '0x'||encode(tx_id,'hex') from mempool_txs");
}

# upstream's answer, waited for (a Node API on a busy machine), tried
# twice: undef when it gave none
sub upstream_get {
    my ($path) = @_;
    local $ChainData::Test::HTTP_TIMEOUT = 60;
    for my $try (1 .. 2) {
        my $r = eval { http_get($API_PORT, $path) };
        return $r if $r;
        sleep 1;
    }
    return undef;
}

# unknown ids an index without the chain's history answered 503
my $untold = 0;

# the edge against upstream for the ids: (asked, dropped, [unexpected])
sub compare {
    my ($edge, @ids) = @_;
    my ($n, $dropped, @bad) = (0, 0);
    for my $id (@ids) {
        my $up = upstream_get("/extended/v1/tx/$id");
        if (!$up) {
            push @bad, "/extended/v1/tx/$id: upstream did not answer";
            next;
        }
        my @paths = ("/extended/v1/tx/$id");
        if ($up->{status} == 200) {
            my $count = json_decode($up->{body})->{event_count} || 0;
            for (my $off = 0; $off == 0 || $off < $count; $off += 100) {
                push @paths, "/extended/v1/tx/$id?event_limit=100&event_offset=$off";
            }
        }
        for my $path (@paths) {
            my $u = $path eq $paths[0] ? $up : upstream_get($path);
            if (!$u) {
                push @bad, "$path: upstream did not answer";
                next;
            }
            my $e = http_get($edge, $path);
            $n++;
            next if $u->{status} == $e->{status}
                && ($u->{status} != 200 || $u->{body} eq $e->{body});
            if ($e->{status} == 404 && $u->{status} == 200
                && (json_decode($u->{body})->{tx_status} // '') =~ /^dropped_/)
            {
                $dropped++;
                next;
            }
            # an index whose feed does not reach back to the chain's first
            # block (before its first block is mirrored) cannot tell that
            # upstream holds nothing: a 503 where upstream says 404
            # (doc/api.md, "Where chaindata differs from upstream")
            if ($e->{status} == 503 && $u->{status} == 404) {
                $untold++;
                next;
            }
            push @bad, "$path: edge $e->{status}, upstream $u->{status}";
        }
    }
    return ($n, $dropped, \@bad);
}

sub edge {
    my ($db) = @_;
    my ($c, $o, $e) = load_index($db);
    die "load: $e" if $c;
    fixup_index_perms($db);
    return ChainData::Test::Nginx->start(db => $db, locations => v3_locations());
}

# 1 when upstream's v3 document is of a transaction of an unanchored
# microblock (block.hash "0x"), which no listing names (doc/api.md)
sub unanchored {
    my ($body) = @_;
    my $d = eval { json_decode($body) } or return 0;
    return (($d->{block} || {})->{hash} // '') eq '0x';
}

# the edge against upstream in v3 for the ids: (asked, "N of unanchored
# microblocks, M pending waiting for their v3 document", [unexpected])
sub compare_v3 {
    my ($edge, @ids) = @_;
    my ($n, $unanchored, $waiting, @bad) = (0, 0, 0);
    for my $id (@ids) {
        my $doc = upstream_get("/extended/v3/transactions/$id");
        my $micro = $doc && $doc->{status} == 200 && unanchored($doc->{body});
        my @paths = ("/extended/v3/transactions/$id",
            "/extended/v3/transactions/$id?include=function_args,source_code,"
            . 'post_conditions,result');
        my $cursor = '';
        for (my $page = 0; $page < 10000; $page++) {
            my $p = "/extended/v3/transactions/$id/events?limit=100$cursor";
            push @paths, $p;
            my $u = upstream_get($p);
            last unless $u && $u->{status} == 200;
            my $next = eval { json_decode($u->{body})->{cursor}{next} };
            last unless defined $next;
            $cursor = "&cursor=$next";
        }
        for my $path (@paths) {
            my $u = upstream_get($path);
            if (!$u) {
                push @bad, "$path: upstream did not answer";
                next;
            }
            my $e = http_get($edge, $path);
            $n++;
            next if $u->{status} == $e->{status} && $u->{body} eq $e->{body};
            if ($micro && $u->{status} == 200
                && ($e->{status} == 404 || $e->{status} == 400))
            {
                $unanchored++;
                next;
            }
            # a pending one written in a batch too small for a v3 lookup
            if ($e->{status} == 503 && $u->{status} == 200
                && $e->{body} =~ /without its v3 document yet/)
            {
                $waiting++;
                next;
            }
            push @bad, "$path: edge $e->{status}, upstream $u->{status}";
        }
    }
    return ($n, "$unanchored of unanchored microblocks (doc/api.md), "
            . "$waiting pending waiting for their v3 document", \@bad);
}

sub mirror {
    my ($db, @args) = @_;
    return run_cmd([$MIRROR, '--db', $db, '--stacks-api',
        "http://127.0.0.1:$API_PORT", '--once', '--parallel', '8', @args],
        timeout => 600);
}

sub report {
    my ($name, $n, $dropped, $bad) = @_;
    is(scalar @$bad, 0, "$name: $n answers compared, $dropped dropped "
       . "before the mirror saw them, $untold unknown before the first "
       . 'block, ' . scalar(@$bad) . ' unexpected differences')
        or diag(join "\n", @$bad[0 .. ($#$bad < 19 ? $#$bad : 19)]);
}

# 1. each data set as loaded, mirrored from block 1
for my $name (@STATIC) {
    my $why = api_start("ds_$name", $CHAIN{$name} || '0x80000000');
    if ($why) { fail("$name: the API started"); diag($why); next }
    my $root = temp_dir();
    my $ng = edge("$root/index");
    my ($c, $o, $e) = mirror("$root/index", '--from-height', '1',
                             '--mempool-v3-batch', '1');
    is($c, 0, "$name: --from-height 1 --once exits 0") or diag($e);
    my @ids = schema_ids("ds_$name");
    $untold = 0;
    report("$name (static)", compare($ng->port, @ids));
    my ($n3, $apart, $bad3) = compare_v3($ng->port, @ids);
    is(scalar @$bad3, 0, "$name (static) v3: $n3 answers compared, $apart, "
       . scalar(@$bad3) . ' unexpected differences')
        or diag(join "\n", @$bad3[0 .. ($#$bad3 < 19 ? $#$bad3 : 19)]);
    $ng->stop;
}

# the rows of a fixture in the order ingest_tsv.py posts them, each
# [line, is a /new_block]; raw: in file order
sub tsv_rows {
    my ($file) = @_;
    my $raw = $file =~ s/^raw://;
    $file = "$W/src/$file" unless $file =~ m{^/};
    open my $fh, '<', $file or die "$file: $!";
    my (%seen, @rows);
    while (my $line = <$fh>) {
        chomp $line;
        next unless length $line;
        my ($id, undef, $path) = split /\t/, $line;
        next if !$raw && $seen{$id}++;
        push @rows, [$raw ? scalar @rows : $id, $line, $path eq '/new_block', $raw];
    }
    @rows = sort { $a->[0] <=> $b->[0] } @rows unless $raw;
    return @rows;
}

sub post_rows {
    my ($dir, $k, @rows) = @_;
    my $f = "$dir/step-$k.tsv";
    spew($f, join('', map { "$_->[1]\n" } @rows));
    my ($c, $o, $e) = run_cmd(['sh', '-c', 'cd "$1" && python3 "$2" '
        . ($rows[0][3] ? '--raw ' : '') . '"$3" 127.0.0.1 "$4"', 'sh',
        "$W/src", "$U/stacks-upstream/ingest_tsv.py", $f, $EV_PORT],
        env => $env, timeout => 300);
    die "ingest $f: $o$e" if $c;
}

# 2. growth and reorgs: a block at a time, the mirror following
for my $name (@GROWTH) {
    my $files = $FILES{$name} or do { fail("$name: no fixture known"); next };
    my $schema = "t_$name";
    psql("drop schema if exists $schema cascade; create schema $schema");
    my $why = api_start($schema, $CHAIN{$name});
    if ($why) { fail("$name: the API started"); diag($why); next }
    my $root = temp_dir();
    my $db = "$root/index";
    my $ng = edge($db);
    my ($steps, $n, $dropped, $reorgs, @bad, @fail) = (0, 0, 0, 0);
    $untold = 0;
    my $first = 1;
    for my $file (@$files) {
        my @rows = tsv_rows($file);
        while (@rows) {
            my @step;
            while (@rows) {
                my $r = shift @rows;
                push @step, $r;
                last if $r->[2];
            }
            post_rows($root, $steps, @step);
            next unless $step[-1][2];
            $steps++;
            my ($c, $o, $e) = mirror($db, $first ? ('--from-height', '1') : ());
            $first = 0;
            push @fail, "step $steps: exit $c: $e" if $c;
            $reorgs++ while $e =~ /reorg: stacks blocks above/g;
            my ($k, $d, $b) = compare($ng->port, schema_ids($schema));
            $n += $k;
            $dropped += $d;
            push @bad, map { "step $steps: $_" } @$b;
        }
    }
    # what was posted after the last block (the mempool's messages): once
    # more, so that the edge is compared with upstream as it ends
    my ($c, $o, $e) = mirror($db);
    push @fail, "the last run: exit $c: $e" if $c;
    is(scalar @fail, 0, "$name: the mirror followed $steps blocks, --once "
       . "after each, exit 0; $reorgs reorgs rolled back")
        or diag(join "\n", @fail[0 .. ($#fail < 4 ? $#fail : 4)]);
    report("$name (growth, $steps steps)", $n, $dropped, \@bad);
    my ($n3, $apart, $bad3) = compare_v3($ng->port, schema_ids($schema));
    is(scalar @$bad3, 0, "$name (growth) v3 at the end: $n3 answers "
       . "compared, $apart, " . scalar(@$bad3) . ' unexpected differences')
        or diag(join "\n", @$bad3[0 .. ($#$bad3 < 19 ? $#$bad3 : 19)]);
    ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feeds} || [] };
    my $t = upstream_get('/extended/v2/blocks?limit=1');
    my $tip = $t && json_decode($t->{body})->{results}[0]{height};
    is($f && $f->{height}, $tip, "$name: the feed at upstream's tip, $tip");
    $ng->stop;
    api_stop();
    psql("drop schema if exists $schema cascade");
}

done_testing();
