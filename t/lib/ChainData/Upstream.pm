package ChainData::Upstream;

# A recorded upstream: files of answers in the Stacks API's served shapes,
# served by the test nginx (location /up/, try_files "$uri/q=$args"), for
# chaindata-mirror to follow.  The shapes are upstream's own
# (hirosystems/stacks-blockchain-api):
#   GET /extended/v2/blocks?limit=1          src/api/routes/v2/blocks.ts
#       {limit,offset,total,next_cursor,prev_cursor,cursor,results}
#   GET /extended/v2/blocks/{h}              NakamotoBlock,
#       src/api/routes/v2/helpers.ts parseDbNakamotoBlock (members in its
#       order), src/api/schemas/entities/block.ts
#   GET /extended/v2/blocks/{h}/transactions {limit,offset,total,results}
#       with at most 50 a page (src/api/pagination.ts, ResourceType.Tx);
#       "total" is the block's tx_count column, here its rows (the real
#       API's genesis blocks list more rows than that: t/64 and t/69
#       replay them, t/captures/stacks-api-9.0.2/); a row is the
#       transaction without its events (as captured, but for
#       contract_call's function_signature and argument names, which the
#       real listing leaves empty and the mirror does not read); past the
#       last row,
#       and at offset 0 for a block without transactions, a 404 "Block
#       not found" (captured: mb_reorg1's block 1): no file here, the
#       test nginx's 404
#   GET /extended/v1/tx/{tx_id}?event_limit=100&event_offset=N
#       the transaction with that page of its events, event_count the total
#       (the edge serves the same page the same way: ChainData::Test's
#       splice_events)
# The transactions are the fixtures' (t/fixtures/tx*.ndjson: documents in
# upstream's exact served shape), copied under derived tx ids where a test
# needs more of them.

use strict;
use warnings;

use Digest::SHA qw(sha256_hex);
use Exporter qw(import);
use File::Path qw(make_path);
use FindBin;
use POSIX qw(strftime);

use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_lists);

our @EXPORT_OK = qw(
    confirmed_docs derive_doc derived_blocks tx_id grow_events make_chain
    write_chain tx_page
    block_hash nginx_locations write_runes runes_page btc_hash rune_chain
    runes_history runes_tip RUNES_LIMITS write_capture capture_path
    captured_activity index_dump json_canonical
    runes_tip_hash serve_tree etag_map runes_held served_etchings
    runes_chain_do
);

# the confirmed fixture documents (raw "data" text), in fixture order
sub confirmed_docs {
    my @files = map { fixture_path($_) } qw(tx.ndjson tx-many-events.ndjson);
    return map { $_->{data_raw} } grep { !$_->{mempool} } tx_fixtures(@files);
}

# a document's tx_id
sub tx_id { my ($doc) = @_; return $doc =~ /"tx_id":"(0x[0-9a-f]{64})"/ ? $1 : die "no tx_id" }

# the same document under another tx id (the events carry it too)
sub derive_doc {
    my ($doc, $salt) = @_;
    my $old = tx_id($doc);
    my $new = '0x' . sha256_hex("$old/$salt");
    (my $d = $doc) =~ s/\Q$old\E/$new/g;
    return $d;
}

# blocks of $per documents each, for block numbers @b: the documents of
# @$docs in turn under ids made anew from "$tag$b/$i" (a chain the tests
# grow, fork or publish; each tag its own ids)
sub derived_blocks {
    my ($docs, $tag, $per, @b) = @_;
    return map { my $b = $_;
                 [map { derive_doc($docs->[($b + $_) % @$docs], "$tag$b/$_") }
                  0 .. $per - 1] } @b;
}

