#!/usr/bin/perl
# Keys stay with their owner (issue 20, point 2; doc/operations.md: "Keys
# and credentials"): a header bound to a source goes to that upstream
# only (--stacks-header, --runes-header, --platform-header and their
# -file forms, a systemd credential by its name); --header, which once
# went to every upstream, is refused when there is more than one; NATS
# passwords and tokens leave the environment at start; the mirror, and a
# follower holding credentials, are not dumpable.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use POSIX ();
use Test::More;
use Time::HiRes qw(sleep);
use ChainData::Test qw(:all);
use ChainData::Upstream qw(confirmed_docs make_chain write_chain
    write_runes rune_chain nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $LOADER = build_path('chaindata-load');

my $root = temp_dir();

# a recorded upstream: one Stacks block, one Bitcoin block, a chainhook
my @docs = grep { !/"event_count":640/ } confirmed_docs();
write_chain($root, make_chain(2000, [[@docs[0 .. 1]]]));
write_runes($root, rune_chain('secrets', 1));
my ($hook) = grep { $_->{doc}{uuid} && $_->{doc}{api_key} && $_->{data_raw} }
    fixture_records(fixture_path('chainhook.ndjson'));
my $hook_dir = "$root/up/v1/ext/$hook->{doc}{api_key}/chainhooks/$hook->{doc}{uuid}/status";
system('mkdir', '-p', $hook_dir);
spew("$hook_dir/q=", $hook->{data_raw});
my $hooks = "$root/chainhooks";
spew($hooks, "$hook->{doc}{uuid} $hook->{doc}{api_key}\n");
chmod 0600, $hooks;

# three upstreams, each logging the key it is sent
my %up;
for my $name (qw(stacks runes platform)) {
    my $ng = ChainData::Test::Nginx->start(
        http => "    log_format keys '\$http_x_api_key';\n",
        locations => "        access_log keys.log keys;\n"
            . nginx_locations($root),
    );
    $up{$name} = { ng => $ng, url => 'http://127.0.0.1:' . $ng->port . '/up',
                   log => $ng->prefix . '/keys.log' };
}

sub keys_seen {
    my ($name) = @_;
    my $f = $up{$name}{log};
    return {} unless -f $f;
    my %k = map { $_ => 1 } split /\n/, slurp($f);
    return \%k;
}

sub truncate_logs { for (values %up) { spew($_->{log}, '') if -f $_->{log} } }

my @SOURCES = ('--stacks-api', $up{stacks}{url}, '--from-height', '2000',
    '--no-mempool', '--runes-api', $up{runes}{url}, '--runes-from-height',
    '840500', '--platform-api', $up{platform}{url}, '--chainhooks', $hooks);

sub mirror {
    my ($db, $env, @args) = @_;
    return run_cmd([$MIRROR, '--db', $db, '--once', '--retries', '0',
                    @args], timeout => 120, env => $env);
}

# ---------------------------------------------------------------------
# 1. each key to its upstream: from the command line, a file, a credential

my $cred = temp_dir();
spew("$cred/runes-key", "x-api-key: KEY-RUNES\n");
chmod 0600, "$cred/runes-key";
spew("$root/platform-key", "x-api-key: KEY-PLATFORM\n");
chmod 0600, "$root/platform-key";

my ($code, $out, $err) = mirror(temp_dir() . '/index',
    { CREDENTIALS_DIRECTORY => $cred }, @SOURCES,
    '--stacks-header', 'x-api-key: KEY-STACKS',
    '--runes-header-file', 'runes-key',
    '--platform-header-file', "$root/platform-key");
is($code, 0, 'the mirror follows three upstreams, a key for each') or diag $err;
is_deeply(keys_seen('stacks'), { 'KEY-STACKS' => 1 },
          'the Stacks API got its key and no other');
is_deeply(keys_seen('runes'), { 'KEY-RUNES' => 1 },
          'the Runes API got its key (a systemd credential) and no other');
is_deeply(keys_seen('platform'), { 'KEY-PLATFORM' => 1 },
          'the platform API got its key (a file) and no other');
unlike($out . $err, qr/KEY-/, 'no key in the output');

# a header file others can read is refused
chmod 0644, "$root/platform-key";
($code, $out, $err) = mirror(temp_dir() . '/index', {}, @SOURCES,
    '--platform-header-file', "$root/platform-key");
is($code, 2, 'a header file others can read: exit 2');
like($err, qr/group and others cannot read/, 'says why');

# --header with more than one source: refused, nothing sent
truncate_logs();
($code, $out, $err) = mirror(temp_dir() . '/index', {}, @SOURCES,
    '--header', 'x-api-key: KEY-EVERYWHERE');
is($code, 2, '--header with three sources: a usage error');
like($err, qr/--stacks-header/, 'naming the options that bind a header');
ok(!grep({ keys_seen($_)->{'KEY-EVERYWHERE'} } keys %up),
   'the key went to no upstream');

# --header with one source: bound to it
truncate_logs();
($code, $out, $err) = mirror(temp_dir() . '/index', {},
    '--runes-api', $up{runes}{url}, '--runes-from-height', '840500',
    '--header', 'x-api-key: KEY-ONE');
is($code, 0, '--header with one source') or diag $err;
is_deeply(keys_seen('runes'), { 'KEY-ONE' => 1 }, 'goes to that source');

# ---------------------------------------------------------------------
# 2. NATS secrets leave the environment; key holders are not dumpable.
# Run as nobody (when root), /proc/PID is root's once a process is not
# dumpable, nobody's otherwise.

sub environ_of {
    my ($pid) = @_;
    open my $fh, '<', "/proc/$pid/environ" or return '';
    local $/;
    return <$fh> // '';
}

# $argv as nobody (when root) with NATS secrets in the environment, its
# standard input a pipe left open, in $dir; a pid and the pipe's writing
# end
sub spawn {
    my ($argv, $dir) = @_;
    pipe(my $r, my $w) or die "pipe: $!";
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        close $w;
        POSIX::dup2(fileno($r), 0);
        open STDOUT, '>', '/dev/null';
        open STDERR, '>', "$dir/stderr";
        chdir $dir or POSIX::_exit(126);
        if (is_root()) {
            POSIX::setgid(scalar getgrnam('nogroup'));
            POSIX::setuid(scalar getpwnam('nobody'));
        }
        $ENV{NATS_PASSWORD} = 'PASSWORD-SECRET';
        $ENV{NATS_TOKEN} = 'TOKEN-SECRET';
        exec @$argv or POSIX::_exit(127);
    }
    close $r;
    return ($pid, $w);
}

