#!/usr/bin/perl
# The fan-out stream's units, written by hand (lmdb-schema/feed.md "The
# stream"): a follower joins a unit's parts (a line cut anywhere), applies
# a unit only at its last part, drops the parts of a unit a crashed
# publisher left unfinished, resumes after the last unit it committed
# (the sequence kept in the index), skips with a warning a message that
# is not a part of a unit, or was deleted, and refuses a stream that ends
# before the index's position.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Nats qw(require_nats);

require_build();
require_nats();

my $ns = ChainData::Nats->start;
my $reply = $ns->request('$JS.API.STREAM.CREATE.UNITS',
    '{"name":"UNITS","subjects":["chaindata.UNITS"],"retention":"limits",'
    . '"storage":"file","num_replicas":1}');
like($reply, qr/"type":"io.nats.jetstream.api.v1.stream_create_response"/,
     'stream UNITS created') or diag($reply);

my @tx = grep { /^\{"kind":"tx","data"/ } split /\n/, slurp(fixture_path('tx.ndjson'));
ok(@tx >= 4, 'four transaction records') or BAIL_OUT('fixtures');
my @ids = map { /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die } @tx;

# one unit: its lines cut into $n parts of about the same size
sub publish_unit {
    my ($unit, $lines, $n, $upto) = @_;
    my $data = join '', map { "$_\n" } @$lines;
    my $size = int((length($data) + $n - 1) / $n);
    my @seq;
    for my $i (0 .. ($upto // $n - 1)) {
        my $r = $ns->request('chaindata.UNITS', substr($data, $i * $size, $size),
            { 'Chaindata-Unit' => $unit, 'Chaindata-Part' => $i,
              'Chaindata-Parts' => $n, 'Nats-Msg-Id' => "$unit.$i" });
        push @seq, $r =~ /"seq":(\d+)/ ? $1 : die "publish: $r";
    }
    return $seq[-1];
}

my $root = temp_dir();
my $db = "$root/edge";
sub follow {
    return load_index($db, '--nats', $ns->url, '--stream', 'UNITS', '--once');
}
sub has_tx {
    my ($c, $o) = run_cmd(['mdb_dump', '-s', 'tx', $db]);
    my %has;
    for my $id (@ids) {
        (my $hex = substr($id, 2)) =~ s/(..)/$1/g;
        $has{$id} = $o =~ /^ \Q$hex\E/m ? 1 : 0;
    }
    return join '', map { $has{$_} } @ids;
}
sub position {
    my ($c, $o) = run_cmd(['mdb_dump', '-s', 'feed', $db]);
    my $k = unpack('H*', 'stream:UNITS');
    return $o =~ /^ \Q$k\E\n (02[0-9a-f]{14})([0-9a-f]{16})$/m
           ? unpack('Q<', pack('H*', $2)) : undef;
}

# a unit of two lines in three parts; a unit a crashed publisher left
# after its first part of two; then the next publisher's unit
my $s1 = publish_unit('r1.1', [@tx[0, 1]], 3);
publish_unit('r1.2', [$tx[2]], 2, 0);
my $s3 = publish_unit('r2.1', [$tx[3]], 2);
my ($c, $o, $e) = follow();
is($c, 0, 'follower --once: exit 0') or diag($e);
is(has_tx(), '1101' . '0' x (@ids - 4),
   'the whole units applied, the unfinished one not');
like($e, qr/applied 2 units/, 'two units applied');
like($e, qr/warn msg="stream UNITS: the unit r1\.2 is dropped unfinished \(1 of 2 parts, from sequence ${\ ($s1 + 1)}\)/,
     'the unfinished unit is dropped, and said');
is(position(), $s3, "the index holds the stream sequence $s3 (format 2)");

# run again: nothing to apply, from after the stored sequence
($c, $o, $e) = follow();
is($c, 0, 'again: exit 0');
like($e, qr/from sequence ${\ ($s3 + 1)} .*applied 0 units/s,
     'again: resumes after the stored sequence, applies nothing');

# the next unit, two parts, the first read by one run, the second by the
# next: a unit is applied whole or not at all
my $s4 = publish_unit('r2.2', [$tx[2]], 2, 0);
($c, $o, $e) = follow();
is($c, 0, 'a unit half published: exit 0');
is(position(), $s3, 'a unit half published: not applied');
publish_unit('r2.2', [$tx[2]], 2);    # part 0 deduplicated by its Msg-Id
($c, $o, $e) = follow();
is(has_tx(), '1111' . '0' x (@ids - 4), 'its last part: applied');
is(position(), $s4 + 1, 'at the sequence of its last part');

# not a part of a unit (no headers, or headers that cannot be a part's):
# skipped with a warning naming it, and the units after it applied; the
# same when the message is then deleted from the stream
my $stray = $s4 + 2;
$ns->request('chaindata.UNITS', $tx[4] // $tx[0]);
$ns->request('chaindata.UNITS', $tx[1],
    { 'Chaindata-Unit' => 'x.1', 'Chaindata-Part' => '-1', 'Chaindata-Parts' => '1' });
$ns->request('chaindata.UNITS', $tx[1],
    { 'Chaindata-Unit' => 'x.2', 'Chaindata-Part' => '0', 'Chaindata-Parts' => '0' });
($c, $o, $e) = follow();
is($c, 0, 'messages that are not parts of a unit: exit 0');
like($e, qr/warn msg="stream UNITS: the message at sequence $stray is skipped: it is not a part of a chaindata unit/,
     'a warning names the message');
like($e, qr/sequence ${\ ($stray + 1)} is skipped: .*sequence ${\ ($stray + 2)} is skipped: /s,
     'a part number out of range: skipped too');
is(position(), $s4 + 1, 'the position stays at the last unit applied');
my $s5 = publish_unit('r2.3', [$tx[1]], 1);
($c, $o, $e) = follow();
is($c, 0, 'a unit after them: exit 0') or diag($e);
is(position(), $s5, 'it is applied');
like($ns->request('$JS.API.STREAM.MSG.DELETE.UNITS', qq({"seq":$stray})),
     qr/"success":true/, 'the stray message deleted from the stream');
publish_unit('r2.4', [$tx[0]], 1);
$db = "$root/edge2";
($c, $o, $e) = follow();
is($c, 0, 'a new follower over the deleted message: exit 0') or diag($e);
like($e, qr/sequence $stray is skipped: it was deleted from the stream/,
     'it says the message was deleted, not that it is too far behind');
unlike($e, qr/too far behind/, 'no gap error');
is(has_tx(), '1111' . '0' x (@ids - 4), 'it has every whole unit');
$db = "$root/edge";

# the stream deleted and made anew: the index is beyond its end
my $at = position();
like($ns->request('$JS.API.STREAM.DELETE.UNITS', ''), qr/"success":true/,
     'stream deleted');
$ns->request('$JS.API.STREAM.CREATE.UNITS',
    '{"name":"UNITS","subjects":["chaindata.UNITS"],"storage":"file"}');
publish_unit('r3.1', [$tx[0]], 1);
($c, $o, $e) = follow();
is($c, 1, 'a stream made anew: exit 1');
like($e, qr/the stream UNITS was made anew: this index follows the stream of that name created \S+Z, the one there now was created \S+Z and its sequences are other units; seed this index from a snapshot/,
     'it says why (the stream has another identity), and skips nothing');

$ns->stop;
done_testing();