# a document with $n events: the last event repeated with the next
# event_index (upstream's indexes run 0 .. event_count-1)
sub grow_events {
    my ($doc, $n) = @_;
    my ($ev) = grep { $_->{key} eq 'events' } json_members($doc, 0);
    my @els = json_array_elements($doc, $ev->{vstart});
    my @texts = map { substr($doc, $_->[0], $_->[1] - $_->[0]) } @els;
    my $last = $texts[-1];
    for my $i (scalar(@texts) .. $n - 1) {
        (my $e = $last) =~ s/"event_index":\d+/"event_index":$i/;
        push @texts, $e;
    }
    substr($doc, $ev->{vstart}, $ev->{vend} - $ev->{vstart}) = '[' . join(',', @texts) . ']';
    $doc =~ s/"event_count":\d+/"event_count":$n/;
    return $doc;
}

sub block_hash { my ($h, $fork) = @_; return '0x' . sha256_hex("block/$h/" . ($fork || '')) }

# make_chain($first_height, [\@docs, ...], fork => { height => tag })
# -> blocks, each { height, hash, parent, time, txs => [docs] }
sub make_chain {
    my ($first, $blocks, %o) = @_;
    my @chain;
    my $parent = block_hash($first - 1);
    my $tag = '';
    for my $i (0 .. $#$blocks) {
        my $h = $first + $i;
        $tag = $o{fork}{$h} if $o{fork} && defined $o{fork}{$h};
        my $hash = block_hash($h, $tag);
        push @chain, { height => $h, hash => $hash, parent => $parent,
                       time => 1735689600 + 5 * $h, txs => $blocks->[$i] };
        $parent = $hash;
    }
    return \@chain;
}

sub _iso { return strftime('%Y-%m-%dT%H:%M:%S.000Z', gmtime $_[0]) }

sub _block_json {
    my ($b) = @_;
    my $t = $b->{time};
    return sprintf('{"canonical":true,"height":%d,"hash":"%s","block_time":%d,'
        . '"block_time_iso":"%s","tenure_height":%d,"index_block_hash":"%s",'
        . '"parent_block_hash":"%s","parent_index_block_hash":"%s",'
        . '"burn_block_time":%d,"burn_block_time_iso":"%s","burn_block_hash":"%s",'
        . '"burn_block_height":%d,"miner_txid":"%s","tx_count":%d,'
        . '"execution_cost_read_count":0,"execution_cost_read_length":0,'
        . '"execution_cost_runtime":0,"execution_cost_write_count":0,'
        . '"execution_cost_write_length":0}',
        $b->{height}, $b->{hash}, $t, _iso($t), $b->{height},
        '0x' . sha256_hex("index/$b->{hash}"), $b->{parent},
        '0x' . sha256_hex("index/$b->{parent}"), $t, _iso($t),
        '0x' . sha256_hex("burn/$b->{height}"), 870000 + $b->{height},
        '0x' . sha256_hex("miner/$b->{hash}"), scalar @{ $b->{txs} });
}

# what upstream serves for a transaction and a page of its events
sub tx_page { my ($doc, $offset) = @_; return splice_events($doc, $offset, 100) }

sub _put {
    my ($root, $path, $args, $body) = @_;
    my $dir = "$root/up$path";
    make_path($dir);
    spew("$dir/q=$args", $body);
}

