#!/usr/bin/perl
# Signed units (lmdb-schema/feed.md "Signed units"): chaindata-mirror
# --nats-sign-key signs every unit it publishes with an Ed25519 key
# (openssl genpkey); a follower with --nats-verify-key (the public key)
# applies only units that verify.  Units written on the subject by anyone
# else (unsigned, signed with another key, a signed unit copied to the
# end of the stream) are refused, said, and skipped: never applied,
# the follower goes on.  A unit signed by hand as feed.md says is
# applied.  A restarted publisher skips the forged units (and a message
# that is no unit) too and goes on publishing after them.  A follower refuses a rollback deeper than
# its --max-reorg-depth, or below every recorded block (what the mirror
# refuses), with exit 1 and the index unchanged.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Digest::SHA qw(sha256_hex);
use MIME::Base64 qw(encode_base64 decode_base64);
use ChainData::Test qw(:all);
use ChainData::Nats qw(require_nats openssl ed25519_keys);
use ChainData::Upstream qw(confirmed_docs tx_id derived_blocks derive_doc
    make_chain write_chain nginx_locations);

require_build();
require_nats();
my $MIRROR = build_path('chaindata-mirror');

my $root = temp_dir();
ed25519_keys($root, 'unit', 'other');

my @docs = grep { !/"event_count":640/ } confirmed_docs();
my @blocks = derived_blocks(\@docs, 's', 2, 0 .. 5);
my $chain = make_chain(500, [@blocks[0 .. 3]]);
write_chain($root, $chain);
my $up = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my $api = 'http://127.0.0.1:' . $up->port . '/up';

