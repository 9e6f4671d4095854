#!/usr/bin/perl
# chaindata-mirror --catch-up (src/mirror/chaindata_mirror_runes_fill.c,
# doc/first-fill.md): an index filled (every transaction and address once
# a window, then following) equals, by mdb_dump of every database, an
# index that followed every block (--catch-up replay), on a recorded Runes
# API whose balances are a function of its tip, with addresses named in
# many blocks (the fixtures' 7 activity lists, over and over), blocks
# without activity (recorded "none", one on a window's edge), and 20
# blocks that arrive during the fill: the upstream's tip moves (a symlink
# swapped, as soon as the fill asked for its first balances, while one
# address's balances trickle), so the fill reads some balances as of its
# start, the others as of the new tip, and the feed follows the new
# blocks before it reports itself current.  A fill published to a stream
# (--nats: a window of blocks a unit) is applied by a follower.  Then a
# reorg below the fill's tip, followed by both, and the indexes compared
# again.  Deliberately broken fills fail it: blocks that write no balance
# list for the addresses they name (their undo differs: tests 10, 14,
# 20),
# blocks without their rune_block record or their runes' etchings,
# a fill that reports itself current without the blocks that came
# meanwhile (10, 11, 18).
#
# What the comparison leaves out, and why: in the feed database, the
# position's commit time (bytes 24..31 of the value: each commit's wall
# clock), and the records state:runes (the feed's request counters and
# the time of its last good pass: a fill makes fewer requests, which is
# its point) and tip:runes (when the tip was seen); and the runes state
# (rune_block's key "s": a digest of the records applied, and a fill
# applies an empty balance list and a null etching in each block, the
# window's lists on top).  Nothing else.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Nats;
use ChainData::Upstream qw(write_runes rune_chain btc_hash nginx_locations
                           index_dump runes_held served_etchings);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my $FIRST = 840500;
my ($chain, $bal) = rune_chain('fill', 220);        # 840500 .. 840719
$chain->[$_]{txs} = [] for 60, 61, 64;              # without activity
my $H = $FIRST + 199;                               # the tip at the start
my ($template) = grep { defined } map { $bal->{$_}[0] } sort keys %$bal;

sub addresses_of {
    my ($b) = @_;
    my %seen;
    my $all = join '', map { @{ $_->[1] } } @{ $b->{txs} };
    $seen{$1} = 1 while $all =~ /"(?:address|receiver_address)":"([^"]+)"/g;
    return keys %seen;
}

# upstream's balances when its tip is $upto: an address's list, its first
# entry's balance counting the blocks up to $upto that name it
sub balances_at {
    my ($blocks, $upto) = @_;
    my (%count, %out);
    for my $b (@$blocks) {
        next if $b->{height} > $upto;
        $count{$_}++ for addresses_of($b);
    }
    for my $a (keys %count) {
        my @l = @{ $bal->{$a} || [] };
        if (!@l) {
            ($l[0] = $template) =~ s/"address":"[^"]+"/"address":"$a"/;
        }
        $l[0] =~ s/"balance":"[^"]+"/"balance":"$count{$a}000"/;
        $out{$a} = \@l;
    }
    return \%out;
}

sub upstream {
    my ($dir, $blocks, $upto) = @_;
    my @b = grep { $_->{height} <= $upto } @$blocks;
    write_runes($dir, \@b, balances_at($blocks, $upto));
}

my $root = temp_dir();
upstream("$root/a", $chain, $H);
upstream("$root/b", $chain, $FIRST + 219);

sub point {
    my ($to) = @_;
    symlink($to, "$root/cur.new") or die "symlink: $!";
    rename("$root/cur.new", "$root/cur") or die "rename: $!";
}

# one address of the first block, its balances trickling under /stall/
my ($slow) = sort(addresses_of($chain->[0]));
my $slow_path = "/runes/v1/addresses/$slow/balances";
my $size = -s "$root/a/up$slow_path/q=offset=0&limit=60";
my $rate = $size + 1;                               # a second
my $ng = ChainData::Test::Nginx->start(
    locations => nginx_locations("$root/cur") . <<"EOF",
        location ~ ^/stall(/runes/v1/addresses/$slow/balances)\$ {
            root $root/cur/up;
            default_type application/json;
            limit_rate $rate;
            try_files "\$1/q=\$args" \@runes_empty;
        }
        location /stall/ {
            rewrite ^/stall(/.*)\$ /up\$1 last;
        }
EOF
);
my $base = 'http://127.0.0.1:' . $ng->port;

sub mirror {
    my ($db, $path, @o) = @_;
    return run_cmd([$MIRROR, '--db', $db, '--runes-api', "$base$path",
                    '--once', '--runes-from-height', $FIRST,
                    '--parallel', '4', @o], timeout => 300);
}

sub requests { return $_[0] =~ /.*requests=(\d+)/s ? $1 : 0 }

# the reference: every block followed, upstream at its final tip
point("$root/b");
my $replay = temp_dir() . '/replay';
my ($code, $out, $err) = mirror($replay, '/up', '--catch-up', 'replay');
is($code, 0, 'replay: exit 0') or diag($err);
unlike($err, qr/filling/, 'replay: no fill');
my $replay_requests = requests($err);

