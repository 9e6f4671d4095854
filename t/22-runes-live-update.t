#!/usr/bin/perl
# The loader replaces and deletes rune lists in a live index: a running
# nginx serves the new state at once, without a reload, and ETags follow.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(:all);

require_build();

my $fx = fixture_path('runes.ndjson');
my $L = rune_lists($fx);
my ($big_tx) = grep { @{ $L->{activity}{$_} } == 150 } keys %{ $L->{activity} };
my ($big_addr) = grep { @{ $L->{balances}{$_} } == 130 } keys %{ $L->{balances} };
my ($small_tx) = grep { @{ $L->{activity}{$_} } == 5 } keys %{ $L->{activity} };
ok($big_tx && $big_addr && $small_tx, 'fixtures present') or BAIL_OUT('fixtures incomplete');
my $holder = $L->{address}{$big_addr};

my $db = new_index($fx);
my $ng = ChainData::Test::Nginx->start(db => $db, locations => rune_locations());
my $port = $ng->port;
my $paths = rune_paths();
my @workers = $ng->worker_pids;
ok(@workers, 'nginx worker running');

sub get { my ($path, %h) = @_; return http_get($port, $path, %h) }
sub act { my ($tx, $q) = @_; return $paths->{activity}->($tx) . (defined $q ? "?$q" : '') }
sub bal { my ($a, $q) = @_; return $paths->{balances}->($a) . (defined $q ? "?$q" : '') }

sub load_ok {
    my ($name, @args) = @_;
    my ($code, $out, $err) = load_index($db, @args);
    is($code, 0, "$name: loader exit 0") or diag($err);
}

sub served {
    my ($path, $want, $name) = @_;
    my $r = get($path);
    is($r->{status}, 200, "$name: 200");
    is($r->{body}, $want, "$name: body");
    return $r;
}

# snapshot of every list as served initially
my %initial;
for my $tx (keys %{ $L->{activity} }) {
    $initial{"a $tx"} = served(act($tx), expected_page($L->{activity}{$tx}, 0, 20), "initial activity $tx");
}
for my $k (keys %{ $L->{balances} }) {
    $initial{"b $k"} = served(bal($L->{address}{$k}), expected_page($L->{balances}{$k}, 0, 20),
        "initial balances $k");
}

sub others_unchanged {
    my ($name, @skip) = @_;
    my %skip = map { $_ => 1 } @skip;
    my @diff;
    for my $k (sort keys %initial) {
        next if $skip{$k};
        my ($set, $key) = split / /, $k;
        my $r = get($set eq 'a' ? act($key) : bal($L->{address}{$key}));
        push @diff, $k unless $r->{body} eq $initial{$k}{body} && $r->{headers}{etag} eq $initial{$k}{headers}{etag};
    }
    ok(!@diff, "$name: every other list unchanged") or diag(join "\n", @diff);
}

my @big = @{ $L->{activity}{$big_tx} };
my @bigbal = @{ $L->{balances}{$big_addr} };

# ---------------------------------------------------------------- activity shrinks, grows, changes

{
    my $e_last = get(act($big_tx, 'offset=140'))->{headers}{etag};
    my @three = @big[10 .. 12];
    load_ok('150 -> 3 entries', { stdin => activity_line($big_tx, @three) });
    my $r = served(act($big_tx), expected_page(\@three, 0, 20), 'shrunk list');
    isnt($r->{headers}{etag}, $initial{"a $big_tx"}{headers}{etag}, 'shrunk list: new ETag');
    served(act($big_tx, 'offset=140'), expected_page(\@three, 140, 20), 'shrunk list, old last page: empty, total 3');
    served(act($big_tx, 'offset=2&limit=60'), expected_page(\@three, 2, 60), 'shrunk list, last entry');
    is(get(act($big_tx, 'offset=140'), 'If-None-Match' => $e_last)->{status}, 200,
        'old ETag of the old last page: 200 (the page changed from entries to none)');
    is(get(act($big_tx), 'If-None-Match' => $initial{"a $big_tx"}{headers}{etag})->{status}, 200,
        'old ETag of the first page: 200');
    is(get(act($big_tx), 'If-None-Match' => $r->{headers}{etag})->{status}, 304, 'new ETag: 304');
    others_unchanged('after shrinking', "a $big_tx");

    # one entry changed in place: same count, different digest
    my @changed = @three;
    $changed[1] =~ s/"operation":"\w+"/"operation":"burn"/;
    isnt($changed[1], $three[1], 'an entry changed');
    load_ok('one entry changed', { stdin => activity_line($big_tx, @changed) });
    my $c = served(act($big_tx), expected_page(\@changed, 0, 20), 'changed entry served');
    isnt($c->{headers}{etag}, $r->{headers}{etag}, 'changed entry: new ETag at the same count');

    # the same entries in another order: another list
    my @reordered = reverse @changed;
    load_ok('reordered', { stdin => activity_line($big_tx, @reordered) });
    my $o = served(act($big_tx), expected_page(\@reordered, 0, 20), 'reordered entries served in the new order');
    isnt($o->{headers}{etag}, $c->{headers}{etag}, 'reordered: new ETag');

    # back to the fixture
    load_ok('back to 150 entries', $fx);
    for my $q ([0, 20], [60, 60], [120, 60], [140, 20], [149, 1]) {
        served(act($big_tx, "offset=$q->[0]&limit=$q->[1]"), expected_page(\@big, @$q), "restored offset $q->[0]");
    }
    my $again = get(act($big_tx));
    is($again->{body}, $initial{"a $big_tx"}{body}, 'restored: identical first page');
    is($again->{headers}{etag}, $initial{"a $big_tx"}{headers}{etag}, 'restored: the original ETag again');
    others_unchanged('after restoring');
}

