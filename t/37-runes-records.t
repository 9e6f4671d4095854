#!/usr/bin/perl
# chaindata-load and the records of chaindata_runes' databases
# (lmdb-schema/runes.md): rune_block (a block appended, the newest
# replaced, one below it refused, a block removed, a damaged list
# refused), rune_etching (written, replaced, renumbered, renamed,
# deleted), the holders rune_balances keeps (zero balances, ties), the
# runes state, and a rollback through block framing undoing both kinds.
# A refused record leaves the index exactly as it was.  The entries and
# the etching are real answers of the Runes API (t/captures/runes-api-3.0.2).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use IO::Uncompress::Gunzip qw(gunzip $GunzipError);
use ChainData::Test qw(:all);

require_build();

# ------------------------------------------------------------ the captures

my %answer;
{
    my $gz = repo_root() . '/t/captures/runes-api-3.0.2/routes.gz';
    gunzip($gz => \my $text) or die "gunzip $gz: $GunzipError";
    my @l = split /\n/, $text, -1;
    for (my $i = 0; $i + 2 < @l; $i += 3) {
        $answer{$l[$i]} = $l[$i + 2];
    }
}

my $block_body = $answer{'/runes/v1/blocks/840090/activity'}
    // die 'no capture of block 840090';
my $etching = $answer{'/runes/v1/etchings/840000:8'}
    // die 'no capture of etching 840000:8';

sub elements {
    my ($array) = @_;
    return map { substr($array, $_->[0], $_->[1] - $_->[0]) }
        json_array_elements($array, 0);
}

my @E = elements(json_member_value($block_body, 'results'));
is(scalar @E, 20, 'the capture: 20 entries of block 840090');
my $H0 = json_decode($E[0])->{location}{block_hash};

# entries of another block: the same, at height $h with hash $hash
sub moved {
    my ($e, $h, $hash) = @_;
    $e =~ s/"block_height":840090/"block_height":$h/;
    $e =~ s/\Q$H0\E/$hash/;
    return $e;
}

sub hash_of { return sprintf('%064x', $_[0]) }

