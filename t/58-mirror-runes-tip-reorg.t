#!/usr/bin/perl
# chaindata-mirror: balance lists are those of the height written, on
# answers the real Runes API 3.0.2 served (t/captures/runes-api-3.0.2/,
# its README says how they were made): tip-a.gz at tip 844012 (a block of
# 20 transactions, the first to the address holding the most runes),
# tip-b.gz once 844013 (20 more, the first to that address again) was on
# top, each with the ETag upstream served every answer with (its tip
# block's hash: api/util/cache.ts).  After `runes-chain reorg 1 0`
# (844013 reorganised away) upstream served tip-a.gz's answers again, byte
# for byte.
#
# The mirror writes 844012 while upstream already stands at 844013: the
# balance lists it fetches are tip-b's.  Then 844013 is reorganised away
# before the mirror reaches it (the test swaps the balances' answers back
# to tip-a's as soon as 844012 is committed; the status route trickles,
# so the mirror's next look at upstream comes after the swap).  No block
# the index holds names 844013, so no rollback fetches those lists again:
# the mirror must see that upstream's tip is its position while the lists
# were served at another tip, and fetch them again.  Each address of
# 844012 must end with tip-a's balances, by a fill (--catch-up fill) and
# by following (--catch-up replay); and by a mirror following upstream
# (no --once) whose pass failed on 844013, so that the pass that sees
# upstream back at 844012 writes no block (its status, the only request
# an idle pass asks, says so).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);
use ChainData::Runes qw(rune_locations);
use ChainData::Upstream qw(write_capture capture_path json_canonical
                           serve_tree etag_map runes_held served_etchings);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $DIR = capture_path('runes-api-3.0.2');
my $T0 = 844012;

my $root = temp_dir();
my %tag;
for my $s ('a', 'b') {
    ($tag{$s}) = slurp("$DIR/tip-$s.etag") =~ /^([0-9a-f]{64})$/m;
    ok($tag{$s}, "tip-$s: upstream's ETag $tag{$s}");
    my $n = write_capture("$root/$s/$tag{$s}", "$DIR/tip-$s.gz");
    ok($n > 100, "capture tip-$s.gz: $n answers");
}

# an address's balances as a capture holds them (every page size it was
# asked with): rune id => entry
sub balances_in {
    my ($tree, $address) = @_;
    my %l;
    for my $f (glob "$tree/up/runes/v1/addresses/$address/balances/q=*") {
        my $d = json_decode(slurp($f));
        $l{ $_->{rune}{id} } = json_canonical($_) for @{ $d->{results} };
    }
    return \%l;
}

# the addresses block 844012 names
my %named;
for my $f (glob "$root/a/$tag{a}/up/runes/v1/blocks/$T0/activity/q=*") {
    my $d = json_decode(slurp($f));
    for my $e (@{ $d->{results} }) {
        $named{$_} = 1 for grep { defined } $e->{address}, $e->{receiver_address};
    }
}
my @named = sort keys %named;
my @moved = grep {
    json_canonical(balances_in("$root/a/$tag{a}", $_))
        ne json_canonical(balances_in("$root/b/$tag{b}", $_))
} @named;
ok(@named >= 20, scalar(@named) . " addresses named by block $T0");
ok(@moved >= 1, scalar(@moved) . " of them with other balances once 844013 "
   . 'was on top');

sub point {
    my ($link, $to) = @_;
    serve_tree("$root/$link", $to);
}

# the answers of the tree the root resolves to carry its ETag, as
# upstream's do; the status route trickles (a few seconds)
my $up = sub {
    my ($loc, $dir, $extra) = @_;
    return <<"EOF";
        location $loc {
            root $root/$dir;
            default_type application/json;
            etag off;
            add_header ETag \$up_etag always;
$extra            try_files "\$uri/q=\$args" =404;
        }
EOF
};
my $ng = ChainData::Test::Nginx->start(
    http => etag_map(),
    locations => $up->('= /up/runes/v1/', 'cur', "            limit_rate 40;\n")
        . $up->('/up/runes/v1/addresses/', 'bal', '')
        . $up->('/up/', 'cur', ''),
);
my $port = $ng->port;

sub position {
    my ($db) = @_;
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'runes' } @{ json_decode($o)->{feeds} || [] };
    return $f ? $f->{height} : 0;
}

