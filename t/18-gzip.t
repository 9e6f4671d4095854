#!/usr/bin/perl
# Transactions served gzip from their stored pieces (README,
# "chaindata_tx;"): every gzipped answer inflates to exactly the plain one,
# Accept-Encoding is read with its q-values, HEAD and Content-Length
# match GET, and nginx's own gzip never compresses a second time (gzip on,
# as nginx.conf.example has it, and gzip off with gzip_vary off).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use IO::Uncompress::Gunzip qw(gunzip $GunzipError);
use ChainData::Test qw(:all);

require_build();

my @files = map { fixture_path($_) } qw(tx.ndjson tx-many-events.ndjson);
my @txs = tx_fixtures(@files);
ok(@txs > 5, 'transactions') or BAIL_OUT('fixtures');

my $db = new_index(@files);
my %example = example_config();
my $on = ChainData::Test::Nginx->start(db => $db, %example);
my $off = ChainData::Test::Nginx->start(
    db => $db,
    http => "gzip off;\n",
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);

my %GZ = ('Accept-Encoding' => 'gzip');

sub inflate {
    my ($z) = @_;
    my $out;
    gunzip(\$z => \$out, Transparent => 0) or return undef;
    return $out;
}

# every transaction, pages, function_args left out: gzip inflates to plain
for my $ng ($on, $off) {
    my $port = $ng->port;
    my $name = $ng == $on ? 'gzip on' : 'gzip off';
    my ($n, $bad) = (0, 0);
    for my $tx (@txs) {
        for my $q ('', '?event_limit=1', '?event_offset=3&event_limit=7',
                   '?exclude_function_args=true', '?event_offset=100000')
        {
            my $path = "/extended/v1/tx/$tx->{tx_id}$q";
            my $plain = http_get($port, $path);
            my $gz = http_get($port, $path, %GZ);
            $n++;
            my $body = inflate($gz->{body});
            my $good = $plain->{status} == 200 && $gz->{status} == 200
                && !defined $plain->{headers}{'content-encoding'}
                && ($gz->{headers}{'content-encoding'} // '') eq 'gzip'
                && defined $body && $body eq $plain->{body}
                && $gz->{headers}{'content-length'} == length $gz->{body}
                && ($gz->{headers}{vary} // '') eq 'Accept-Encoding'
                && ($plain->{headers}{vary} // '') eq 'Accept-Encoding';
            $bad++, diag("$name $path") unless $good;
        }
    }
    is($bad, 0, "$name: $n gzip answers inflate once to exactly the plain "
                . 'one, with one Vary');
}

my $port = $on->port;
my ($TX) = grep { ($_->{event_count} // 0) > 30 } @txs;
my $P = "/extended/v1/tx/$TX->{tx_id}";
my $plain = http_get($port, $P);

# Accept-Encoding, with q-values (RFC 9110, 12.5.3)
my @ae = (
    ['gzip', 1], ['GZIP', 1], ['x-gzip', 1], ['deflate, gzip', 1],
    ['gzip;q=0.5', 1], ['gzip; q=1.000', 1], ['gzip ;q=0.001', 1],
    ['*', 1], ['*;q=0.1', 1], ['br, *', 1],
    ['gzip;q=0', 0], ['gzip;q=0.000', 0], ['gzip;q=0, *', 0],
    ['*;q=0', 0], ['identity', 0], ['deflate, br', 0], ['', 0],
    ['gzip;q=2', 0], ['gzip;q=0.0001', 0], ['gzipx', 0],
    ['*;q=0, gzip', 1], ['identity;q=0, gzip;q=0.2', 1],
);
for my $c (@ae) {
    my ($ae, $want) = @$c;
    my $r = http_get($port, $P, 'Accept-Encoding' => $ae);
    my $enc = $r->{headers}{'content-encoding'} // '';
    is($enc, $want ? 'gzip' : '', "Accept-Encoding: '$ae': "
                                  . ($want ? 'gzip' : 'plain'));
    my $body = $want ? inflate($r->{body}) : $r->{body};
    is($body, $plain->{body}, '... the same document');
}

# HEAD: the headers of GET, no body
for my $h (\%GZ, {}) {
    my $get = http_get($port, $P, %$h);
    my $head = http_request($port, 'HEAD', $P, %$h);
    is($head->{status}, 200, 'HEAD: 200');
    is($head->{body}, '', 'HEAD: no body');
    for my $hd (qw(content-length content-encoding etag vary)) {
        is($head->{headers}{$hd}, $get->{headers}{$hd}, "HEAD: the $hd of GET");
    }
}

# a 404 is not made of pieces: nginx's gzip may compress it, once
{
    my $r = http_get($port, '/extended/v1/tx/0x' . ('0' x 64), %GZ);
    is($r->{status}, 404, 'unknown transaction: 404');
    my $body = ($r->{headers}{'content-encoding'} // '') eq 'gzip'
             ? inflate($r->{body}) : $r->{body};
    like($body, qr/^\{"statusCode":404,/, '... a JSON body, compressed at most once');
}

done_testing();
