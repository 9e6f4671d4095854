#!/usr/bin/perl
# chaindata-mirror --config FILE (doc/mirror.md "Without systemd"): the
# shipped systemd/mirror.conf.example read as it is, its paths and URL put
# in through a copy only (@INDEX_DIR@, the upstream), makes the index the
# same options make on the command line; options beside --config win over
# the file's; systemd's quoting and comments; a bad line or a bad option
# in a value is "FILE:LINE: reason", exit 2.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(:DEFAULT confirmed_docs make_chain write_chain
    nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $root = temp_dir();

my @docs = confirmed_docs();
my $chain = make_chain(1000, [[@docs[0 .. 2]], [@docs[3 .. 4]]]);
write_chain($root, $chain);
my $ng = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my $api = 'http://127.0.0.1:' . $ng->port . '/up';

# the shipped example, as installed (@INDEX_DIR@ made a path), pointed at
# the test's upstream
my $example = slurp(repo_root() . '/systemd/mirror.conf.example');
like($example, qr/^CHAINDATA_DB=\@INDEX_DIR\@$/m, 'the example names the index');
like($example, qr{^CHAINDATA_MIRROR_OPTIONS=--stacks-api http://127\.0\.0\.1:3999$}m,
     'the example names the upstream');

sub conf_for {
    my ($dir, $name) = @_;
    (my $c = $example) =~ s/\@INDEX_DIR\@/$dir/g;
    $c =~ s{http://127\.0\.0\.1:3999}{$api}g;
    return spew("$root/$name", $c);
}

sub feeds {
    my ($db) = @_;
    my ($c, $o, $e) = load_index($db, '--stats');
    is($c, 0, "--stats of $db") or diag($e);
    my $st = $c == 0 ? json_decode($o) : {};
    return [map { [@$_{qw(source height hash)}] } @{ $st->{feeds} || [] }],
           $st->{databases};
}

# 1. the example as it is, and the same options on the command line
my $conf = conf_for("$root/a", 'mirror.conf');
my ($code, $out, $err) = run_cmd([$MIRROR, '--config', $conf, '--once'],
                                 timeout => 120);
is($code, 0, '--config the example --once: exit 0') or diag($err);
($code, $out, $err) = run_cmd([$MIRROR, '--follow', '--db', "$root/b",
                               '--stacks-api', $api, '--once'], timeout => 120);
is($code, 0, 'the same options on the command line: exit 0') or diag($err);
my ($fa, $da) = feeds("$root/a");
my ($fb, $db) = feeds("$root/b");
is_deeply($fa, [['stacks', 1001, $chain->[-1]{hash}]],
          '--config: the Stacks feed at upstream\'s tip');
is_deeply([$fa, $da], [$fb, $db],
          '--config: the index the command line makes');

# 2. options beside --config win over the file's (--db here; --once over
# the unit's --follow above)
($code, $out, $err) = run_cmd([$MIRROR, '--config', $conf, '--db', "$root/c",
                               '--once'], timeout => 120);
is($code, 0, '--config with --db: exit 0') or diag($err);
ok(-f "$root/c/data.mdb", 'the command line\'s --db is the index written');
is_deeply((feeds("$root/c"))[0], $fa, 'and it is mirrored the same');

# 3. what systemd reads: comments, quotes, spaces, a backslash's line end,
# a name set twice, a variable ExecStart= does not name
spew("$root/quoted.conf", <<"EOF");
  # a comment, indented
; another
CHAINDATA_DB=$root/nowhere

CHAINDATA_DB = "$root/d"
CHAINDATA_MIRROR_OPTIONS=--stacks-api '$api' \\
    --parallel 2   --interval "0.5"  
NATS_USER=someone
EOF
($code, $out, $err) = run_cmd([$MIRROR, '--config', "$root/quoted.conf",
                               '--once'], timeout => 120);
is($code, 0, 'a file with systemd\'s quoting: exit 0') or diag($err);
is_deeply((feeds("$root/d"))[0], $fa, 'its index, the later CHAINDATA_DB');
ok(!-e "$root/nowhere", 'the earlier CHAINDATA_DB not used');

# a variable ExecStart= does not name goes to the environment, as under
# systemd (a bare --stacks-header-file name is a file in
# CREDENTIALS_DIRECTORY), unless the environment has it
spew("$root/creds.conf", <<"EOF");
CHAINDATA_DB=$root/f
CHAINDATA_MIRROR_OPTIONS=--stacks-api $api --stacks-header-file key
CREDENTIALS_DIRECTORY=$root/creds
EOF
delete local $ENV{CREDENTIALS_DIRECTORY};
($code, $out, $err) = run_cmd([$MIRROR, '--config', "$root/creds.conf",
                               '--once']);
is($code, 2, 'a credential missing: exit 2');
like($err, qr/cannot read \Q$root\E\/creds\/key:/,
     'the file\'s CREDENTIALS_DIRECTORY is the environment\'s');
($code, $out, $err) = run_cmd([$MIRROR, '--config', "$root/creds.conf",
                               '--once'],
                              env => { CREDENTIALS_DIRECTORY => "$root/env" });
like($err, qr/cannot read \Q$root\E\/env\/key:/,
     'unless the environment has one');
mkdir "$root/creds";
spew("$root/creds/key", "x-test-key: sekrit\n");
chmod 0600, "$root/creds/key";
($code, $out, $err) = run_cmd([$MIRROR, '--config', "$root/creds.conf",
                               '--once'], timeout => 120);
is($code, 0, 'with the credential there: exit 0') or diag($err);
unlike($err, qr/sekrit/, 'the key never logged');

# 4. bad files: FILE:LINE: reason, then where to read more; exit 2
my @bad = (
    ["CHAINDATA_DB=$root/e\nCHAINDATA_MIRROR_OPTIONS\n",
     qr/^chaindata-mirror: \Q$root\E\/bad\.conf:2: no "="/, 'a line without ='],
    ["CHAINDATA_DB=$root/e\n2X=y\n",
     qr/^chaindata-mirror: \Q$root\E\/bad\.conf:2: "2X" is no variable name/,
     'a bad name'],
    ["CHAINDATA_DB=$root/e\n\nCHAINDATA_MIRROR_OPTIONS=\"--stacks-api $api\n",
     qr/^chaindata-mirror: \Q$root\E\/bad\.conf:3: a quote not closed/,
     'a quote not closed'],
    ["CHAINDATA_DB=$root/e\nCHAINDATA_MIRROR_OPTIONS=--stacks-api $api --parallel 0\n",
     qr/^chaindata-mirror: \Q$root\E\/bad\.conf:2: --parallel wants a number from 1 to 256, not "0"/,
     'a bad value in the options'],
    ["CHAINDATA_DB=$root/e\nCHAINDATA_MIRROR_OPTIONS=--stacks-api $api --bogus\n",
     qr/^chaindata-mirror: \Q$root\E\/bad\.conf:2: --bogus is no option/,
     'an unknown option'],
    ["CHAINDATA_DB=$root/e\nCHAINDATA_MIRROR_OPTIONS=--stacks-api ftp://x\n",
     qr/^chaindata-mirror: \Q$root\E\/bad\.conf:2: --stacks-api wants an http:\/\/ or https:\/\/ URL/,
     'a bad URL'],
    ["CHAINDATA_DB=$root/e\nCHAINDATA_MIRROR_OPTIONS=--stacks-api $api extra\n",
     qr/^chaindata-mirror: \Q$root\E\/bad\.conf:2: unexpected argument "extra"/,
     'an operand'],
);
for my $b (@bad) {
    my ($text, $re, $name) = @$b;
    spew("$root/bad.conf", $text);
    ($code, $out, $err) = run_cmd([$MIRROR, '--config', "$root/bad.conf",
                                   '--once']);
    is($code, 2, "$name: exit 2 (usage)");
    like($err, $re, "$name: said with the file and line");
    my @lines = split /\n/, $err;
    is(scalar @lines, 2, "$name: two lines") or diag($err);
}
ok(!-e "$root/e", 'no index made from a bad file');

($code, $out, $err) = run_cmd([$MIRROR, '--config', "$root/missing.conf"]);
is($code, 2, 'a missing file: exit 2');
like($err, qr/^chaindata-mirror: \Q$root\E\/missing\.conf: No such file/,
     'a missing file: said');

# the command line's own errors stay the command line's
($code, $out, $err) = run_cmd([$MIRROR, '--config', $conf, '--parallel', 'x']);
is($code, 2, 'a bad option beside --config: exit 2');
like($err, qr/^chaindata-mirror: --parallel wants/, 'said as without --config');

done_testing();
