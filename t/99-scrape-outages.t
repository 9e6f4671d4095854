#!/usr/bin/perl
# Outages a scrape must tell though the edge serves on (doc/operations.md
# "Monitoring", "Runbooks"): the index's files made unreadable to the
# workers (chmod 000 on the live data.mdb, lock.mdb not writable) leave
# the index open serving, but a reload is refused and a restart takes the
# edge down: the very next scrape says chaindata_index_up 0 and why, and
# 1 again once the modes are back; the room on the index's disk,
# chaindata_index_disk_free_bytes and _size_bytes, the file system's own
# (on a tmpfs of known size, when this host lets the test mount one),
# down to 0 on a full disk.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $db = new_index(fixture_path('tx.ndjson'));
my ($tx) = map { $_->{tx_id} } grep { !$_->{mempool} }
           tx_fixtures(fixture_path('tx.ndjson'));

my $LOCATIONS = <<'EOF';
        location /extended/v1/tx/ { chaindata_tx; }
        location = /status { chaindata_status; }
EOF

my $ng = ChainData::Test::Nginx->start(db => $db, locations => $LOCATIONS);
$ng->expect_log(qr/\[alert\].*may not open the index; LMDB readers need/);

sub scrape {
    my ($port) = @_;
    return http_get($port, '/status?format=prometheus')->{body};
}

my $text = scrape($ng->port);
like($text, qr/^chaindata_index_up 1$/m, 'the index readable: up 1');
unlike($text, qr/chaindata_index_down_info/, 'no reason');

# --- its files made unreadable to the workers ----------------------------

my $WHY = 'this worker (uid ' . (is_root() ? getpwnam('nobody') : $>)
        . ') may not open the index; LMDB readers need read access to '
        . 'data.mdb and write access to lock.mdb';
my $SERVES = ' (found by a scrape: a reload or a restart would find the '
           . 'index unreadable)';
for my $case (['data.mdb', 0000, 'chmod 000 on data.mdb'],
              ['lock.mdb', 0444, 'lock.mdb read-only'])
{
    my ($file, $mode, $what) = @{$case};
    my $was = (stat "$db/$file")[2] & 07777;
    chmod $mode, "$db/$file" or die "chmod: $!";

    $text = scrape($ng->port);
    like($text, qr/^chaindata_index_up 0$/m, "$what: the next scrape says 0");
    like($text, qr/^chaindata_index_down_info\{reason="\Q$WHY\E"\} 1$/m,
         "$what: and why");
    like($text, qr/^chaindata_records\{database="tx"\} [1-9]\d*$/m,
         "$what: the index's gauges stay (the one open is read)");
    is(http_get($ng->port, "/extended/v1/tx/$tx")->{status}, 200,
       "$what: the edge answers from the index it has open");
    like($ng->error_log, qr/\[alert\].*"\Q$db\E": \Q$WHY$SERVES\E/,
         "$what: the error log says it, as an alert");

    chmod $was, "$db/$file" or die "chmod: $!";
    $text = scrape($ng->port);
    like($text, qr/^chaindata_index_up 1$/m, "$what undone: up 1 again");
    unlike($text, qr/chaindata_index_down_info/, "$what undone: no reason");
}
like($ng->error_log,
     qr/\[notice\].*this worker may open the index's files again/,
     'and the error log says the worker may open them again');

# --- the room on its disk ------------------------------------------------

my ($avail, $bsize, $blocks) = split ' ', `stat -f -c '%a %S %b' $db`;
$text = scrape($ng->port);
my ($size) = $text =~ /^chaindata_index_disk_size_bytes (\d+)$/m;
is($size, $blocks * $bsize, 'chaindata_index_disk_size_bytes: its file '
                          . "system's (stat -f)");
my ($free) = $text =~ /^chaindata_index_disk_free_bytes (\d+)$/m;
ok(defined $free && $free <= $size, 'chaindata_index_disk_free_bytes: '
                                    . 'at most the size');
$ng->stop;

# the tmpfs goes whatever happens (lazily: an nginx left running by a
# failure still maps it), before its directory is removed
our $MOUNTED;
END { system('umount', '-l', $MOUNTED) if $MOUNTED }

SKIP: {
    my $mnt = temp_dir() . '/disk';
    mkdir $mnt or die "mkdir: $!";
    my ($c, $o, $e) = run_cmd(['mount', '-t', 'tmpfs', '-o',
                               'size=8m,mode=0755', 'tmpfs', $mnt]);
    skip "cannot mount a tmpfs here ($e): the room on a disk of known "
       . 'size is not checked', 4 if $c != 0;
    $MOUNTED = $mnt;

    mkdir "$mnt/index" or die "mkdir: $!";
    for my $f (qw(data.mdb lock.mdb)) {
        spew("$mnt/index/$f", slurp("$db/$f"));
    }
    fixup_index_perms("$mnt/index");
    $ng = ChainData::Test::Nginx->start(db => "$mnt/index",
                                        locations => $LOCATIONS);

    ($avail, $bsize, $blocks) = split ' ', `stat -f -c '%a %S %b' $mnt`;
    $text = scrape($ng->port);
    like($text, qr/^chaindata_index_disk_size_bytes ${\ (8 << 20)}$/m,
         'a tmpfs of 8 MiB: its size');
    like($text, qr/^chaindata_index_disk_free_bytes ${\ ($avail * $bsize)}$/m,
         'and what is free on it, as stat -f tells');

    # the disk filled up: what a writer would meet at its next commit
    run_cmd(['dd', 'if=/dev/zero', "of=$mnt/fill", 'bs=1M', 'count=16']);
    $text = scrape($ng->port);
    like($text, qr/^chaindata_index_disk_free_bytes 0$/m,
         'the disk full: chaindata_index_disk_free_bytes 0');
    like($text, qr/^chaindata_index_up 1$/m, 'which the edge reads on');

    $ng->stop;
}

done_testing();
