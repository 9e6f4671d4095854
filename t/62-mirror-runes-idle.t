#!/usr/bin/perl
# chaindata-mirror: an idle pass of the Runes feed (upstream's tip the
# same height and hash as at the last pass) asks at most 2 requests,
# whatever the size of the newest block (issue 43).  Upstream is the
# capture of the real Runes API 3.0.2 in
# t/captures/runes-api-3.0.2/big-blocks.gz (its README says how it was
# made): block 844011, the tip, has 2,500 transactions, 5,000 activity
# rows in 84 pages, which each idle pass used to read again whole to see
# that upstream still had it (85 requests a pass).  The recorded upstream
# serves every Runes answer with the ETag the real API sends, the hash of
# its tip block (ChainData::Upstream etag_map()).  A following mirror
# (not --once) catches up, then its idle passes are counted in the test
# upstream's access log, from one status request to the next:
#
#   - with the ETag, a pass asks the status alone: the ETag is the
#     recorded block's hash;
#   - without it (a proxy that drops it), the status and the first page
#     of the newest block, whose hash it holds.
#
# Then a reorg at the same height, which only the tip's hash tells, is
# still seen by a following mirror: a recorded upstream (write_runes)
# whose tip block is replaced by another of the same height, the ETag
# changing with it.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(write_capture capture_path nginx_locations
                           write_runes rune_chain btc_hash runes_tip_hash
                           serve_tree etag_map);

require_build();
my $MIRROR = build_path('chaindata-mirror');
my $CAPTURE = capture_path('runes-api-3.0.2') . '/big-blocks.gz';
my $PASSES = 3;

my $root = temp_dir();
my $stage = "$root/t/stage";
my $answers = write_capture($stage, $CAPTURE);
ok($answers > 9000, "capture $CAPTURE: $answers answers");
my $tag = runes_tip_hash($stage);
rename($stage, "$root/t/$tag") or die "rename: $!";
serve_tree("$root/cur", "$root/t/$tag");

my $ng = ChainData::Test::Nginx->start(
    http => etag_map(),
    locations => nginx_locations("$root/cur", captured => 1, etag => 1),
);
my $api = 'http://127.0.0.1:' . $ng->port . '/up';

{
    my $r = http_get($ng->port, '/up/runes/v1/');
    like($r->{body}, qr/"block_height":844011\}/, 'upstream\'s tip: 844011');
    is($r->{headers}{etag}, "\"$tag\"", "its ETag, as the real API's: the "
       . "hash of block 844011, $tag");
}

# a mirror following upstream (no --once), its log in $root/$name.log
sub follow {
    my ($db, $name, @o) = @_;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open(STDOUT, '>', '/dev/null') or die;
        open(STDERR, '>', "$root/$name.log") or die;
        exec($MIRROR, '--db', $db, '--runes-api', $api, '--interval', '1',
             @o) or die "exec: $!";
    }
    return $pid;
}

sub stop {
    my ($pid) = @_;
    kill('TERM', $pid);
    waitpid($pid, 0);
}

sub feed {
    my ($db) = @_;
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'runes' }
        @{ (eval { json_decode($o) } || {})->{feeds} || [] };
    return $f ? "$f->{height} $f->{hash}" : 'none';
}

