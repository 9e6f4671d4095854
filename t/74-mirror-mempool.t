#!/usr/bin/perl
# chaindata-mirror and the Stacks mempool against a recorded upstream
# (ChainData::Upstream write_chain's mempool: GET /extended/v1/tx/mempool
# pages and GET /extended/v1/tx/{tx_id} as the Stacks API serves them): a
# transaction broadcast a moment ago answers at the edge as upstream does,
# pending, then confirmed, dropped (replaced by fee) or gone; each run is
# a new process, which finds the pending transactions in the index.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(confirmed_docs make_chain write_chain
    nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my @fx = tx_fixtures(fixture_path('tx.ndjson'));
my ($pending) = map { $_->{data_raw} } grep { ($_->{tx_status} // '') eq 'pending' } @fx;
my ($dropped) = map { $_->{data_raw} } grep { ($_->{tx_status} // '') eq 'dropped_replace_by_fee' } @fx;
my @docs = grep { !/"event_count":640/ } confirmed_docs();
ok($pending && $dropped && @docs > 3, 'fixtures present') or BAIL_OUT('fixtures incomplete');

sub tx_id { return $_[0] =~ /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die }

# the dropped transaction while it was pending, and a pending document of
# a transaction that a later block confirms
(my $was_pending = $dropped) =~ s/"tx_status":"dropped_replace_by_fee"/"tx_status":"pending"/;
$was_pending =~ s/"replaced_by_tx_id":"0x[0-9a-f]+"/"replaced_by_tx_id":null/;
my $confirmed = $docs[1];
(my $to_confirm = $pending) =~ s/\Q${\ tx_id($pending)}\E/${\ tx_id($confirmed)}/;
my ($P, $D, $C) = map { tx_id($_) } $pending, $dropped, $confirmed;

my $root = temp_dir();
my $db = "$root/index";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => "    limit_req_zone \$binary_remote_addr zone=up:1m rate=200r/s;\n",
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n"
        . nginx_locations($root, burst => 20),
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

sub mirror {
    return run_cmd([$MIRROR, '--db', $db, '--stacks-api', $api, '--once', @_],
                   timeout => 300);
}

sub edge_is {
    my ($id, $doc, $name) = @_;
    my $r = http_get($port, "/extended/v1/tx/$id");
    if (!defined $doc) {
        # not in the index, whose stacks feed starts at 1000 (upstream's
        # tip): not a 404 of its own (lmdb-schema/feed.md, "The history a
        # feed holds"), a 503, or upstream's answer in front of upstream
        is($r->{status}, 503, "$name: not served (503)");
        return;
    }
    ok($r->{status} == 200 && $r->{body} eq splice_events($doc, 0, 20), $name)
        or diag("$r->{status} $r->{body}");
}

# 1. three transactions pending
my $chain = make_chain(1000, [[$docs[0]]]);
write_chain($root, $chain, mempool => [$pending, $was_pending, $to_confirm]);
($code, $out, $err) = mirror('--from-height', '1000');
is($code, 0, 'pending: exit 0') or diag($err);
unlike($err, qr/mempool: total/, 'pending: a total that counts the rows, not logged');
edge_is($P, $pending, 'pending: a pending transaction');
edge_is($D, $was_pending, 'pending: the one replaced later');
edge_is($C, $to_confirm, 'pending: the one confirmed later');

# 2. one confirmed by a new block, one dropped (replaced by fee)
$chain = make_chain(1000, [[$docs[0]], [$confirmed]]);
write_chain($root, $chain, mempool => [$pending], left => [$dropped]);
($code, $out, $err) = mirror();
is($code, 0, 'confirmed and dropped: exit 0') or diag($err);
edge_is($C, $confirmed, 'confirmed: the block\'s document');
edge_is($D, $dropped, 'dropped: as upstream serves it now');
edge_is($P, $pending, 'still pending');

# 3. gone from upstream altogether (404)
write_chain($root, $chain);
($code, $out, $err) = mirror();
is($code, 0, 'gone: exit 0') or diag($err);
edge_is($P, undef, 'gone: the transaction upstream no longer serves');
edge_is($D, $dropped, 'gone: the dropped one stays as upstream serves it');
edge_is($C, $confirmed, 'gone: the confirmed one stays');

# 4. --no-mempool: blocks only
write_chain($root, $chain, mempool => [$pending]);
($code, $out, $err) = mirror('--no-mempool');
is($code, 0, '--no-mempool: exit 0') or diag($err);
edge_is($P, undef, '--no-mempool: the mempool is left alone');

$ng->stop;
done_testing();