# write_chain($root, $chain, %o): the answers for every block of the chain,
# the tip being its last block; files of a previous chain are replaced
sub write_chain {
    my ($root, $chain, %o) = @_;
    system('rm', '-rf', "$root/up");
    # the mempool (src/api/routes/tx.ts, GET /extended/v1/tx/mempool:
    # {limit,offset,total,results}, parseDbMempoolTx documents, which
    # GET /extended/v1/tx/{tx_id} serves too); $o{left}: what that route
    # serves for transactions that left it (dropped or replaced)
    # (a full last page is followed by an empty one, as upstream's)
    my @pool = @{ $o{mempool} || [] };
    for (my $off = 0; $off <= @pool; $off += 50) {
        my $end = $off + 49 > $#pool ? $#pool : $off + 49;
        _put($root, '/extended/v1/tx/mempool', "limit=50&offset=$off",
            sprintf('{"limit":50,"offset":%d,"total":%d,"results":[%s]}',
                $off, scalar @pool, join(',', @pool[$off .. $end])));
    }
    for my $doc (@pool, @{ $o{left} || [] }) {
        _put($root, '/extended/v1/tx/' . tx_id($doc),
            'event_limit=100&event_offset=0', $doc);
    }
    # the tip as captured (t/captures/stacks-api-9.0.2/): "total" the
    # canonical blocks (the tip's height), no next_cursor, the cursor the
    # tip's index_block_hash, prev_cursor its parent's
    my $tip = $chain->[-1];
    _put($root, '/extended/v2/blocks', 'limit=1',
        sprintf('{"limit":1,"offset":0,"total":%d,"next_cursor":null,'
            . '"prev_cursor":"%s","cursor":"%s","results":[%s]}',
            $tip->{height}, '0x' . sha256_hex("index/$tip->{parent}"),
            '0x' . sha256_hex("index/$tip->{hash}"), _block_json($tip)));
    for my $b (@$chain) {
        _put($root, "/extended/v2/blocks/$b->{height}", '', _block_json($b));
        my @txs = @{ $b->{txs} };
        my $pages = int((@txs + 49) / 50);
        for my $p (0 .. $pages - 1) {
            my $end = 50 * $p + 49 > $#txs ? $#txs : 50 * $p + 49;
            my @slice = @txs[50 * $p .. $end];
            _put($root, "/extended/v2/blocks/$b->{height}/transactions",
                'limit=50&offset=' . 50 * $p,
                sprintf('{"limit":50,"offset":%d,"total":%d,"results":[%s]}',
                    50 * $p, scalar @txs,
                    join(',', map { splice_events($_, 0, 0) } @slice)));
        }
        for my $doc (@txs) {
            my $id = tx_id($doc);
            my ($n) = $doc =~ /"event_count":(\d+)/;
            for (my $off = 0; $off == 0 || $off < $n; $off += 100) {
                _put($root, "/extended/v1/tx/$id",
                    "event_limit=100&event_offset=$off", tx_page($doc, $off));
            }
        }
    }
    return $chain;
}

# The Runes API (hirosystems/bitcoin-indexer 3.x, api/runes/src/):
# api/routes/status.ts GET /runes/v1/ {server_version,status,block_height},
# block_height being MAX(block_height) of the ledger, that is the last
# block with rune activity, and absent before the first; blocks.ts,
# transactions.ts, addresses.ts: pages {limit,offset,total,results}, 60
# entries at most (schemas.ts LimitSchema, env.ts API_RESULTS_MAX_LIMIT),
# as pg/pg-store.ts computes them:
#   - activity (getActivity): ordered by block_height, tx_index,
#     event_index descending; "total" is COUNT(*) OVER() of the entries;
#   - balances (getAddressBalances): DISTINCT ON (rune_id) of the
#     address's balance_changes, ordered by balance descending with no
#     tie-breaker; "total" is COUNT(*) OVER() taken before the DISTINCT,
#     the address's history rows, more than its entries;
#   - every route answers a page with no entries "total": 0
#     (results[0]?.total ?? 0): past the end of a list, an unknown
#     transaction or address, a block without activity
#     (nginx_locations() serves those).
# Every page size the mirror may ask for is written.
use constant RUNES_LIMITS => (60, 59, 47, 31, 23, 17);

sub btc_hash { my ($h, $fork) = @_; return substr(sha256_hex("btc/$h/" . ($fork || '')), 0, 64) }

