#!/usr/bin/perl
# chaindata bench: deterministic synthetic dataset generator (core Perl).
#
# Writes NDJSON ingest records ({"kind":"tx","data":{...}}, the format of
# lmdb-schema/README.md) built from the documents of t/fixtures/tx*.ndjson
# with new tx_ids, new nonces/heights/indexes and new event lists:
#
#   - N transactions of mixed types (contract calls, token transfers,
#     coinbase, tenure changes, smart contracts, aborted calls, mempool
#     documents) with a skewed event count (most 0-5, some tens, a few
#     hundreds), events drawn from the fixtures' five event types;
#   - one "genesis-like" smart_contract transaction with G events
#     (STX mints with a stx_lock every 16th), as the chain's first block has.
#
# The same --seed and fixtures give the same bytes on every machine: the
# choices come from a counter-mode SHA-256 stream, not from rand().  With
# --paths-dir it also writes the request lists the benchmark walks:
#   typical.paths         every generated transaction, default page, shuffled
#   notfound.paths        ids that are not in the dataset (404)
#   genesis-first.paths   the genesis transaction, first page
#   genesis-deep.paths    the genesis transaction, the last full page of 100
#
# With --random every transaction's ids, hashes, addresses, amounts and
# Clarity values (hex, and the numbers and bytes of their repr) are made
# anew, of the same lengths and shapes (a Clarity value keeps its type
# byte, an address its version, the boot address stays), so that nothing
# repeats across documents but what mainnet's repeat too: the member
# names, contract names, function signatures.  The index of such data
# is the one to hold against its NDJSON (issue 34), not the templates'.
#
# usage: gen-dataset.pl [--txs N] [--genesis-events G] [--seed S]
#                       [--fixtures DIR] [--out FILE] [--paths-dir DIR]
#                       [--random]

use strict;
use warnings;

use Digest::SHA qw(sha256 sha256_hex);
use File::Basename qw(dirname);
use Getopt::Long qw(GetOptions);
use JSON::PP ();

my %opt = (
    txs            => 20000,
    genesis_events => 330000,
    seed           => 'chaindata-bench-1',
    fixtures       => dirname(__FILE__) . '/../t/fixtures',
    out            => '-',
    notfound       => 1000,
);
GetOptions(
    'txs=i'            => \$opt{txs},
    'genesis-events=i' => \$opt{genesis_events},
    'seed=s'           => \$opt{seed},
    'fixtures=s'       => \$opt{fixtures},
    'out=s'            => \$opt{out},
    'paths-dir=s'      => \$opt{paths_dir},
    'notfound=i'       => \$opt{notfound},
    'random'           => \$opt{random},
) or die "usage: $0 [--txs N] [--genesis-events G] [--seed S] "
    . "[--fixtures DIR] [--out FILE] [--paths-dir DIR] [--random]\n";
die "$0: --genesis-events must be at least 100\n" if $opt{genesis_events} < 100;

my $JSON = JSON::PP->new->utf8;
my $PATH = '/extended/v1/tx/';

# ---------------------------------------------------------------------------
# deterministic random stream: SHA-256(seed, counter), 32 bits at a time

my ($rng_ctr, @rng_pool) = (0);
sub rand32 {
    @rng_pool = unpack 'N8', sha256("$opt{seed}/rng/" . $rng_ctr++) unless @rng_pool;
    return shift @rng_pool;
}
sub rand_int { my ($n) = @_; return rand32() % $n }          # 0 .. n-1
sub rand_range { my ($lo, $hi) = @_; return $lo + rand_int($hi - $lo + 1) }
sub pick { my ($list) = @_; return $list->[ rand_int(scalar @$list) ] }
sub id_for { my ($what, $i) = @_; return '0x' . sha256_hex("$opt{seed}/$what/$i") }

my @C32 = split //, '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
my %C32_OF_BITS = map { sprintf('%05b', $_) => $C32[$_] } 0 .. 31;
my $addr_ctr = 0;
sub address {    # 38 c32 characters from 190 bits of one digest
    my $bits = unpack 'B190', sha256("$opt{seed}/addr/" . $addr_ctr++);
    return join '', 'SP', @C32_OF_BITS{ unpack '(A5)38', $bits };
}

