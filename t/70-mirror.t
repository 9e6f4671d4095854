#!/usr/bin/perl
# chaindata-mirror against a recorded upstream (ChainData::Upstream: the
# Stacks API's served shapes, served by the test nginx under /up/ with
# 429s, 500s and a slow rate): chain growth between runs, a reorg at the
# tip, a truncated answer, two mirrors on one index.  After each run the
# edge's answers equal upstream's byte for byte, for every transaction and
# every page of its events.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Fcntl qw(:flock);
use ChainData::Test qw(:all);
use ChainData::Upstream qw(:DEFAULT confirmed_docs derive_doc grow_events
    make_chain write_chain tx_page nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');
ok(-x $MIRROR, 'chaindata-mirror built') or BAIL_OUT('no build/chaindata-mirror');

my @docs = confirmed_docs();
my ($big) = grep { /"event_count":640/ } @docs;
ok($big && @docs > 8, 'fixtures present') or BAIL_OUT('fixtures incomplete');
my @small = grep { $_ ne $big } @docs;

# block contents: the fixtures, 60 copies (two pages of the block's
# transactions), a transaction of 1,000 events, an empty block
my @b1000 = @small[0 .. 3];
my @b1001 = map { derive_doc($small[$_ % @small], "copy$_") } 0 .. 59;
my @b1002 = (grow_events(derive_doc($big, 'thousand'), 1000), @small[4 .. 5]);
my @b1003 = ();
my @b1004 = (@small[6 .. $#small], $big);

my $root = temp_dir();
my $db = "$root/index";
my ($code, $out, $err) = load_index($db);    # an empty index for nginx -t
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => "    limit_req_zone \$binary_remote_addr zone=up:1m rate=200r/s;\n",
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n"
        . "        location = /chaindata/status { chaindata_status; }\n"
        . nginx_locations($root, burst => 20, errors => 1,
                          limit_rate => '512k'),
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

sub mirror {
    my (@args) = @_;
    return run_cmd([$MIRROR, '--db', $db, '--stacks-api', $api, '--once',
                    '--parallel', '8', @args], timeout => 300);
}

sub tx_id { return $_[0] =~ /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die }

# every transaction of the chain answers at the edge as upstream does
sub edge_equals_upstream {
    my ($chain, $name) = @_;
    my ($n, $bad) = (0, 0);
    for my $b (@$chain) {
        for my $doc (@{ $b->{txs} }) {
            my $id = tx_id($doc);
            my ($count) = $doc =~ /"event_count":(\d+)/;
            for (my $off = 0; $off == 0 || $off < $count; $off += 100) {
                my $r = http_get($port, "/extended/v1/tx/$id?event_limit=100&event_offset=$off");
                $n++;
                next if $r->{status} == 200 && $r->{body} eq tx_page($doc, $off);
                $bad++;
                diag("$name: $id offset $off: $r->{status}") if $bad < 5;
            }
            my $r = http_get($port, "/extended/v1/tx/$id");
            $n++;
            $bad++ unless $r->{status} == 200 && $r->{body} eq splice_events($doc, 0, 20);
        }
    }
    is($bad, 0, "$name: the edge answers as upstream for all $n pages");
}

sub stats {
    my ($c, $o, $e) = load_index($db, '--stats');
    is($c, 0, 'chaindata-load --stats') or diag($e);
    return json_decode($o);
}

sub feed_is {
    my ($height, $hash, $name) = @_;
    my ($f) = grep { $_->{source} eq 'stacks' } @{ stats()->{feeds} };
    is($f && $f->{height}, $height, "$name: feed at $height");
    is($f && $f->{hash}, $hash, "$name: with the block's hash");
}

# 1. catching up from --from-height
my $chain = make_chain(1000, [\@b1000, \@b1001, \@b1002]);
write_chain($root, $chain);
($code, $out, $err) = mirror('--from-height', '1000');
is($code, 0, 'first run: exit 0') or diag($err);
edge_equals_upstream($chain, 'first run');
feed_is(1002, $chain->[-1]{hash}, 'first run');
my $access = slurp($ng->prefix . '/access.log');
like($access, qr/" 429 /, 'upstream answered 429s (retried after Retry-After)');

# the edge tells how current it is, as --stats does
{
    my $r = http_get($port, '/chaindata/status');
    is($r->{status}, 200, 'chaindata_status: 200');
    like($r->{headers}{'content-type'}, qr{^application/json}, 'chaindata_status: JSON');
    like($r->{headers}{'cache-control'}, qr/no-store/, 'chaindata_status: no-store');
    my $st = json_decode($r->{body});
    is($st->{schema_version}, '7', 'chaindata_status: schema version');
    ok($st->{databases}{tx} > 60 && $st->{databases}{block} == 3,
       'chaindata_status: records per database');
    ok($st->{map_size} >= $st->{used_bytes} && $st->{used_bytes} > 0,
       'chaindata_status: map size and bytes used');
    ok($st->{max_readers} > 0 && $st->{readers} >= 1, 'chaindata_status: reader slots');
    my ($f) = @{ $st->{feeds} };
    is_deeply([@$f{qw(source height hash block_time)}],
              ['stacks', 1002, $chain->[-1]{hash}, $chain->[-1]{time}],
              'chaindata_status: the feed');
    ok($f->{lag} > 0 && $f->{committed} > 0, 'chaindata_status: lag and commit time');
    $r = http_get($port, '/chaindata/status?format=prometheus');
    like($r->{headers}{'content-type'}, qr{^text/plain; version=0\.0\.4}, 'prometheus: content type');
    like($r->{body}, qr/^chaindata_feed_height\{source="stacks"\} 1002$/m,
         'prometheus: the feed height');
    unlike($r->{body}, qr/\Q$chain->[-1]{hash}\E/,
           'prometheus: no block hash (a label would make a series a block)');
    like($r->{body}, qr/^chaindata_records\{database="tx_event"\} \d+$/m, 'prometheus: records');
    like($r->{body}, qr/^chaindata_feed_lag_seconds\{source="stacks"\} \d+$/m, 'prometheus: lag');
    unlike($r->{body} . $st, qr/api_key|chainhook\b.*uuid/i, 'no key or chainhook data');
}

# 2. the chain grows: the next run resumes from the position
$chain = make_chain(1000, [\@b1000, \@b1001, \@b1002, \@b1003, \@b1004]);
write_chain($root, $chain);
($code, $out, $err) = mirror();
is($code, 0, 'chain grown: exit 0') or diag($err);
edge_equals_upstream($chain, 'chain grown');
feed_is(1004, $chain->[-1]{hash}, 'chain grown');

# 3. a reorg at the tip: 1003 and 1004 replaced, a transaction of the old
# 1004 dropped, another moved to the new 1003 (with its new block_height)
my ($dropped, $moved) = map { tx_id($_) } @b1004[0, 1];
(my $moved_doc = $b1004[1]) =~ s/"block_height":\d+/"block_height":1003/;
my @n1003 = ($moved_doc);
my @n1004 = (@b1004[2 .. $#b1004]);
my @n1005 = (derive_doc($small[0], 'after-reorg'));
my $fork = make_chain(1000, [\@b1000, \@b1001, \@b1002, \@n1003, \@n1004, \@n1005],
                      fork => { 1003 => 'b' });
isnt($fork->[3]{hash}, $chain->[3]{hash}, 'the fork replaces block 1003');
write_chain($root, $fork);
($code, $out, $err) = mirror();
is($code, 0, 'reorg: exit 0') or diag($err);
like($err, qr/reorg: stacks blocks above 1002/, 'reorg: rolled back to the fork point');
edge_equals_upstream($fork, 'reorg');
# gone from the index, whose history starts at block 1000: the edge
# cannot say upstream has it nowhere (lmdb-schema/feed.md, "The history a
# feed holds"), so no 404 of its own
is(http_get($port, "/extended/v1/tx/$dropped")->{status}, 503,
   'reorg: the dropped transaction is gone (a 503: the history is partial)');
feed_is(1005, $fork->[-1]{hash}, 'reorg');

# 4. a truncated answer: retried, then the block stops with a clear error
# and nothing of it is written (the block routes' random 500s paused: with
# two retries, three of them in a row would stop the block first)
my @n1006 = (derive_doc($small[1], 'truncated'));
my $next = make_chain(1000, [\@b1000, \@b1001, \@b1002, \@n1003, \@n1004, \@n1005, \@n1006],
                      fork => { 1003 => 'b' });
write_chain($root, $next);
my $cut_id = tx_id($n1006[0]);
my $file = "$root/up/extended/v1/tx/$cut_id/q=event_limit=100&event_offset=0";
my $body = slurp($file);
spew($file, substr($body, 0, int(length($body) / 2)));
($code, $out, $err) = mirror('--retries', '2', '--header', 'X-Up-Faults: off');
is($code, 1, 'truncated answer: exit 1');
like($err, qr/GET \S+\Q$cut_id\E\S*: the body is not JSON.*nothing of this block was written/,
     'truncated answer: the error names the request');
is(http_get($port, "/extended/v1/tx/$cut_id")->{status}, 503,
   'truncated answer: the block was not written');
feed_is(1005, $fork->[-1]{hash}, 'truncated answer');
spew($file, $body);
($code, $out, $err) = mirror();
is($code, 0, 'answer repaired: exit 0') or diag($err);
edge_equals_upstream($next, 'answer repaired');

# 5. upstream behind the index (another node, restarted): the mirror
# waits, nothing is rolled back
write_chain($root, make_chain(1000, [\@b1000, \@b1001, \@b1002]));
($code, $out, $err) = mirror();
is($code, 0, 'upstream behind: exit 0') or diag($err);
unlike($err, qr/reorg/, 'upstream behind: no reorg');
feed_is(1006, $next->[-1]{hash}, 'upstream behind');
write_chain($root, $next);

# a quarter of the block routes' answers were 500s, drawn at random: over
# the runs' fifty-odd block requests (seven in the first) some surely were
like(slurp($ng->prefix . '/access.log'), qr/" 500 /,
     'upstream answered 500s (retried)');

# 6. two mirrors on one index: the second refuses
{
    open my $lock, '>>', "$db/mirror.lock" or die "open: $!";
    flock($lock, LOCK_EX | LOCK_NB) or die "flock: $!";
    ($code, $out, $err) = mirror();
    is($code, 3, 'second mirror: exit 3');
    like($err, qr/another chaindata-mirror runs on/, 'second mirror: says why');
    close $lock;
}

# 7. usage
($code, $out, $err) = run_cmd([$MIRROR, '--db', $db]);
is($code, 2, 'no source: exit 2');
($code, $out, $err) = run_cmd([$MIRROR, '--help']);
like($out, qr/exit status: 0 .*1 .*2 usage, 3/s, '--help documents the exit codes');

$ng->stop;
done_testing();
