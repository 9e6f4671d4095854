#!/usr/bin/perl
# The man pages cannot drift: `make man` makes each program's page from
# its --help (help2man) and chaindata(8) from the README's module
# reference (tools/md2man).  What is checked here is that the sources
# themselves agree: every directive and variable the module registers is
# in chaindata(8), so in the README, and every option of a program's
# --help is in its page and in the README.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

plan skip_all => 'the man pages are made from the plain build, not '
    . "CHAINDATA_BUILD=$ENV{CHAINDATA_BUILD}" if $ENV{CHAINDATA_BUILD};

my $root = repo_root();
my ($code, $out, $err) = run_cmd(['make', '-C', $root, 'man'],
    timeout => 600);
is($code, 0, 'make man') or diag("$out$err");

my $readme = slurp("$root/README.md");
my $page = slurp("$root/build/man/chaindata.8");

# the names of the module's directives and variables, from its
# ngx_command_t and ngx_http_variable_t tables
my @names;
for my $f (glob("$root/src/ngx/*.c")) {
    push @names, slurp($f) =~ /\{[ \t]*ngx_string\("(chaindata_\w+)"\)/g;
}
ok(@names >= 10, scalar(@names) . ' directives and variables in src/ngx');
for my $n (@names) {
    like($page, qr/\\fB\$?\Q$n\E\b/, "chaindata(8) documents $n");
}

my @programs = map { m{src/(\w+)/} ? "chaindata-$1" : () }
               grep { m{src/(\w+)/chaindata_\1\.c$} }
               glob("$root/src/*/chaindata_*.c");
for my $p (@programs) {
    ($code, $out) = run_cmd([build_path($p), '--help']);
    my %opts = map { $_ => 1 } $out =~ /(?<![\w-])(--[a-z][a-z-]+)/g;
    ok(%opts, "$p --help lists options");
    my $man = slurp("$root/build/man/$p.1");
    my $th = uc $p;
    like($man, qr/^\.TH "?\Q$th\E"? "?1"?/m, "$p.1 is a section 1 page");
    for my $o (sort keys %opts) {
        (my $m = $o) =~ s/-/\\\\-/g;
        like($man, qr/$m/, "$p.1 has $o");
        next if $o eq '--help' || $o eq '--version';
        like($readme, qr/`\Q$o\E\b/, "README documents $p $o");
    }
}

done_testing();
