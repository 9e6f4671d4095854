#!/usr/bin/perl
# GET /extended/v3/transactions/{tx_id} and …/events (chaindata_tx_v3)
# against every answer the real Stacks Blockchain API 9.0.2 gave in
# ../shared/reference/stacks-api-9.0.2/ (its README): each data set's
# ingest records, with what v3 needs beside the v1 document taken from
# the same data set's feed (ChainData::TxV3), loaded and served, every
# v1 and v3 answer replayed: status, body bytes, Content-Type,
# Cache-Control, CORS, Warning, an ETag where upstream has one; the
# deliberate differences of doc/api.md aside.  Skipped, saying so,
# without ../shared: t/33-tx-v3-captures.t replays the captures kept in
# t/captures/.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use JSON::PP ();
use ChainData::Test qw(:all);
use ChainData::TxV3 qw(v3_records replay_answers v3_locations);

require_build();

my $ref = repo_root() . '/../shared/reference/stacks-api-9.0.2';
$ref = '/work/shared/reference/stacks-api-9.0.2'
    if !-d $ref && -d '/work/shared/reference/stacks-api-9.0.2';
plan skip_all => "no $ref (../shared): the reference answers are not here; "
    . 't/33-tx-v3-captures.t replays those kept in t/'
    unless -d $ref;

my $J = JSON::PP->new;
for my $f (sort glob "$ref/*.answers.json") {
    my ($name) = $f =~ m{([^/]+)\.answers\.json$};
    my $answers = $J->decode(slurp($f));
    my $feed = $J->decode(slurp("$ref/$name.feed.json"));
    my $ndjson = v3_records(slurp("$ref/$name.ndjson"), $feed, $answers);
    my $db = temp_dir() . '/idx';
    my ($c, $o, $e) = load_index($db, { stdin => $ndjson });
    is($c, 0, "$name: loaded") or diag($e);
    fixup_index_perms($db);
    my $ng = ChainData::Test::Nginx->start(db => $db,
                                           locations => v3_locations());
    my %known = map { (lc($_) => 1) } ($ndjson =~ /"tx_id":"0x([0-9a-f]{64})"/g);
    my ($n, $bad, $left) = replay_answers($ng->port, $answers, $name, \%known);
    ok($n > 0, "$name: $n answers replayed, $bad differ"
       . ($left ? "; $left about transactions upstream's v1 does not serve "
                  . '(not in the ingest records) left out' : ''));
    $ng->stop;
}

done_testing();
