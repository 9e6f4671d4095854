# The README's table of contents lists its sections as they are
# (tools/readme-toc.py makes it; this fails when a heading changed and
# the contents were not made again).
use strict;
use warnings;
use FindBin;
use Test::More tests => 1;

my $root = "$FindBin::Bin/..";
my $out = qx{python3 "$root/tools/readme-toc.py" --check "$root/README.md" 2>&1};
is($?, 0, 'README table of contents is current') or diag($out);
