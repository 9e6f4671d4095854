#!/usr/bin/perl
# Signed units, part by part and with two keys (issue 31; lmdb-schema/
# feed.md "Signed units"):
# - a writer on the subject stores 80 forged parts of 1 MB (part 0 to 79
#   of a unit of 300, not signed by the key): a verifying follower drops
#   each one when it arrives (its Chaindata-Part-Signature does not
#   verify), never buffers them: its peak memory stays within 64 MiB of
#   a follower's on the same stream without them, and it applies every
#   block;
# - a key rotation: the publisher signs with key 1, then, restarted, with
#   key 2; a follower given both (--nats-verify-key twice) applies every
#   unit of either, from the stream's start; five keys are refused.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Nats qw(require_nats ed25519_keys);
use ChainData::Upstream qw(confirmed_docs tx_id derived_blocks make_chain
    write_chain nginx_locations);

require_build();
require_nats();
my $MIRROR = build_path('chaindata-mirror');
my $LOAD = build_path('chaindata-load');

my $root = temp_dir();
ed25519_keys($root, 'k1', 'k2');

my @docs = grep { !/"event_count":640/ } confirmed_docs();
my @blocks = derived_blocks(\@docs, 'k', 2, 0 .. 5);
write_chain($root, make_chain(500, [@blocks[0 .. 3]]));
my $up = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my $api = 'http://127.0.0.1:' . $up->port . '/up';
my @ids = map { tx_id($_) } map { @$_ } @blocks;

my $ns = ChainData::Nats->start;
my $S = 'PARTS';
sub publish {
    my ($key) = @_;
    return run_cmd([$MIRROR, '--db', "$root/pub", '--stacks-api', $api, '--once',
        '--from-height', '500', '--no-mempool', '--nats', $ns->url,
        '--stream', $S, '--nats-sign-key', $key], timeout => 120);
}
my $TIME = -x '/usr/bin/time' ? '/usr/bin/time' : undef;
sub follow {
    my ($db, @keys) = @_;
    my @argv = ($LOAD, '--db', $db, '--nats', $ns->url, '--stream', $S,
        '--once', map { ('--nats-verify-key', $_) } @keys);
    unshift @argv, $TIME, '-f', 'peak_rss_kb=%M' if $TIME;
    return run_cmd(\@argv, timeout => 300);
}
sub peak { return $_[0] =~ /^peak_rss_kb=(\d+)$/m ? $1 : undef }
sub has {
    my ($db, $id) = @_;
    (my $hex = substr($id, 2)) =~ s/(..)/$1/g;
    return mdb_dump_of($db, 'tx') =~ /^ \Q$hex\E$/m ? 1 : 0;
}

# 1. forged parts
my ($c, $o, $e) = publish("$root/k1.key");
is($c, 0, 'the publisher signs blocks 500-503 with key 1') or diag($e);
($c, $o, $e) = follow("$root/base", "$root/k1.pub");
is($c, 0, 'a follower without forged parts: exit 0') or diag($e);
my $base = peak($e);

my $mb = 'x' x (1024 * 1024 - 2048);
my $forged;
for my $i (0 .. 79) {
    my $r = $ns->request("chaindata.$S", $mb, { 'Chaindata-Unit' => 'x.1',
        'Chaindata-Part' => $i, 'Chaindata-Parts' => 300,
        'Chaindata-Part-Signature' => 'A' x 86 . '==' });
    $forged //= $r =~ /"seq":(\d+)/ ? $1 : die "publish: $r";
}
write_chain($root, make_chain(500, [@blocks[0 .. 4]]));
($c, $o, $e) = publish("$root/k1.key");
is($c, 0, 'the publisher goes on after them: block 504') or diag($e);

($c, $o, $e) = follow("$root/edge", "$root/k1.pub");
is($c, 0, 'a verifying follower over 80 forged parts of 1 MB: exit 0') or diag($e);
like($e, qr/warn msg="stream $S: the message at sequence $forged is dropped, a part 0 of 300 of the unit x\.1 that does not verify: its signature does not verify with the key given/,
     'a forged part is dropped when it arrives, said');
is(scalar(grep { has("$root/edge", $_) } @ids[0 .. 9]), 10, 'it applied blocks 500-504');
SKIP: {
    skip('/usr/bin/time is not installed: no peak measured', 1) unless $TIME;
    skip('the sanitizers\' runtime is in the peak (its quarantine keeps '
         . 'what is freed): measured on the plain build', 1)
        if $ENV{CHAINDATA_BUILD};
    my $p = peak($e);
    diag(sprintf('follower peak RSS: %d MiB without forged parts, %d MiB over 80 MB of them',
        ($base // 0) / 1024, ($p // 0) / 1024));
    ok(defined $p && defined $base && $p - $base < 64 * 1024,
       'its peak memory stays within 64 MiB of the baseline');
}

# 2. a key rotation: key 2 from block 505 on
write_chain($root, make_chain(500, [@blocks[0 .. 5]]));
($c, $o, $e) = publish("$root/k2.key");
is($c, 0, 'the publisher restarted with key 2: block 505') or diag($e);
($c, $o, $e) = follow("$root/both", "$root/k1.pub", "$root/k2.pub");
is($c, 0, 'a new follower given both keys: exit 0') or diag($e);
is(scalar(grep { has("$root/both", $_) } @ids), scalar @ids,
   'it applied every block, signed with either key');
($c, $o, $e) = follow("$root/one", "$root/k2.pub");
is($c, 0, 'a new follower given key 2 alone: exit 0') or diag($e);
is(join(',', map { has("$root/one", $_) } @ids), '0,0,0,0,0,0,0,0,0,0,1,1',
   'it applies none of the blocks key 1 signed (an edge takes the new key once past them)');
like($e, qr/does not verify with the key given/, 'it says why');
($c, $o, $e) = follow("$root/five", map { "$root/k1.pub" } 1 .. 5);
is($c, 2, 'five verify keys: a usage error');
like($e, qr/--nats-verify-key: 4 keys at most/, 'it says so');

$up->stop;
$ns->stop;
done_testing();
