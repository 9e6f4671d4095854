#!/usr/bin/perl
# The stream belongs to its publisher (doc/operations.md "Scaling out"),
# against a writer on the subject while the publisher runs (issue 31):
# - the planted Msg-Id: the writer reads the run's epoch and unit number
#   off the stream and stores a message under the Nats-Msg-Id the
#   publisher's next part would have.  The part's ids are random, so
#   JetStream does not drop it as that message's duplicate; the message
#   is interference: the publisher says so, publishes the unit again
#   after it, and a follower applies every block, no gap;
# - with signed units, a forged unit (signed with another key) stored
#   between two of the publisher's: the publisher says so and publishes
#   after it; a verifying follower skips it and applies every block.
# A whole unit a follower would apply, stored by another writer, stops
# the publisher: t/79-nats-publishers.t.  A follower on the publisher's
# index is refused at start (one writer of an index's feeds; the check
# inside the write transaction: t/unit/test_writers.c).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use MIME::Base64 qw(decode_base64);
use Time::HiRes qw(sleep);
use ChainData::Test qw(:all);
use ChainData::Nats qw(require_nats openssl ed25519_keys);
use ChainData::Upstream qw(confirmed_docs tx_id derived_blocks make_chain
    write_chain nginx_locations serve_tree);

require_build();
require_nats();
my $MIRROR = build_path('chaindata-mirror');

my $root = temp_dir();
ed25519_keys($root, 'unit', 'other');

my @docs = grep { !/"event_count":640/ } confirmed_docs();
my @blocks = derived_blocks(\@docs, 'i', 2, 0 .. 7);
# the recorded upstream's chain, each written whole beside the one served,
# then served at once: a publisher polling every 0.2 s never reads a tip
# whose block or listing is not written yet (it mirrors what it is
# served, an empty listing too, and a follower then misses its blocks)
my $trees = 0;
sub serve_chain {
    my ($chain) = @_;
    my $tree = "$root/tree-" . ++$trees;
    write_chain($tree, $chain);
    serve_tree("$root/up", "$tree/up");
}

serve_chain(make_chain(500, [@blocks[0 .. 3]]));
my $up = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my $api = 'http://127.0.0.1:' . $up->port . '/up';
my @ids = map { tx_id($_) } map { @$_ } @blocks;

my $ns = ChainData::Nats->start;

sub has {
    my ($db, $id) = @_;
    (my $hex = substr($id, 2)) =~ s/(..)/$1/g;
    return mdb_dump_of($db, 'tx') =~ /^ \Q$hex\E$/m ? 1 : 0;
}
sub last_seq {
    my ($S) = @_;
    return $ns->request("\$JS.API.STREAM.INFO.$S", '') =~ /"last_seq":(\d+)/ ? $1 : 0;
}
sub message {
    my ($S, $seq) = @_;
    my $m = $ns->request("\$JS.API.STREAM.MSG.GET.$S", qq({"seq":$seq}));
    my ($h) = $m =~ /"hdrs":"([^"]*)"/;
    my ($d) = $m =~ /"data":"([^"]*)"/;
    my %h = map { /^([^:]+): (.*)$/ ? ($1, $2) : () } split /\r\n/, decode_base64($h // '');
    return (\%h, decode_base64($d // ''));
}
sub put {
    my ($S, $data, %h) = @_;
    my $r = $ns->request("chaindata.$S", $data, \%h);
    return $r =~ /"seq":(\d+)/ ? $1 : die "publish: $r";
}
sub sign {
    my ($key, $S, $unit, $first, $data) = @_;
    require Digest::SHA;
    require MIME::Base64;
    spew("$root/text", "chaindata-unit 1\nstream $S\nunit $unit\nfirst $first\n"
        . "parts 1\nlines " . Digest::SHA::sha256_hex($data) . "\n");
    openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$root/text",
            '-out', "$root/sig");
    return MIME::Base64::encode_base64(slurp("$root/sig"), '');
}

# a publisher that follows upstream (polls every 0.2 s) until stopped
sub start_mirror {
    my ($S, @o) = @_;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDERR, '>', "$root/$S.log" or POSIX::_exit(126);
        exec($MIRROR, '--db', "$root/pub-$S", '--stacks-api', $api,
             '--from-height', '500', '--no-mempool', '--interval', '0.2',
             '--nats', $ns->url, '--stream', $S, @o) or POSIX::_exit(127);
    }
    return $pid;
}
# the stream's last unit carries block $h
sub wait_block {
    my ($S, $h) = @_;
    for (1 .. 1200) {
        my $last = last_seq($S);
        if ($last) {
            my (undef, $d) = message($S, $last);
            return 1 if $d =~ /"kind":"block_end"[^\n]*"height":$h\b/
                || $d =~ /"height":$h\b[^\n]*"kind":"block_end"/;
        }
        sleep 0.05;
    }
    return 0;
}
sub stop_mirror {
    my ($pid) = @_;
    kill 'TERM', $pid;
    waitpid($pid, 0);
    return $?;
}
sub follow {
    my ($S, $db, @o) = @_;
    return load_index($db, '--nats', $ns->url, '--stream', $S, '--once', @o);
}

