#!/usr/bin/perl
# chaindata-mirror against a Stacks upstream that misbehaves (issue "the
# feed trusts nothing"): every case ends applied, refused with a message
# and the index as it was, or waited for with a bounded, logged backoff.
#   - an upstream with no block yet is waited for, not an error;
#   - a block whose parent is not the recorded block below it, while that
#     block is still upstream's, ends the pass as a failure naming both
#     hashes: --once exits 1, --follow backs off (no busy loop);
#   - an upstream that goes away while following is waited for with a
#     capped backoff, and followed again when it is back;
#   - a 429 with a Retry-After of 31 years is waited for --max-wait;
#   - an upstream on another chain (no recorded block agrees, or the
#     disagreement is deeper than --max-reorg-depth) stops the feed with
#     "is it the same chain?", nothing rolled back;
#   - counts are claims: a block's transactions are its listing's rows
#     (the genesis block's, captured from the real API: total 1 over 9
#     rows), paged to the listing's end; its tx_count and the listing's
#     total only compared (the first difference logged) and bounded, near
#     2^64 too; a mempool's total that differs from its rows logged as
#     well; a listing or a mempool that never ends fails at its cap,
#     loudly; an event_count beyond the cap is refused with the claim
#     named, nothing allocated for it or written.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Upstream qw(:DEFAULT confirmed_docs derive_doc make_chain
    write_chain nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my @docs = grep { !/"event_count":640/ } confirmed_docs();
ok(@docs >= 6, 'fixtures present') or BAIL_OUT('fixtures incomplete');

sub blocks {
    my ($tag, $n) = @_;
    return [map { [derive_doc($docs[$_ % @docs], "$tag/$_")] } 0 .. $n - 1];
}

my $root = temp_dir();
my $db = "$root/index";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

# /throttle/ answers every request 429 with a Retry-After of 31 years;
# /endless/ is /up/ but for block 1010's listing and the mempool, full
# pages at every offset (hostile: upstream's lists end)
my $rows = join ',', map { sprintf '{"tx_id":"0x%064x"}', $_ } 1 .. 50;
my $endless = qq('{"limit":50,"offset":\$arg_offset,"total":1,"results":[$rows]}');
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => nginx_locations($root) . <<"EOF",
        location /throttle/ {
            add_header Retry-After 999999999 always;
            return 429;
        }
        location /endless/ {
            rewrite ^/endless/(.*)\$ /up/\$1 last;
        }
        location = /endless/extended/v2/blocks/1010/transactions {
            default_type application/json;
            return 200 $endless;
        }
        location = /endless/extended/v1/tx/mempool {
            default_type application/json;
            return 200 $endless;
        }
EOF
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

sub mirror {
    return run_cmd([$MIRROR, '--db', $db, '--stacks-api', $api, '--once',
                    '--no-mempool', '--parallel', '4', @_], timeout => 60);
}

sub feed {
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feeds} };
    return $f ? "$f->{height} $f->{hash}" : 'none';
}

sub upstream_requests {
    my @l = grep { m{ /up/} } split /\n/, slurp($ng->{prefix} . '/access.log');
    return scalar @l;
}

# 1. an upstream that has no block yet: waited for
write_chain($root, make_chain(1000, blocks('a', 1)));
spew("$root/up/extended/v2/blocks/q=limit=1",
     '{"limit":1,"offset":0,"total":0,"next_cursor":null,"prev_cursor":null,'
     . '"cursor":null,"results":[]}');
($code, $out, $err) = mirror('--from-height', '1000');
is($code, 0, 'no block upstream yet: exit 0, nothing to do') or diag($err);
is(feed(), 'none', 'no block upstream yet: no position');
like($err, qr/msg="no new block this run"/, 'no block upstream yet: its progress line says so');
unlike($err, qr/lag=\d{7,}/, 'no block upstream yet: no lag of decades');