my $ns = ChainData::Nats->start;
my $S = 'SIGNED';
sub publish {
    return run_cmd([$MIRROR, '--db', "$root/pub", '--stacks-api', $api, '--once',
        '--from-height', '500', '--no-mempool', '--rate', '50',
        '--nats', $ns->url, '--stream', $S, @_], timeout => 120);
}
sub follow {
    my ($db, @o) = @_;
    return load_index($db, '--nats', $ns->url, '--stream', $S, '--once', @o);
}
sub has {
    my ($db, $id) = @_;
    (my $hex = substr($id, 2)) =~ s/(..)/$1/g;
    return mdb_dump_of($db, 'tx') =~ /^ \Q$hex\E$/m ? 1 : 0;
}
sub last_seq { return $ns->request("\$JS.API.STREAM.INFO.$S", '') =~ /"last_seq":(\d+)/ ? $1 : die }
sub message {
    my $m = $ns->request("\$JS.API.STREAM.MSG.GET.$S", qq({"seq":$_[0]}));
    my ($h) = $m =~ /"hdrs":"([^"]*)"/;
    my ($d) = $m =~ /"data":"([^"]*)"/;
    my %h = map { /^([^:]+): (.*)$/ ? ($1, $2) : () } split /\r\n/, decode_base64($h // '');
    return (\%h, decode_base64($d // ''));
}
sub put_unit {
    my ($data, %h) = @_;
    my $r = $ns->request("chaindata.$S", $data, { 'Chaindata-Part' => 0,
        'Chaindata-Parts' => 1, %h });
    return $r =~ /"seq":(\d+)/ ? $1 : die "publish: $r";
}
# a text's Ed25519 signature with $key, base64
sub sign_text {
    my ($key, $text) = @_;
    spew("$root/text", $text);
    openssl('pkeyutl', '-sign', '-rawin', '-inkey', $key, '-in', "$root/text",
            '-out', "$root/sig");
    return encode_base64(slurp("$root/sig"), '');
}
# the signature of a one-part unit at sequence $first, as feed.md says
sub sign {
    my ($key, $unit, $first, $data) = @_;
    return sign_text($key, "chaindata-unit 1\nstream $S\nunit $unit\n"
        . "first $first\nparts 1\nlines " . sha256_hex($data) . "\n");
}
# and of its one part (Chaindata-Part-Signature), as feed.md says
sub sign_part {
    my ($key, $unit, $first, $data) = @_;
    return sign_text($key, "chaindata-part 1\nstream $S\nunit $unit\n"
        . "first $first\npart 0\nparts 1\nbytes " . sha256_hex($data) . "\n");
}

# a private key others may read: refused
chmod 0640, "$root/unit.key";
my ($c, $o, $e) = publish('--nats-sign-key', "$root/unit.key");
is($c, 2, 'a sign key readable by the group: exit 2');
like($e, qr/unit\.key holds a private key: refused while group or others have access to it \(chmod 600\)/,
     'it says so');
chmod 0600, "$root/unit.key";
system('cp', "$root/unit.pub", "$root/pub-only.key");
chmod 0600, "$root/pub-only.key";
($c, $o, $e) = publish('--nats-sign-key', "$root/pub-only.key");
is($c, 2, 'a public key to sign with: exit 2');
like($e, qr/is not an Ed25519 private key in PEM/, 'it says so');

($c, $o, $e) = publish('--nats-sign-key', "$root/unit.key");
is($c, 0, 'the mirror publishes 4 blocks, signed') or diag($e);
my $units = last_seq();
my ($h1) = message(1);
like($h1->{'Chaindata-Signature'} // '', qr/^[A-Za-z0-9+\/]{86}==$/,
     'a unit carries its signature (base64 of 64 bytes)');

my @ids = map { tx_id($_) } map { @{ $_->{txs} } } @$chain;
my $edge = "$root/edge";
($c, $o, $e) = follow($edge, '--nats-verify-key', "$root/unit.pub");
is($c, 0, 'a follower verifying them: exit 0') or diag($e);
is(scalar(grep { has($edge, $_) } @ids), scalar @ids, 'it applied every block');

# what anyone who can write on the subject could add
my $rollback = qq({"kind":"rollback","source":"stacks","height":499}\n);
my $forged = tx_id($docs[5]) ne $ids[0] ? derive_doc($docs[5], 'forged') : die;
my ($mempool) = grep { /"tx_status":"pending"/ } split /\n/, slurp(fixture_path('tx.ndjson'));
my $seq = put_unit($rollback, 'Chaindata-Unit' => 'f.1');
my $sig = sign("$root/other.key", 'f.2', $seq + 1, $rollback);
put_unit($rollback, 'Chaindata-Unit' => 'f.2', 'Chaindata-Signature' => $sig);
my ($h, $d) = message(1);
delete $h->{'Nats-Msg-Id'};
delete $h->{'Nats-Expected-Last-Sequence'};
put_unit($d, %$h);
put_unit(qq({"kind":"tx","data":$forged}\n), 'Chaindata-Unit' => 'f.4',
    'Chaindata-Signature' => 'A' x 86 . '==');
my $good = sign("$root/unit.key", 'h.1', $seq + 4, "$mempool\n");
my $hand = put_unit("$mempool\n", 'Chaindata-Unit' => 'h.1', 'Chaindata-Signature' => $good,
    'Chaindata-Part-Signature' => sign_part("$root/unit.key", 'h.1', $seq + 4, "$mempool\n"));

($c, $o, $e) = follow($edge, '--nats-verify-key', "$root/unit.pub");
is($c, 0, 'the follower after the forged units: exit 0') or diag($e);
# each part is verified when it arrives (Chaindata-Part-Signature): a
# forged one is dropped at once, never buffered
like($e, qr/warn msg="stream $S: the message at sequence $seq is dropped, a part 0 of 1 of the unit f\.1 that does not verify: it is not signed/,
     'an unsigned unit: its part dropped, said');
like($e, qr/the message at sequence ${\ ($seq + 1)} is dropped, a part 0 of 1 of the unit f\.2 that does not verify: it is not signed/,
     'a unit signed with another key (no part signature): dropped, said');
like($e, qr/the message at sequence ${\ ($seq + 2)} is dropped, a part 0 of 1 of the unit \S+ that does not verify: its signature does not verify with the key given/,
     'a signed unit copied to the end of the stream: its part does not verify there, dropped');
like($e, qr/the message at sequence ${\ ($seq + 3)} is dropped.*does not verify/,
     'a unit with a signature of zeros: dropped, said');
is(scalar(grep { has($edge, $_) } @ids), scalar @ids,
   'no rollback applied: every block still there');
ok(!has($edge, tx_id($forged)), 'no forged transaction');
ok(has($edge, tx_id($mempool)), 'the unit signed by hand as feed.md says: applied');
my ($k) = unpack('H*', "stream:$S");
like(mdb_dump_of($edge, 'feed'), qr/^ \Q$k\E\n 02[0-9a-f]{14}\Q${\ unpack('H*', pack('Q<', $hand))}\E$/m,
     "the position is the applied unit's, past the forged ones");

# without a key the rollback would wipe the index; a follower's maximum
# reorg depth stops it first: exit 1, the index as it was
my $deep = "$root/deep";
($c, $o, $e) = follow($deep, '--max-reorg-depth', '3');
my $before = mdb_dump_of($deep, 'tx');
is($c, 1, 'a follower without a key, maximum depth 3: the rollback of 4 blocks stops it');
like($e, qr/the unit ending at sequence $seq is refused: a rollback of stacks to height 499 undoes 4 blocks \(from 503\), more than the maximum 3 \(--max-reorg-depth\): is it the same chain\?/,
     'it says why');
is(scalar(grep { has($deep, $_) } @ids), scalar @ids, 'its index keeps every block');
($c, $o, $e) = follow($deep, '--max-reorg-depth', '3');
is($c, 1, 'run again: the same refusal, nothing applied');
is(mdb_dump_of($deep, 'tx'), $before, 'the index unchanged');
# within the maximum, a rollback below every recorded block agrees with
# none of them: refused as the mirror refuses it (issue 31)
for my $max (['--max-reorg-depth', '4'], []) {
    ($c, $o, $e) = follow($deep, @$max);
    is($c, 1, "a maximum of ${\ ($max->[1] // 'the default 1000')}: the rollback below every recorded block stops the follower");
    like($e, qr/the unit ending at sequence $seq is refused: a rollback of stacks to height 499 is below every recorded block \(the first is 500\): it agrees with none of them: is it the same chain\?/,
         'it says why');
    is(mdb_dump_of($deep, 'tx'), $before, 'the index unchanged');
}

# the publisher restarted on a grown chain: it skips the forged units
# (it verifies with its own key) and publishes after them
my $junk = $ns->request("chaindata.$S", 'not a unit') =~ /"seq":(\d+)/ ? $1 : die;
write_chain($root, make_chain(500, \@blocks));
($c, $o, $e) = publish('--nats-sign-key', "$root/unit.key");
is($c, 0, 'the publisher restarted: exit 0') or diag($e);
like($e, qr/the message at sequence $seq is dropped, a part 0 of 1 of the unit f\.1 that does not verify/,
     'it skipped the forged units');
like($e, qr/warn msg="stream $S: the message at sequence $junk is skipped: it is not a part of a chaindata unit/,
     'and a message that is no unit, with a warning');
($c, $o, $e) = follow($edge, '--nats-verify-key', "$root/unit.pub");
is($c, 0, 'the follower: exit 0') or diag($e);
my @more = map { tx_id($_) } @{ $blocks[4] }, @{ $blocks[5] };
is(scalar(grep { has($edge, $_) } @ids, @more), @ids + @more,
   'it applied the new blocks');

# --nats-verify-key needs --nats; a key file that is not a key
($c, $o, $e) = load_index("$root/x", '--nats-verify-key', "$root/unit.pub");
is($c, 2, '--nats-verify-key without --nats: exit 2');
($c, $o, $e) = follow("$root/x", '--nats-verify-key', "$root/text");
is($c, 2, 'a verify key that is no key: exit 2');
like($e, qr/text is not an Ed25519 public key in PEM/, 'it says so');

$up->stop;
$ns->stop;
done_testing();
