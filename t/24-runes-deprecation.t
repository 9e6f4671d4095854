#!/usr/bin/perl
# Deprecation signalling of the rune routes (specification 9.1,
# upstream-behaviour.md section 4): Deprecation (RFC 9745), Link
# rel="deprecation" and rel="successor-version", Sunset (RFC 8594), on
# every response, with and without the optional directives; nginx -t
# refuses a sunset before the deprecation.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use POSIX qw(strftime);
use Time::HiRes qw(sleep time);
use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(:all);

require_build();

my $fx = fixture_path('runes.ndjson');
my $L = rune_lists($fx);
my ($tx) = grep { @{ $L->{activity}{$_} } == 150 } keys %{ $L->{activity} };
my ($addr_key) = grep { @{ $L->{balances}{$_} } == 130 } keys %{ $L->{balances} };
my $addr = $L->{address}{$addr_key};
my $db = new_index($fx);

my $DOC = 'https://docs.example.com/runes-deprecation';
my $NEXT = 'https://replacement.example.com/runes/v1/';

sub http_date { return strftime('%a, %d %b %Y %H:%M:%S GMT', gmtime $_[0]) }

# every kind of response of both routes, as [name, method, path, headers]
sub requests {
    my ($port) = @_;
    my $a = "/runes/v1/transactions/$tx/activity";
    my $b = "/runes/v1/addresses/$addr/balances";
    my $etag_a = http_get($port, $a)->{headers}{etag};
    return (
        ['activity 200', 'GET', $a],
        ['activity page 2', 'GET', "$a?offset=60&limit=60"],
        ['activity unknown 200', 'GET', '/runes/v1/transactions/' . ('0' x 64) . '/activity'],
        ['activity 304', 'GET', $a, 'If-None-Match' => $etag_a],
        ['activity 412', 'GET', $a, 'If-Match' => '"nope"'],
        ['balances 412', 'HEAD', $b, 'If-Match' => qq{W/$etag_a}],
        ['activity HEAD', 'HEAD', $a],
        ['activity 400 tx_id', 'GET', '/runes/v1/transactions/xyz/activity'],
        ['activity 400 limit', 'GET', "$a?limit=0"],
        ['activity 404', 'GET', "/runes/v1/transactions/$tx"],
        ['activity 405', 'POST', $a, _body => 'x'],
        ['balances 200', 'GET', $b],
        ['balances 400 address', 'GET', '/runes/v1/addresses/nope/balances'],
        ['balances 400 offset', 'GET', "$b?offset=-1"],
        ['balances 404', 'GET', "/runes/v1/addresses/$addr/x"],
        ['balances 405', 'DELETE', $b],
    );
}

sub statuses_ok {
    my ($port, $name) = @_;
    my %want = ('200' => qr/200$|page 2|HEAD/, '304' => qr/304/, '400' => qr/400/, '404' => qr/404/,
        '405' => qr/405/, '412' => qr/412/);
    for my $q (requests($port)) {
        my ($rname, $method, $path, %h) = @$q;
        my $r = http_request($port, $method, $path, %h);
        my ($st) = grep { $rname =~ $want{$_} } sort keys %want;
        is($r->{status}, $st, "$name, $rname: status $st");
    }
}

# headers_ok($port, $name, deprecation => '@…' | undef, links => [...], sunset => '…' | undef)
sub headers_ok {
    my ($port, $name, %w) = @_;
    for my $q (requests($port)) {
        my ($rname, $method, $path, %h) = @$q;
        my $r = http_request($port, $method, $path, %h);
        my @dep = map { $_->[1] } grep { lc $_->[0] eq 'deprecation' } @{ $r->{header_list} };
        my @link = map { $_->[1] } grep { lc $_->[0] eq 'link' } @{ $r->{header_list} };
        my @sun = map { $_->[1] } grep { lc $_->[0] eq 'sunset' } @{ $r->{header_list} };
        is_deeply(\@dep, defined $w{deprecation} ? [$w{deprecation}] : [], "$name, $rname: Deprecation");
        is_deeply(\@link, $w{links} || [], "$name, $rname: Link headers");
        is_deeply(\@sun, defined $w{sunset} ? [$w{sunset}] : [], "$name, $rname: Sunset");
    }
}

sub with_server {
    my ($name, %conf) = @_;
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => rune_locations($conf{location}),
        http => $conf{http});
    my $port = $ng->port;
    statuses_ok($port, $name);
    $conf{check}->($port, $name);
    is(join("\n", $ng->bad_log_lines), '', "$name: no alerts in the error log");
    $ng->stop;
}

# ---------------------------------------------------------------- defaults

with_server('defaults', check => sub {
    my ($port, $name) = @_;
    headers_ok($port, $name, deprecation => '@1773014400');
    my $r = http_get($port, "/runes/v1/transactions/$tx/activity");
    is($r->{headers}{deprecation}, '@1773014400', 'default: 9 March 2026 00:00:00 UTC');
    is(1773014400, 1773014400 - 1773014400 % 86400, 'the default is a midnight UTC');
    is(http_date(1773014400), 'Mon, 09 Mar 2026 00:00:00 GMT', 'the default is 9 March 2026');
});

