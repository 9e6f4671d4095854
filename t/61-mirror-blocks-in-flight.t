#!/usr/bin/perl
# chaindata-mirror with Stacks blocks in flight (--blocks-ahead): every
# step is run twice on a recorded upstream, one block at a time
# (--blocks-ahead 1, the algorithm before blocks in flight) into one index
# and with blocks in flight (--blocks-ahead 8) into another, and the two
# indexes are compared with mdb_dump (the feeds' commit times and their
# state records aside: compared through chaindata-load --stats without
# them).  The steps: a catch-up of blocks of every shape (two pages of
# transactions, transactions of several event pages, empty blocks); a
# block failing in the middle of the window (one transaction's answer
# malformed): the index stays at the block below it, none above it is
# written though they were fetched; upstream reorganising inside the
# window (a block whose parent is not the block below it): the blocks
# below it committed, it and those above it discarded, then the reorg
# rolled back and the fork mirrored.  And --parallel bounds the requests
# in flight across the blocks (the mirror's in_flight_max).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(confirmed_docs derive_doc make_chain
    write_chain tx_page nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my @docs = confirmed_docs();
my ($big) = grep { /"event_count":640/ } @docs;
my @small = grep { $_ ne $big } @docs;
ok($big && @small > 4, 'fixtures present') or BAIL_OUT('fixtures incomplete');

# 24 blocks from 1000: two to four small transactions, every fifth block
# empty, 1003 with 60 transactions (two listing pages), 1006 and 1013 with
# a transaction of 640 events (seven pages)
sub blocks {
    my ($tag, $count) = @_;
    my @b;
    for my $i (0 .. $count - 1) {
        my @txs = $i % 5 == 4 ? ()
            : map { derive_doc($small[($i + $_) % @small], "$tag$i/$_") } 0 .. 1 + $i % 3;
        @txs = map { derive_doc($small[$_ % @small], "$tag$i/p$_") } 0 .. 59 if $i == 3;
        push @txs, derive_doc($big, "$tag$i/big") if $i == 6 || $i == 13;
        push @b, \@txs;
    }
    return @b;
}

my @a = blocks('a', 24);
my $chain = make_chain(1000, \@a);

my $root = temp_dir();
my $db = "$root/index";
my $ref = "$root/ref";
my ($code, $out, $err) = load_index($db);    # an empty index for nginx -t
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n"
        . nginx_locations($root),
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

sub mirror {
    my ($dir, $ahead, @args) = @_;
    return run_cmd([$MIRROR, '--db', $dir, '--stacks-api', $api, '--once',
                    '--no-mempool', '--parallel', '4', '--blocks-ahead',
                    $ahead, @args], timeout => 300);
}

# both runs: (code, err) of the one at a time, then of the one in flight
sub both {
    my (@args) = @_;
    my ($c1, undef, $e1) = mirror($ref, 1, @args);
    my ($c2, undef, $e2) = mirror($db, 8, @args);
    return ($c1, $e1, $c2, $e2);
}

sub feeds {
    my ($c, $o, $e) = load_index($_[0], '--stats');
    my $st = json_decode($o);
    return join ' ', map { "$_->{source} $_->{height} $_->{hash} $_->{block_time}" }
        grep { $_->{source} eq 'stacks' } @{ $st->{feeds} };
}

sub same_index {
    my ($name) = @_;
    for my $dbi (qw(meta tx tx_event block)) {
        ok(mdb_dump_of($db, $dbi) eq mdb_dump_of($ref, $dbi),
           "$name: $dbi the same as one block at a time");
    }
    is(feeds($db), feeds($ref), "$name: the same position");
}

sub tx_id { return $_[0] =~ /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die }

sub at { my ($h) = @_; like(feeds($db), qr/^stacks $h /, "at block $h") }

# how many transactions of the chain's blocks from..to answer at the edge
sub answered {
    my ($c, $from, $to) = @_;
    my $n = 0;
    for my $b (grep { $_->{height} >= $from && $_->{height} <= $to } @$c) {
        $n += http_get($port, '/extended/v1/tx/' . tx_id($_))->{status} == 200
            for @{ $b->{txs} };
    }
    return $n;
}

sub txs_of { my ($c, $from, $to) = @_;
    my $n = 0;
    $n += @{ $_->{txs} } for grep { $_->{height} >= $from && $_->{height} <= $to } @$c;
    return $n }