# Bitcoin blocks from 840500 up, two transactions each, carrying the
# fixtures' rune activity lists under tx ids derived from $tag; and the
# fixtures' balance lists by address: (\@blocks, \%balances) for
# write_runes()
sub rune_chain {
    my ($tag, $count) = @_;
    my $L = rune_lists(fixture_path('runes.ndjson'));
    my @acts = map { $L->{activity}{$_} }
        sort grep { @{ $L->{activity}{$_} } } keys %{ $L->{activity} };
    my %bal = map { $L->{address}{$_} => $L->{balances}{$_} }
        keys %{ $L->{balances} };
    my @blocks = map {
        my $h = 840500 + $_;
        my @txs = map {
            my $list = $acts[($h + $_) % @acts];
            my ($old) = $list->[0] =~ /"tx_id":"([0-9a-f]{64})"/;
            my $id = sha256_hex("$tag/$h/$_");
            [$id, [map { s/\Q$old\E/$id/gr } @$list]];
        } 0 .. 1;
        { height => $h, hash => btc_hash($h), txs => \@txs };
    } 0 .. $count - 1;
    return (\@blocks, \%bal);
}

# the history rows upstream counts for an address's balances: one a
# balance and more for some (every rune changed hands more than once)
sub runes_history {
    my ($texts) = @_;
    my $n = @$texts;
    return $n + int($n / 2) + ($n ? 2 : 0);
}

# a page of a list as upstream serves it; $total: what its non-empty
# pages say (the entries, unless given)
sub runes_page {
    my ($texts, $offset, $limit, $total) = @_;
    my @all = @$texts;
    $total = scalar @all unless defined $total;
    my $last = $offset + $limit - 1;
    $last = $#all if $last > $#all;
    my @page = $offset <= $#all ? @all[$offset .. $last] : ();
    return sprintf('{"limit":%d,"offset":%d,"total":%d,"results":[%s]}',
        $limit, $offset, @page ? $total : 0, join(',', @page));
}

sub _put_pages {
    my ($root, $path, $texts, $total, @limits) = @_;
    for my $limit (@limits) {
        for (my $off = 0; $off < @$texts; $off += $limit) {
            _put($root, $path, "offset=$off&limit=$limit",
                 runes_page($texts, $off, $limit, $total));
        }
    }
}

# the tip the status route names: the last block with activity
sub runes_tip {
    my ($blocks) = @_;
    my ($b) = grep { grep { @{ $_->[1] } } @{ $_->{txs} } } reverse @$blocks;
    return $b ? $b->{height} : undef;
}

# write_runes($root, \@blocks, \%balances, %o): blocks are { height, hash,
# txs => [[tx_id, [activity entry texts]], ...] } (their entries' location
# rewritten to the block), balances { address => [entry texts] }; these
# and every address of the activity get an answer, and every rune the
# activity names its etching (runes_etching()).  $o{pages}{$path}{$args}
# replaces one answer (a test's inconsistent page); $o{tip} names another
# tip than the last block with activity.
sub write_runes {
    my ($root, $blocks, $balances, %o) = @_;
    system('rm', '-rf', "$root/up/runes");
    my $tip = exists $o{tip} ? $o{tip} : runes_tip($blocks);
    _put($root, '/runes/v1/', '', '{"server_version":"bitcoin-indexer-runes-api '
        . 'v3.0.2 (master:1a2b3c4)","status":"ready"'
        . (defined $tip ? ",\"block_height\":$tip}" : '}'));
    my (%addr, %rune, %entries);
    for my $b (@$blocks) {
        my @block;
        for my $t (@{ $b->{txs} }) {
            my ($id, $entries) = @$t;
            my @e = map {
                (my $x = $_) =~ s/"block_hash":"[0-9a-f]{64}"/"block_hash":"$b->{hash}"/;
                $x =~ s/"block_height":\d+/"block_height":$b->{height}/;
                $addr{$1} = 1 while $x =~ /"(?:address|receiver_address)":"([^"]+)"/g;
                if ($x =~ /"rune":(\{[^}]*"number":[^}]*\})/) {
                    my $r = $1;
                    my ($rid) = $r =~ /"id":"([^"]+)"/;
                    $rune{$rid} = $r;
                    $entries{$rid}++;
                }
                $x;
            } @$entries;
            @e = runes_newest_first(@e);
            _put_pages($root, "/runes/v1/transactions/$id/activity", \@e, undef, 60);
            push @block, @e;
        }
        @block = runes_newest_first(@block);
        _put_pages($root, "/runes/v1/blocks/$b->{height}/activity", \@block, undef, 60);
    }
    for my $a (keys %addr, keys %$balances) {
        my $texts = $balances->{$a} || [];
        _put_pages($root, "/runes/v1/addresses/$a/balances", $texts,
                   runes_history($texts), RUNES_LIMITS);
    }
    for my $rid (keys %rune) {
        _put($root, "/runes/v1/etchings/$rid", '',
             runes_etching($rune{$rid}, $entries{$rid}));
    }
    for my $path (keys %{ $o{pages} || {} }) {
        _put($root, $path, $_, $o{pages}{$path}{$_}) for keys %{ $o{pages}{$path} };
    }
}

