# The README and the doc pages: their tables of contents list their
# sections as they are (tools/readme-toc.py makes them; this fails when a
# heading changed and the contents were not made again), every relative
# link of theirs resolves, to a file and a heading, and the README starts
# with the commands a newcomer types.
use strict;
use warnings;
use FindBin;
use Test::More tests => 3;

my $root = "$FindBin::Bin/..";
my @pages = ("$root/README.md", sort glob("$root/doc/*.md"));
my $out = qx{python3 "$root/tools/readme-toc.py" --check @pages 2>&1};
is($?, 0, 'the tables of contents of README.md and doc/*.md are current')
    or diag($out);
$out = qx{python3 "$root/tools/readme-toc.py" --links @pages 2>&1};
is($?, 0, 'every relative link of README.md and doc/*.md resolves')
    or diag($out);

open my $fh, '<', "$root/README.md" or die "README.md: $!";
my $readme = do { local $/; <$fh> };
like($readme, qr/\A# chaindata\n\n```sh\nmake run .*\nmake run PORT=.*\nmake test /,
     'the README starts with make run, make run PORT=N and make test');