for my $mode ('fill', 'replay') {
    my $db = "$root/index-$mode";
    my ($code, $out, $err) = load_index($db);
    is($code, 0, "$mode: empty index") or diag($err);
    fixup_index_perms($db);

    # upstream at 844013 while the mirror writes 844012
    point('cur', "$root/a/$tag{a}");
    point('bal', "$root/b/$tag{b}");

    # 844013 reorganised away once 844012 is in the index
    my $watcher = fork // die "fork: $!";
    if ($watcher == 0) {
        my $until = time + 300;
        sleep(0.05) while position($db) != $T0 && time < $until;
        point('bal', "$root/a/$tag{a}");
        spew("$root/swapped-$mode", '') if time < $until;
        POSIX::_exit(0);
    }
    # --parallel 4, as the capture was made: a balance list's pages are
    # asked --parallel at a time (its totals are no count), and the
    # capture holds the pages a mirror asking 4 at a time asked
    ($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--runes-api',
        "http://127.0.0.1:$port/up", '--once', '--runes-from-height', $T0,
        '--catch-up', $mode, '--parallel', '4'], timeout => 600);
    kill 'TERM', $watcher;
    waitpid($watcher, 0);
    ok(-e "$root/swapped-$mode", "$mode: 844013 went while the mirror ran");
    is($code, 0, "$mode: exit 0") or diag($err);
    is(position($db), $T0, "$mode: at $T0");
    like($err, qr/balance lists were fetched while upstream's tip was a block it no longer has/,
         "$mode: the lists served at 844013 are seen");

    edge_has_tip_a($db, $mode);
}

# the edge: each address of 844012 with upstream's balances at 844012
sub edge_has_tip_a {
    my ($db, $mode) = @_;
    my $edge = ChainData::Test::Nginx->start(db => $db,
                                             locations => rune_locations());
    my @bad;
    for my $a (@named) {
        my %got;
        for (my $off = 0; ; $off += 60) {
            my $r = http_get($edge->port, "/runes/v1/addresses/$a/balances?offset=$off&limit=60");
            my $d = json_decode($r->{body});
            $got{ $_->{rune}{id} } = json_canonical($_) for @{ $d->{results} };
            last if @{ $d->{results} } < 60;
        }
        push @bad, $a if json_canonical(\%got)
                         ne json_canonical(balances_in("$root/a/$tag{a}", $a));
    }
    is("@bad", '', "$mode: every address of $T0 with upstream's balances at "
       . "$T0, none of 844013's (" . scalar(@moved) . ' had them)');
    my ($heights, $docs) = runes_held($db);
    my $want = served_etchings("$root/a/$tag{a}");
    is("@$heights", $T0, "$mode: block ${T0}'s rune_block record");
    ok(keys %$want >= 10 && json_canonical($docs) eq json_canonical($want),
       "$mode: the etching of each rune of $T0 (" . keys(%$want)
       . '), as upstream serves it at ' . $T0);
    $edge->stop;
}

# Following (no --once): upstream at 844013 (tip-b's answers, but 844013's
# activity is a 404), the mirror writes 844012 with tip-b's balance lists
# and its pass fails on 844013, which is then reorganised away.  The next
# pass writes no block: the status it begins with says upstream stands at
# 844012, and the lists are fetched again.
{
    my $db = "$root/index-follow";
    my ($code, $out, $err) = load_index($db);
    is($code, 0, 'follow: empty index') or diag($err);
    fixup_index_perms($db);
    mkdir("$root/b13");
    system('cp', '-a', "$root/b/$tag{b}", "$root/b13/") == 0 or die "cp";
    system('rm', '-rf', "$root/b13/$tag{b}/up/runes/v1/blocks/844013");
    point('cur', "$root/b13/$tag{b}");
    point('bal', "$root/b/$tag{b}");

    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open(STDOUT, '>', '/dev/null') or die;
        open(STDERR, '>', "$root/follow.log") or die;
        exec($MIRROR, '--db', $db, '--runes-api', "http://127.0.0.1:$port/up",
             '--interval', '1', '--runes-from-height', $T0, '--catch-up',
             'replay', '--parallel', '4') or die "exec: $!";
    }
    ok(eventually(300, sub { position($db) == $T0 }), "follow: at $T0");
    point('cur', "$root/a/$tag{a}");
    point('bal', "$root/a/$tag{a}");
    my $seen = eventually(120, sub {
        slurp("$root/follow.log") =~ /balance lists were fetched while upstream's tip was a block it no longer has/
    });
    # said before they are fetched: written once the next pass begins
    my $passes = sub { scalar(() = slurp($ng->prefix . '/access.log')
                                  =~ m{"GET /up/runes/v1/ }g) };
    my $n = $passes->();
    ok(eventually(120, sub { $passes->() > $n }), 'follow: a pass more');
    kill('TERM', $pid);
    waitpid($pid, 0);
    my $log = slurp("$root/follow.log");
    like($log, qr{blocks/844013/activity\S*: HTTP 404}, 'follow: the pass failed on '
         . "844013's 404") or diag($log);
    ok($seen, 'follow: the lists served at 844013 are seen by a pass that '
       . 'writes no block');
    edge_has_tip_a($db, 'follow');
}

$ng->stop;
done_testing();
