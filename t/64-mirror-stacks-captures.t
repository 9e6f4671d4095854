#!/usr/bin/perl
# chaindata-mirror against bytes the real Stacks Blockchain API 9.0.2
# served (t/captures/stacks-api-9.0.2/NAME.json, its README says how they
# were made): the test nginx serves each data set's captured answers under
# /up/ as they came, a capture upstream answered 404 is a 404 there too;
# the mirror runs from block 1 (--from-height 1 --once, the first fill's
# recipe) on each data set, then every transaction upstream served is
# asked of the edge and compared with upstream's answer, status and body
# bytes: GET /extended/v1/tx/{id} (the "v1 pair") and each page of events
# the mirror read (?event_limit=100&event_offset=N), and the v3 document
# of each transaction of the chain's first block (whose parent index hash
# and time only it says: the mirror asks it; synth's boot transactions
# name another parent than their block's, and time 0).  Headers are not
# compared here (doc/api.md lists where they differ on purpose).  The one
# expected difference: a transaction dropped from the mempool before the
# mirror saw it pending (synth has two) is upstream's 200 and the edge's
# 404, since no upstream list names dropped transactions
# (doc/module.md, chaindata_miss_fallback): counted apart, by name.
#
# First, the answers t/lib/ChainData/Upstream.pm writes by hand for the
# tests whose chain must grow, fork or fail (what no static capture can
# do) are checked against these: its event pages byte for byte, the
# other routes member for member.
#
# What these captures hold that no hand-written answer had: the genesis
# block's listing says "total": 1 over 9 rows (mainnet_block0; synth's
# block 1: 5 over 12), a block without transactions answers its listing
# 404 (mb_reorg1's block 1), a block of 63 transactions lists them in a
# page of 50 and one of 13 (poison).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use File::Path qw(make_path);
use ChainData::Test qw(:all);
use ChainData::Upstream qw(make_chain nginx_locations tx_page write_chain);
use ChainData::TxV3 qw(v3_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $CAPTURES = "$FindBin::Bin/captures/stacks-api-9.0.2";

my @sets = qw(mainnet_block0 synth poison mocknet mb_reorg1 fuzzed);

# a data set's answers, as served: { path => answer }, same_as resolved
sub captured {
    my ($name) = @_;
    my $list = json_decode(slurp("$CAPTURES/$name.json"));
    my %by = map { $_->{path} => $_ } grep { !$_->{same_as} } @$list;
    for my $a (grep { $_->{same_as} } @$list) {
        my $same = $by{ $a->{same_as} } or die "$name: no $a->{same_as}";
        $by{ $a->{path} } = { %$same, path => $a->{path}, note => $a->{note} };
    }
    return \%by;
}

# the answers of status 200 as files for try_files "$uri/q=$args"
sub write_up {
    my ($root, $by) = @_;
    for my $a (values %$by) {
        next unless $a->{status} == 200 && $a->{path} =~ m{^/extended/};
        my ($uri, $args) = split /\?/, $a->{path}, 2;
        make_path("$root/up$uri");
        spew("$root/up$uri/q=" . ($args // ''), $a->{body});
    }
}

sub tx_paths {
    my ($by) = @_;
    return sort grep { $by->{$_}{note} =~ /^(?:v1 pair|events page|first block v3)$/ }
        keys %$by;
}

# the answers t/lib/ChainData/Upstream.pm writes for the tests that need
# a chain to grow, fork or fail (tx_page: a page of events cut from the
# whole document; the v1 route's default page of 20), checked against
# the captured pages of every transaction: byte for byte
sub whole_doc {
    my ($by, $id) = @_;
    my ($doc, @events);
    for (my $off = 0; my $a = $by->{"/extended/v1/tx/$id?event_limit=100&event_offset=$off"};
         $off += 100)
    {
        my ($ev) = grep { $_->{key} eq 'events' } json_members($a->{body}, 0);
        push @events, map { substr($a->{body}, $_->[0], $_->[1] - $_->[0]) }
            json_array_elements($a->{body}, $ev->{vstart});
        $doc //= $a->{body};
    }
    my ($ev) = grep { $_->{key} eq 'events' } json_members($doc, 0);
    substr($doc, $ev->{vstart}, $ev->{vend} - $ev->{vstart}) = '[' . join(',', @events) . ']';
    return $doc;
}

for my $name (@sets) {
    my $by = captured($name);
    my ($pages, @differ) = (0);
    for my $id (map { m{^/extended/v1/tx/(0x[0-9a-f]{64})\?event_limit=100&event_offset=0$} ? $1 : () }
                keys %$by)
    {
        my $doc = whole_doc($by, $id);
        for (my $off = 0; my $a = $by->{"/extended/v1/tx/$id?event_limit=100&event_offset=$off"};
             $off += 100)
        {
            $pages++;
            push @differ, "$id offset $off" unless tx_page($doc, $off) eq $a->{body};
        }
        $pages++;
        push @differ, "$id (v1, 20 events)"
            unless splice_events($doc, 0, 20) eq $by->{"/extended/v1/tx/$id"}{body};
    }
    is(scalar @differ, 0, "$name: ChainData::Upstream's pages of events are "
       . "upstream's, $pages of them") or diag(join "\n", @differ[0 .. ($#differ < 9 ? $#differ : 9)]);
}

# and the shapes of the rest, the members in upstream's order and the
# kinds of their values: the tip,
# a block, a page of its listing and a row of it, the mempool's page,
# written by write_chain for a chain of mainnet_block0's transactions
{
    my $by = captured('mainnet_block0');
    my @ids = map { $_->{tx_id} } @{ json_decode(
        $by->{'/extended/v2/blocks/1/transactions?limit=50&offset=0'}{body})->{results} };
    my @docs = map { whole_doc($by, $_) } @ids;
    my $root = temp_dir();
    write_chain($root, make_chain(1, [\@docs, [$docs[0]]]), mempool => [$docs[1]]);
    # each member's name and the kind of its value (null, string, ...)
    my %kind = ('n' => 'null', '"' => 'string', '[' => 'array',
                '{' => 'object', 't' => 'bool', 'f' => 'bool');
    my $names = sub {
        my ($text, $at) = @_;
        return join ',', map {
            "$_->{key}:" . ($kind{ substr($text, $_->{vstart}, 1) } // 'number')
        } json_members($text, $at // 0);
    };
    my $row = sub {
        my ($text) = @_;
        my ($r) = grep { $_->{key} eq 'results' } json_members($text, 0);
        my ($first) = json_array_elements($text, $r->{vstart});
        return $names->($text, $first->[0]);
    };
    my %pairs = (
        'the tip' => ['/extended/v2/blocks?limit=1', '/extended/v2/blocks/q=limit=1'],
        'a block' => ['/extended/v2/blocks/1', '/extended/v2/blocks/1/q='],
        'a listing page' => ['/extended/v2/blocks/1/transactions?limit=50&offset=0',
                             '/extended/v2/blocks/1/transactions/q=limit=50&offset=0'],
        'a mempool page' => ['/extended/v1/tx/mempool?limit=50&offset=0',
                             '/extended/v1/tx/mempool/q=limit=50&offset=0'],
    );
    for my $what (sort keys %pairs) {
        my ($path, $file) = @{ $pairs{$what} };
        my $up = $by->{$path}{body};
        my $ours = slurp("$root/up$file");
        is($names->($ours), $names->($up), "ChainData::Upstream writes $what with upstream's members, in its order");
    }
    is($row->(slurp("$root/up/extended/v2/blocks/1/transactions/q=limit=50&offset=0")),
       $row->($by->{'/extended/v2/blocks/1/transactions?limit=50&offset=0'}{body}),
       'and a row of a listing');
}

for my $name (@sets) {
    my $by = captured($name);
    my $root = temp_dir();
    my $db = "$root/index";
    my ($code, $out, $err) = load_index($db);
    is($code, 0, "$name: empty index created") or diag($err);
    fixup_index_perms($db);
    write_up($root, $by);

    my $ng = ChainData::Test::Nginx->start(
        db => $db,
        locations => v3_locations() . nginx_locations($root),
    );
    my $port = $ng->port;

    ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--stacks-api',
        "http://127.0.0.1:$port/up", '--from-height', '1', '--once',
        '--parallel', '8', '--retries', '1'], timeout => 120);
    is($code, 0, "$name: --from-height 1 --once exits 0") or diag($err);

    # what the mirror asked was captured, but a listing's page past its
    # last row (upstream's 404 "Block not found", the test nginx's 404)
    my @gone = map { m{"GET /up(/\S+) HTTP/1\.1" 404 } ? $1 : () }
        split /\n/, slurp($ng->prefix . '/access.log');
    my @missing = grep { !m{/transactions\?limit=50&offset=\d+$} } @gone;
    if ($name eq 'mb_reorg1') {
        ok((grep { $_ eq '/extended/v2/blocks/1/transactions?limit=50&offset=0' } @gone),
           "$name: block 1, without transactions, lists none: a 404, mirrored empty");
    }
    is(scalar @missing, 0, "$name: every request of the mirror answered "
       . 'from a capture (listing pages past the end aside)')
        or diag(join "\n", @missing[0 .. ($#missing < 9 ? $#missing : 9)]);

    my $tip = json_decode($by->{'/extended/v2/blocks?limit=1'}{body})
        ->{results}[0]{height};
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'stacks' }
        @{ json_decode($o)->{feeds} || [] };
    is($f && $f->{height}, $tip, "$name: the feed at upstream's tip, $tip");

    if ($name eq 'mainnet_block0') {
        like($err, qr/block 1: tx_count 1, listing total 1, but 9 transactions listed; the listing is mirrored/,
             "$name: the genesis block's claims compared with its 9 rows, logged");
    }

    my ($n, @bad, @dropped) = (0);
    for my $path (tx_paths($by)) {
        my $up = $by->{$path};
        my $r = http_get($port, $path);
        $n++;
        next if $r->{status} == $up->{status}
            && ($up->{status} != 200 || $r->{body} eq $up->{body});
        if ($r->{status} == 404 && $up->{status} == 200
            && json_decode($up->{body})->{tx_status} =~ /^dropped_/)
        {
            push @dropped, $path;
            next;
        }
        push @bad, "$path: $r->{status} (upstream $up->{status})";
    }
    ok($n > 0, "$name: $n transaction answers of upstream asked of the edge");
    is(scalar @dropped, $name eq 'synth' ? 2 : 0,
       "$name: dropped before the mirror saw them pending: "
       . scalar @dropped . ', upstream 200, the edge 404');
    is(scalar @bad, 0, "$name: every one served as upstream served it")
        or diag(join "\n", @bad[0 .. ($#bad < 9 ? $#bad : 9)]);

    $ng->stop;
}

done_testing();
