#!/usr/bin/perl
# The stream belongs to its publisher (doc/operations.md "Scaling out"):
# - nats-server runs with nats-server-chaindata.conf, the configuration
#   doc/operations.md documents: the mirror's user publishes and the edges'
#   user follows, but the edges' user can neither publish on the subject
#   nor delete, purge or create anything;
# - two publishers started together on an empty stream: mirror A has read
#   the stream (empty) and is held at its first request upstream while
#   mirror B publishes; A's first publish expects the stream empty, so A
#   is refused and stops instead of interleaving its units with B's.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use IO::Select;
use IO::Socket::INET;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep);
use ChainData::Test qw(:all);
use ChainData::Nats qw(require_nats);
use ChainData::Upstream qw(confirmed_docs tx_id derived_blocks make_chain
    write_chain nginx_locations);

require_build();
require_nats();
my $MIRROR = build_path('chaindata-mirror');

my $root = temp_dir();
my @docs = grep { !/"event_count":640/ } confirmed_docs();
my $chain = make_chain(500, [derived_blocks(\@docs, 'p', 2, 0 .. 3)]);
write_chain($root, $chain);
my $up = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my @ids = map { tx_id($_) } map { @{ $_->{txs} } } @$chain;

my %pw = (mirror => 'mirror-secret', edge => 'edge-secret');
my $ns = ChainData::Nats->start(include => repo_root() . '/nats-server-chaindata.conf',
    env => { CHAINDATA_NATS_MIRROR_PASSWORD => $pw{mirror},
             CHAINDATA_NATS_EDGE_PASSWORD => $pw{edge} });
my $S = 'MAINNET';

sub mirror_argv {
    my ($port) = @_;
    return [$MIRROR, '--db', "$root/pub-$port", '--stacks-api',
        "http://127.0.0.1:$port/up", '--once', '--from-height', '500',
        '--no-mempool', '--rate', '50', '--timeout', '60',
        '--nats', $ns->url, '--stream', $S, '--user', 'mirror'];
}
sub as {
    my ($user, @cmd) = @_;
    local $ENV{NATS_PASSWORD} = $pw{$user};
    return run_cmd(@cmd, timeout => 120);
}
sub has {
    my ($db, $id) = @_;
    (my $hex = substr($id, 2)) =~ s/(..)/$1/g;
    return mdb_dump_of($db, 'tx') =~ /^ \Q$hex\E$/m ? 1 : 0;
}
sub last_seq {
    return $ns->request("\$JS.API.STREAM.INFO.$S", '', undef,
        { user => 'edge', pass => $pw{edge} }) =~ /"last_seq":(\d+)/ ? $1 : die;
}

# a gate before upstream: it takes mirror A's first connection, holds it
# until told, then relays every connection to the recorded upstream
my $gate = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
    Proto => 'tcp', Listen => 16, ReuseAddr => 1) or die "gate: $!";
my $gport = $gate->sockport;
my $gpid = fork // die "fork: $!";
if ($gpid == 0) {
    my $c = $gate->accept;
    spew("$root/gate-taken", '');
    sleep 0.05 until -e "$root/gate-open";
    while ($c) {
        my $pid = fork // POSIX::_exit(1);
        if ($pid == 0) {
            my $u = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
                PeerPort => $up->port, Proto => 'tcp') or POSIX::_exit(1);
            my $sel = IO::Select->new($c, $u);
            LOOP: while (my @r = $sel->can_read(120)) {
                for my $fh (@r) {
                    my $n = sysread($fh, my $buf, 65536);
                    last LOOP unless $n;
                    syswrite($fh == $c ? $u : $c, $buf);
                }
            }
            POSIX::_exit(0);
        }
        close $c;
        $c = $gate->accept;
    }
    POSIX::_exit(0);
}
close $gate;

# mirror A: reads the stream (it makes it, empty), then waits upstream
my $apid = fork // die "fork: $!";
if ($apid == 0) {
    open STDERR, '>', "$root/a.log" or POSIX::_exit(126);
    $ENV{NATS_PASSWORD} = $pw{mirror};
    exec(@{ mirror_argv($gport) }) or POSIX::_exit(127);
}
for (1 .. 600) { last if -e "$root/gate-taken"; sleep 0.05 }
ok(-e "$root/gate-taken", 'mirror A read the stream and asks upstream');
is(last_seq(), 0, 'the stream is empty');

# mirror B, as the mirror's user, publishes the chain meanwhile
my ($c, $o, $e) = as('mirror', mirror_argv($up->port));
is($c, 0, 'mirror B published the chain') or diag($e);
my $b_units = last_seq();
ok($b_units >= 4, "$b_units units");

spew("$root/gate-open", '');
waitpid($apid, 0);
my $a = $? >> 8;
my $alog = slurp("$root/a.log");
isnt($a, 0, "mirror A's first publish is refused: it stops (exit $a)");
like($alog, qr/the stream $S has messages this mirror did not publish: one publisher a stream/,
     'it says why');
is(last_seq(), $b_units, "the stream holds B's units only");
unlike($alog, $ChainData::Test::SANITIZER_REPORT, 'no sanitizer report from mirror A');
kill 'KILL', $gpid;
waitpid($gpid, 0);

# an edge follows as the edges' user
my $edge = "$root/edge";
($c, $o, $e) = as('edge', [build_path('chaindata-load'), '--db', $edge,
    '--nats', $ns->url, '--stream', $S, '--user', 'edge', '--once']);
is($c, 0, "a follower as the edges' user: exit 0") or diag($e);
is(scalar(grep { has($edge, $_) } @ids), scalar @ids, 'it applied the chain');

# what the edges' user may not do
my $as_edge = { user => 'edge', pass => $pw{edge} };
for my $try (["chaindata.$S", '{"kind":"rollback","source":"stacks","height":0}'],
             ["\$JS.API.STREAM.MSG.DELETE.$S", '{"seq":1}'],
             ["\$JS.API.STREAM.PURGE.$S", ''],
             ["\$JS.API.STREAM.DELETE.$S", ''],
             ['$JS.API.STREAM.CREATE.OTHER', '{"name":"OTHER","subjects":["chaindata.>"]}']) {
    my ($subj, $body) = @$try;
    my $r = eval { $ns->request($subj, $body, { 'Chaindata-Unit' => 'x.1',
        'Chaindata-Part' => 0, 'Chaindata-Parts' => 1 }, $as_edge) } // $@;
    like($r, qr/Permissions Violation for Publish to "\Q$subj\E"/,
         "the edges' user may not publish to $subj");
}
is(last_seq(), $b_units, 'the stream is as the mirror left it');
my $r = eval { $ns->request("chaindata.$S", 'x', undef, { user => 'mirror', pass => 'wrong' }) } // $@;
like($r, qr/Authorization Violation/, 'a wrong password is refused');

$up->stop;
$ns->stop;
done_testing();