# the routes the mirror asked upstream, in order
sub asked {
    my @r;
    open(my $fh, '<', $ng->prefix . '/access.log') or return ();
    while (<$fh>) {
        push @r, $1 if m{"GET /up(/\S*) HTTP};
    }
    return @r;
}

# $n passes from now on, each the routes it asked: from a status request
# to the next (the pass under way now, and the last, maybe not ended, are
# left out)
sub passes {
    my ($n) = @_;
    my $mark = () = asked();
    my @after;
    my $enough = eventually(120, sub {
        my @all = asked();
        @after = @all[$mark .. $#all];
        return (grep { $_ eq '/runes/v1/' } @after) >= $n + 2;
    });
    ok($enough, "$n idle passes more") or return ();
    my @p;
    for my $route (@after) {
        push @p, [] if $route eq '/runes/v1/';
        push @{ $p[-1] }, $route if @p;
    }
    return @p[1 .. $n];
}

# the routes of passes, a long pass shortened
sub routes {
    return join(' | ', map {
        @$_ > 3 ? "@$_[0 .. 2] ... (" . scalar(@$_) . ' requests)' : "@$_"
    } @_);
}

sub at_most_2 {
    my ($name, @p) = @_;
    my @n = map { scalar @$_ } @p;
    is(scalar(grep { $_ > 2 } @n), 0, "$name: each of $PASSES idle passes "
       . "asks at most 2 requests (@n)");
}

my $db = "$root/index";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

# --parallel 8, as the capture was made (a balance list's pages are asked
# --parallel at a time, past its end too)
my $pid = follow($db, 'catch-up', '--runes-from-height', '844010',
                 '--catch-up', 'replay', '--parallel', '8');
ok(eventually(600, sub { feed($db) eq "844011 $tag" }),
   'caught up: at 844011') or diag(slurp("$root/catch-up.log"));

my @p = passes($PASSES);
at_most_2('with the ETag', @p);
is(routes(@p), routes(([ '/runes/v1/' ]) x $PASSES),
   'with the ETag: the status alone');
stop($pid);

# the same upstream without the ETag
rename("$root/t/$tag", "$root/t/plain") or die "rename: $!";
serve_tree("$root/cur", "$root/t/plain");
is(http_get($ng->port, '/up/runes/v1/')->{headers}{etag}, undef,
   'upstream without the ETag');
$pid = follow($db, 'plain', '--parallel', '8');
@p = passes($PASSES);
at_most_2('without the ETag', @p);
my $first = '/runes/v1/blocks/844011/activity?offset=0&limit=60';
is(routes(@p), routes(([ '/runes/v1/', $first ]) x $PASSES),
   'without the ETag: the status and the first page of block 844011');
stop($pid);
unlike(slurp("$root/catch-up.log") . slurp("$root/plain.log"), qr/reorg/,
       'no reorg seen where there was none');
$ng->stop;

# a reorg at the same height, seen by a following mirror with the ETag
my ($chain, $bal) = rune_chain('idle', 3);
my ($other) = rune_chain('fork', 3);
my @fork = (@$chain[0, 1], { %{ $other->[2] }, hash => btc_hash(840502, 'b') });
my %tree;
for my $c (['a', $chain], ['b', \@fork]) {
    write_runes("$root/t/stage", $c->[1], $bal);
    $tree{ $c->[0] } = "$root/t/" . runes_tip_hash("$root/t/stage");
    rename("$root/t/stage", $tree{ $c->[0] }) or die "rename: $!";
}
serve_tree("$root/cur", $tree{a});
$ng = ChainData::Test::Nginx->start(
    http => etag_map(),
    locations => nginx_locations("$root/cur", etag => 1),
);
$api = 'http://127.0.0.1:' . $ng->port . '/up';

my $db2 = "$root/index2";
($code, $out, $err) = load_index($db2);
is($code, 0, 'second empty index created') or diag($err);
fixup_index_perms($db2);
$pid = follow($db2, 'reorg', '--runes-from-height', '840500');
my $a = btc_hash(840502);
ok(eventually(120, sub { feed($db2) eq "840502 $a" }), 'at 840502')
    or diag(slurp("$root/reorg.log"));
@p = passes($PASSES);
is(routes(@p), routes(([ '/runes/v1/' ]) x $PASSES),
   'idle with the ETag: the status alone');

serve_tree("$root/cur", $tree{b});
my $b = btc_hash(840502, 'b');
ok(eventually(120, sub { feed($db2) eq "840502 $b" }),
   'upstream\'s 840502 replaced: the mirror follows it')
    or diag(slurp("$root/reorg.log"));
stop($pid);
like(slurp("$root/reorg.log"), qr/reorg: runes blocks above 840501 are no longer upstream's/,
     'the reorg at the same height is seen and rolled back');

$ng->stop;
done_testing();
