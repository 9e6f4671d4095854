#!/usr/bin/perl
# A usage error of chaindata-load or chaindata-mirror: exit 2, the error
# named on one line and where to read more on the next, not the whole
# --help text (which --help alone prints, to standard output).  An input
# file that cannot be read creates no index.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my @CASES = (
    ['chaindata-load', [], qr/^chaindata-load: --db DIR is required$/],
    ['chaindata-load', ['--no-such-option'], qr/unrecognized option '--no-such-option'$/],
    ['chaindata-load', ['--db'], qr/option '--db' requires an argument$/],
    ['chaindata-load', ['--db', '/nonexistent', '--bulk', '--follow'],
     qr/^chaindata-load: --bulk and --follow exclude each other$/],
    ['chaindata-mirror', [], qr/^chaindata-mirror: --db DIR is required$/],
    ['chaindata-mirror', ['--no-such-option'], qr/unrecognized option '--no-such-option'$/],
    ['chaindata-mirror', ['--db', '/nonexistent'],
     qr/^chaindata-mirror: name a source: /],
    # a value refused names its option (it once named the value)
    ['chaindata-mirror', ['--interval', '0'],
     qr/^chaindata-mirror: --interval wants a number from 0\.01 to 86400, not "0"$/],
    ['chaindata-mirror', ['--stacks-api', 'ftp://x'],
     qr/^chaindata-mirror: --stacks-api wants an http:\/\/ or https:\/\/ URL$/],
    ['chaindata-load', ['--max-readers', '0'],
     qr/^chaindata-load: --max-readers wants a number from 1 to 1048576, not "0"$/],
);

for my $c (@CASES) {
    my ($prog, $args, $error) = @$c;
    my $name = join ' ', $prog, @$args;
    my ($code, $out, $err) = run_cmd([build_path($prog), @$args]);
    is($code, 2, "$name: exit 2");
    is($out, '', "$name: nothing on standard output");
    my @lines = split /\n/, $err;
    is(scalar @lines, 2, "$name: two lines, not the whole --help")
        or diag($err);
    like($lines[0] // '', $error, "$name: the error named");
    is($lines[1], "Try \"$prog --help\" for more.", "$name: where to read more");
}

for my $prog ('chaindata-load', 'chaindata-mirror') {
    my ($code, $out, $err) = run_cmd([build_path($prog), '--help']);
    is($code, 0, "$prog --help: exit 0");
    like($out, qr/^usage: \Q$prog\E /, "$prog --help: the usage on standard output");
    is($err, '', "$prog --help: nothing on standard error");
}

# an input that cannot be read: said, and no index created for it
{
    my $db = temp_dir() . '/index';
    my ($code, $out, $err) = run_cmd([build_path('chaindata-load'), '--db',
                                      $db, temp_dir() . '/missing.ndjson']);
    is($code, 3, 'chaindata-load of a missing file: exit 3 (a system error)');
    like($err, qr{^chaindata-load: cannot open \S+/missing\.ndjson: No such file},
         'the file named');
    ok(!-e $db, 'and no empty index created first');
}

done_testing();
