#!/usr/bin/perl
# Writes t/fixtures/chainhook.ndjson: chainhook ingest records covering the
# six status types (upstream-behaviour.md section 5), enabled both ways,
# a key that needs percent-encoding in a path, a key of the maximum length,
# one key owning two chainhooks, an upsert replaced by a later one and an
# upsert then deleted.  Deterministic: the keys are derived from labels.
#
#   perl t/tools/gen-chainhook-fixtures.pl > t/fixtures/chainhook.ndjson

use strict;
use warnings;
use Digest::SHA qw(sha256_hex);

sub key { return substr(sha256_hex("chaindata-fixture-key-$_[0]"), 0, 32) }

my $long = join '', map { sha256_hex("chaindata-fixture-long-$_") } 1 .. 2;

my @records = (
    # uuid, key, data (compact, in the member order it is to be served)
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a01', key(1),
     '{"status":{"type":"new"},"enabled":true}'],
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a02', key(2),
     '{"status":{"info":{"last_evaluated_block_height":840123,'
     . '"last_occurrence":null,"number_of_blocks_evaluated":123,'
     . '"number_of_blocks_to_scan":5000,"number_of_times_triggered":0},'
     . '"type":"scanning"},"enabled":true}'],
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a03', key(3),
     '{"status":{"info":{"last_evaluated_block_height":850000,'
     . '"last_evaluation":1717171717,"last_occurrence":1717000000,'
     . '"number_of_blocks_evaluated":18446744073709551615,'
     . '"number_of_times_triggered":42},"type":"streaming"},"enabled":true}'],
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a04', key(4),
     '{"status":{"info":{"expired_at_block_height":845000,'
     . '"last_evaluated_block_height":845001,"last_occurrence":null,'
     . '"number_of_blocks_evaluated":5001,"number_of_times_triggered":0},'
     . '"type":"unconfirmed_expiration"},"enabled":false}'],
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a05', key(5),
     '{"status":{"info":{"expired_at_block_height":845000,'
     . '"last_evaluated_block_height":845007,"last_occurrence":844990,'
     . '"number_of_blocks_evaluated":5007,"number_of_times_triggered":3},'
     . '"type":"confirmed_expiration"},"enabled":false}'],
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a06', key(6),
     '{"status":{"info":"unable to reach https://hook.example/x: '
     . '\"connection refused\"\n(retried 3' . "\xc3\x97) \xc3\xbcber \xe2\x80\xa2"
     . ' \\\\ /\t\u001f","type":"interrupted"},"enabled":false}'],
    # the same key owns a second chainhook; members in another order
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a07', key(1),
     '{"enabled":true,"status":{"type":"scanning","info":'
     . '{"number_of_times_triggered":1,"number_of_blocks_to_scan":10,'
     . '"number_of_blocks_evaluated":2,"last_occurrence":1700000000,'
     . '"last_evaluated_block_height":3}}}'],
    # a key that must be percent-encoded in a path ("/", "?", " ", "%")
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a08', 'odd/key?with space%and+plus',
     '{"status":{"type":"new"},"enabled":false}'],
    # a key of the maximum length, 128 bytes
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a09', $long,
     '{"status":{"type":"new"},"enabled":true}'],
    # upper-case UUID in the record: the same chainhook as lower case
    ['1F6E2C3A-0B4D-4E5F-8A9B-0C1D2E3F4A0A', key(10),
     '{"status":{"type":"new"},"enabled":true}'],
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0a', key(10),
     '{"status":{"info":{"last_evaluated_block_height":1,'
     . '"last_evaluation":2,"last_occurrence":null,'
     . '"number_of_blocks_evaluated":1,"number_of_times_triggered":0},'
     . '"type":"streaming"},"enabled":true}'],
    # upserted, then deleted
    ['1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0b', key(11),
     '{"status":{"type":"new"},"enabled":true}'],
);

for my $r (@records) {
    my ($uuid, $key, $data) = @$r;
    (my $k = $key) =~ s/(["\\])/\\$1/g;
    print qq({"kind":"chainhook","uuid":"$uuid","api_key":"$k","data":$data}\n);
}

print qq({"kind":"chainhook","delete":"1f6e2c3a-0b4d-4e5f-8a9b-0c1d2e3f4a0b"}\n);
