# The C unit tests of the nginx-free code (t/unit/test_*.c, each of one
# room of the code that has some, run by t/unit/unit_main.c) print TAP;
# this passes it through.
use strict;
use warnings;
use FindBin;

my $build = $ENV{CHAINDATA_BUILD} || "$FindBin::Bin/../build";
$build = "$FindBin::Bin/../$build" unless $build =~ m{^/};
my $unit = "$build/chaindata-unit";

if (!-x $unit) {
    print "1..1\nnot ok 1 - build/chaindata-unit is missing: run make\n";
    exit 1;
}

exec $unit or die "cannot run $unit: $!\n";
