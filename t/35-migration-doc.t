#!/usr/bin/perl
# The migration map is written twice: in code (chaindata_mig_rows,
# src/core/chaindata_migration_map.c) and in doc/module.md ("The
# mapping").  This reads doc/module.md's tables and its paragraph on the
# replacement's extras, and compares them, row by row and column by
# column, with the table the module answers at the location root: a row,
# a parameter, a code or a text that differs in one of them fails.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use JSON::PP ();
use Test::More;
use ChainData::Test qw(:all);

require_build();

my $BASE       = 'https://api.replacement.example/ord';
my $BASE_BRC20 = 'https://brc20.replacement.example';

# ------------------------------------------------------ doc/module.md

my $md = slurp(repo_root() . '/doc/module.md');
my ($mapping) = $md =~ /\n#### The mapping\n(.*?)\n### /s;
ok($mapping, 'doc/module.md: "The mapping"') or BAIL_OUT('no mapping');

sub list_of {
    my ($cell) = @_;
    return [] if !defined $cell || $cell eq '-' || $cell eq '';
    return [split /,\s*/, $cell];
}

# "base `/x`", "brc20 `/x`", "none", "none (alternative: base `/x`,
# field `f`)"; the replacement's query, "ignored: ..." apart
sub replacement_of {
    my ($cell, $rquery) = @_;
    my ($supported, $ignored) = ([], []);

    for my $part (split /;\s*/, $rquery) {
        if ($part =~ /^ignored:\s*(.*)$/) {
            $ignored = list_of($1);
        } else {
            $supported = list_of($part);
        }
    }

    if ($cell =~ /^(base|brc20) `([^`]+)`$/) {
        my $base = $1 eq 'brc20' ? $BASE_BRC20 : $BASE;
        return ({ method => 'GET', path => $2, url => $base . $2,
                  query => $supported }, undef, $ignored);
    }

    if ($cell =~ /^none \(alternative: base `([^`]+)`, field `([^`]+)`\)$/) {
        return (undef, { method => 'GET', path => $1, url => $BASE . $1,
                         field => $2 }, $ignored);
    }

    return (undef, undef, $ignored) if $cell eq 'none';

    fail("doc/module.md: a replacement cell not understood: $cell");
    return (undef, undef, $ignored);
}

# "none", or "`code`" each, "(a, b)" after query_unsupported and
# query_ignored
sub changes_of {
    my ($cell) = @_;
    my (@codes, %lists);

    return ([], {}) if $cell eq 'none';

    while ($cell =~ /`(\w+)`(?: \(([^)]*)\))?/g) {
        push @codes, $1;
        $lists{$1} = list_of($2) if defined $2;
    }

    return (\@codes, \%lists);
}

my (@doc, $section);
for my $line (split /\n/, $mapping // '') {
    $section = $1 if $line =~ /^##### (\d+\.\d+) /;
    next unless $line =~ /^\| `\//;

    my (undef, $path, $query, $repl, $rquery, $changes, $redirect, $text)
        = split /\s*\|\s*/, $line;
    $path =~ s/^`|`$//g;

    my ($r, $alt, $ignored) = replacement_of($repl, $rquery);
    my ($codes, $lists) = changes_of($changes);

    # what the replacement does not take: the Changes column's list, or
    # every parameter of a row without a replacement (doc/module.md, "The
    # 410 body": the endpoint's parameters the replacement does not
    # support); the same as the endpoint's less the replacement's columns
    my %takes = map { $_ => 1 } @{ $r ? $r->{query} : [] }, @$ignored;
    my @left = grep { !$takes{$_} } @{ list_of($query) };
    my $unsupported = $lists->{query_unsupported}
                      // ($r ? [] : list_of($query));
    is_deeply($unsupported, \@left,
              "doc/module.md, $path: the query not taken, as its columns say");
    is_deeply($lists->{query_ignored} // [], $ignored,
              "doc/module.md, $path: the query ignored, in both columns");

    push @doc, {
        endpoint => { section => $section, method => 'GET', path => $path,
                      query => list_of($query) },
        replacement => $r,
        alternative => $alt,
        differences => {
            changes => $codes,
            unsupported_query => $unsupported,
            ignored_query => $ignored,
            text => $text,
        },
        redirect => $redirect eq 'yes' ? 1 : 0,
    };
}
cmp_ok(scalar @doc, '>', 0, 'doc/module.md: the mapping has rows');

my ($extras) = ($mapping // '')
    =~ /\n(The replacement provider additionally .*?)\n\n/s;
$extras //= '';
$extras =~ s/\s*\(`replacement_extras` in the table answer\)//;
$extras =~ s/\s+/ /g;

# ------------------------------------------------------ the module

my $ng = ChainData::Test::Nginx->start(locations => <<'EOF', http => <<"EOF");
        location /ordinals/v1/ {
            chaindata_migration;
        }
EOF
    chaindata_migration_base $BASE;
    chaindata_migration_base_brc20 $BASE_BRC20;
EOF

my $res = http_get($ng->port, '/ordinals/v1/');
is($res->{status}, 200, 'the table answered');
my $table = plain(eval { json_decode($res->{body}) } || {});

my @code = @{ $table->{endpoints} || [] };
is(scalar @doc, scalar @code, 'as many rows in doc/module.md as in code');

for my $i (0 .. ($#doc > $#code ? $#doc : $#code)) {
    my $name = ($doc[$i] || $code[$i])->{endpoint}{path};
    is_deeply($doc[$i], $code[$i], "row $i, $name: doc/module.md as the code");
}

is($table->{replacement_extras}{text}, $extras,
   "the replacement's extras: doc/module.md's text as the code's");

done_testing();

sub plain {
    my ($v) = @_;
    return { map { $_ => plain($v->{$_}) } keys %$v } if ref $v eq 'HASH';
    return [map { plain($_) } @$v] if ref $v eq 'ARRAY';
    return $v ? 1 : 0 if JSON::PP::is_bool($v);
    return $v;
}