# 2. a chain of four blocks is mirrored
my $chain = make_chain(1000, blocks('a', 4));
write_chain($root, $chain);
($code, $out, $err) = mirror('--from-height', '1000');
is($code, 0, 'chain: exit 0') or diag($err);
is(feed(), "1003 $chain->[-1]{hash}", 'chain: at 1003');
like($err, qr/level=info source=stacks height=1003 tip=1003 behind=0 eta_s=0 blocks=4 /,
     'chain: the progress line names upstream\'s tip and what is left');
# the line of the first block, before the feeds' state was first stored:
# upstream's tip as the pass read it (it named none: the tip it printed
# was the one stored after a pass, which lags a pass behind what is
# committed, issue 41); a tip never below the height
like($err, qr/level=info source=stacks height=1000 tip=1003 behind=3 eta_s=unknown blocks=1 /,
     'chain: the first block\'s line names the tip the pass read');
my @lines = $err =~ /(level=info source=stacks height=\d+ \S+)/g;
is(scalar(grep { !/height=(\d+) tip=(\d+)/ || $2 < $1 } @lines), 0,
   'chain: each progress line names a tip, none below its height')
    or diag(join "\n", @lines);

# the same on a terminal: the line drawn in place, with the target
SKIP: {
    skip 'script(1) (util-linux) is missing', 2 unless -x '/usr/bin/script';
    my $cmd = join ' ', map { my $x = $_; $x =~ s/'/'\\''/g; "'$x'" }
        $MIRROR, '--db', "$root/tty", '--stacks-api', $api, '--once',
        '--no-mempool', '--from-height', '1000';
    my ($c, $o) = run_cmd(['script', '-q', '-e', '-c', $cmd, '/dev/null'],
                          timeout => 60);
    is($c, 0, 'on a terminal: exit 0');
    like($o, qr/\r\e\[Kstacks height 1003 of 1003, 0 to go, [\d.]+ blocks\/s/,
         'on a terminal: height, tip, blocks to go, drawn in place');
}

# 3. block 1004 names another parent while 1003 is still upstream's
my $grown = make_chain(1000, blocks('a', 6));
write_chain($root, $grown);
my $bogus = '0x' . ('ab' x 32);
my $f1004 = "$root/up/extended/v2/blocks/1004/q=";
spew($f1004, slurp($f1004) =~ s/"parent_block_hash":"0x[0-9a-f]{64}"/"parent_block_hash":"$bogus"/r);
my $t0 = time;
($code, $out, $err) = mirror();
is($code, 1, 'parent mismatch: --once exits 1');
like($err, qr/stacks block 1004 names the parent \Q$bogus\E, but block 1003 is \Q$grown->[3]{hash}\E/,
     'parent mismatch: the height and both hashes are logged');
is(feed(), "1003 $chain->[-1]{hash}", 'parent mismatch: nothing written');

# following, the same upstream is asked again after a backoff, not at once
my $log = "$root/follow.log";
my $before = upstream_requests();
my $pid = fork // die "fork: $!";
if ($pid == 0) {
    open STDERR, '>', $log or POSIX::_exit(126);
    exec($MIRROR, '--db', $db, '--stacks-api', $api, '--no-mempool',
         '--interval', '0.5', '--max-wait', '1') or POSIX::_exit(127);
}
sleep 4;
my $asked = upstream_requests() - $before;
my $backoffs = () = slurp($log) =~ /feed stacks failed \(see above\), \d+ in a row: backing off/g;
ok($backoffs >= 2 && $backoffs <= 8, "parent mismatch, following: $backoffs backoffs in 4 s");
ok($asked < 100, "parent mismatch, following: $asked upstream requests in 4 s");
is(waitpid($pid, WNOHANG), 0, 'parent mismatch, following: the mirror goes on');

# 4. upstream goes away (every answer 404) and comes back with the chain
# grown: waited for, then followed again
rename("$root/up", "$root/up-away") or die;
sleep 3;
is(waitpid($pid, WNOHANG), 0, 'upstream gone: the mirror waits');
like(slurp($log), qr/GET \S+\/blocks\?limit=1: HTTP 404.*\n.*feed stacks failed/,
     'upstream gone: the failure and the backoff are logged');
system('rm', '-rf', "$root/up-away");
write_chain($root, $grown);
my $until = time + 30;
sleep 0.2 while feed() ne "1005 $grown->[-1]{hash}" && time < $until;
is(feed(), "1005 $grown->[-1]{hash}", 'upstream back: followed to 1005');
{
    my $t0 = time + 20;
    my $st;
    while (time < $t0) {
        my ($c, $o) = load_index($db, '--stats');
        my $j = json_decode($o);
        ($st) = grep { $_->{source} eq 'stacks' } @{ $j->{feed_states} || [] };
        last if $st && $st->{state} eq 'following' && $st->{failures} == 0;
        sleep 0.5;
    }
    is($st && $st->{state}, 'following', 'recovered: the stored state is following');
    ok($st && $st->{requests} > 0 && $st->{last_ok} > 0, 'recovered: its requests and last good pass stored');
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feeds} };
    is($f && $f->{tip} && $f->{tip}{height}, 1005, 'recovered: upstream\'s tip stored beside the position');
}
like(slurp($log), qr/feed stacks recovered after \d+ failed passes/,
     'upstream back: the recovery is logged');
