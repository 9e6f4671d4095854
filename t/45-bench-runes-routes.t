#!/usr/bin/perl
# bench/runes-routes at its small size (BENCH_SMALL=1), so that the bench
# of chaindata_runes keeps working: it loads its generated records (the
# new kinds included), serves the deep pages and the holders, and prints
# every figure of parts 2 to 4 as a number.  Part 1 needs the real Runes
# API (make test-upstream's): here it is pointed at a closed port and must
# say that it skipped.  No figure is compared with any other: no timing
# is asserted.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use IO::Socket::INET;
use Test::More;
use ChainData::Test qw(:all);

require_build();

# the bench measures the plain build: under test-asan's build its nginx
# would need the sanitizers preloaded, and its figures would mean nothing
plan skip_all => 'bench/runes-routes measures build/, not CHAINDATA_BUILD '
    . "($ENV{CHAINDATA_BUILD})"
    if $ENV{CHAINDATA_BUILD}
       && ChainData::Test::build_dir() ne repo_root() . '/build';

for my $c (qw(wrk taskset python3 curl mdb_stat)) {
    plan skip_all => "$c is not installed (make test installs it)"
        unless grep { -x "$_/$c" } split /:/, $ENV{PATH};
}

# a port nothing listens on: no Runes API there
my $sock = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                 Proto => 'tcp', Listen => 1) or die $!;
my $closed = $sock->sockport;
close $sock;

my $out = temp_dir() . '/runes-routes.txt';
my ($code, $stdout, $stderr) = run_cmd([repo_root() . '/bench/runes-routes'],
    timeout => 900,
    env => { BENCH_SMALL => 1, BENCH_BUSY_OK => 1, BENCH_OUT => $out,
             RUNES_API => "http://127.0.0.1:$closed",
             CHAINDATA_MODULE => build_path('ngx_http_chaindata_module.so'),
             CHAINDATA_LOADER => build_path('chaindata-load'),
             CHAINDATA_MIRROR => build_path('chaindata-mirror') });
is($code, 0, 'bench/runes-routes BENCH_SMALL=1 runs through')
    or diag($stderr);
is(slurp($out), $stdout, 'the report written is the one printed');

my $num = qr/[0-9]+(?:\.[0-9]+)?/;
like($stdout, qr/^note: upstream: no Runes API answers at http:\/\/127\.0\.0\.1:$closed/m,
     'part 1 says it is skipped without the API');
unlike($stdout, qr/not measured|refused|did not start/,
       'every deep page is measured, every record loaded') or diag($stdout);
for my $page (qq{a rune's activity}, qq{an address's activity},
              qq{a rune's activity of one address}, qq{a rune's holders}) {
    like($stdout,
         qr/^\| \Q$page\E \(\d+(?: entries)?\), offset 0 \| 200, 60 entries \| $num µs/m,
         "$page: its first page, measured");
}
my @deep = $stdout =~ /^\| the same, offset \d+ \| 200, 60 entries \| $num µs(?: \(busy\))? \| ($num) \|/mg;
is(scalar @deep, 5, 'five deeper pages (three lists, holders at 1/10 and'
   . ' 9/10), each with its ratio to the first')
    or diag($stdout);
my $load = qr/\| $num s, $num s \| $num µs \| $num s, $num s \| $num µs \| (?:$num|-) \|$/m;
like($stdout, qr/^\| \d+ holders, a rune_balances record each.* $load/m,
     'the holders\' load, per holder, this build and before');
like($stdout, qr/^\| then \d+ of them given a new balance $load/m,
     'the changes\' load, per holder');
like($stdout, qr/^the holders' walk: -?$num µs of worker CPU per 1,000 holders skipped$/m,
     'what a holder skipped costs');
like($stdout, qr/^\| part 2's, \d+ transactions .* \| \d+ \| \d+ \| \d+ \| \d+ \| $num \|$/m,
     'the index bytes per transaction, before and after');

done_testing();