# the fill: upstream at $H when it starts, at $H + 20 from the fill's
# first balances on (the access log says when)
point("$root/a");
my $fill = temp_dir() . '/fill';
my $log = $ng->prefix . '/access.log';
my $from = -s $log;
my $watcher = fork // die "fork: $!";
if ($watcher == 0) {
    for (1 .. 6000) {
        open my $fh, '<', $log or POSIX::_exit(1);
        seek $fh, $from, 0;
        local $/;
        my $new = <$fh> // '';
        if ($new =~ m{/balances\?}) {
            point("$root/b");
            POSIX::_exit(0);
        }
        sleep 0.02;
    }
    POSIX::_exit(1);
}
($code, $out, $err) = mirror($fill, '/stall', '--catch-up-window', '64');
waitpid($watcher, 0);
is($? >> 8, 0, 'the tip moved during the fill');
is($code, 0, 'fill: exit 0') or diag($err);
like($err, qr/filling blocks $FIRST to $H \(--catch-up\)/,
     'auto: fills when more than 144 blocks behind');
like($err, qr/filled blocks $FIRST to $H in 4 windows: 394 transactions/,
     'fill: in windows of 64 blocks, every transaction');
is(() = $err =~ /filling blocks/g, 1,
   'the blocks that came meanwhile: followed');
my $fill_requests = requests($err);
ok($fill_requests > 0 && $fill_requests < $replay_requests,
   "fewer requests: $fill_requests, not $replay_requests");

sub position {
    my ($c, $o) = load_index($_[0], '--stats');
    my ($f) = grep { $_->{source} eq 'runes' } @{ json_decode($o)->{feeds} };
    return $f ? "$f->{height} $f->{hash}" : 'none';
}

sub same_index {
    my ($what, $height, $tree, $blocks) = @_;
    my ($h, $doc) = runes_held($fill);
    is(scalar @$h, $blocks, "$what: a rune_block record a block with "
       . 'activity');
    ok(keys %$doc > 5, "$what: etchings held (" . keys(%$doc) . ')');
    is_deeply($doc, served_etchings($tree),
              "$what: every rune's etching, as upstream serves it now");
    my ($f, $r) = (index_dump($fill, 'fill'), index_dump($replay, 'fill'));
    ok(length $r > 10000 && $f =~ /database=rune_balances/
       && $f =~ /database=block/, "$what: the indexes hold the lists");
    if ($f eq $r) {
        pass("$what: filled index = replayed index (mdb_dump)");
    } else {
        my @f = split /\n/, $f;
        my @r = split /\n/, $r;
        my ($i) = grep { ($f[$_] // '') ne ($r[$_] // '') } 0 .. $#r;
        fail("$what: filled index = replayed index (mdb_dump)");
        diag("first difference at line $i: " . substr($f[$i] // '', 0, 200)
             . ' / ' . substr($r[$i] // '', 0, 200));
    }
    like(position($fill), qr/^$height /, "$what: at $height");
}

same_index('after the fill', $FIRST + 219, "$root/b", 220 - 3);

# a fill published (--nats, a window a unit, split into messages of at
# most 64 kB): a stream follower applies its windows of several blocks
SKIP: {
    skip 'no nats-server', 3 unless -x ChainData::Nats::nats_server();
    my $ns = ChainData::Nats->start(max_payload => 65536);
    point("$root/b");
    my $pub = temp_dir() . '/pub';
    ($code, $out, $err) = mirror($pub, '/up', '--catch-up', 'fill',
        '--catch-up-window', '64', '--nats', $ns->url, '--stream', 'FILL');
    is($code, 0, 'a fill published: exit 0') or diag($err);
    my $edge = temp_dir() . '/edge';
    ($code, $out, $err) = load_index($edge, '--nats', $ns->url, '--stream',
                                     'FILL', '--once');
    is($code, 0, 'a follower applied its units: exit 0') or diag($err);
    my @differ = grep { mdb_dump_of($edge, $_) ne mdb_dump_of($replay, $_) }
        qw(rune_activity rune_activity_entry rune_balances rune_balance_entry
           rune_etching rune_ledger block);
    is("@differ", '', 'the follower holds what the replayed index does');
    $ns->stop;
}

# a reorg below the fill's tip: 840697 up replaced by 21 other blocks
my @fork = @$chain[0 .. 196];
for my $h ($H - 2 .. $FIRST + 217) {
    my $b = $chain->[$h - $FIRST];
    my @txs = map {
        my ($id, $entries) = @$_;
        my $new = $id =~ tr/0-9a-f/1-9a-f0/r;
        [$new, [map { s/\Q$id\E/$new/gr } @$entries]];
    } reverse @{ $b->{txs} };
    push @fork, { height => $h, hash => btc_hash($h, 'r'), txs => \@txs };
}
upstream("$root/c", \@fork, $FIRST + 217);
point("$root/c");
($code, $out, $err) = mirror($replay, '/up', '--catch-up', 'replay');
is($code, 0, 'reorg, replay: exit 0') or diag($err);
like($err, qr/rolling back to ${\ ($H - 3)}/, 'reorg, replay: rolled back');
($code, $out, $err) = mirror($fill, '/up');
is($code, 0, 'reorg, auto: exit 0') or diag($err);
like($err, qr/rolling back to ${\ ($H - 3)}/, 'reorg, auto: rolled back');
same_index('after a reorg below the fill\'s tip', $FIRST + 217, "$root/c",
           218 - 3);

$ng->stop;
done_testing();
