#!/usr/bin/perl
# Makes t/captures/stacks-api-9.0.2/NAME.v3-answers.json and
# NAME.v3-records.ndjson (t/captures/stacks-api-9.0.2/README-v3.md) from
# ../shared/reference/stacks-api-9.0.2: run from the repository root.
use strict; use warnings;
use lib 't/lib';
use JSON::PP;
use ChainData::TxV3 qw(v3_records);
my $ref = shift // '../shared/reference/stacks-api-9.0.2';
my $J = JSON::PP->new;
my $out = 't/captures/stacks-api-9.0.2';
for my $name (qw(fuzzed mainnet_block0 mb_reorg1 mocknet poison synth)) {
    my $answers = $J->decode(do { local $/; open my $f, '<', "$ref/$name.answers.json" or die; <$f> });
    my $feed = $J->decode(do { local $/; open my $f, '<', "$ref/$name.feed.json" or die; <$f> });
    my $nd = do { local $/; open my $f, '<', "$ref/$name.ndjson" or die; <$f> };
    my $records = v3_records($nd, $feed, $answers);
    # every kind of transaction once: (type, status, events>20?, memo,
    # post-condition kinds), plus those with paging answers
    my (%pick, %seen);
    for my $l (sort { length($a) <=> length($b) } split /\n/, $records) {
        my $r = $J->decode($l); my $d = $r->{data};
        my $pcs = join ',', sort map { $_->{type} } @{ $d->{post_conditions} || [] };
        my $ev = join ',', sort keys %{{ map { ($_->{event_type} . ($_->{asset} ? $_->{asset}{asset_event_type} : '')) => 1 } @{ $d->{events} || [] } }};
        my $k = join '|', $d->{tx_type}, $d->{tx_status}, $pcs, $ev,
            ($d->{canonical} // 1),
            ($d->{sponsored} ? 's' : ''), (($d->{event_count} // 0) > 20 ? 'many' : ''),
            (exists $r->{block_time} ? 'bt' : ''),
            ($d->{token_transfer} && $d->{token_transfer}{memo} =~ /^0x0*$/ ? '' : 'memo');
        next if $seen{$k}++;
        $pick{$d->{tx_id}} = 1;
    }
    for my $a (@$answers) {
        $pick{$1} = 1 if $a->{note} =~ /next page|previous page/ && $a->{path} =~ m{(0x[0-9a-f]{64})};
    }
    my @keep = grep {
        my $a = $_;
        my ($id) = $a->{path} =~ m{/(?:0x)?([0-9a-fA-F]{64})(?:[/?]|$)};
        !defined $id || $id =~ /^0+$/ || $pick{'0x' . lc $id}
    } @$answers;
    my @lines = grep { my ($id) = /"tx_id":"(0x[0-9a-f]{64})"/; $pick{$id} } split /\n/, $records;
    open my $o, '>', "$out/$name.v3-answers.json" or die;
    print $o "[\n", join(",\n", map { JSON::PP->new->canonical->encode($_) } @keep), "\n]\n";
    close $o;
    open $o, '>', "$out/$name.v3-records.ndjson" or die;
    print $o map { "$_\n" } @lines;
    close $o;
    printf "%s: %d txs, %d answers\n", $name, scalar(@lines), scalar(@keep);
}
