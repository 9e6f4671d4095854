package ChainData::Runes;

# Helpers for the rune route tests: what the fixtures hold after loading,
# and the page the module must serve for a list.  Core Perl only.

use strict;
use warnings;

use Exporter qw(import);
use ChainData::Test qw(slurp json_decode json_member_value json_array_elements);

our @EXPORT_OK = qw(
    rune_lists list_of address_key expected_page entry_texts
    activity_line balances_line rune_locations rune_paths
    DEPRECATION_AT
);
our %EXPORT_TAGS = (all => \@EXPORT_OK);

use constant DEPRECATION_AT => '@1773014400';

# the key an address is stored under: a bech32 one in lowercase
sub address_key {
    my ($address) = @_;
    return $address =~ /^(?:bc|tb|bcrt)1/i ? lc $address : $address;
}

# raw texts of the elements of the "results" member of a record line
sub entry_texts {
    my ($line) = @_;
    my $raw = json_member_value($line, 'results');
    return map { substr($raw, $_->[0], $_->[1] - $_->[0]) } json_array_elements($raw, 0);
}

# rune_lists(@files) -> { activity => { lc tx_id => [texts] },
#                         balances => { address key => [texts] },
#                         address => { address key => address as given } }
# as the index holds them after loading the files in order: a later record
# replaces an earlier one, "results":[] deletes.
sub rune_lists {
    my (@files) = @_;
    my %l = (activity => {}, balances => {}, address => {});
    for my $f (@files) {
        for my $line (split /\n/, slurp($f)) {
            next if $line =~ /^\s*\z/;
            my $doc = json_decode($line);
            my ($set, $key);
            if ($doc->{kind} eq 'rune_activity') {
                ($set, $key) = ('activity', lc $doc->{tx_id});
            } elsif ($doc->{kind} eq 'rune_balances') {
                ($set, $key) = ('balances', address_key($doc->{address}));
                $l{address}{$key} = $doc->{address};
            } else {
                next;
            }
            my @e = entry_texts($line);
            if (@e) {
                $l{$set}{$key} = \@e;
            } else {
                delete $l{$set}{$key};
            }
        }
    }
    return \%l;
}

# expected_page(\@texts, $offset, $limit, $offset_text)
sub expected_page {
    my ($texts, $offset, $limit, $offset_text) = @_;
    $offset_text = $offset unless defined $offset_text;
    my @all = @{ $texts || [] };
    my @page;
    if ($offset < @all) {
        my $last = $offset + $limit - 1;
        $last = $#all if $last > $#all;
        @page = @all[$offset .. $last];
    }
    return sprintf('{"limit":%d,"offset":%s,"total":%d,"results":[%s]}',
        $limit, $offset_text, scalar @all, join(',', @page));
}

sub activity_line {
    my ($tx_id, @entries) = @_;
    return qq({"kind":"rune_activity","tx_id":"$tx_id","results":[) . join(',', @entries) . "]}\n";
}

sub balances_line {
    my ($address, @entries) = @_;
    return qq({"kind":"rune_balances","address":"$address","results":[) . join(',', @entries) . "]}\n";
}

# the nginx locations the tests serve the routes from
sub rune_locations {
    my ($extra) = @_;
    $extra = '' unless defined $extra;
    return <<"EOF";
        location /runes/v1/transactions/ {
            chaindata_rune_activity;
$extra        }
        location /runes/v1/addresses/ {
            chaindata_rune_balances;
$extra        }
        location /other/prefix/activity/ {
            chaindata_rune_activity;
$extra        }
        location /other/prefix/balances/ {
            chaindata_rune_balances;
$extra        }
EOF
}

sub rune_paths {
    return {
        activity => sub { "/runes/v1/transactions/$_[0]/activity" },
        balances => sub { "/runes/v1/addresses/$_[0]/balances" },
    };
}

sub list_of { my ($lists, $set, $key) = @_; return $lists->{$set}{$key} || [] }

1;