# ---------------------------------------------------------------- deletion and re-insertion

{
    my $empty_etag = get(act(substr(random_tx_id(), 2)))->{headers}{etag};
    load_ok('delete activity', { stdin => activity_line(uc $big_tx) });
    my $r = served(act($big_tx), expected_page([], 0, 20), 'deleted activity (deleted by an upper-case id): empty page');
    is($r->{headers}{etag}, $empty_etag, 'deleted activity: the ETag of an unknown transaction');
    served(act($big_tx, 'offset=60&limit=60'), expected_page([], 60, 60), 'deleted activity, offset 60');
    is(get(act($big_tx), 'If-None-Match' => $initial{"a $big_tx"}{headers}{etag})->{status}, 200,
        'deleted activity: the old ETag no longer matches');
    load_ok('delete it again (no-op)', { stdin => activity_line($big_tx) });
    served(act($big_tx), expected_page([], 0, 20), 'deleted twice: still empty');

    load_ok('re-insert', { stdin => activity_line($big_tx, @big) });
    my $back = served(act($big_tx, 'offset=120&limit=60'), expected_page(\@big, 120, 60), 're-inserted activity');
    is(get(act($big_tx))->{headers}{etag}, $initial{"a $big_tx"}{headers}{etag}, 're-inserted: original ETag');

    # balances
    load_ok('delete balances', { stdin => balances_line($holder) });
    served(bal($holder), expected_page([], 0, 20), 'deleted balances: empty page');
    served(bal(uc $holder, 'offset=120&limit=60'), expected_page([], 120, 60), 'deleted balances, upper case');
    others_unchanged('after deleting the balances', "b $big_addr");
    load_ok('re-insert balances via the upper-case address', { stdin => balances_line(uc $holder, @bigbal) });
    served(bal($holder, 'offset=60&limit=60'), expected_page(\@bigbal, 60, 60), 're-inserted balances');
    is(get(bal($holder))->{headers}{etag}, $initial{"b $big_addr"}{headers}{etag}, 're-inserted balances: original ETag');
}

# ---------------------------------------------------------------- balances grow past a page boundary

{
    my @more = (@bigbal, map {
        my $i = $_;
        (my $e = $bigbal[0]) =~ s/"id":"[^"]+"/"id":"900000:$i"/;
        $e;
    } 1 .. 50);
    load_ok('130 -> 180 balances', { stdin => balances_line($holder, @more) });
    for my $q ([0, 60], [60, 60], [120, 60], [179, 60], [180, 60], [150, 20]) {
        served(bal($holder, "offset=$q->[0]&limit=$q->[1]"), expected_page(\@more, @$q),
            "180 balances offset $q->[0] limit $q->[1]");
    }
    load_ok('back to 130', { stdin => balances_line($holder, @bigbal) });
    served(bal($holder, 'offset=120&limit=60'), expected_page(\@bigbal, 120, 60), 'back to 130: no stale entries');
    served(bal($holder, 'offset=150'), expected_page(\@bigbal, 150, 20), 'back to 130: offset 150 empty');
}

# ---------------------------------------------------------------- several records of one key in one batch

{
    my @s = @{ $L->{activity}{$small_tx} };
    load_ok('delete then put in one batch',
        { stdin => activity_line($small_tx) . activity_line($small_tx, @s[0, 1]) });
    served(act($small_tx), expected_page([@s[0, 1]], 0, 20), 'delete + put: the put wins');
    load_ok('put then delete in one batch',
        { stdin => activity_line($small_tx, @s) . activity_line($small_tx) });
    served(act($small_tx), expected_page([], 0, 20), 'put + delete: deleted');
    my @long = map { s/$big_tx/$small_tx/gr } @big[0 .. 99];
    load_ok('long then short in one batch',
        { stdin => activity_line($small_tx, @long) . activity_line($small_tx, @s) });
    served(act($small_tx, 'offset=0&limit=60'), expected_page(\@s, 0, 60), 'long + short: only the short list');
    served(act($small_tx, 'offset=60'), expected_page(\@s, 60, 20), 'long + short: no leftovers of the long one');
}

# ---------------------------------------------------------------- a rejected batch changes nothing

{
    my $snapshot = get(act($small_tx))->{body};
    my $bad = activity_line($small_tx, '{"rune":{}}');
    my ($code, $out, $err) = load_index($db, { stdin => activity_line($big_tx) . balances_line($holder) . $bad });
    is($code, 1, 'batch with an invalid record: exit 1');
    like($err, qr/<stdin>:3: /, 'the bad line is named');
    served(act($big_tx), expected_page(\@big, 0, 20), 'rejected batch: activity not deleted');
    served(bal($holder), expected_page(\@bigbal, 0, 20), 'rejected batch: balances not deleted');
    is(get(act($small_tx))->{body}, $snapshot, 'rejected batch: the bad record\'s list unchanged');
}

# ---------------------------------------------------------------- reloading the fixture is idempotent

load_ok('re-load the fixture', $fx);
load_ok('and again', $fx);
others_unchanged('after re-loading the fixture twice', "a $small_tx");
served(act($small_tx), expected_page($L->{activity}{$small_tx}, 0, 20), 'small list restored by the fixture');

is_deeply([$ng->worker_pids], \@workers, 'same worker process throughout (no reload, no crash)');
is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
$ng->stop;

done_testing;
