# The README and the doc pages: their tables of contents list their
# sections as they are (tools/readme-toc.py makes them; this fails when a
# heading changed and the contents were not made again), every relative
# link of theirs resolves, to a file and a heading, and the README starts
# with the commands a newcomer types.  Each alert of the shipped rules
# carries a runbook_url to a section of doc/operations.md of its own name,
# which resolves as those links do.
use strict;
use warnings;
use FindBin;
use Test::More tests => 6;

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


my $rules_file = "$root/doc/monitoring/chaindata.rules.yml";
open $fh, '<', $rules_file or die "$rules_file: $!";
my $rules = do { local $/; <$fh> };
my @alerts = $rules =~ /^\s*- alert: (\w+)\n/mg;
ok(@alerts >= 20, scalar(@alerts) . ' alerts in the rules');
# each rule's text, from its "- alert:" line to the next
my %rule = $rules =~ /^\s*- alert: (\w+)\n((?:(?!\s*- alert:).*\n)*)/mg;
my @without = grep {
    $rule{$_} !~ /^\s+runbook_url: "\.\.\/operations\.md#\L$_\E"$/m
} @alerts;
is_deeply(\@without, [], 'each alert has a runbook_url to its own section '
                        . 'of doc/operations.md');
$out = qx{python3 "$root/tools/readme-toc.py" --links "$rules_file" 2>&1};
is($?, 0, 'and each resolves to a heading there') or diag($out);