sub stop_child {
    my ($pid, $w) = @_;
    close $w;
    kill 'TERM', $pid;
    waitpid $pid, 0;
}

# nobody runs copies: the build may be in a directory only root reaches
my $mirror = is_root() ? program_for_anyone($MIRROR) : $MIRROR;
my $loader = is_root() ? program_for_anyone($LOADER) : $LOADER;
for my $case (
    ['chaindata-mirror', sub { [$mirror, '--db', $_[0], '--follow',
        '--interval', '3600', '--runes-api', $up{runes}{url},
        '--runes-from-height', '840500'] }],
    ['chaindata-load --follow', sub { [$loader, '--db', $_[0], '--follow',
        '--quiet'] }],
) {
    my ($name, $argv) = @$case;
    my $tmp = temp_dir();
    my $db = "$tmp/index";
    mkdir $db or die;
    fixup_index_perms($db);
    my ($pid, $w) = spawn($argv->($db), $tmp);
    # up once its index is open (lock.mdb made) or the mirror has read it
    ok(eventually(20, sub { -e "$db/lock.mdb" }), "$name: running")
        or diag(slurp("$tmp/stderr"));
    sleep 0.3;
    my $env = environ_of($pid);
    ok(length $env, "$name: its environment read");
    unlike($env, qr/PASSWORD-SECRET|TOKEN-SECRET/,
           "$name: NATS_PASSWORD and NATS_TOKEN left its environment");
    SKIP: {
        skip 'needs root to run it as another user', 1 unless is_root();
        is((stat "/proc/$pid/environ")[4], 0,
           "$name: not dumpable (its /proc files are root's)");
    }
    stop_child($pid, $w);
    unlike(slurp("$tmp/stderr"), $ChainData::Test::SANITIZER_REPORT,
           "$name: no sanitizer report");
}

done_testing();