kill 'TERM', $pid;
waitpid($pid, 0);
is($? >> 8, 0, 'following: exit 0 on SIGTERM');

# 5. a 429 with Retry-After 999999999: waited for --max-wait, logged
($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
    "http://127.0.0.1:$port/throttle", '--once', '--no-mempool',
    '--retries', '2', '--max-wait', '1'], timeout => 60);
is($code, 1, 'Retry-After of 31 years: --once exits 1 after its retries');
my $waits = () = $err =~ /429 with Retry-After 999999999 s; waiting 1 s \(--max-wait\)/g;
is($waits, 2, 'Retry-After of 31 years: each wait capped and logged');
{
    my ($c, $o) = load_index($db, '--stats');
    my ($st) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feed_states} || [] };
    ok($st, 'the feed\'s state is stored in the index') or diag($o);
    is($st && $st->{state}, 'stopped', 'the feed given up with --once: stopped');
    is($st && $st->{why}, 'throttled', 'and why: throttled (its 429s)');
    is($st && $st->{throttled}, 3, 'its 429s counted');
    is($st && $st->{retries}, 2, 'its retries counted');
    is($st && $st->{requests}, 3, 'its requests counted');
}

# 6. upstream on another chain: every block differs from 1000 up
my $other = make_chain(1000, blocks('b', 6), fork => { 1000 => 'other' });
write_chain($root, $other);
($code, $out, $err) = mirror('--max-reorg-depth', '3');
is($code, 1, 'deeper than --max-reorg-depth: exit 1');
like($err, qr/stacks: upstream disagrees with the index below 3 blocks under 1005: is it the same chain\?/,
     'deeper than --max-reorg-depth: said so');
unlike($err, qr/rolling back/, 'deeper than --max-reorg-depth: nothing rolled back');
is(feed(), "1005 $grown->[-1]{hash}", 'deeper than --max-reorg-depth: the index as it was');
{
    my ($c, $o) = load_index($db, '--stats');
    my ($st) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feed_states} || [] };
    is($st && "$st->{state} $st->{why}", 'stopped another_chain',
       'deeper than --max-reorg-depth: the feed stored as stopped on another chain');
}

($code, $out, $err) = mirror('--max-reorg-depth', '100');
is($code, 1, 'no recorded block agrees: exit 1');
like($err, qr/upstream agrees with none of the 6 blocks recorded up to 1005: is it the same chain\?/,
     'no recorded block agrees: said so');
is(feed(), "1005 $grown->[-1]{hash}", 'no recorded block agrees: the index as it was');

# a reorg within the depth is still rolled back
my $fork = make_chain(1000, blocks('a', 7), fork => { 1004 => 'c' });
write_chain($root, $fork);
($code, $out, $err) = mirror('--max-reorg-depth', '3');
is($code, 0, 'a reorg of 2 blocks under a depth of 3: exit 0') or diag($err);
like($err, qr/reorg: stacks blocks above 1003/, 'a reorg of 2 blocks: rolled back');
is(feed(), "1006 $fork->[-1]{hash}", 'a reorg of 2 blocks: at 1006');