# 1. catching up, 1000 .. 1011
write_chain($root, [@$chain[0 .. 11]]);
my ($c1, $e1, $c2, $e2) = both('--from-height', '1000');
is($c1, 0, 'catch-up one at a time: exit 0') or diag($e1);
is($c2, 0, 'catch-up in flight: exit 0') or diag($e2);
same_index('catch-up');
at(1011);
is(answered($chain, 1000, 1011), txs_of($chain, 1000, 1011),
   'catch-up: every transaction answers at the edge');
my ($most) = $e2 =~ /in_flight_max=(\d+)/;
ok(defined $most && $most <= 4, "in flight: at most --parallel 4 (${\($most // 'none')})");

# 2. a block failing in the middle of the window: 1015's transaction
# malformed; 1012 .. 1014 are written, none from 1015 up
write_chain($root, $chain);
my ($bad) = @{ $chain->[15]{txs} };
my $file = "$root/up/extended/v1/tx/" . tx_id($bad) . '/q=event_limit=100&event_offset=0';
my $body = slurp($file);
spew($file, substr($body, 0, int(length($body) / 2)));
($c1, $e1, $c2, $e2) = both('--retries', '1');
is($c1, 1, 'failing block one at a time: exit 1');
is($c2, 1, 'failing block in flight: exit 1');
like($e2, qr/GET \S+\Q${\tx_id($bad)}\E\S*: the body is not JSON.*nothing of this block was written/,
     'failing block: the error names the request');
same_index('failing block');
at(1014);
is(answered($chain, 1012, 1014), txs_of($chain, 1012, 1014), 'failing block: the blocks below it written');
is(answered($chain, 1015, 1023), 0, 'failing block: nothing of it or above it written');
spew($file, $body);

# 3. upstream reorganising inside the window: 1015 .. 1017 are the old
# chain's, 1018 up a fork from 1017 (1018 names the fork's 1017 as its
# parent): 1015 .. 1017 are committed, 1018 and those above discarded
my @f = blocks('f', 10);
my $fork = make_chain(1000, [@a[0 .. 16], @f], fork => { 1017 => 'b' });
write_chain($root, [@$chain[0 .. 17], @$fork[18 .. $#$fork]]);
($c1, $e1, $c2, $e2) = both();
is($c1, 1, 'reorg in the window one at a time: exit 1');
is($c2, 1, 'reorg in the window in flight: exit 1');
like($e2, qr/stacks block 1018 names the parent .* nothing of it was written/,
     'reorg in the window: the unlinked block said');
same_index('reorg in the window');
at(1017);
is(answered($fork, 1018, 1026), 0, 'reorg in the window: nothing above the fork written');

# upstream done reorganising: 1017 rolled back, the fork mirrored
write_chain($root, $fork);
($c1, $e1, $c2, $e2) = both();
is($c1, 0, 'reorg one at a time: exit 0') or diag($e1);
is($c2, 0, 'reorg in flight: exit 0') or diag($e2);
like($e2, qr/reorg: stacks blocks above 1016/, 'reorg: rolled back to the fork point');
same_index('reorg');
at(1026);
is(answered($fork, 1017, 1026), txs_of($fork, 1017, 1026), 'reorg: the fork answers at the edge');
is(answered($chain, 1017, 1017), 0, 'reorg: the old 1017 is gone');

# 4. --parallel bounds the requests in flight across blocks: blocks of one
# transaction, --parallel 3: one at a time a block has one request in
# flight at most, in flight the blocks share three
my @one = map { [derive_doc($small[$_ % @small], "one$_")] } 0 .. 19;
my $ochain = make_chain(2000, \@one);
write_chain($root, $ochain);
for my $dir ($db, $ref) {
    system('rm', '-rf', $dir);
}
(undef, undef, $e1) = mirror($ref, 1, '--from-height', '2000', '--parallel', '3');
(undef, undef, $e2) = mirror($db, 8, '--from-height', '2000', '--parallel', '3');
my ($m1) = $e1 =~ /in_flight_max=(\d+)/;
my ($m2) = $e2 =~ /in_flight_max=(\d+)/;
is($m1, 1, 'one at a time: one request in flight at most');
is($m2, 3, 'in flight: --parallel 3 requests in flight at most, across blocks');
same_index('blocks of one transaction');

$ng->stop;
done_testing();