# activity entries in upstream's order (ORDER BY tx_index DESC, ...,
# api/runes/src/pg/pg-store.ts getActivity()): the fixtures' lists give
# one transaction several tx_index values; entries of one tx_index keep
# their order
sub runes_newest_first {
    my @k = map { [/"tx_index":(\d+)/ ? $1 : 0, $_] } @_;
    return map { $_->[1] } sort { $b->[0] <=> $a->[0] } @k;
}

# an etching as upstream serves it (GET /runes/v1/etchings/{id}, the
# members in its order) of the rune an activity entry's "rune" member
# names; its supply counts the $n entries of the rune the activity up to
# upstream's tip holds, so that it changes with the tip as upstream's
sub runes_etching {
    my ($rune, $n) = @_;
    my %r = map { $_ => ($rune =~ /"$_":("[^"]*"|\d+)/)[0] }
        qw(id name spaced_name number);
    my ($block, $tx) = $r{id} =~ /(\d+):(\d+)/;
    return sprintf('{"id":%s,"name":%s,"spaced_name":%s,"number":%s,'
        . '"divisibility":2,"symbol":"R","turbo":false,"mint_terms":'
        . '{"amount":"100.00","cap":"1000.00","height_start":840000,'
        . '"height_end":null,"offset_start":null,"offset_end":null},'
        . '"supply":{"current":"%d.00","minted":"%d.00","total_mints":"%d",'
        . '"mint_percentage":"0.0000","mintable":true,"burned":"0.00",'
        . '"total_burns":"0","premine":"0.00"},"location":{"block_hash":'
        . '"%s","block_height":%d,"tx_id":"%s","tx_index":%d,'
        . '"timestamp":1713571767}}',
        @r{qw(id name spaced_name number)}, 100 * $n, 100 * $n, $n,
        btc_hash($block), $block, sha256_hex("etching/$r{id}"), $tx);
}

# Captures of the real upstream (t/captures/NAME/, each with a README
# saying how it was made): FILE.gz holds, for each answer upstream served,
# a line with its route ("/runes/v1/...?args") and a line with its body,
# byte for byte.
sub capture_path { return "$FindBin::Bin/captures/$_[0]" }

# write_capture($root, $file): a capture's answers into the recorded
# upstream's tree, served under /up/ (nginx_locations); how many
sub write_capture {
    my ($root, $file) = @_;
    open my $fh, '-|', 'gzip', '-dc', $file or die "gzip -dc $file: $!";
    my $n = 0;
    while (defined(my $route = <$fh>)) {
        my $body = <$fh>;
        die "$file: a route without its answer" unless defined $body;
        chomp $route;
        chomp $body;
        my ($path, $args) = split /\?/, $route, 2;
        _put($root, $path, $args // '', $body);
        $n++;
    }
    close $fh or die "gzip -dc $file: failed";
    return $n;
}

# what a capture written by write_capture() under $root serves for each
# transaction's activity: its first page of 60, by transaction id
sub captured_activity {
    my ($root) = @_;
    my %tx;
    for my $f (glob "$root/up/runes/v1/transactions/*/activity/q=offset=0\\&limit=60") {
        my ($id) = $f =~ m{transactions/([0-9a-f]{64})/};
        $tx{$id} = ChainData::Test::slurp($f);
    }
    return \%tx;
}

# what a recorded or captured upstream under $root serves for each rune's
# etching (GET /runes/v1/etchings/{id}): rune id => the document
sub served_etchings {
    my ($root) = @_;
    return { map { m{/etchings/([^/]+)/q=$} ? ($1 => ChainData::Test::slurp($_)) : () }
             glob "$root/up/runes/v1/etchings/*/q=" };
}

# the Runes records of the blocks an index holds (lmdb-schema/runes.md):
# the heights with a rune_block record, sorted, the etchings by rune id
# (the document after the value's 12-byte rune id key), and the blocks'
# hashes and their entries' counts (the value: 4 bytes le, the hash) by
# height
sub runes_held {
    my ($dir) = @_;
    my %b = ChainData::Test::mdb_dump_pairs(ChainData::Test::mdb_dump_of($dir, 'rune_block'));
    my %e = ChainData::Test::mdb_dump_pairs(ChainData::Test::mdb_dump_of($dir, 'rune_etching'));
    my %doc = map {
        my $v = substr(pack('H*', $_), 12);
        (($v =~ /"id":"([^"]+)"/)[0] => $v);
    } values %e;
    my (%hash, %count);
    for (grep { /^68[0-9a-f]{16}$/ } keys %b) {
        my $h = hex(substr($_, 2));
        $hash{$h} = substr($b{$_}, 8);
        $count{$h} = unpack('V', pack('H8', $b{$_}));
    }
    return ([sort { $a <=> $b } keys %hash], \%doc, \%hash, \%count);
}

# a decoded JSON value as text, members in name order: the same entries
# compare equal whatever order upstream wrote their members in
sub json_canonical {
    my ($v) = @_;
    return ref $v eq 'HASH'
        ? '{' . join(',', map { "$_:" . json_canonical($v->{$_}) } sort keys %$v) . '}'
        : ref $v eq 'ARRAY' ? '[' . join(',', map { json_canonical($_) } @$v) . ']'
        : defined $v ? "\"$v\"" : 'null';
}

# every database of an index by mdb_dump, but what two runs over the
# same upstream write differently (lmdb-schema/feed.md): in the feed
# database the position's commit time (bytes 24..31 of the value), and
# the records state: and tip:; in rune_block the runes state (key "s",
# lmdb-schema/runes.md), made of the records applied, which a fill and a
# follow send differently
sub index_dump {
    my ($dir) = @_;
    my $all = mdb_dump_of($dir);
    my @out;
    for my $part (split /(?=^VERSION=)/m, $all) {
        my ($name) = $part =~ /^database=(\S+)/m;
        if (defined $name && $name eq 'rune_block') {
            $part =~ s/^ 73\n [0-9a-f]+\n//m;
        }
        if (defined $name && $name eq 'feed') {
            my ($head, $body, $tail) =
                $part =~ /\A(.*?^HEADER=END\n)(.*?)(^DATA=END.*)\z/ms;
            my @l = split /\n/, $body;
            my @keep;
            while (my ($k, $v) = splice @l, 0, 2) {
                next if $k =~ /^ (?:73746174653a|7469703a)/;  # state:, tip:
                substr($v, 1 + 48, 16) = 'x' x 16 if length $v > 64;
                push @keep, $k, $v;
            }
            $part = $head . join('', map { "$_\n" } @keep) . $tail;
        }
        push @out, $part;
    }
    return join '', @out;
}

# the hash of the block a recorded Runes upstream's status names (its
# tip, the block_height of /runes/v1/), from its first page of activity:
# the ETag the real API serves every answer with at that tip
# (api/runes/src/pg/pg-store.ts getChainTipEtag(), the newest block of
# its ledger; t/captures/runes-api-3.0.2/README.md, routes.gz)
sub runes_tip_hash {
    my ($root) = @_;
    my ($h) = slurp("$root/up/runes/v1/q=") =~ /"block_height":(\d+)/
        or die "$root: no tip";
    my ($hash) = slurp("$root/up/runes/v1/blocks/$h/activity/q=offset=0&limit=60")
        =~ /"block_hash":"([0-9a-f]{64})"/ or die "$root: block $h has no hash";
    return $hash;
}

# serve_tree($link, $tree): the recorded upstream whose root is $link
# (a symbolic link) serves $tree from now on, at once
sub serve_tree {
    my ($link, $tree) = @_;
    unlink("$link.new");
    symlink($tree, "$link.new") or die "symlink $link.new: $!";
    rename("$link.new", $link) or die "rename $link: $!";
}

# for nginx_locations(..., etag => 1), in the test nginx's http block:
# the ETag of the tree a root resolves to, when it is named by a block
# hash (serve_tree($root, ".../HASH")), none otherwise
sub etag_map {
    return "    map \$realpath_root \$up_etag {\n"
         . "        \"~/(?<h>[0-9a-f]{64})\$\" \"\\\"\$h\\\"\";\n"
         . "        default \"\";\n    }\n";
}

# the recorded upstream's locations (under /up/) for the test nginx:
# static answers, and the faults a test asks for (500s on the block
# routes only, so that a transaction's answer fails only as a test makes it;
# a quarter of them drawn at random, none for a request with the header
# "X-Up-Faults: off", for a step that must not depend on the draw); with
# etag, the Runes answers carry the ETag of etag_map(), as the real API's
# carry its tip's hash
sub nginx_locations {
    my ($root, %f) = @_;
    my $etag = $f{etag} ? "            etag off;\n"
        . "            add_header ETag \$up_etag always;\n" : '';
    # a capture answers what it holds: anything else is a 404, not an
    # empty page
    my $runes_missing = $f{captured} ? '=404' : '@runes_empty';
    my $faults = '';
    $faults .= "            limit_req zone=up burst=$f{burst} nodelay;\n"
             . "            limit_req_status 429;\n"
             . "            add_header Retry-After 1 always;\n" if $f{burst};
    $faults .= "            limit_rate $f{limit_rate};\n" if $f{limit_rate};
    my $errors = $f{errors}
        ? "            set \$up_draw \"\${request_id}\${http_x_up_faults}\";\n"
          . "            if (\$up_draw ~ \"^[0-3][0-9a-f]*\$\") { return 500; }\n"
        : '';
    return <<"EOF2";
        location /up/ {
            root $root;
            default_type application/json;
$faults            try_files "\$uri/q=\$args" =404;
        }
        location /up/runes/v1/ {
            root $root;
            default_type application/json;
$etag$faults            try_files "\$uri/q=\$args" $runes_missing;
        }
        location /up/runes/v1/etchings/ {
            root $root;
            default_type application/json;
$etag$faults            try_files "\$uri/q=\$args" =404;
        }
        location \@runes_empty {
            root $root;
            default_type application/json;
$etag            return 200 '{"limit":\$arg_limit,"offset":\$arg_offset,"total":0,"results":[]}';
        }
        location /up/extended/v2/ {
            root $root;
            default_type application/json;
$faults$errors            try_files "\$uri/q=\$args" =404;
        }
EOF2
}

# runes_chain_do($chain, $seed, OP ARGS...): ../shared/upstream's
# runes-chain run on the real Runes API with --keys and --seed $seed (never
# seed-runes' own), its last line, JSON, decoded (the keys it touched)
sub runes_chain_do {
    my ($chain, $seed, @args) = @_;
    my $out = `'$chain' @args --keys --seed $seed`;
    die "runes-chain @args failed\n" if $?;
    return ChainData::Test::json_decode((split /\n/, $out)[-1]);
}

1;
