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

# its TAP passed through as it comes; a failed check is said again on
# standard error, which prove shows even without -v, so that a run's log
# (CI's) names it
open(my $tap, '-|', $unit) or die "cannot run $unit: $!\n";
$| = 1;
while (my $line = <$tap>) {
    print $line;
    print STDERR "# t/01-unit.t: $line" if $line =~ /^not ok/;
}
close($tap);
exit($? & 127 ? 128 + ($? & 127) : $? >> 8);