# 7. counts are claims: a block's transactions are its listing's rows,
# paged to the listing's end; tx_count and the listing's total are only
# compared (the first difference of a run logged) and bounded.  First what
# the real API serves for the mainnet genesis block (a capture,
# t/captures/stacks-api-9.0.2/mainnet_block0.json): a listing whose total
# (the block's tx_count column) is 1 over its 9 rows
{
    my $cap = json_decode(slurp("$FindBin::Bin/captures/stacks-api-9.0.2/mainnet_block0.json"));
    my %by = map { $_->{path} => $_ } grep { !$_->{same_as} } @$cap;
    my $groot = "$root/up/genesis";
    for my $a (@$cap) {
        my $src = $a->{same_as} ? $by{ $a->{same_as} } : $a;
        next unless $src->{status} == 200 && $a->{path} =~ m{^/extended/(?:v2/|v1/tx/0x)};
        my ($uri, $args) = split /\?/, $a->{path}, 2;
        system('mkdir', '-p', "$groot$uri") == 0 or die;
        spew("$groot$uri/q=" . ($args // ''), $src->{body});
    }
    my ($c, $o, $e) = load_index("$root/genesis-index");
    ($c, $o, $e) = run_cmd([$MIRROR, '--db', "$root/genesis-index", '--stacks-api',
        "http://127.0.0.1:$port/up/genesis", '--once', '--no-mempool',
        '--from-height', '1', '--retries', '1'], timeout => 60);
    is($c, 0, 'the genesis block (captured): --from-height 1 --once exits 0') or diag($e);
    like($e, qr/block 1: tx_count 1, listing total 1, but 9 transactions listed; the listing is mirrored/,
         'the genesis block: its claims compared with its 9 rows, logged');
    ($c, $o) = load_index("$root/genesis-index", '--stats');
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feeds} };
    is($f && $f->{height}, 2, 'the genesis block: mirrored, and block 2 above it');
}

# claims upstream cannot be made to serve (hostile, written by hand): a
# block's tx_count of 300,000 over 2 rows, then a tx_count of 1 over 2
# rows: mirrored as listed, the first difference logged, not the second
my @more = (@{ blocks('a', 7) }, [derive_doc($docs[0], 'two/0'), derive_doc($docs[1], 'two/1')],
            [derive_doc($docs[2], 'boot/0'), derive_doc($docs[3], 'boot/1')]);
my $counted = make_chain(1000, \@more, fork => { 1004 => 'c' });
write_chain($root, $counted);
for ([1007, 300000], [1008, 1]) {
    my ($h, $n) = @$_;
    my $f = "$root/up/extended/v2/blocks/$h/q=";
    spew($f, slurp($f) =~ s/"tx_count":\d+/"tx_count":$n/r);
}
$before = upstream_requests();
($code, $out, $err) = mirror();
is($code, 0, 'tx_count claims: exit 0') or diag($err);
like($err, qr/block 1007: tx_count 300000, listing total 2, but 2 transactions listed; the listing is mirrored/,
     'a block claiming 300,000 transactions: mirrored as listed, logged');
unlike($err, qr/block 1008: tx_count/, 'a second block\'s claims differing: not logged again');
$asked = upstream_requests() - $before;
ok($asked < 30, "tx_count claims: $asked upstream requests for two blocks");
is(feed(), "1008 $counted->[-1]{hash}", 'tx_count claims: at 1008');

# an event_count beyond any transaction's: refused with the claim named,
# nothing written
my @huge = (@more, [derive_doc($docs[4], 'huge/0')]);
my $hchain = make_chain(1000, \@huge, fork => { 1004 => 'c' });
write_chain($root, $hchain);
my ($id9) = $huge[-1][0] =~ /"tx_id":"(0x[0-9a-f]{64})"/;
my $ev = "$root/up/extended/v1/tx/$id9/q=event_limit=100&event_offset=0";
my $evdoc = slurp($ev);
spew($ev, $evdoc =~ s/"event_count":\d+/"event_count":100000000/r);
($code, $out, $err) = mirror('--retries', '1');
is($code, 1, 'an event_count of 1e8: exit 1');
like($err, qr/an event_count of 100000000 claimed, more than the 1000000 a transaction may have/,
     'an event_count of 1e8: the claim is named');
