#!/usr/bin/perl
# What upstream adds to its documents (a member, a tx_type, a tx_status,
# an event_type) is not corruption: the loader stores the document as
# given, says where the new thing is and counts it, and the edge serves
# upstream's bytes; what the index needs (ids, placement, events that
# continue) is still required.  The mirror and the follower go through
# the same ingest (t/69 sees the mirror do it).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my @txs = tx_fixtures(fixture_path('tx.ndjson'));
my ($conf) = grep { !$_->{mempool} && $_->{event_count} >= 2 } @txs;
my ($pend) = grep { $_->{mempool} } @txs;
ok($conf && $pend, 'fixtures: a confirmed transaction with events, a mempool one')
    or BAIL_OUT('fixtures incomplete');

my $root = temp_dir();
my $db = "$root/index";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);
my $port = $ng->port;

sub tx_line { return qq({"kind":"tx","data":$_[0]}\n) }
sub id_of { return $_[0] =~ /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die }

sub stored_as_given {
    my ($doc, $what, $name) = @_;
    my ($c, $o, $e) = load_index($db, { stdin => tx_line($doc) });
    is($c, 0, "$name: loaded") or diag($e);
    like($e, qr/<stdin>:1: stored as given, with what the schema does not know yet: \Q$what\E/,
         "$name: said where");
    like($e, qr/1 records with what the schema does not know yet, stored as given/, "$name: counted");
    my $r = http_get($port, '/extended/v1/tx/' . id_of($doc));
    is($r->{status}, 200, "$name: served");
    is($r->{body}, splice_events($doc, 0, 20), "$name: upstream's bytes");
}

my $c = $conf->{data_raw};
stored_as_given($c =~ s/"tx_type":"[a-z_]+"/"tx_type":"new_kind"/r,
                'data.tx_type "new_kind"', 'a tx_type upstream added');
stored_as_given($c =~ s/"tx_status":"[a-z_]+"/"tx_status":"success_v2"/r,
                'data.tx_status "success_v2"', 'a confirmed tx_status upstream added');
stored_as_given($c =~ s/"event_type":"[a-z_]+"/"event_type":"new_event"/r,
                'data.events[0].event_type "new_event"', 'an event_type upstream added');
stored_as_given($pend->{data_raw} =~ s/"tx_status":"[a-z_]+"/"tx_status":"dropped_new_reason"/r,
                'data.tx_status "dropped_new_reason"', 'a mempool tx_status upstream added');

# still refused: what the index needs to place and page a transaction
for my $bad (
    [$c =~ s/"tx_status":"[a-z_]+"/"tx_status":7/r, qr/data.tx_status is missing or not a string/],
    [$c =~ s/"event_type":"[a-z_]+"/"event_type":7/r, qr/event_type must be one of .*\(or a string upstream adds\)/],
    [$c =~ s/"event_count":(\d+)/'"event_count":' . ($1 + 1)/er,
        qr/data.event_count must equal the number of data.events/],
    [$c =~ s/"tx_id":"0x[0-9a-f]{64}"/"tx_id":"0x12"/r, qr/data.tx_id must be/],
) {
    my ($doc, $re) = @$bad;
    my ($code2, $o2, $e2) = load_index($db, { stdin => tx_line($doc) });
    is($code2, 1, "refused: $re");
    like($e2, $re, "refused: $re: says why");
}

$ng->stop;
done_testing();
