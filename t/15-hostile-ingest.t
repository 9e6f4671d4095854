#!/usr/bin/perl
# Hostile ingest: every bad input gets a clear error (file, line, reason),
# a non-zero exit, and leaves the index byte for byte as it was.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my ($tx) = grep { !$_->{mempool} && $_->{tx_type} eq 'contract_call'
                  && $_->{event_count} } tx_fixtures(fixture_path('tx.ndjson'));
ok($tx, 'a confirmed contract_call fixture') or BAIL_OUT('fixtures');
my $raw = $tx->{data_raw};
my $id = $tx->{tx_id};

my $db = new_index(fixture_path('tx.ndjson'));

sub dump_index { return mdb_dump_of($db) }

my $before = dump_index();

# a fresh id, so that an applied record would show in the dump
sub fresh { (my $d = $_[0]) =~ s/\Q$id\E/0x${\('e' x 64)}/g; return $d }

sub rejects {
    my ($name, $line, $reason, %o) = @_;
    my $input = qq({"kind":"tx","data":) . fresh($raw) . "}\n" . $line . "\n";
    my ($code, $out, $err) = load_index($db, @{ $o{args} || [] },
                                        { stdin => $input });
    is($code, $o{exit} // 1, "$name: exit status") or diag($err);
    like($err, qr/<stdin>:2: .*$reason/, "$name: line 2 and the reason")
        or diag($err);
    ok(dump_index() eq $before, "$name: index unchanged");
}

my $good = qq({"kind":"tx","data":$raw});

rejects('truncated line', substr($good, 0, length($good) / 2),
        qr/malformed JSON/);
rejects('invalid UTF-8', qq({"kind":"tx","delete":"\xff\xfe"}),
        qr/malformed JSON.*UTF8|malformed JSON/);
rejects('deep nesting',
        qq({"kind":"tx","data":{"x":) . ('[' x 5000) . (']' x 5000) . '}}',
        qr/nested deeper than 64 levels/);
rejects('duplicate member at the top',
        qq({"kind":"tx","kind":"tx","delete":"$id"}),
        qr/duplicate member "kind"/);
(my $dup = $raw) =~ s/"nonce":/"nonce":1,"nonce":/;
rejects('duplicate member inside data', qq({"kind":"tx","data":$dup}),
        qr/duplicate member "nonce"/);

for my $n ('18446744073709551616', '99999999999999999999999999999', '-1',
           '1.0', '1e3')
{
    (my $d = $raw) =~ s/"nonce":\d+/"nonce":$n/;
    rejects("nonce $n", qq({"kind":"tx","data":$d}),
            qr/data\.nonce must be an integer from 0 to 2\^64-1/);
}

(my $ec = $raw) =~ s/"event_count":\d+/"event_count":18446744073709551617/;
rejects('event_count past 2^64', qq({"kind":"tx","data":$ec}),
        qr/data\.event_count/);
(my $ei = $raw) =~ s/"event_index":0,/"event_index":4294967296,/;
rejects('event_index past 2^32', qq({"kind":"tx","data":$ei}),
        qr/event_index must be an integer from 0 to 4294967295/);

# a wrong type in every field the loader checks
my %wrong = (
    string => '1', integer => '"1"', number => '"1"', boolean => '"true"',
    object => '[]', array => '{}',
);
my @fields = (
    [tx_id => 'string'], [nonce => 'integer'], [fee_rate => 'string'],
    [sender_address => 'string'], [sponsored => 'boolean'],
    [post_condition_mode => 'string'], [post_conditions => 'array'],
    [anchor_mode => 'string'], [block_hash => 'string'],
    [block_height => 'integer'], [block_time => 'number'],
    [block_time_iso => 'string'], [burn_block_time => 'integer'],
    [burn_block_height => 'integer'], [burn_block_time_iso => 'string'],
    [parent_burn_block_time => 'integer'],
    [parent_burn_block_time_iso => 'string'], [canonical => 'boolean'],
    [tx_index => 'integer'], [tx_status => 'string'],
    [tx_result => 'object'], [event_count => 'integer'],
    [parent_block_hash => 'string'], [is_unanchored => 'boolean'],
    [microblock_hash => 'string'], [microblock_sequence => 'integer'],
    [microblock_canonical => 'boolean'],
    [execution_cost_read_count => 'integer'],
    [execution_cost_read_length => 'integer'],
    [execution_cost_runtime => 'integer'],
    [execution_cost_write_count => 'integer'],
    [execution_cost_write_length => 'integer'], [events => 'array'],
    [tx_type => 'string'], [contract_call => 'object'],
);
for my $f (@fields) {
    my ($name, $type) = @$f;
    my $d = json_replace_member($raw, $name, $wrong{$type});
    rejects("$name as a wrong type", qq({"kind":"tx","data":$d}),
            qr/data\.\Q$name\E|tx_status|tx_id/);
}

# an event too large to serve, and a document too large
my $big_event = '"' . ('a' x (1024 * 1024)) . '"';
(my $be = $raw) =~ s/("event_index":0,"event_type":"[a-z_]+","tx_id":"[^"]+",)/$1"x":$big_event,/;
rejects('a 1 MiB event', qq({"kind":"tx","data":$be}), qr/at most 1048576/);

my $huge = json_replace_member($raw, 'fee_rate',
                               '"' . ('9' x (100 * 1024 * 1024)) . '"');
rejects('a 100 MB line', qq({"kind":"tx","data":$huge}),
        qr/bytes without its events; a transaction may have at most 8388608/);

# 100,000 random digits: documents are stored compressed, and these
# compress to about 42 KB where 100,000 sevens would take a few hundred
# bytes (random, fixed seed: the same bytes on every run)
srand(13);
my $filler = join '', map { int rand 10 } 1 .. 100000;

# the map is full at --max-map-size: exit 3, the batch is not applied
{
    my $small = temp_dir() . '/small';
    my ($code, $out, $err) = load_index($small, '--map-size', '1M',
        '--max-map-size', '1M', fixture_path('tx.ndjson'));
    is($code, 0, 'small index built');
    my ($c0, $dump0) = run_cmd(['mdb_dump', '-a', $small]);
    my $bulk = '';
    for my $i (1 .. 50) {
        (my $d = $raw) =~ s/\Q$id\E/sprintf('0x%064x', $i)/ge;
        $d = json_replace_member($d, 'fee_rate', qq("$filler"));
        $bulk .= qq({"kind":"tx","data":$d}\n);
    }
    ($code, $out, $err) = load_index($small, '--map-size', '1M',
        '--max-map-size', '1M', { stdin => $bulk });
    is($code, 3, 'map full: exit 3');
    like($err, qr/the index is full at its map size of \d+ bytes/,
         'map full: says so');
    my ($c1, $dump1) = run_cmd(['mdb_dump', '-a', $small]);
    ok($dump0 eq $dump1, 'map full: index unchanged');
}

# the disk is full: a 2 MB tmpfs (root only)
SKIP: {
    skip 'disk-full check needs root to mount a small tmpfs', 4
        unless is_root();
    my $mnt = temp_dir();
    my ($code, $out, $err) = run_cmd(['mount', '-t', 'tmpfs', '-o',
                                      'size=2m', 'tmpfs', $mnt]);
    skip "cannot mount a tmpfs here: $err", 4 if $code;

    my $dir = "$mnt/index";
    ($code, $out, $err) = load_index($dir, fixture_path('tx.ndjson'));
    is($code, 0, 'index on a 2 MB filesystem');
    my ($c0, $dump0) = run_cmd(['mdb_dump', '-a', $dir]);
    my $bulk = '';
    for my $i (1 .. 100) {
        (my $d = $raw) =~ s/\Q$id\E/sprintf('0x%064x', $i)/ge;
        $d = json_replace_member($d, 'fee_rate', qq("$filler"));
        $bulk .= qq({"kind":"tx","data":$d}\n);
    }
    ($code, $out, $err) = load_index($dir, { stdin => $bulk });
    is($code, 3, 'disk full: exit 3');
    like($err, qr/is its disk full\?/, 'disk full: says so');
    my ($c1, $dump1) = run_cmd(['mdb_dump', '-a', $dir]);
    ok($dump0 eq $dump1, 'disk full: index unchanged');
    run_cmd(['umount', $mnt]);
}

ok(dump_index() eq $before, 'the index is as it was after all of it');

done_testing();