# --random: the bytes of a document made anew (see the top), from a stream
# of its own (SHA-256 of the seed, the transaction, a counter)
my ($anew_doc, $anew_ctr, $anew_pool) = ('', 0, '');
sub anew_hex {    # N hex digits
    my ($n) = @_;
    $anew_pool .= sha256_hex("$opt{seed}/anew/$anew_doc/" . $anew_ctr++)
        while length $anew_pool < $n;
    return substr $anew_pool, 0, $n, '';
}
sub anew_digits {    # N decimal digits, the first not 0
    my ($n) = @_;
    my $d = join '', map { hex($_) % 10 } split //, anew_hex($n);
    substr($d, 0, 1) = 1 + hex(anew_hex(1)) % 9 if $n > 1;
    return $d;
}
sub anew_c32 { join '', map { $C32[ hex($_) * 2 % 32 + (hex(anew_hex(1)) & 1) ] } split //, anew_hex($_[0]) }
sub anew {
    my ($text, $tx_id) = @_;
    $anew_doc = $tx_id; $anew_ctr = 0; $anew_pool = '';
    my $keep = substr $tx_id, 2;
    # hex runs (hashes, Clarity values, bytes in a repr) but the tx_id
    $text =~ s{0x([0-9a-f]{2})([0-9a-f]{6,})}{
        "$1$2" eq $keep ? "0x$1$2" : "0x$1" . anew_hex(length $2) }ge;
    # standard principals but the boot address
    $text =~ s{\b(S[PMTN])([0-9A-HJKMNP-TV-Z]{26,39})\b}{
        my ($v, $a) = ($1, $2);
        $a =~ /^0{10}/ ? "$v$a" : $v . anew_c32(length $a) }ge;
    # amounts and uints, in strings and in a repr
    $text =~ s{("(?:amount|locked_amount|fee_rate)":")(\d+)"}{$1 . anew_digits(length $2) . '"'}ge;
    $text =~ s{([ (]u)(\d{2,})\b}{$1 . anew_digits(length $2)}ge;
    return $text;
}

# ---------------------------------------------------------------------------
# a minimal scanner for compact JSON: the raw text of an object's members,
# so that documents keep their member order and number text

sub value_end {
    my ($s, $p) = @_;
    my $c = substr $s, $p, 1;
    if ($c eq '"') {
        pos($s) = $p + 1;
        $s =~ /\G(?:[^"\\]|\\.)*"/gs or die "unterminated string at $p\n";
        return pos $s;
    }
    if ($c eq '{' || $c eq '[') {
        my $depth = 0;
        while ($p < length $s) {
            my $ch = substr $s, $p, 1;
            if ($ch eq '"') { $p = value_end($s, $p); next }
            if ($ch eq '{' || $ch eq '[') { $depth++ }
            elsif ($ch eq '}' || $ch eq ']') { return $p + 1 if --$depth == 0 }
            $p++;
        }
        die "unterminated container\n";
    }
    pos($s) = $p;
    $s =~ /\G[-+0-9.eEa-z]+/g or die "bad value at $p\n";
    return pos $s;
}

# members($object_text) -> ([key, raw value], ...)
sub members {
    my ($s) = @_;
    my @m;
    my $p = 1;
    while (substr($s, $p, 1) ne '}') {
        $p++ if substr($s, $p, 1) eq ',';
        my $kend = value_end($s, $p);
        my $key = $JSON->decode(substr $s, $p, $kend - $p);
        my $vend = value_end($s, $kend + 1);
        push @m, [$key, substr($s, $kend + 1, $vend - $kend - 1)];
        $p = $vend;
    }
    return @m;
}

sub elements {
    my ($s) = @_;
    my @e;
    my $p = 1;
    while (substr($s, $p, 1) ne ']') {
        $p++ if substr($s, $p, 1) eq ',';
        my $end = value_end($s, $p);
        push @e, substr $s, $p, $end - $p;
        $p = $end;
    }
    return @e;
}

my %key_text;    # member names as JSON text, encoded once
sub object {
    return '{' . join(',', map { ($key_text{ $_->[0] } //= $JSON->encode($_->[0])) . ':' . $_->[1] } @_) . '}';
}

# ---------------------------------------------------------------------------
# templates from the fixtures

my (@tx_templates, %event_templates);
for my $file (sort glob "$opt{fixtures}/tx*.ndjson") {
    open my $fh, '<:raw', $file or die "open $file: $!";
    while (my $line = <$fh>) {
        chomp $line;
        next unless $line =~ /^\{"kind":"tx","data":\{/;    # upserts only
        my %rec = map { $_->[0] => $_->[1] } members($line);
        my @m = members($rec{data});
        my %d = map { $_->[0] => $_->[1] } @m;
        next unless defined $d{tx_id} && defined $d{tx_status} && defined $d{tx_type};
        my $status = $JSON->decode($d{tx_status});
        my $type = $JSON->decode($d{tx_type});
        my @events = defined $d{events} ? elements($d{events}) : ();
        for my $ev (@events) {
            my ($et) = $ev =~ /"event_type":"([a-z_]+)"/ or die "$file: event without type\n";
            push @{ $event_templates{$et} }, $ev;
        }
        my $kind = !defined $d{events}          ? 'mempool'
                 : $status ne 'success'          ? 'abort'
                 : $type;
        push @tx_templates, { kind => $kind, members => \@m, events => scalar @events };
    }
}
die "$0: no transactions in $opt{fixtures}/*.ndjson\n" unless @tx_templates;
my %by_kind;
push @{ $by_kind{ $_->{kind} } }, $_ for @tx_templates;

# weights of the generated mix (kinds the fixtures lack are skipped)
my @mix = grep { $by_kind{ $_->[0] } } (
    [contract_call => 52], [token_transfer => 18], [coinbase => 6],
    [tenure_change => 6], [smart_contract => 5], [poison_microblock => 1],
    [abort => 6], [mempool => 6],
);
my $mix_total = 0;
$mix_total += $_->[1] for @mix;
my @event_types = sort keys %event_templates;
die "$0: the fixtures hold no events\n" unless @event_types;

sub pick_kind {
    my $r = rand_int($mix_total);
    for (@mix) { return $_->[0] if ($r -= $_->[1]) < 0 }
}

# events per transaction: most few, some tens, a few hundreds
sub event_count_for {
    my ($kind) = @_;
    return 0 if $kind =~ /^(?:mempool|abort|coinbase|tenure_change|poison_microblock)\z/;
    return 1 if $kind eq 'token_transfer';
    my $r = rand_int(1000);
    return rand_range(0, 5)    if $r < 850;
    return rand_range(6, 60)   if $r < 985;
    return rand_range(61, 600);
}

sub event_text {
    my ($template, $tx_id, $index) = @_;
    (my $ev = $template) =~ s/"tx_id":"0x[0-9a-f]{64}"/"tx_id":"$tx_id"/;
    $ev =~ s/"event_index":\d+/"event_index":$index/;
    return $ev;
}

# doc($template, %replace): the template's members in order, values replaced
sub doc {
    my ($t, %r) = @_;
    return object(map { [ $_->[0], exists $r{ $_->[0] } ? $r{ $_->[0] } : $_->[1] ] }
                  @{ $t->{members} });
}

my $out;
if ($opt{out} eq '-') { $out = \*STDOUT } else { open $out, '>:raw', $opt{out} or die "open $opt{out}: $!" }
binmode $out;

my @ids;
my $height = 1_900_000;
my ($tx_index, $events_total, %kinds) = (0, 0);
for my $i (1 .. $opt{txs}) {
    my $kind = pick_kind();
    my $t = pick($by_kind{$kind});
    my $tx_id = id_for('tx', $i);
    push @ids, $tx_id;
    $kinds{$kind}++;
    if ($tx_index >= rand_range(5, 60)) { $height++; $tx_index = 0 }
    my %r = (tx_id => qq("$tx_id"), nonce => rand_int(100000));
    if ($kind ne 'mempool') {
        my $n = event_count_for($kind);
        my @ev;
        for my $e (0 .. $n - 1) {
            my $et = $kind eq 'token_transfer' ? 'stx_asset' : pick(\@event_types);
            $et = pick(\@event_types) unless $event_templates{$et};
            push @ev, event_text(pick($event_templates{$et}), $tx_id, $e);
        }
        # stored in any order: shuffle a little so the loader sorts
        @ev[0, -1] = @ev[-1, 0] if @ev > 1 && rand_int(4) == 0;
        $events_total += $n;
        %r = (%r, block_height => $height, tx_index => $tx_index++,
              event_count => $n, events => '[' . join(',', @ev) . ']');
    }
    my $d = doc($t, %r);
    $d = anew($d, $tx_id) if $opt{random};
    print {$out} '{"kind":"tx","data":', $d, "}\n";
}

# the genesis-like transaction, written as one line
my $genesis_id = id_for('genesis', 0);
{
    my $t = pick($by_kind{smart_contract} || $by_kind{contract_call});
    my $g = doc($t, tx_id => qq("$genesis_id"), nonce => 0, block_height => 1,
                tx_index => 0, event_count => $opt{genesis_events}, events => '[]');
    my $at = index($g, '"events":[]');
    die "$0: genesis template has no events member\n" if $at < 0;
    $at += length '"events":[';
    print {$out} '{"kind":"tx","data":', substr($g, 0, $at);
    my @buf;
    for my $e (0 .. $opt{genesis_events} - 1) {
        my $ev;
        if ($e % 16 == 15) {
            $ev = qq({"event_index":$e,"event_type":"stx_lock","tx_id":"$genesis_id",)
                . qq("stx_lock_event":{"locked_amount":") . rand_range(1, 4_000_000_000) . '000'
                . qq(","unlock_height":) . rand_range(1, 200_000)
                . qq(,"locked_address":") . address() . '"}}';
        } else {
            $ev = qq({"event_index":$e,"event_type":"stx_asset","tx_id":"$genesis_id",)
                . qq("asset":{"asset_event_type":"mint","sender":"","recipient":")
                . address() . qq(","amount":") . rand_range(1, 4_000_000_000) . '"}}';
        }
        push @buf, $ev;
        if (@buf == 4096) { print {$out} ($e >= 4096 ? ',' : ''), join(',', @buf); @buf = () }
    }
    print {$out} ($opt{genesis_events} > @buf ? ',' : ''), join(',', @buf) if @buf;
    print {$out} substr($g, $at), "}\n";
    $events_total += $opt{genesis_events};
}
close $out or die "close: $!" if $opt{out} ne '-';

if (defined $opt{paths_dir}) {
    my $dir = $opt{paths_dir};
    -d $dir or mkdir $dir or die "mkdir $dir: $!";
    my @order = @ids;
    for (my $i = $#order; $i > 0; $i--) {      # Fisher-Yates, deterministic
        my $j = rand_int($i + 1);
        @order[$i, $j] = @order[$j, $i];
    }
    my $deep = $opt{genesis_events} - 100;
    my %lists = (
        'typical'       => [ map { "$PATH$_" } @order ],
        'notfound'      => [ map { $PATH . id_for('missing', $_) } 1 .. $opt{notfound} ],
        'genesis-first' => [ "$PATH$genesis_id" ],
        'genesis-deep'  => [ "$PATH$genesis_id?event_offset=$deep&event_limit=100" ],
    );
    for my $name (sort keys %lists) {
        open my $fh, '>', "$dir/$name.paths" or die "open $dir/$name.paths: $!";
        print {$fh} "$_\n" for @{ $lists{$name} };
        close $fh or die "close: $!";
    }
}

printf STDERR "gen-dataset: %d transactions (%s) + genesis %s with %d events; %d events in all\n",
    $opt{txs}, join(', ', map { "$_ $kinds{$_}" } sort keys %kinds),
    $genesis_id, $opt{genesis_events}, $events_total;
