#!/usr/bin/perl
# Files in the index directory are the tools' own (issue 20, point 3;
# doc/operations.md: "Files in the index directory"): a data.mdb or
# lock.mdb that is a symbolic link, or owned by another user than the
# directory's owner, is refused with a clear message and its target left
# as it was; mirror.lock is never created through a link; run as root on
# a directory of another user, the loader creates the files as that user;
# the index's files and a snapshot have no world access whatever the umask;
# a compact copy a killed compaction left (data.mdb.compact) is removed
# when a writer, the loader or the mirror, opens the index (issue 41, item
# 11: a caught-up index never compacts again), never while a compaction
# holds data.mdb exclusive (its copy then is a live one).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Fcntl qw(:flock);
use POSIX qw(_exit);
use Time::HiRes qw(sleep);
use ChainData::Test qw(:all);

require_build();

my $fx = fixture_path('tx.ndjson');
my $VICTIM_TEXT = "a file of someone else's\n";

sub mode_of { return (stat $_[0])[2] & 07777 }

# a loader run with the umask given (0: the worst)
sub load_with_umask {
    my ($mask, $dir, @args) = @_;
    my $old = umask $mask;
    my @r = load_index($dir, @args);
    umask $old;
    return @r;
}

# ---------------------------------------------------------------------
# A symbolic link as lock.mdb or data.mdb: refused, the target untouched

for my $name (qw(lock.mdb data.mdb)) {
    my $tmp = temp_dir();
    my $dir = "$tmp/index";
    my ($code, $out, $err) = load_index($dir, '--quiet', $fx);
    is($code, 0, "an index to tamper with ($name)") or diag $err;
    spew("$tmp/victim", $VICTIM_TEXT);
    unlink "$dir/$name" or die "unlink $dir/$name: $!";
    symlink "$tmp/victim", "$dir/$name" or die "symlink: $!";

    for my $args (['--stats'], ['--quiet', $fx]) {
        my $what = "$name a symlink, chaindata-load @$args";
        ($code, $out, $err) = load_index($dir, @$args);
        isnt($code, 0, "$what: refused");
        like($err, qr{\Q$dir/$name\E is a symbolic link}, "$what: says why");
        is(slurp("$tmp/victim"), $VICTIM_TEXT, "$what: the target untouched");
    }

    ($code, $out, $err) = load_index($dir, '--snapshot', "$tmp/snap");
    isnt($code, 0, "$name a symlink, --snapshot: refused");
    is(slurp("$tmp/victim"), $VICTIM_TEXT,
       "$name a symlink, --snapshot: the target untouched");
}

# mirror.lock through a dangling symbolic link: never created
{
    my $tmp = temp_dir();
    my $dir = "$tmp/index";
    my ($code, $out, $err) = load_index($dir, '--quiet', $fx);
    is($code, 0, 'an index for the mirror') or diag $err;
    symlink "$tmp/made-through-link", "$dir/mirror.lock" or die "symlink: $!";
    ($code, $out, $err) = run_cmd([build_path('chaindata-mirror'), '--db', $dir,
        '--stacks-api', 'http://127.0.0.1:9/', '--once']);
    isnt($code, 0, 'mirror.lock a dangling symlink: the mirror refuses');
    like($err, qr{mirror\.lock}, 'mirror.lock a dangling symlink: says which file');
    ok(!-e "$tmp/made-through-link", 'nothing created through the link');
}

# ---------------------------------------------------------------------
# Files of another user than the directory's owner, and root's files in
# a directory of another user (as root only: the tests chown)

SKIP: {
    skip 'needs root (chown)', 9 unless is_root();
    my $nobody = getpwnam('nobody');
    my $nogroup = getgrnam('nogroup');

    my $tmp = temp_dir();
    my $dir = "$tmp/index";
    my ($code, $out, $err) = load_index($dir, '--quiet', $fx);
    is($code, 0, 'a root index') or diag $err;
    chown $nobody, $nogroup, "$dir/lock.mdb" or die "chown: $!";
    ($code, $out, $err) = load_index($dir, '--stats');
    isnt($code, 0, 'lock.mdb of another user than the directory\'s: refused');
    like($err, qr{\Q$dir/lock.mdb\E is owned by uid $nobody, the index directory by uid 0},
         'the message names the file and both owners');

    # a directory of nobody's, loaded by root: the files are nobody's
    $tmp = temp_dir();
    chmod 0755, $tmp;
    $dir = "$tmp/index";
    mkdir $dir or die "mkdir: $!";
    chown $nobody, $nogroup, $dir or die "chown: $!";
    ($code, $out, $err) = load_index($dir, '--quiet', $fx);
    is($code, 0, 'root loads into a directory of nobody\'s') or diag $err;
    for my $f (qw(data.mdb lock.mdb)) {
        is((stat "$dir/$f")[4], $nobody, "$f is the directory owner's");
        is((stat "$dir/$f")[5], $nogroup, "$f has the directory's group");
    }
    ($code, $out, $err) = load_index($dir, '--stats');
    is($code, 0, '--stats as root on it') or diag $err;
    is((stat "$dir/lock.mdb")[4], $nobody, 'lock.mdb still nobody\'s');
}

