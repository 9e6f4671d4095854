package ChainData::Chainhook;

# Helpers for the chainhook status tests (t/50-chainhook.t, t/51-chainhook-logs.t): the
# chainhooks a fixture leaves, request paths, comparing responses.

use strict;
use warnings;

use Exporter qw(import);
use ChainData::Test qw(slurp json_decode json_member_value);

our @EXPORT_OK = qw(
    chainhook_fixtures pct hook_path headers_but_date index_files
);
our %EXPORT_TAGS = (all => \@EXPORT_OK);

# chainhook_fixtures(@files) -> (\@live, \@keys): @live holds
# {uuid (lower case), key, data_raw, type, enabled, line} for the
# chainhooks present after loading the files in order (later upserts
# replace, deletes remove), in first-appearance order; @keys every API key
# of every upsert, deleted and replaced ones included.
sub chainhook_fixtures {
    my (@files) = @_;
    my (%by, @order, @keys);
    for my $f (@files) {
        my $n = 0;
        for my $line (split /\n/, slurp($f)) {
            $n++;
            next if $line =~ /^\s*\z/;
            my $doc = json_decode($line);
            next unless ($doc->{kind} // '') eq 'chainhook';
            if (defined $doc->{delete}) {
                delete $by{ lc $doc->{delete} };
                next;
            }
            my $uuid = lc $doc->{uuid};
            push @keys, $doc->{api_key};
            push @order, $uuid unless exists $by{$uuid};
            $by{$uuid} = {
                uuid     => $uuid,
                key      => $doc->{api_key},
                data_raw => json_member_value($line, 'data'),
                type     => $doc->{data}{status}{type},
                enabled  => $doc->{data}{enabled} ? 1 : 0,
                line     => $n,
            };
        }
    }
    my %seen;
    my @live = map { $by{$_} } grep { exists $by{$_} && !$seen{$_}++ } @order;
    return (\@live, \@keys);
}

# percent-encodes everything but the unreserved characters (RFC 3986);
# the key is taken as bytes (UTF-8 when it is a character string)
sub pct {
    my ($s) = @_;
    utf8::encode($s) if utf8::is_utf8($s);
    $s =~ s/([^A-Za-z0-9\-._~])/sprintf('%%%02X', ord $1)/ge;
    return $s;
}

sub hook_path {
    my ($key, $uuid, $prefix) = @_;
    $prefix = '/v1/ext/' unless defined $prefix;
    return $prefix . pct($key) . "/chainhooks/$uuid/status";
}

# the response's header lines without Date, as "name: value" strings
sub headers_but_date {
    my ($r) = @_;
    return [ map { "$_->[0]: $_->[1]" } grep { lc $_->[0] ne 'date' } @{ $r->{header_list} } ];
}

# every file under a directory (the index), recursively
sub index_files {
    my ($dir) = @_;
    my @files;
    opendir my $dh, $dir or die "opendir $dir: $!";
    for my $e (grep { !/^\.\.?\z/ } readdir $dh) {
        my $p = "$dir/$e";
        if (-d $p) { push @files, index_files($p) }
        else { push @files, $p }
    }
    closedir $dh;
    return @files;
}

1;
