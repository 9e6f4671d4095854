#!/usr/bin/perl
# chaindata-load's progress (doc/loader.md "Progress"): on a terminal (script(1)
# gives it a pseudo-terminal) a line redrawn in place with the records
# done, the rate, the bytes read of the file's size and the time left,
# ended by the totals; in a pipe a logfmt line every --progress-interval
# seconds (30 by default, when a short load says nothing but its summary);
# the same with --bulk; nothing with --quiet.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

plan skip_all => 'script(1) (util-linux) is missing'
    unless -x '/usr/bin/script';

my $LOADER = build_path('chaindata-load');
my ($tx) = grep { !$_->{mempool} } tx_fixtures(fixture_path('tx.ndjson'));
my $dir = temp_dir();

# 20,000 transactions: enough lines for several looks at the clock
my $N = 20000;
my $in = "$dir/in.ndjson";
{
    open my $fh, '>', $in or die "$in: $!";
    for my $i (1 .. $N) {
        my $id = sprintf '0x%060x%04x', 0x77, $i;
        (my $raw = $tx->{data_raw}) =~ s/\Q$tx->{tx_id}\E/$id/g;
        print $fh qq({"kind":"tx","data":$raw}\n);
    }
    close $fh;
}
my $size = -s $in;
my $mb = sprintf '%.1f', $size / 1e6;

sub shell_quote { my ($s) = @_; $s =~ s/'/'\\''/g; return "'$s'" }

# on a pseudo-terminal: standard error is the terminal script(1) records
for my $bulk (0, 1) {
    my $what = $bulk ? '--bulk' : 'normal';
    my $db = "$dir/tty-$bulk";
    my $cmd = join ' ', map { shell_quote($_) } $LOADER, '--db', $db,
              ($bulk ? ('--bulk', '--batch', '1000') : ()),
              '--progress-interval', '0.001', $in;
    my ($code, $out, $err) = run_cmd(['script', '-q', '-e', '-c', $cmd,
                                      '/dev/null'], timeout => 300);
    is($code, 0, "$what on a terminal: exit 0") or diag($err);
    my @draws = $out =~ /\r\e\[K([^\r\n]*)/g;
    ok(@draws >= 2, "$what on a terminal: the line redrawn in place ("
       . scalar(@draws) . ' draws)');
    like($draws[0] // '', qr/^chaindata-load: \d+ records, \d+ records\/s, [\d.]+ of \Q$mb\E MB \(\d+%\), ETA \d+:\d\d$/,
         "$what: records, rate, bytes of the file's size, ETA");
    like($draws[-1] // '', qr/^chaindata-load: $N records, \d+ records\/s, \Q$mb\E of \Q$mb\E MB \(100%\), done in \d+:\d\d$/,
         "$what: the last line, the totals");
    my @n = map { /^chaindata-load: (\d+) records/ ? $1 : () } @draws;
    is_deeply([sort { $a <=> $b } @n], \@n, "$what: records only grow");
    like($out, qr/done in [^\r\n]*\r?\n.*batches committed/s,
         "$what: the line ended before the summary");
}

# in a pipe: logfmt lines, no terminal control
for my $bulk (0, 1) {
    my $what = $bulk ? '--bulk' : 'normal';
    my ($code, $out, $err) = load_index("$dir/pipe-$bulk",
        ($bulk ? ('--bulk', '--batch', '1000') : ()),
        '--progress-interval', '0.001', $in);
    is($code, 0, "$what in a pipe: exit 0") or diag($err);
    unlike($err, qr/\r|\e/, "$what in a pipe: no terminal control");
    my @lines = grep { /level=info msg=progress/ } split /\n/, $err;
    ok(@lines >= 1, "$what in a pipe: logfmt progress lines (" . @lines . ')');
    like($lines[0] // '', qr/^chaindata-load: level=info msg=progress records=\d+ records_per_s=\d+ bytes=\d+ total_bytes=$size eta_s=\d+ elapsed_s=\d+$/,
         "$what in a pipe: records, rate, bytes of the total, ETA");
    like($err, qr/^chaindata-load: level=info msg=done records=$N records_per_s=\d+ bytes=$size total_bytes=$size elapsed_s=\d+$/m,
         "$what in a pipe: a last line with the totals");
}

# the default interval, 30 s: a short load in a pipe says its summary only
{
    my ($code, $out, $err) = load_index("$dir/pipe-default", $in);
    is($code, 0, 'default interval: exit 0');
    unlike($err, qr/level=info/, 'default interval: no progress line for a short load');
    like($err, qr/batches committed/, 'default interval: the summary');
}

# from a pipe, the size is not known: no total, no ETA (standard input
# from a file is a file: its size is known)
{
    my $cmd = 'cat ' . shell_quote($in) . ' | ' . join ' ', map { shell_quote($_) }
              $LOADER, '--db', "$dir/stdin", '--progress-interval', '0.001', '-';
    my ($code, $out, $err) = run_cmd(['sh', '-c', $cmd], timeout => 300);
    is($code, 0, 'a pipe on standard input: exit 0');
    my ($l) = grep { /msg=progress/ } split /\n/, $err;
    like($l // '', qr/ bytes=\d+ elapsed_s=\d+$/,
         'a pipe on standard input: no total_bytes, no eta_s');
    ($code, $out, $err) = load_index("$dir/stdin-file",
        '--progress-interval', '0.001', '-', { stdin => slurp($in) });
    like($err, qr/msg=progress .* total_bytes=$size /,
         'a file on standard input: its size');
}

# --quiet: nothing
{
    my ($code, $out, $err) = load_index("$dir/quiet", '--quiet',
        '--progress-interval', '0.001', $in);
    is($code, 0, '--quiet: exit 0');
    is($err, '', '--quiet: nothing on standard error');
}

my ($code, $out, $err) = load_index("$dir/bad", '--progress-interval', '0', $in);
is($code, 2, '--progress-interval 0: a usage error');

done_testing();