is(feed(), "1008 $counted->[-1]{hash}", 'an event_count of 1e8: nothing written');
{
    my ($c, $o) = load_index($db, '--stats');
    my ($st) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feed_states} || [] };
    is($st && $st->{refused}, 2, 'the refused answers of the last run counted (a try and its retry)');
}
spew($ev, $evdoc);

# a listing's total near 2^64 over its one row (hostile): a claim, the
# row mirrored, nothing asked for the rest of the claim
my $txs = "$root/up/extended/v2/blocks/1009/transactions/q=limit=50&offset=0";
spew($txs, slurp($txs) =~ s/"total":\d+/"total":18446744073709551615/r);
$before = upstream_requests();
($code, $out, $err) = mirror();
is($code, 0, 'a listing total of 2^64 - 1: exit 0') or diag($err);
like($err, qr/block 1009: tx_count 1, listing total 18446744073709551615, but 1 transactions listed; the listing is mirrored/,
     'a listing total of 2^64 - 1: compared, logged');
$asked = upstream_requests() - $before;
ok($asked < 10, "a listing total of 2^64 - 1: $asked upstream requests");
is(feed(), "1009 $hchain->[-1]{hash}", 'a listing total of 2^64 - 1: its row mirrored');

# a mempool claiming 1e9 transactions on an empty page: a claim, the
# mempool empty, the feed goes on
spew("$root/up/extended/v1/tx/mempool/q=limit=50&offset=0",
     '{"limit":50,"offset":0,"total":1000000000,"results":[]}');
($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api', $api,
    '--once', '--retries', '1'], timeout => 60);
is($code, 0, 'a mempool claiming 1e9 on an empty page: exit 0') or diag($err);
is(feed(), "1009 $hchain->[-1]{hash}", 'a mempool claiming 1e9: the blocks as they were');

# a listing and a mempool that never end (hostile: every page full,
# whatever its offset): paged up to the 100,000 transactions a block may
# have, the 1,000,000 the mempool may have, then each fails, loudly,
# nothing of it written
{
    my @g = (@huge, [derive_doc($docs[5], 'endless/0')]);
    write_chain($root, make_chain(1000, \@g, fork => { 1004 => 'c' }));
    ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
        "http://127.0.0.1:$port/endless", '--once', '--retries', '1',
        '--parallel', '16'], timeout => 300);
    is($code, 1, 'a listing that never ends: exit 1');
    like($err, qr{GET \S+/extended/v2/blocks/1010/transactions\?limit=50&offset=\d+: the listing goes on past 100000 transactions, more than a block may have: refused},
         'a listing that never ends: refused at the cap, the block named');
    is(feed(), "1009 $hchain->[-1]{hash}", 'a listing that never ends: nothing of it written');

    # the blocks caught up, the mempool's turn
    write_chain($root, $hchain);
    ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
        "http://127.0.0.1:$port/endless", '--once', '--retries', '1',
        '--parallel', '16'], timeout => 300);
    is($code, 1, 'a mempool that never ends: exit 1');
    like($err, qr/mempool: the listing goes on past 1000000 transactions, more than it may have: refused/,
         'a mempool that never ends: refused at the cap');
    is(feed(), "1009 $hchain->[-1]{hash}", 'a mempool that never ends: the blocks as they were');
}

# 8. upstream grows its schema: a transaction of a tx_type the index
# does not know is stored as served, said and counted; the feed goes on
my @grown = (@huge, [derive_doc($docs[5], 'new-type/0') =~ s/"tx_type":"[a-z_]+"/"tx_type":"new_kind"/r]);
my $gchain = make_chain(1000, \@grown, fork => { 1004 => 'c' });
write_chain($root, $gchain);
($code, $out, $err) = mirror();
is($code, 0, 'a tx_type upstream added: exit 0') or diag($err);
like($err, qr/block 1010 of stacks: a document stored as upstream served it, with what the schema does not know yet: data\.tx_type "new_kind"/,
     'a tx_type upstream added: said with its block');
