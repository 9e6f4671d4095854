#!/usr/bin/perl
# chaindata-mirror (Stacks and Runes feeds) killed with SIGKILL at random
# points and restarted converges to the index of an uninterrupted run:
# every database's
# mdb_dump is the same, except in the feed database what two runs write
# differently (lmdb-schema/feed.md): the positions' commit time and the
# tips' poll time (the wall clock), and the feeds' state: records (the
# run's own counters and times).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Upstream qw(confirmed_docs derived_blocks make_chain
    write_chain nginx_locations write_runes rune_chain);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my @docs = confirmed_docs();
my @blocks = derived_blocks(\@docs, 'k', 8, 0 .. 24);
my $chain = make_chain(500, \@blocks);

my $root = temp_dir();
write_chain($root, $chain);

# 12 Bitcoin blocks of the fixtures' rune activity under derived tx ids
my ($rblocks, $bal) = rune_chain('k', 12);
write_runes($root, $rblocks, $bal);
my $ng = ChainData::Test::Nginx->start(
    locations => nginx_locations($root, limit_rate => '256k'),
);
my $api = 'http://127.0.0.1:' . $ng->port . '/up';

sub args { return ($MIRROR, '--db', $_[0], '--stacks-api', $api, '--once',
                   '--from-height', '500', '--runes-api', $api,
                   '--runes-from-height', '840500', '--parallel', '4',
                   '--rate', '150') }

my $ref = temp_dir() . '/ref';
my ($code, $out, $err) = run_cmd([args($ref)], timeout => 300);
is($code, 0, 'uninterrupted run: exit 0') or diag($err);

my $db = temp_dir() . '/killed';
my $kills = 0;
srand($ENV{CHAINDATA_KILL_SEED} || time ^ $$);
for my $round (1 .. 6) {
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDERR, '>>', "$db.log";
        exec(args($db)) or POSIX::_exit(127);
    }
    sleep(0.1 + rand(0.6));
    if (waitpid($pid, WNOHANG) == 0) {
        kill 'KILL', $pid;
        $kills++;
    }
    waitpid($pid, 0);
}
($code, $out, $err) = run_cmd([args($db)], timeout => 300);
is($code, 0, "restarted after $kills kills: exit 0") or diag($err);
ok($kills >= 1, 'the mirror was killed at least once');

for my $name (qw(meta tx tx_event rune_activity rune_activity_entry
                 rune_balances rune_balance_entry chainhook block)) {
    ok(mdb_dump_of($db, $name) eq mdb_dump_of($ref, $name), "$name: same as the uninterrupted run");
}

sub feeds {
    my ($c, $o, $e) = load_index($_[0], '--stats');
    my $st = json_decode($o);
    return join ' ', map { "$_->{source} $_->{height} $_->{hash} $_->{block_time}" } @{ $st->{feeds} };
}
is(feeds($db), feeds($ref), 'feed: same position (commit times aside)');

# the feed database but for its state: records and the wall clock
sub feed_dump {
    my @l = split /\n/, mdb_dump_of($_[0], 'feed');
    my @keep;
    push @keep, shift @l while @l && ($keep[-1] // '') ne 'HEADER=END';
    while (my ($k, $v) = splice @l, 0, 2) {
        if (!defined $v) { push @keep, $k; last }
        next if $k =~ /^ 73746174653a/;                 # state:
        substr($v, 1 + 48, 16) = 'x' x 16 if length $v > 64;  # bytes 24..31
        push @keep, $k, $v;
    }
    return join "\n", @keep;
}
my ($fd, $fr) = (feed_dump($db), feed_dump($ref));
ok($fd eq $fr && $fd =~ /^ 7469703a/m,
   'feed: the same records, the state: records and the times aside')
    or diag("$fd\n---\n$fr");
like(feeds($db), qr/^runes 840511 .* stacks 524 /, 'feeds: at the tips');
ok(mdb_dump_of($db, 'rune_balances') =~ /^ /m && mdb_dump_of($db, 'rune_activity') =~ /^ /m,
   'the rune lists were written');

$ng->stop;
done_testing();
