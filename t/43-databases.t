#!/usr/bin/perl
# The named databases are one list, CHAINDATA_DB_LIST in
# src/core/chaindata_schema.h (name, flags, part size each), and
# lmdb-schema/README.md says the same: the loader creates every database
# of the list, in its order, and no other; the Environment table names
# each once; "Values in parts" names those with a part size, and the
# sizes; the list stays within mdb_env_set_maxdbs().

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $root = repo_root();
my $schema = slurp("$root/src/core/chaindata_schema.h");
my $layout = slurp("$root/src/core/chaindata_layout.h");
my $readme = slurp("$root/lmdb-schema/README.md");

my %size = map { $_ => ($layout =~ /#define $_\s+(\d+)/)[0] }
           qw(CHAINDATA_NODE_MAX CHAINDATA_NODE_THIRD);

my ($list) = $schema =~ /#define CHAINDATA_DB_LIST\(X\)((?:.*\\\n)*.*\n)/;
ok($list, 'chaindata_schema.h: CHAINDATA_DB_LIST');

my (@names, %part);
while (($list // '') =~ /X\((\w+),\s*"([^"]+)",\s*([^,]+),\s*(\w+)\)/g) {
    push @names, $2;
    $part{$2} = $4 eq '0' ? 0 : $size{$4};
}
cmp_ok(scalar @names, '>', 0, 'the list names databases');

my ($max) = $schema =~ /#define CHAINDATA_MAX_DBS\s+(\d+)/;
cmp_ok(scalar @names, '<=', $max, "at most CHAINDATA_MAX_DBS ($max)");
like($readme, qr/`mdb_env_set_maxdbs` $max\)/,
     'lmdb-schema: the same maxdbs');

# the loader creates each one, in the list's order
my $dir = temp_dir();
my ($code, undef, $err) = load_index($dir, { stdin => '' });
is($code, 0, 'an empty index made') or diag($err);
($code, my $out, $err) = load_index($dir, '--stats');
is($code, 0, '--stats') or diag($err);
my @made = map { $_->{key} } json_members(
    json_member_value($out, 'databases'), 0);
is_deeply(\@made, \@names, 'the loader creates the list, in its order');

# the Environment table names each once
my ($env) = $readme =~ /\n## Environment\n(.*?)\n## /s;
my @doc;
for my $row (grep { /^\s*\| `/ } split /\n/, $env // '') {
    my (undef, $cell) = split /\s*\|\s*/, $row;
    push @doc, $cell =~ /`([a-z0-9_]+)`/g;
}
is_deeply([sort @doc], [sort @names],
          'lmdb-schema "Environment": every database once, no other');

# "Values in parts": the databases in parts and their sizes
my ($parts) = $readme =~ /\n## Values in parts\n(.*?)\n## /s;
$parts //= '';
(my $flat = $parts) =~ s/\s+/ /g;
my ($which) = $flat =~ /So in (.*?) \(keys all of one length/;
my @in_parts = sort(($which // '') =~ /`([a-z0-9_]+)`/g);
is_deeply(\@in_parts, [sort grep { $part{$_} } @names],
          'lmdb-schema "Values in parts": the databases with a part size');

for my $db (grep { $part{$_} } @names) {
    (my $n = $part{$db}) =~ s/(\d)(\d{3})$/$1,$2/;
    my $named = qr/`\Q$db\E`(?: and `\w+`)?|`\w+` and `\Q$db\E`/;
    like($flat, qr/(?:$named) \Q$n\E/, "lmdb-schema: ${db}'s part, $n bytes");
}

done_testing();
