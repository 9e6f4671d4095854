#!/usr/bin/perl
# Ingest fidelity: wide documents load in O(n log n) with member order kept
# and duplicates still found; strings with lone surrogates are served back
# as upstream's Node serves them, and bytes that are no UTF-8 are refused.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Encode ();
use Test::More;
use ChainData::Test qw(:all);

require_build();

my ($tx) = grep { !$_->{mempool} && $_->{event_count} }
           tx_fixtures(fixture_path('tx.ndjson'));
ok($tx, 'a confirmed fixture with events') or BAIL_OUT('fixtures');
my $raw = $tx->{data_raw};
my $id = $tx->{tx_id};

my $db = new_index(fixture_path('tx.ndjson'));
my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);
my $port = $ng->port;

sub dump_index { return mdb_dump_of($db) }

# the loader on stdin, with a deadline (the valgrind wrapper of
# `make test-valgrind` gets ten times as long)
sub load {
    my ($input, $timeout) = @_;
    my @wrap = split ' ', ($ENV{CHAINDATA_LOADER_WRAPPER} || '');
    return run_cmd([@wrap, build_path('chaindata-load'), '--db', $db],
                   stdin => $input,
                   timeout => (@wrap ? 10 : 1) * $timeout);
}

# a copy of a document under a new id, with members put before its own
sub wide {
    my ($new_id, $members, $d) = @_;
    ($d //= $raw) =~ s/\Q$id\E/$new_id/g;
    $d =~ s/^\{/{$members,/ or die 'not an object';
    return $d;
}

# ---------------------------------------------------------------- wide

# 500,000 members before "events" (6 MB, under the 8 MiB document limit).
# Looking "events" up once per member, as the loader did, made this
# quadratic: about 9 minutes here (50,000 members took 5 s).  It now
# takes well under a second; the 60 s deadline can only be reached by
# quadratic behaviour, not by a slow or busy machine.
{
    my $n = 500_000;
    my $members = join(',', map { sprintf('"m%06d":%d', $_, $_ % 10) }
                                0 .. $n - 1);
    my $new_id = '0x' . ('d' x 64);
    my $doc = wide($new_id, $members);
    my ($code, $out, $err) = load(qq({"kind":"tx","data":$doc}\n), 60);
    is($code, 0, "$n members: loaded within the deadline") or diag($err);

    my $r = http_get($port, "/extended/v1/tx/$new_id");
    is($r->{status}, 200, "$n members: served");
    ok($r->{body} eq wide($new_id, $members, splice_events($raw, 0, 20)),
       "$n members: served in the order given, byte for byte");
    like(substr($r->{body}, 0, 40), qr/^\{"m000000":0,"m000001":1,"m000002":2,/,
         "$n members: the first ones first");
}

# duplicates are still found in wide objects, wherever they are
{
    my $before = dump_index();
    my $members = join(',', map { qq("k$_":$_) } 0 .. 999);
    for my $c (['the last member repeats the first', qq($members,"k0":1), 'k0'],
               ['two in the middle', qq($members,"k500":1,"z":2), 'k500'],
               ['a nested wide object',
                qq("nested":{$members,"k999":[]}), 'k999'])
    {
        my ($name, $extra, $key) = @$c;
        my $input = qq({"kind":"tx","data":) . wide('0x' . ('c' x 64), $extra)
                    . "}\n";
        my ($code, $out, $err) = load($input, 60);
        is($code, 1, "$name: refused");
        like($err, qr/<stdin>:1: .*duplicate member "\Q$key\E"/,
             "$name: the line and the member named") or diag($err);
        ok(dump_index() eq $before, "$name: index unchanged");
    }
}

# ---------------------------------------------------------------- strings

# JSON allows a lone surrogate; JSON.parse keeps it and JSON.stringify
# writes it back as a lowercase \udxxx.  yajl alone made "\ud800" a "?" and
# "\ud800\u00e9" another character.
{
    my %cases = (
        lone_high   => ['"\ud800"', '"\ud800"'],
        lone_low    => ['"a\uDC00b"', '"a\udc00b"'],
        then_e      => ['"\ud800\u00e9"', qq("\\ud800\xc3\xa9")],
        pair        => ['"\uD83D\uDE00"', qq("\xf0\x9f\x98\x80")],
        reversed    => ['"\ude00\ud83d"', '"\ude00\ud83d"'],
        two_highs   => ['"\ud800\ud800x"', '"\ud800\ud800x"'],
        backslash   => ['"\\\\ud800"', '"\\\\ud800"'],
        in_array    => ['["\udfff",{"\ud800":"\udbff"}]',
                        '["\udfff",{"\ud800":"\udbff"}]'],
    );
    my @names = sort keys %cases;
    my $members = join(',', map { qq("s_$_":$cases{$_}[0]) } @names)
                  . ',"\udc00":1';
    my $new_id = '0x' . ('b' x 64);
    my ($code, $out, $err) = load(qq({"kind":"tx","data":)
                                  . wide($new_id, $members) . "}\n", 60);
    is($code, 0, 'lone surrogates: loaded') or diag($err);
    my $r = http_get($port, "/extended/v1/tx/$new_id");
    is($r->{status}, 200, 'lone surrogates: served');
    for my $name (@names) {
        my $want = qq("s_$name":$cases{$name}[1]);
        ok(index($r->{body}, $want) >= 0, "lone surrogates: $name as upstream")
            or diag(substr($r->{body}, 0, 400));
    }
    ok(index($r->{body}, '"\udc00":1') >= 0, 'lone surrogates: in a name');
    ok(eval { Encode::decode('UTF-8', $r->{body},
                             Encode::FB_CROAK | Encode::LEAVE_SRC); 1 },
       'lone surrogates: the body is valid UTF-8 (strict)');
}

# bytes of a surrogate, or an overlong form, are no UTF-8: refused
{
    my $before = dump_index();
    for my $c (["\xed\xa0\x80", 'a surrogate as bytes'],
               ["\xc0\xaf", 'an overlong "/"'],
               ["\\ud800\xed\xbf\xbf", 'after a surrogate escape'])
    {
        my ($bytes, $name) = @$c;
        my $input = qq({"kind":"tx","delete":"0x) . ('a' x 64) . qq("}\n)
                    . qq({"kind":"tx","data":)
                    . wide('0x' . ('a' x 64), qq("s":"$bytes")) . "}\n";
        my ($code, $out, $err) = load($input, 60);
        is($code, 1, "$name: refused");
        like($err, qr/<stdin>:2: .*not valid UTF-8/, "$name: line 2, the reason")
            or diag($err);
        ok(dump_index() eq $before, "$name: index unchanged");
    }
}

is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
$ng->stop;

done_testing();
