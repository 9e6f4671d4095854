#!/usr/bin/perl
# The rune routes served gzip from their stored chunks (doc/module.md, "Rune
# activity and balances"; lmdb-schema/runes.md): every page of every fixture list, at
# offsets and limits aligned on the chunks of 20, cut at either end or
# both, past the end, and the empty list, lists of 20 and 21 entries (the
# first chunk inside the header), is the expected plain page, and
# its gzip answer inflates to exactly it; Vary, Content-Length, HEAD,
# Accept-Encoding q-values, one strong ETag per encoding and its 304s;
# nginx's own gzip (on, as nginx.conf.example has it, or off) never
# compresses a second time; a chunk damaged in content is a 500 either way.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Digest::SHA qw(sha256_hex);
use ChainData::Test qw(:all);
use ChainData::Runes qw(:all);

require_build();

my $fx = fixture_path('runes.ndjson');
my $L = rune_lists($fx);
my $P = rune_paths();

my $db = new_index($fx);
my %example = example_config();
my $on = ChainData::Test::Nginx->start(db => $db, %example);
my $off = ChainData::Test::Nginx->start(db => $db, http => "gzip off;\n",
                                        locations => rune_locations());

my %GZ = ('Accept-Encoding' => 'gzip');

# every list, an unknown one of each route (the empty list) and a deleted one
my @lists;
for my $set (qw(activity balances)) {
    my @keys = sort keys %{ $L->{$set} };
    # an unknown list, and one a later line deleted (the generator's)
    push @keys, $set eq 'activity' ? ('ff' x 32, sha256_hex('rune tx deleted'))
                                   : '1BoatSLRHtKNngkdXEeobR76b53LETtpyT';
    for my $key (@keys) {
        my $param = $set eq 'balances' ? ($L->{address}{$key} // $key) : $key;
        push @lists, [$set, $key, $P->{$set}->($param)];
    }
}
ok(@lists >= 15, scalar(@lists) . ' lists, empty ones among them');
ok(!exists $L->{activity}{sha256_hex('rune tx deleted')}, 'a deleted list');
ok((grep { @{ list_of($L, @$_[0, 1]) } > 100 } @lists) >= 2,
   'lists of more than five chunks');

my @pages = ([0, 20], [20, 20], [0, 60], [20, 60], [40, 40], [7, 50],
             [19, 2], [21, 60], [39, 1], [3, 7], [0, 1], [59, 60], [1, 20],
             [120, 60], [129, 20], [140, 60], [149, 60], [150, 20],
             [1000, 5]);

for my $ng ($on, $off) {
    my $port = $ng->port;
    my $name = $ng == $on ? 'gzip on' : 'gzip off';
    my ($n, $bad) = (0, 0);
    for my $l (@lists) {
        my ($set, $key, $path) = @$l;
        my $texts = list_of($L, $set, $key);
        for my $pg (undef, @pages) {
            my ($o, $lim) = $pg ? @$pg : (0, 20);
            my $q = $pg ? "?offset=$o&limit=$lim" : '';
            my $want = expected_page($texts, $o, $lim);
            my $plain = http_get($port, "$path$q");
            my $gz = http_get($port, "$path$q", %GZ);
            my $body = gunzip_body($gz->{body});
            my $pe = $plain->{headers}{etag} // '';
            my $ge = $gz->{headers}{etag} // '';
            $n++;
            my $good = $plain->{status} == 200 && $gz->{status} == 200
                && $plain->{body} eq $want
                && !defined $plain->{headers}{'content-encoding'}
                && ($gz->{headers}{'content-encoding'} // '') eq 'gzip'
                && defined $body && $body eq $want
                && $gz->{headers}{'content-length'} == length $gz->{body}
                && ($gz->{headers}{vary} // '') eq 'Accept-Encoding'
                && ($plain->{headers}{vary} // '') eq 'Accept-Encoding'
                && $pe =~ /^"[0-9a-f]{32}-/ && $ge eq substr($pe, 0, -1) . '-gz"';
            $bad++, diag("$name $path$q") unless $good;
        }
    }
    is($bad, 0, "$name: $n pages of every list: plain as stored, gzip "
                . 'inflates once to it, one Vary, an ETag per encoding');
}

my $port = $on->port;
my ($big) = grep { $_->[0] eq 'activity' && @{ list_of($L, @$_[0, 1]) } == 150 } @lists;
my $path = "$big->[2]?offset=7&limit=50";
my $plain = http_get($port, $path);
my $gz = http_get($port, $path, %GZ);

# Accept-Encoding with q-values, as on the transaction route
for my $c (['gzip', 1], ['x-gzip;q=0.5', 1], ['*', 1], ['gzip;q=0', 0],
           ['gzip;q=0, *', 0], ['identity', 0], ['', 0])
{
    my ($ae, $want) = @$c;
    my $r = http_get($port, $path, 'Accept-Encoding' => $ae);
    is($r->{headers}{'content-encoding'} // '', $want ? 'gzip' : '',
       "Accept-Encoding: '$ae': " . ($want ? 'gzip' : 'plain'));
    is($want ? gunzip_body($r->{body}) : $r->{body}, $plain->{body}, '... the same page');
}

# HEAD: the headers of GET, no body
for my $h (\%GZ, {}) {
    my $get = http_get($port, $path, %$h);
    my $head = http_request($port, 'HEAD', $path, %$h);
    is($head->{status}, 200, 'HEAD: 200');
    is($head->{body}, '', 'HEAD: no body');
    for my $hd (qw(content-length content-encoding etag vary deprecation)) {
        is($head->{headers}{$hd}, $get->{headers}{$hd}, "HEAD: the $hd of GET");
    }
}

# each encoding has its strong ETag and its own 304s
{
    my ($pe, $ge) = ($plain->{headers}{etag}, $gz->{headers}{etag});
    isnt($pe, $ge, 'the ETags of the two encodings differ');
    for my $c ([$ge, \%GZ, 304, $ge], [$pe, {}, 304, $pe],
               [$ge, {}, 200, $pe], [$pe, \%GZ, 200, $ge],
               ["W/$ge", \%GZ, 304, $ge], ["\"x\", $ge", \%GZ, 304, $ge],
               ['*', \%GZ, 304, $ge])
    {
        my ($inm, $h, $status, $etag) = @$c;
        for my $ng ($on, $off) {
            my $r = http_get($ng->port, $path, %$h, 'If-None-Match' => $inm);
            my $what = "If-None-Match: $inm, " . (%$h ? 'gzip' : 'plain')
                       . ($ng == $on ? '' : ' (gzip off)');
            is($r->{status}, $status, "$what: $status");
            is($r->{headers}{etag}, $etag, "$what: the ETag of its encoding");
            is($r->{headers}{vary}, 'Accept-Encoding', "$what: Vary");
            if ($status == 304) {
                is($r->{body}, '', "$what: no body");
            } else {
                my $body = %$h ? gunzip_body($r->{body}) : $r->{body};
                is($body, $plain->{body}, "$what: the page");
            }
        }
    }
}

# the gzip answer is made of the stored pieces: smaller than the plain one
ok(length($gz->{body}) < length($plain->{body}) * 0.8,
   'a cut page of 50 entries: ' . length($gz->{body}) . ' bytes gzip, '
   . length($plain->{body}) . ' plain');
{
    my $aligned = "$big->[2]?offset=20&limit=40";
    my $a_plain = http_get($port, $aligned);
    my $a_gz = http_get($port, $aligned, %GZ);
    ok(length($a_gz->{body}) < length($a_plain->{body}) * 0.6,
       'an aligned page of 40 entries: ' . length($a_gz->{body})
       . ' bytes gzip, ' . length($a_plain->{body}) . ' plain');
}

# the first chunk inside the list's header when the two fit LMDB's node
# limit (lmdb-schema/runes.md): balances of 20 entries (one chunk, inline:
# no entry record) and of 21 (chunk 0 inline, chunk 1 under the entries'
# key); activity of 21 (chunks of 20 such entries are over 2 KB: both
# under the entries' key); every page across the chunks' boundary
{
    my @bal = sort { @{ list_of($L, 'balances', $a) }
                     <=> @{ list_of($L, 'balances', $b) } }
              grep { @{ list_of($L, 'balances', $_) } > 21 }
              keys %{ $L->{balances} };
    my ($act) = grep { @{ list_of($L, 'activity', $_) } > 21 }
                keys %{ $L->{activity} };
    ok(@bal >= 2 && $act, 'two balance lists and an activity list to cut');
    my @cut = (['balances', $bal[0], 20, 1], ['balances', $bal[1], 21, 1],
               ['activity', $act, 21, 0]);
    my $nd = '';
    for my $c (@cut) {
        my ($set, $key, $n) = @$c;
        my @e = @{ list_of($L, $set, $key) }[0 .. $n - 1];
        $nd .= $set eq 'balances'
             ? balances_line($L->{address}{$key}, @e)
             : activity_line($key, @e);
    }
    my $file = temp_dir() . '/twenty.ndjson';
    spew($file, $nd);
    my $l2 = rune_lists($file);
    my $tdb = new_index($file);
    my $ng = ChainData::Test::Nginx->start(db => $tdb, %example);
    my ($n, $bad) = (0, 0);
    for my $c (@cut) {
        my ($set, $key, $len, $inline) = @$c;
        my $db = $set eq 'balances' ? 'rune_balances' : 'rune_activity';
        my $hk = unpack('H*', $set eq 'balances'
                              ? chr(length $key) . $key : pack('H*', $key));
        my %head = mdb_dump_pairs(mdb_dump_of($tdb, $db));
        my %ent = mdb_dump_pairs(mdb_dump_of($tdb, $set eq 'balances'
                             ? 'rune_balance_entry' : 'rune_activity_entry'));
        my $what = "$set of $len";
        is(hex(substr($head{$hk} // '', 2, 2)), $inline,
           "$what: chunk 0 " . ($inline ? 'inside' : 'not inside')
           . ' the header');
        is(join(',', sort grep { /^$hk/ } keys %ent),
           join(',', map { sprintf('%s%08x', $hk, $_) }
                     grep { $_ >= $inline } 0 .. ($len - 1) / 20),
           "$what: the other chunks under the entries' key");
        my $path = $P->{$set}->($set eq 'balances' ? $L->{address}{$key}
                                                    : $key);
        my $t = list_of($l2, $set, $key);
        for my $pg (undef, [0, 20], [19, 2], [20, 1], [20, 20], [0, 21],
                    [1, 20], [21, 5], [0, 1], [0, 60])
        {
            my ($o, $lim) = $pg ? @$pg : (0, 20);
            my $q = $pg ? "?offset=$o&limit=$lim" : '';
            my $want = expected_page($t, $o, $lim);
            my $plain = http_get($ng->port, "$path$q");
            my $gz = http_get($ng->port, "$path$q", %GZ);
            my $body = gunzip_body($gz->{body});
            $n++;
            my $good = @$t == $len && $plain->{status} == 200
                && $plain->{body} eq $want && defined $body && $body eq $want;
            $bad++, diag("$what: $q") unless $good;
        }
    }
    is($bad, 0, "lists of 20 and 21: $n pages, plain as stored, gzip "
                . 'inflates to it');
}

# a chunk of a list whose piece's bytes are random bytes of their length
# (its second half, but the piece's final block), the layout intact: a
# page that is the chunk whole (its piece copied into a gzip answer, not
# inflated) or cuts it is a 500 plain and gzip alike, logged as a damaged
# piece; a page of the other chunks served
{
    my $key = "$big->[1]00000002";
    my %ent = mdb_dump_pairs(mdb_dump_of($db, 'rune_activity_entry'));
    my $v = $ent{$key} // '';
    my $bytes = length($v) / 2;
    my $half = int($bytes / 2);
    ok($half > 100, "chunk 2 of the list of 150 entries: $bytes bytes");
    substr($v, 2 * $half, 2 * ($bytes - 2 - $half)) =
        random_hex($bytes - 2 - $half, "rune chunk $key");
    my $ddb = index_with_values($db, 'rune_activity_entry', { $key => $v });
    my $ng = ChainData::Test::Nginx->start(db => $ddb, %example);
    $ng->expect_log(qr/a stored piece/);
    for my $c (['?offset=40&limit=20', 500], ['?offset=45&limit=5', 500],
               ['?offset=20&limit=40', 500], ['?offset=60&limit=20', 200])
    {
        my ($q, $want) = @$c;
        for my $h ({}, \%GZ) {
            my $r = http_get($ng->port, "$big->[2]$q", %$h);
            is($r->{status}, $want, "random chunk: $q" . (%$h ? ' (gzip)' : '')
                                    . ": $want");
        }
    }
    $ng->stop;
    my @logged = $ng->error_log =~ /\[alert\].*(a stored piece.*damaged)/g;
    my %lines = map { $_ => 1 } @logged;
    ok(@logged == 6 && keys %lines == 1, 'random chunk: each 500 logged at '
       . 'alert as a damaged piece, the same line plain and gzip');
}

# errors are not made of chunks: nginx's gzip may compress them, once
{
    my $r = http_get($port, '/runes/v1/transactions/xyz/activity', %GZ);
    is($r->{status}, 400, 'a bad tx_id: 400');
    my $body = ($r->{headers}{'content-encoding'} // '') eq 'gzip'
             ? gunzip_body($r->{body}) : $r->{body};
    like($body, qr/^\{"statusCode":400,/, '... a JSON body, compressed at most once');
}

done_testing();