sub block_line {
    my ($h, $hash, @e) = @_;
    return qq({"kind":"rune_block","block_height":$h,"block_hash":"$hash",)
        . '"results":[' . join(',', @e) . "]}\n";
}

# ------------------------------------------------------------ the index

our $db = temp_dir() . "/index";
mkdir $db or die "mkdir $db: $!";

sub load {
    my ($in) = @_;
    return load_index($db, '-', { stdin => $in });
}

sub pairs {
    my ($name, $dir) = @_;
    return { mdb_dump_pairs(mdb_dump_of($dir // $db, $name)) };
}

sub hex_of { return unpack('H*', $_[0]) }

sub id_key {
    my ($id) = @_;
    my ($b, $t) = split /:/, $id;
    return sprintf('%016x%08x', $b, $t);
}

sub addr_key { return sprintf('%02x', length $_[0]) . hex_of($_[0]) }

sub ledger_key { return sprintf('%016x%08x', @_) }

# what the lists of these blocks' entries must be: key => [ledger keys]
sub lists_of {
    my (@blocks) = @_;    # [height, entries newest first], oldest block first
    my %l;
    for my $b (@blocks) {
        my ($h, @e) = @$b;
        for my $i (reverse 0 .. $#e) {
            my $d = json_decode($e[$i]);
            my $lk = ledger_key($h, $#e - $i);
            my $id = id_key($d->{rune}{id});
            push @{ $l{'72' . $id} }, $lk;
            next unless defined $d->{address};
            my $a = addr_key($d->{address});
            push @{ $l{'61' . $a} }, $lk;
            push @{ $l{'70' . $id . $a} }, $lk;
        }
    }
    return \%l;
}

sub lists_are {
    my ($want, $name) = @_;
    my (%count, %entry);
    for my $k (keys %$want) {
        $count{$k} = sprintf('%08x', unpack('N', pack('V', scalar @{ $want->{$k} })));
        my $s = 0;
        $entry{$k . sprintf('%08x', $s++)} = $_ for @{ $want->{$k} };
    }
    my $lists = pairs('rune_list');
    delete $lists->{$_} for grep { /^68/ } keys %$lists;    # holders'
    is_deeply($lists, \%count, "$name: rune_list, the counts");
    is_deeply(pairs('rune_list_entry'), \%entry,
              "$name: rune_list_entry, seq 0 the oldest");
}

sub state { return pairs('rune_block')->{'73'} // '' }

my ($code, $out, $err);

# ------------------------------------------------------------ rune_block

($code, $out, $err) = load(block_line(840090, $H0, @E));
is($code, 0, 'block 840090 loads') or diag($err);
like($err, qr/1 rune blocks, 0 rune block removals/, 'the summary counts it');

my $b = pairs('rune_block');
is($b->{'68' . sprintf('%016x', 840090)}, '14000000' . $H0,
   'rune_block h: 20 entries (le), the hash');
is($b->{'78' . $H0}, sprintf('%016x', 840090), 'rune_block x: the height');
like($b->{'73'} // '', qr/^[0-9a-f]{32}\z/, 'rune_block s: the state, 16 bytes');

my $ledger = pairs('rune_ledger');
is(scalar keys %$ledger, 20, 'rune_ledger: 20 entries');
{
    my $d = json_decode($E[19]);
    (my $rest = $E[19]) =~ s/^\{"rune":\{[^{}]*\},//;
    is($ledger->{ledger_key(840090, 0)}, id_key($d->{rune}{id}) . hex_of($rest),
       'position 0 is the oldest (the last upstream lists): rune id key, '
       . 'the entry after its rune member');
    my $ref = json_member_value($E[0], 'rune');
    is(pairs('rune_ref')->{id_key(json_decode($E[0])->{rune}{id})},
       hex_of($ref), 'rune_ref: the rune member, upstream\'s order');
}
lists_are(lists_of([840090, @E]), 'block 840090');
my $one = mdb_dump_of($db, 'rune_list') . mdb_dump_of($db, 'rune_list_entry');

my $H1 = hash_of(840091);
my @F = map { moved($_, 840091, $H1) } @E[0 .. 4];
($code, $out, $err) = load(block_line(840091, $H1, @F));
is($code, 0, 'block 840091 appended') or diag($err);
lists_are(lists_of([840090, @E], [840091, @F]), 'block 840091 appended');

my $H1b = hash_of(0x840091);
my @G = map { moved($_, 840091, $H1b) } @E[5, 6];
($code, $out, $err) = load(block_line(840091, $H1b, @G));
is($code, 0, 'block 840091 again: the newest is replaced') or diag($err);
lists_are(lists_of([840090, @E], [840091, @G]), 'the newest replaced');
$b = pairs('rune_block');
ok(!exists $b->{'78' . $H1} && $b->{'78' . $H1b},
   'the replaced block\'s hash key is gone, the new one\'s there');

{
    my $before = mdb_dump_of($db);
    ($code, $out, $err) = load(block_line(840090, $H0, @E));
    is($code, 1, 'a block below the newest: refused');
    like($err, qr/^chaindata-load: <stdin>:1: block 840090 is below the newest block held \(840091\): undo the blocks above it first$/m,
         'it says where and why');
    like($err, qr/batch of lines 1-1 rejected; none of it was applied/,
         'the batch is rejected');
    is(mdb_dump_of($db), $before, 'the index is as it was');

    ($code, $out, $err) = load(block_line(840092, hash_of(840092),
                                          moved($E[0], 840092, hash_of(840092)))
                               . block_line(840090, $H0, @E));
    is($code, 1, 'a block above and one below in one batch: refused');
    is(mdb_dump_of($db), $before, 'nothing of the batch is applied');
}

my $s = state();
($code, $out, $err) = load(qq({"kind":"rune_block","block_height":840091,"results":[]}\n));
is($code, 0, 'block 840091 removed') or diag($err);
like($err, qr/0 rune blocks, 1 rune block removals/, 'the summary counts it');
is(mdb_dump_of($db, 'rune_list') . mdb_dump_of($db, 'rune_list_entry'), $one,
   'the lists are block 840090\'s again');
ok(!exists pairs('rune_block')->{'68' . sprintf('%016x', 840091)}
   && !exists pairs('rune_ledger')->{ledger_key(840091, 0)},
   'its header and its ledger entries are gone');
isnt(state(), $s, 'the state changed');

($code, $out, $err) = load(qq({"kind":"rune_block","block_height":840095,"results":[]}\n));
is($code, 0, 'removing a block not held is not an error') or diag($err);

# a list that does not end with the entry removed: a damaged index
{
    my $d = json_decode($E[0]);
    my $key = '72' . id_key($d->{rune}{id});
    my $n = unpack('V', pack('H*', pairs('rune_list')->{$key}));
    my $damaged = index_with_values($db, 'rune_list_entry', {
        $key . sprintf('%08x', $n - 1) => ledger_key(1, 1) });
    my $before = mdb_dump_of($damaged);
    ($code, $out, $err) = load_index($damaged, '-', { stdin =>
        qq({"kind":"rune_block","block_height":840090,"results":[]}\n) });
    is($code, 1, 'removal from a damaged list: refused');
    like($err, qr/<stdin>:1: the index is damaged: the rune list 'r' does not end with the entry of block 840090 at position 19/,
         'it says which list and which entry');
    is(mdb_dump_of($damaged), $before, 'the index is as it was');
}

# the record's own checks
my @bad = (
    [qq({"kind":"rune_block","block_height":-1,"results":[]}),
     qr/<stdin>:1: block_height must be an integer from 0 to 18446744073709551615/],
    [qq({"kind":"rune_block","block_height":840093,"results":[$E[0]]}),
     qr/<stdin>:1: block_hash must be 64 lowercase hex digits \(it may be absent only when results is empty\)/],
    [qq({"kind":"rune_block","block_height":840093,"block_hash":"$H0","results":[$E[0]]}),
     qr/<stdin>:1: results\[0\]\.location\.block_height must be the record's block_height \(840093\)/],
    [block_line(840090, hash_of(7), $E[0]),
     qr/<stdin>:1: results\[0\]\.location\.block_hash must be the record's block_hash/],
    [block_line(840090, $H0, @E[19, 0]),
     qr/<stdin>:1: results\[1\]\.location\.tx_index is above results\[0\]'s: a block's entries go newest first/],
    [block_line(840090, $H0, json_remove_member($E[0], 'rune')),
     qr/<stdin>:1: results\[0\]\.rune is missing/],
    [qq({"kind":"rune_block","block_height":840090,"block_hash":"$H0"}),
     qr/<stdin>:1: results is missing or not an array/],
);
for my $t (@bad) {
    my $before = mdb_dump_of($db);
    (my $line = $t->[0]) =~ s/\n\z//;
    ($code, $out, $err) = load("$line\n");
    is($code, 1, "refused: $line" =~ s/(.{60}).*/$1.../r);
    like($err, $t->[1], 'the reason names the member');
    is(mdb_dump_of($db), $before, 'the index is as it was');
}

# --bulk writes the same (its ops run as its batches commit, in order)
{
    my $in = temp_dir() . '/in.ndjson';
    spew($in, block_line(840090, $H0, @E) . block_line(840091, $H1, @F)
              . block_line(840091, $H1b, @G)
              . qq({"kind":"rune_block","block_height":840091,"results":[]}\n));
    my %dump;
    for my $bulk (0, 1) {
        my $dir = temp_dir() . '/index';
        mkdir $dir or die "mkdir $dir: $!";
        ($code, $out, $err) = load_index($dir, ($bulk ? '--bulk' : ()), $in);
        is($code, 0, ($bulk ? 'with' : 'without') . ' --bulk') or diag($err);
        $dump{$bulk} = join('', map { mdb_dump_of($dir, $_) }
                            qw(rune_block rune_ledger rune_ref rune_list rune_list_entry));
        $dump{"lists$bulk"} = join('', map { mdb_dump_of($dir, $_) }
                                   qw(rune_ledger rune_ref rune_list rune_list_entry));
    }
    is($dump{1}, $dump{0}, '--bulk: the same databases, the state too');
    is($dump{lists0}, join('', map { mdb_dump_of($db, $_) }
                           qw(rune_ledger rune_ref rune_list rune_list_entry)),
       'the same as the records loaded one batch each');
}

# a snapshot holds them all
{
    my $snap = temp_dir() . '/snap';
    ($code, $out, $err) = load_index($db, '--snapshot', $snap);
    is($code, 0, '--snapshot') or diag($err);
    is(mdb_dump_of($snap), mdb_dump_of($db), 'the snapshot: the same databases');
}

# ------------------------------------------------------------ rune_etching

sub etching_line {
    my ($id, $doc) = @_;
    return qq({"kind":"rune_etching","id":"$id","etching":$doc}\n);
}

($code, $out, $err) = load(etching_line('840000:8', $etching));
is($code, 0, 'etching 840000:8 loads') or diag($err);
like($err, qr/1 rune etchings, 0 rune etching deletes/, 'the summary counts it');
my $N1 = sprintf('%016x', 1);
is_deeply(pairs('rune_etching'), { $N1 => id_key('840000:8') . hex_of($etching) },
          'rune_etching: number 1, the rune id key, the document as given');
is_deeply(pairs('rune_name'), {
    '69' . id_key('840000:8') => $N1, '6e' . hex_of('RSICEPICSEVEN') => $N1 },
    'rune_name: its id and its name');

(my $etching2 = $etching) =~ s/"current":"21600799"/"current":"21600800"/;
($code, $out, $err) = load(etching_line('840000:8', $etching2));
is($code, 0, 'the etching again: replaced') or diag($err);
is_deeply(pairs('rune_etching'), { $N1 => id_key('840000:8') . hex_of($etching2) },
          'one etching, the new document');

# another rune takes number 1 (a reorg renumbered them)
(my $other = $etching) =~ s/"id":"840000:8","name":"RSICEPICSEVEN","spaced_name":"RSIC\x{e2}\x{80}\x{a2}EPIC\x{e2}\x{80}\x{a2}SEVEN"/"id":"840000:9","name":"OTHERRUNE","spaced_name":"OTHER\x{e2}\x{80}\x{a2}RUNE"/;
isnt($other, $etching, 'a document of another rune made');
($code, $out, $err) = load(etching_line('840000:9', $other));
is($code, 0, 'another rune numbered 1') or diag($err);
is_deeply(pairs('rune_name'), {
    '69' . id_key('840000:9') => $N1, '6e' . hex_of('OTHERRUNE') => $N1 },
    'the rune it renumbered is gone, id and name');

# a rune of another number with a name held: the holder goes
(my $renamed = $etching) =~ s/"number":1,/"number":2,/;
($code, $out, $err) = load(etching_line('840000:8', $renamed));
is($code, 0, '840000:8 at number 2') or diag($err);
(my $same = $other) =~ s/"id":"840000:9"/"id":"840000:7"/;
$same =~ s/"number":1,/"number":3,/;
($code, $out, $err) = load(etching_line('840000:7', $same));
is($code, 0, 'another rune named OTHERRUNE') or diag($err);
my $N2 = sprintf('%016x', 2);
my $N3 = sprintf('%016x', 3);
is_deeply([sort keys %{ pairs('rune_etching') }], [$N2, $N3],
          'the rune that had the name is gone');
is_deeply(pairs('rune_name'), {
    '69' . id_key('840000:8') => $N2, '6e' . hex_of('RSICEPICSEVEN') => $N2,
    '69' . id_key('840000:7') => $N3, '6e' . hex_of('OTHERRUNE') => $N3 },
    'rune_name: the two runes held');

($code, $out, $err) = load(etching_line('840000:7', 'null') . etching_line('840000:99', 'null'));
is($code, 0, 'etchings deleted, one not held') or diag($err);
like($err, qr/0 rune etchings, 2 rune etching deletes/, 'the summary counts them');
is_deeply([sort keys %{ pairs('rune_etching') }], [$N2], 'one etching left');

for my $t (
    [etching_line('840000:9', $renamed), qr/<stdin>:1: etching\.id must be the record's id \(840000:9\)/],
    [etching_line('840000:8', json_remove_member($renamed, 'number')), qr/<stdin>:1: etching\.number is missing/],
    [etching_line('840000:8', $renamed =~ s/"name":"RSICEPICSEVEN"/"name":"RsicEpicSeven"/r),
     qr/<stdin>:1: etching\.name must be/],
    [etching_line('840000:8', $renamed =~ s/"name":"RSICEPICSEVEN"/"name":"RSICEPICSEVEM"/r),
     qr/<stdin>:1: etching\.spaced_name must be etching\.name with bullets/],
    [etching_line('840000:08', 'null'), qr/<stdin>:1: id must be a rune id "<block>:<tx>"/],
    [etching_line('840000:8', '[]'), qr/<stdin>:1: etching must be the rune's etching document, an object, or null/],
) {
    my $before = mdb_dump_of($db);
    ($code, $out, $err) = load($t->[0]);
    is($code, 1, 'refused etching');
    like($err, $t->[1], 'the reason names the member');
    is(mdb_dump_of($db), $before, 'the index is as it was');
}

# ------------------------------------------------------------ holders

my $BUL = "\x{e2}\x{80}\x{a2}";
my $X = qq({"id":"840000:3","number":3,"name":"DOGGOTOTHEMOON","spaced_name":"DOG${BUL}GO${BUL}TO${BUL}THE${BUL}MOON"});
my $Y = qq({"id":"840000:8","number":1,"name":"RSICEPICSEVEN","spaced_name":"RSIC${BUL}EPIC${BUL}SEVEN"});
my $A = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
my $B = '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2';
my $C = '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy';

sub balances {
    my ($addr, @b) = @_;    # [rune, balance, address given?]
    return qq({"kind":"rune_balances","address":"$addr","results":[)
        . join(',', map { qq({"rune":$_->[0],"balance":"$_->[1]")
                          . ($_->[2] ? qq(,"address":"$_->[2]") : '') . '}' } @b)
        . "]}\n";
}

sub sort_key {
    (my $d = $_[0]) =~ s/\.//;
    $d =~ s/^0+//;
    return sprintf('%02x', 0xff - length $d) . join('', map { sprintf('%02x', 0xff - $_) } split //, $d);
}

sub holder {
    my ($rune, $bal, $addr) = @_;
    return (id_key($rune) . sort_key($bal) . addr_key($addr)
            => hex_of(qq({"balance":"$bal","address":"$addr"})));
}

sub holders_are {
    my ($want, $counts, $name) = @_;
    is_deeply(pairs('rune_holder'), {@$want}, "$name: rune_holder");
    my %h = @$want;
    my %holding = map { substr($_, 0, 24) . substr($_, 24 + 2 * (1 + (0xff - hex substr($_, 24, 2))))
                        => substr($_, 24, 2 * (1 + (0xff - hex substr($_, 24, 2)))) } keys %h;
    is_deeply(pairs('rune_holding'), \%holding, "$name: rune_holding, each holder's sort key");
    my $l = pairs('rune_list');
    is_deeply({ map { $_ => $l->{$_} } grep { /^68/ } keys %$l },
              { map { '68' . id_key($_) => sprintf('%08x', unpack('N', pack('V', $counts->{$_}))) } keys %$counts },
              "$name: the holders' counts");
}

($code, $out, $err) = load(balances($A, [$X, '100.50', $A], [$Y, '0.00', $A])
                           . balances($B, [$X, '100.50'])
                           . balances($C, [$X, '99.99', $C]));
is($code, 0, 'three balance lists') or diag($err);
holders_are([holder('840000:3', '100.50', $A), holder('840000:3', '100.50', $B),
             holder('840000:3', '99.99', $C), holder('840000:8', '0.00', $A)],
            { '840000:3' => 3, '840000:8' => 1 }, 'three holders of X, one of Y at zero');
{
    my @x = sort grep { /^\Q${\ id_key('840000:3')}\E/ } keys %{ pairs('rune_holder') };
    is_deeply([map { pack('H*', pairs('rune_holder')->{$_}) =~ /"address":"([^"]+)"/ } @x],
              [$B, $A, $C],
              'X\'s holders in key order: the tie by address key (shorter first), then the smaller balance');
}

($code, $out, $err) = load(balances($A, [$Y, '7.00', $A]));
is($code, 0, 'A\'s list replaced') or diag($err);
holders_are([holder('840000:3', '100.50', $B), holder('840000:3', '99.99', $C),
             holder('840000:8', '7.00', $A)],
            { '840000:3' => 2, '840000:8' => 1 }, 'A holds Y alone now');

my $BU = 'BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4';
($code, $out, $err) = load(balances($B) . balances($BU, [$X, '1.00']));
is($code, 0, 'B\'s list deleted, A\'s given in upper case') or diag($err);
holders_are([holder('840000:3', '99.99', $C), holder('840000:3', '1.00', $BU)],
            { '840000:3' => 2 }, 'the holder\'s address as the record gave it');
($code, $out, $err) = load(balances($A, [$Y, '2.00', $A]));
is($code, 0, 'A\'s list in lower case again') or diag($err);
holders_are([holder('840000:3', '99.99', $C), holder('840000:8', '2.00', $A)],
            { '840000:3' => 1, '840000:8' => 1 }, 'the upper-case holder found and gone');

# ------------------------------------------------------------ rollback

{
    my $fdb = temp_dir() . '/framed';
    mkdir $fdb or die "mkdir $fdb: $!";
    my $blk = sub {
        my ($h, $hash, $parent, @body) = @_;
        return qq({"kind":"block","source":"runes","height":$h,"hash":"$hash","parent":"$parent","time":$h}\n)
            . join('', @body) . qq({"kind":"block_end","source":"runes","height":$h}\n);
    };
    my $H2 = hash_of(840092);
    my @K = map { moved($_, 840092, $H2) } @E[7 .. 9];
    my $H3 = hash_of(840093);
    my @M = map { moved($_, 840093, $H3) } @E[0 .. 9];
    ($code, $out, $err) = load_index($fdb, '-', { stdin =>
        $blk->(840090, $H0, hash_of(840089), block_line(840090, $H0, @E),
               etching_line('840000:8', $etching))
        . $blk->(840091, $H1, $H0)
        . $blk->(840092, $H2, $H1, block_line(840092, $H2, @K),
                 etching_line('840000:8', $renamed),
                 etching_line('840000:7', $same))
        . $blk->(840093, $H3, $H2, block_line(840093, $H3, @M)) });
    is($code, 0, 'four framed blocks') or diag($err);
    {
        local $db = $fdb;
        lists_are(lists_of([840090, @E], [840092, @K], [840093, @M]),
                  'the framed blocks');
    }
    my $stored = pairs('block', $fdb);
    my $undo = '05' . hex_of('runes') . sprintf('%016x', 840092);
    like(pack('H*', $stored->{$undo} // ''),
         qr/"undo":\[\{"kind":"rune_block","block_height":840092,"results":\[\]\},\{"kind":"rune_etching","id":"840000:8","etching":null\},\{"kind":"rune_etching","id":"840000:7","etching":null\}\]/,
         'block 840092\'s undo records');

    ($code, $out, $err) = load_index($fdb, '-', { stdin =>
        qq({"kind":"rollback","source":"runes","height":840091}\n) });
    is($code, 0, 'rollback to 840091: two rune blocks undone, newest first')
        or diag($err);
    local $db = $fdb;
    lists_are(lists_of([840090, @E]), 'after the rollback');
    ok(!grep({ /^68/ && hex(substr($_, 2)) > 840090 } keys %{ pairs('rune_block') }),
       'blocks 840092 and 840093 are gone from rune_block');
    is_deeply(pairs('rune_etching'), {}, 'the etchings it wrote are gone (the feed fetches them again)');

    ($code, $out, $err) = load_index($fdb, '-', { stdin =>
        qq({"kind":"rollback","source":"runes","height":840089}\n) });
    is($code, 0, 'rollback to 840089') or diag($err);
    is_deeply(pairs('rune_list'), {}, 'no list');
    is_deeply(pairs('rune_ledger'), {}, 'no ledger entry');
    is_deeply([keys %{ pairs('rune_block') }], ['73'], 'no block, the state only');
}

done_testing();