# ---------------------------------------------------------------- everything configured at the location

with_server('all directives in the locations',
    location => qq(            chaindata_deprecation \@1773014400;\n)
        . qq(            chaindata_deprecation_link $DOC;\n)
        . qq(            chaindata_successor_link $NEXT;\n)
        . qq(            chaindata_sunset "Tue, 01 Sep 2026 00:00:00 GMT";\n),
    check => sub {
        my ($port, $name) = @_;
        headers_ok($port, $name, deprecation => '@1773014400',
            links => [qq(<$DOC>; rel="deprecation"), qq(<$NEXT>; rel="successor-version")],
            sunset => 'Tue, 01 Sep 2026 00:00:00 GMT');
    });

# ---------------------------------------------------------------- inherited from http, one link only, @-dates

with_server('directives at the http level',
    http => qq(    chaindata_deprecation \@1700000000;\n)
        . qq(    chaindata_successor_link $NEXT;\n)
        . qq(    chaindata_sunset \@1800000000;\n),
    check => sub {
        my ($port, $name) = @_;
        headers_ok($port, $name, deprecation => '@1700000000',
            links => [qq(<$NEXT>; rel="successor-version")], sunset => http_date(1800000000));
    });

with_server('only the documentation link',
    location => qq(            chaindata_deprecation_link $DOC;\n),
    check => sub {
        my ($port, $name) = @_;
        headers_ok($port, $name, deprecation => '@1773014400', links => [qq(<$DOC>; rel="deprecation")]);
    });