is(feed(), "1010 $gchain->[-1]{hash}", 'a tx_type upstream added: at 1010');

# claims short of the rows, past a page: block 1011's 60 transactions
# under a tx_count and a listing total of 5 (as the genesis block's
# claims, but no captured block has more than a page of rows so: written
# by hand), and a mempool that grew while it was paged (its first page
# says 50, its second holds 20 more): every row mirrored, the lists
# paged to their end
sub stored_txs {
    my ($c, $o) = load_index($db, '--stats');
    return json_decode($o)->{databases}{tx};
}
{
    my ($pending) = map { $_->{data_raw} }
        grep { ($_->{tx_status} // '') eq 'pending' }
        tx_fixtures(fixture_path('tx.ndjson'));
    my @pool = map { derive_doc($pending, "grew/$_") } 0 .. 69;
    my @sixty = map { derive_doc($docs[$_ % @docs], "sixty/$_") } 0 .. 59;
    my $c60 = make_chain(1000, [@grown, \@sixty], fork => { 1004 => 'c' });
    write_chain($root, $c60, mempool => \@pool);
    my $b = "$root/up/extended/v2/blocks/1011";
    spew("$b/q=", slurp("$b/q=") =~ s/"tx_count":\d+/"tx_count":5/r);
    for my $off (0, 50) {
        my $f = "$b/transactions/q=limit=50&offset=$off";
        spew($f, slurp($f) =~ s/"total":\d+/"total":5/r);
    }
    my $m = "$root/up/extended/v1/tx/mempool/q=limit=50&offset=0";
    spew($m, slurp($m) =~ s/"total":\d+/"total":50/r);
    my $before_txs = stored_txs();
    ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
        $api, '--once', '--parallel', '4'], timeout => 60);
    is($code, 0, 'claims short of the rows: exit 0') or diag($err);
    is(feed(), "1011 $c60->[-1]{hash}", 'claims short of the rows: at 1011');
    is(stored_txs() - $before_txs, 60 + 70,
       'all 60 transactions of a block claiming 5, and all 70 pending of a mempool claiming 50, written');
    unlike($err, qr/mempool: total/,
           'the mempool that grew: its last page\'s total counts the rows, nothing logged');

    # a mempool whose total lies (hostile, written by hand: the captured
    # mempools' totals count their rows): 7 claimed over 3 rows, logged
    # as a block's tx_count is (issue 41)
    write_chain($root, $c60, mempool => [@pool[0 .. 2]]);
    spew($m, slurp($m) =~ s/"total":\d+/"total":7/r);
    ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
        $api, '--once', '--parallel', '4'], timeout => 60);
    is($code, 0, 'a mempool total that lies: exit 0') or diag($err);
    like($err, qr/level=warn msg="mempool: total 7 on the listing's last page, but 3 transactions listed; the listing is mirrored \(counts are claims/,
         'a mempool total that lies: logged, as a lying tx_count is');
}

# 9. --rate: 0 is any pace; an upstream on this host is not held to a
# public API's pace, nor told about it
($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
    "http://localhost:$port/up", '--once', '--no-mempool', '--rate', '0'],
    timeout => 60);
is($code, 0, '--rate 0: accepted') or diag($err);
($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
    "http://localhost:$port/up", '--once', '--no-mempool'], timeout => 60);
is($code, 0, 'an upstream on this host: exit 0') or diag($err);
unlike($err, qr/requests a second, the default for an upstream on another host/,
       'an upstream on this host: no pace of a public API');
like(slurp_cmd_help(), qr/0\.75 for others/, '--help says the default pace');

sub slurp_cmd_help { return (run_cmd([$MIRROR, '--help']))[1] }

$ng->stop;
done_testing();