# ---------------------------------------------------------------------
# No world access, whatever the umask

{
    my $tmp = temp_dir();
    my $dir = "$tmp/index";
    my ($code, $out, $err) = load_with_umask(0, $dir, '--quiet', $fx);
    is($code, 0, 'a load under umask 0') or diag $err;
    is(sprintf('%04o', mode_of("$dir/data.mdb")), '0640', 'data.mdb 0640');
    is(sprintf('%04o', mode_of("$dir/lock.mdb")), '0660',
       'lock.mdb 0660 (readers write their slots through the group)');
    is(sprintf('%04o', mode_of($dir)), '0750', 'the directory 0750');

    ($code, $out, $err) = load_with_umask(0, $dir, '--snapshot', "$tmp/snap");
    is($code, 0, 'a snapshot under umask 0') or diag $err;
    is(sprintf('%04o', mode_of("$tmp/snap/data.mdb")), '0640',
       'the snapshot\'s data.mdb 0640');
    is(sprintf('%04o', mode_of("$tmp/snap")), '0750', 'its directory 0750');

    my $bulk = "$tmp/bulk";
    ($code, $out, $err) = load_with_umask(0, $bulk, '--quiet', '--bulk', $fx);
    is($code, 0, 'a bulk load under umask 0') or diag $err;
    is(sprintf('%04o', mode_of("$bulk/data.mdb") & 07), '0000',
       'the bulk load\'s data.mdb: no world access');
}

# ---------------------------------------------------------------------
# A compact copy a killed compaction left: removed by the next writer

{
    my $tmp = temp_dir();
    my $dir = "$tmp/index";
    my $copy = "$dir/data.mdb.compact";
    my ($code, $out, $err) = load_index($dir, '--quiet', $fx);
    is($code, 0, 'an index') or diag $err;

    spew($copy, "the first pages of a copy a killed mirror left\n");
    ($code, $out, $err) = load_index($dir, '--quiet', $fx);
    is($code, 0, 'the loader opens it with a compaction\'s copy left') or diag $err;
    ok(!-e $copy, '… and removes the copy');
    like($err, qr{removed \Q$copy\E, the copy of a compaction that did not end},
         '… saying so');

    spew($copy, "again\n");
    ($code, $out, $err) = run_cmd([build_path('chaindata-mirror'), '--db', $dir,
        '--stacks-api', 'http://127.0.0.1:9/', '--once', '--retries', '0'],
        timeout => 60);
    ok(!-e $copy, 'the mirror removes it too as it opens the index');
    like($err, qr{removed \Q$copy\E}, '… saying so') or diag $err;

    # a compaction under way holds data.mdb exclusive while its copy is
    # written: a writer opening meanwhile waits, and leaves the copy
    open(my $held, '<', "$dir/data.mdb") or die "data.mdb: $!";
    flock($held, LOCK_EX) or die "flock: $!";
    spew($copy, "a copy being written\n");
    my $ino = (stat "$dir/data.mdb")[1];
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        close $held;
        open(STDERR, '>', "$tmp/waiting.err");
        exec(build_path('chaindata-load'), '--db', $dir, '--quiet', $fx)
            or _exit(127);
    }
    # /proc/locks: the loader's shared flock waiting ("->") on data.mdb
    my $waiting = 0;
    for (1 .. 600) {
        $waiting = grep { /->\s+FLOCK\s+ADVISORY\s+READ\s+$pid\s+\S+:$ino\s/ }
            split /\n/, slurp('/proc/locks');
        last if $waiting;
        sleep 0.1;
    }
    ok($waiting, 'a loader opening meanwhile waits for the compaction');
    ok(-e $copy, '… and leaves its copy alone');
    unlink $copy;    # the compaction ends (here: fails, its copy removed)
    close $held;
    waitpid($pid, 0);
    is($?, 0, '… then loads') or diag slurp("$tmp/waiting.err");
    unlike(slurp("$tmp/waiting.err"), qr/removed/, '… having removed nothing');
}

done_testing();