# 1. the planted Msg-Id, unsigned units
my $S = 'PLANTED';
my $pid = start_mirror($S);
ok(wait_block($S, 503), 'the publisher published blocks 500-503');
my $last = last_seq($S);
my ($h) = message($S, $last);
my ($epoch, $n) = ($h->{'Chaindata-Unit'} // '') =~ /^(\S+)\.(\d+)$/;
ok(defined $n, "the last unit is $h->{'Chaindata-Unit'}");
# what the next part's id was (the run's epoch, the unit number + 1, part
# 0), and the id as the publisher gives it now (a random tail)
like($h->{'Nats-Msg-Id'} // '', qr/^\Q$epoch.$n\E\.0\.[0-9a-f]{16}$/,
     "a part's Nats-Msg-Id ends with 16 random hex digits");
# one writer of an index's feeds: a follower of the publisher's own
# stream on the publisher's index is refused at start
my ($c, $o, $e) = follow($S, "$root/pub-$S");
is($c, 3, "a follower on the running publisher's index: exit 3");
like($e, qr{another chaindata-mirror runs on \Q$root/pub-$S\E \(pid $pid; \S+/feeds\.lock is locked\): one writer at a time},
     'it says which writer holds the index');
my $planted = put($S, 'planted', 'Nats-Msg-Id' => "$epoch.${\ ($n + 1)}.0");
is($planted, $last + 1, 'the planted message is stored');
serve_chain(make_chain(500, [@blocks[0 .. 5]]));
ok(wait_block($S, 505), 'the publisher published blocks 504 and 505');
is(stop_mirror($pid), 0, 'the publisher stopped by a signal: exit 0');
my $log = slurp("$root/$S.log");
like($log, qr/level=warn msg="the stream $S holds a message after sequence $last that this mirror did not write \(interference on the subject\)"/,
     'the publisher says a message it did not write is there');
like($log, qr/level=warn msg="the stream $S: sequences $planted to $planted hold no unit a follower applies; the unit \Q$epoch\E\.${\ ($n + 1)} is published again after them"/,
     'and that it publishes its unit after it');
unlike($log, qr/one publisher a stream|nothing is committed/, 'it did not stop');
($c, $o, $e) = follow($S, "$root/edge-$S");
is($c, 0, 'a follower: exit 0') or diag($e);
unlike($e, qr/leaves a gap/, 'no gap');
is(scalar(grep { has("$root/edge-$S", $_) } @ids[0 .. 11]), 12,
   'it applied blocks 500-505')
    or diag("missing: @{[grep { !has(\"$root/edge-$S\", $_) } @ids[0 .. 11]]}\n"
            . "the follower said: $e\nthe publisher's log: $log");
like($e, qr/the message at sequence $planted is skipped: it is not a part of a chaindata unit/,
     'it skipped the planted message');

# 2. signed units: a forged unit between two of the publisher's
serve_chain(make_chain(500, [@blocks[0 .. 3]]));
$S = 'FORGED';
$pid = start_mirror($S, '--nats-sign-key', "$root/unit.key");
ok(wait_block($S, 503), 'the signing publisher published blocks 500-503');
$last = last_seq($S);
my $rollback = qq({"kind":"rollback","source":"stacks","height":499}\n);
my $forged = put($S, $rollback, 'Chaindata-Unit' => 'f.1', 'Chaindata-Part' => 0,
    'Chaindata-Parts' => 1, 'Chaindata-Signature' =>
    sign("$root/other.key", $S, 'f.1', $last + 1, $rollback));
serve_chain(make_chain(500, [@blocks[0 .. 7]]));
ok(wait_block($S, 507), 'the publisher published blocks 504-507');
is(stop_mirror($pid), 0, 'the publisher stopped by a signal: exit 0');
$log = slurp("$root/$S.log");
like($log, qr/the stream $S holds a message after sequence $last that this mirror did not write/,
     'the publisher says so');
like($log, qr/the message at sequence $forged is dropped, a part 0 of 1 of the unit f\.1 that does not verify/,
     'it read the forged unit as a follower would: not applied');
like($log, qr/sequences $forged to $forged hold no unit a follower applies; the unit \S+ is published again after them/,
     'it published its unit after it');
($c, $o, $e) = follow($S, "$root/edge-$S", '--nats-verify-key', "$root/unit.pub");
is($c, 0, 'a verifying follower: exit 0') or diag($e);
like($e, qr/the message at sequence $forged is dropped, a part 0 of 1 of the unit f\.1 that does not verify/,
     'it skipped the forged unit');
is(scalar(grep { has("$root/edge-$S", $_) } @ids), scalar @ids,
   'it applied blocks 500-507')
    or diag("missing: @{[grep { !has(\"$root/edge-$S\", $_) } @ids]}\n"
            . "the follower said: $e\nthe publisher's log: $log");

# 3. the stream deleted and made anew, longer than the edge's position:
# a follower recognises another stream (its identity, when it was made,
# is kept with the position), says so and what to do, applies nothing
my $edge = "$root/edge-$S";
my $before = mdb_dump_of($edge, 'tx');
like($ns->request("\$JS.API.STREAM.DELETE.$S", ''), qr/"success":true/,
     'the stream deleted');
$pid = start_mirror($S, '--db', "$root/other-$S", '--nats-sign-key', "$root/unit.key");
ok(wait_block($S, 507), 'a new publisher made it anew');
put($S, 'x') for 1 .. 3;    # and longer than the old one
is(stop_mirror($pid), 0, 'the new publisher stopped: exit 0');
($c, $o, $e) = follow($S, $edge, '--nats-verify-key', "$root/unit.pub");
is($c, 1, 'the follower on the stream made anew: exit 1');
like($e, qr/error msg="the stream $S was made anew: this index follows the stream of that name created \S+Z, the one there now was created \S+Z and its sequences are other units; seed this index from a snapshot of an index that follows the new stream \(chaindata-load --snapshot\), or start on an empty index"/,
     'it says the stream is another one, and what to do');
unlike($e, qr/rollback first|leaves a gap/, 'no advice that does not fit');
is(mdb_dump_of($edge, 'tx'), $before, 'its index unchanged');
($c, $o, $e) = run_cmd([$MIRROR, '--db', "$root/pub-$S", '--stacks-api', $api,
    '--once', '--no-mempool', '--nats', $ns->url, '--stream', $S,
    '--nats-sign-key', "$root/unit.key"], timeout => 120);
is($c, 1, 'the old publisher on the stream made anew: exit 1');
like($e, qr/the stream $S was made anew/, 'it says so too');

$up->stop;
$ns->stop;
done_testing();
