#!/usr/bin/perl
# Configuration checks: `nginx -t` refuses an unusable chaindata_db.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $fx = fixture_path('tx.ndjson');
-f $fx or BAIL_OUT("fixture $fx missing");

my $LOC = "        location /extended/v1/tx/ { chaindata_tx; }\n";
my $tmp = temp_dir();

sub config_fails {
    my ($db, $name, $mention) = @_;
    my ($code, $out) = ChainData::Test::Nginx->test_config(db => $db, locations => $LOC);
    isnt($code, 0, "$name: nginx -t fails");
    like($out, qr/\[emerg\]/, "$name: an emerg message");
    like($out, $mention, "$name: message says what is wrong") or diag($out);
    unlike($out, qr/test is successful/, "$name: not reported successful");
    like($out, qr/test failed\s*\z/, "$name: nginx's \"test failed\" last");
    return $out;
}

sub config_ok {
    my ($db, $name) = @_;
    my ($code, $out) = ChainData::Test::Nginx->test_config(db => $db, locations => $LOC);
    is($code, 0, "$name: nginx -t succeeds") or diag($out);
    like($out, qr/test is successful/, "$name: test is successful");
    return $code == 0;
}

# good index
my $good = new_index($fx);
config_ok($good, 'good index');

# chaindata_db twice: the same directory (a trailing slash aside), as an
# old conf.d snippet beside the packaged site names it, is no conflict;
# another directory is refused
{
    my ($code, $out) = ChainData::Test::Nginx->test_config(
        db => $good, http => "    chaindata_db $good/;\n", locations => $LOC);
    is($code, 0, 'chaindata_db twice, the same directory: nginx -t succeeds')
        or diag($out);
    my $other = new_index($fx);
    ($code, $out) = ChainData::Test::Nginx->test_config(
        db => $good, http => "    chaindata_db $other;\n", locations => $LOC);
    isnt($code, 0, 'chaindata_db twice, two directories: nginx -t fails');
    like($out, qr/"chaindata_db" directive is duplicate, naming another directory/,
         'chaindata_db twice, two directories: says so') or diag($out);
}

# missing directory
{
    my $dir = "$tmp/missing-index";
    config_fails($dir, 'missing directory', qr/\Q$dir\E/);
    ok(!eval { ChainData::Test::Nginx->start(db => $dir, locations => $LOC); 1 },
        'missing directory: nginx does not start');
    like($@, qr/\Q$dir\E/, 'missing directory: start error names the directory');
}

# an empty directory is not an index
{
    my $dir = "$tmp/empty-dir";
    mkdir $dir or die "mkdir $dir: $!";
    chmod 0755, $dir;
    config_fails($dir, 'empty directory', qr/\Q$dir\E/);
    opendir my $dh, $dir or die;
    my @created = grep { !/^\.\.?\z/ } readdir $dh;
    is_deeply(\@created, [], 'empty directory: nginx -t did not create an index there');
}

# a regular file instead of a directory
{
    my $file = "$tmp/not-a-dir";
    spew($file, "x\n");
    config_fails($file, 'regular file', qr/\Q$file\E/);
}

# a directory with unrelated files is not an index either
{
    my $dir = "$tmp/other-files";
    mkdir $dir or die;
    chmod 0755, $dir;
    spew("$dir/data.mdb", 'this is not an LMDB file' x 200);
    chmod 0644, "$dir/data.mdb";
    config_fails($dir, 'directory with a bogus data.mdb', qr/\Q$dir\E/);
}

# lock.mdb not writable by the worker user
{
    my $db = new_index($fx);
    my $lock = "$db/lock.mdb";
    ok(-f $lock, 'index has lock.mdb');
    if (is_root()) {
        chown 0, 0, $lock or die "chown: $!";
        chmod 0644, $lock or die "chmod: $!";
        config_fails($db, 'lock.mdb owned by root, 0644 (worker runs as nobody)', qr/\Q$db\E|lock\.mdb/);
        # fix it: config passes again
        fixup_index_perms($db);
        config_ok($db, 'lock.mdb chowned to the worker user again');

        # index directory not searchable by the worker user
        chown 0, 0, $db or die;
        chmod 0700, $db or die;
        config_fails($db, 'index directory mode 0700 (worker runs as nobody)', qr/\Q$db\E/);
        fixup_index_perms($db);
        config_ok($db, 'index directory mode 0755 again');
    } else {
        chmod 0444, $lock or die "chmod: $!";
        config_fails($db, 'lock.mdb read-only', qr/\Q$db\E|lock\.mdb/);
        chmod 0644, $lock or die;
        config_ok($db, 'lock.mdb writable again');
    }
}

# an index of another schema version (1, before the feed databases; 2,
# before transactions were stored as precompressed pieces; 3, before the
# v3 documents; 4, before values over a node were kept in parts; 5,
# before a piece held a CRC-32 of its stored bytes; 6, before the Runes
# databases of chaindata_runes): nginx -t and the loader refuse it
for my $v (1, 2, 3, 4, 5, 6) {
    my $db = new_index($fx);
    my ($code, $out, $err) = run_cmd(['mdb_load', '-T', '-s', 'meta', $db],
                                     stdin => "schema_version\n$v\n");
    is($code, 0, "schema version set to $v with mdb_load") or diag($err);
    config_fails($db, "schema version $v",
                 qr/another schema version than this module reads \(7\)/);
    ($code, $out, $err) = load_index($db, $fx);
    is($code, 3, 'the loader refuses it too');
    like($err, qr/has schema version $v, this loader writes version 7/,
         'and says why');
}

# the good index also starts and serves
{
    my $ng = ChainData::Test::Nginx->start(db => $good, locations => $LOC);
    my ($tx) = tx_fixtures($fx);
    is(http_get($ng->port, "/extended/v1/tx/$tx->{tx_id}")->{status}, 200, 'good index: serves');
    ok($ng->reload, 'reload succeeds');
    is(http_get($ng->port, "/extended/v1/tx/$tx->{tx_id}")->{status}, 200, 'after reload: serves');
    is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
    $ng->stop;
}

done_testing;