with_server('location overrides http',
    http => qq(    chaindata_deprecation_link https://old.example.com/;\n    chaindata_sunset \@1900000000;\n),
    location => qq(            chaindata_deprecation_link $DOC;\n            chaindata_deprecation \@1773100800;\n),
    check => sub {
        my ($port, $name) = @_;
        headers_ok($port, $name, deprecation => '@1773100800', links => [qq(<$DOC>; rel="deprecation")],
            sunset => http_date(1900000000));
    });

with_server('deprecation off',
    location => qq(            chaindata_deprecation off;\n            chaindata_sunset \@1000000000;\n),
    check => sub {
        my ($port, $name) = @_;
        headers_ok($port, $name, sunset => http_date(1000000000));
    });

with_server('sunset equal to the deprecation',
    location => qq(            chaindata_sunset \@1773014400;\n),
    check => sub {
        my ($port, $name) = @_;
        headers_ok($port, $name, deprecation => '@1773014400', sunset => 'Mon, 09 Mar 2026 00:00:00 GMT');
    });

# the transaction route is not deprecated: none of these headers
{
    my $ng = ChainData::Test::Nginx->start(db => $db,
        http => qq(    chaindata_deprecation_link $DOC;\n    chaindata_sunset \@1800000000;\n),
        locations => "        location /extended/v1/tx/ { chaindata_tx; }\n" . rune_locations());
    my $r = http_get($ng->port, '/extended/v1/tx/0x' . ('0' x 64));
    # an index of rune records alone holds no stacks feed: not a 404
    is($r->{status}, 503, 'tx route: an unknown transaction, no stacks feed: 503');
    ok(!grep({ $_->[0] =~ /^(deprecation|link|sunset)$/i } @{ $r->{header_list} }),
        'tx route: no deprecation headers');
    is(http_get($ng->port, "/runes/v1/transactions/$tx/activity")->{headers}{sunset}, http_date(1800000000),
        'the rune route of the same server has them');
    $ng->stop;
}

# ---------------------------------------------------------------- 503 and 500 carry them too

{
    my $own = temp_dir() . '/index';
    my ($code, $out, $err) = load_index($own, $fx);
    is($code, 0, 'a private index for the 503 test') or diag($err);
    fixup_index_perms($own);
    my $ng = ChainData::Test::Nginx->start(db => $own,
        locations => rune_locations(qq(            chaindata_sunset \@1800000000;\n)));
    $ng->expect_log(qr/exited on signal 9|chaindata_db .* cannot open the index/);
    my @paths = ("/runes/v1/transactions/$tx/activity", "/runes/v1/addresses/$addr/balances");

    rename $own, "$own.away" or die "rename: $!";
    mkdir $own or die "mkdir: $!";
    chmod 0755, $own;
    my %old = map { $_ => 1 } $ng->worker_pids;
    kill 'KILL', keys %old;
    my $deadline = time + 10;
    sleep 0.05 while time < $deadline && !grep { !$old{$_} } $ng->worker_pids;

    for my $p (@paths) {
        my $r = http_get($ng->port, $p);
        is($r->{status}, 503, "index unreadable, $p: 503");
        is($r->{headers}{deprecation}, '@1773014400', "503 $p: Deprecation");
        is($r->{headers}{sunset}, http_date(1800000000), "503 $p: Sunset");
        is($r->{headers}{'retry-after'}, '1', "503 $p: Retry-After");
        like($r->{body}, qr/^\{"statusCode":503,"error":"Service Unavailable"/, "503 $p: JSON body");
    }

    rmdir $own or die "rmdir: $!";
    rename "$own.away", $own or die "rename back: $!";
    sleep 1.2;
    is(http_get($ng->port, $paths[0])->{status}, 200, 'the index is back: 200 without a reload');

    # damaged lists (written with mdb_load, not the loader): a header that
    # counts entries the index lacks, and a header of the wrong size
    my $hex = sub { join '', map { sprintf '\\%02x', ord } split //, $_[0] };
    my $promising = 'ab' x 32;
    my $short = 'cd' x 32;
    my $dump = "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n"
        . ' ' . $hex->(pack 'H*', $promising) . "\n"
        . ' ' . $hex->("\x01\0\0\0" . pack('V', 5) . ("\0" x 16)) . "\n"
        . ' ' . $hex->(pack 'H*', $short) . "\n"
        . ' ' . $hex->("\x01\0\0") . "\nDATA=END\n";
    my ($mc, $mout, $merr) = run_cmd(['mdb_load', '-s', 'rune_activity', $own], stdin => $dump);
    SKIP: {
        skip "mdb_load failed: $merr", 10 if $mc != 0;
        $ng->expect_log(qr/rune list header counts 5 entries|"rune_activity" record is damaged/);
        for my $c ([$promising, 'a header promising absent entries'], [$short, 'a 3-byte header']) {
            my $r = http_get($ng->port, "/runes/v1/transactions/$c->[0]/activity");
            is($r->{status}, 500, "$c->[1]: 500");
            is($r->{body}, '{"statusCode":500,"error":"Internal Server Error","message":'
                . '"the rune activity could not be read from the index"}', "$c->[1]: JSON body");
            is($r->{headers}{deprecation}, '@1773014400', "$c->[1]: Deprecation");
            is($r->{headers}{sunset}, http_date(1800000000), "$c->[1]: Sunset");
        }
        like($ng->error_log, qr/\[alert\].*a rune list header counts 5 entries but "rune_activity_entry" holds fewer/,
            'the missing entries are logged');
        like($ng->error_log, qr/\[alert\].*a "rune_activity" record is damaged \(format 1, 3 bytes\)/,
            'the damaged header is logged');
    }
    $ng->stop;
}

# ---------------------------------------------------------------- nginx -t

sub config {
    my ($name, %o) = @_;
    my ($code, $out) = ChainData::Test::Nginx->test_config(db => $db, locations => rune_locations($o{location}),
        http => $o{http});
    if ($o{ok}) {
        is($code, 0, "nginx -t, $name: succeeds") or diag($out);
        like($out, qr/test is successful/, "nginx -t, $name: successful");
    } else {
        isnt($code, 0, "nginx -t, $name: fails");
        like($out, qr/\[emerg\]/, "nginx -t, $name: emerg");
        like($out, $o{mention}, "nginx -t, $name: says why") or diag($out);
    }
}

my $EARLY = qr/"chaindata_sunset" is earlier than the deprecation date/;
config('sunset a second before the default deprecation',
    location => qq(            chaindata_sunset \@1773014399;\n), mention => $EARLY);
config('sunset as an HTTP-date before the deprecation',
    location => qq(            chaindata_sunset "Sun, 08 Mar 2026 23:59:59 GMT";\n), mention => qr/$EARLY \(\@1773014400\)/);
config('sunset at http level before a location deprecation',
    http => qq(    chaindata_sunset \@1800000000;\n),
    location => qq(            chaindata_deprecation \@1800000001;\n), mention => qr/$EARLY \(\@1800000001\)/);
config('sunset at http level before the http deprecation',
    http => qq(    chaindata_deprecation \@1800000000;\n    chaindata_sunset \@1799999999;\n), mention => $EARLY);
config('sunset equal to the deprecation', ok => 1, location => qq(            chaindata_sunset \@1773014400;\n));
config('sunset after the deprecation', ok => 1,
    location => qq(            chaindata_sunset "Tue, 01 Sep 2026 00:00:00 GMT";\n));
config('an early sunset with the deprecation off', ok => 1,
    location => qq(            chaindata_deprecation off;\n            chaindata_sunset \@1;\n));
config('deprecation without @', location => qq(            chaindata_deprecation 1773014400;\n),
    mention => qr/chaindata_deprecation.*takes "\@" and Unix seconds/);
config('deprecation @ and garbage', location => qq(            chaindata_deprecation \@soon;\n),
    mention => qr/takes "\@" and Unix seconds/);
config('sunset garbage', location => qq(            chaindata_sunset tomorrow;\n),
    mention => qr/chaindata_sunset.*takes an HTTP-date/);
config('link with a space', location => qq(            chaindata_successor_link "https://a.example/ b";\n),
    mention => qr/takes a URL/);
config('link with angle brackets', location => qq(            chaindata_deprecation_link "<https://a.example/>";\n),
    mention => qr/takes a URL/);
config('deprecation twice', location => qq(            chaindata_deprecation \@1;\n            chaindata_deprecation \@2;\n),
    mention => qr/is duplicate/);

done_testing;
