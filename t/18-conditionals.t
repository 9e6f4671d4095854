#!/usr/bin/perl
# Conditional requests and redirects, configured as nginx.conf.example
# configures them (gzip on, gzip_vary on): the ETag of a 304 is the one
# the 200 carries (a strong one of its own for the gzip a transaction or a
# rune page is stored as); If-None-Match without
# quotes matches as upstream matches it; the conditional comes before the
# redirect of a transaction id without "0x"; a redirect never leads to
# another host (doc/module.md, "Transactions", doc/api.md "Errors").

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(DEPRECATION_AT rune_locations);

require_build();

# ---------------------------------------------------------------- fixtures

my @files = map { fixture_path($_) }
            qw(tx.ndjson tx-many-events.ndjson runes.ndjson);
my @txs = tx_fixtures(@files);
my ($TX) = grep { ($_->{event_count} // 0) > 30 } @txs;
my ($POOL) = grep { $_->{mempool} } @txs;
ok($TX && $POOL, 'a transaction with many events, one in the mempool')
    or BAIL_OUT('fixtures');
(my $HEX = $TX->{tx_id}) =~ s/^0x//;

my ($RTX) = map { $_->{doc}{tx_id} }
            grep { $_->{kind} eq 'rune_activity' && @{ $_->{doc}{results} } }
            fixture_records(fixture_path('runes.ndjson'));

my $TXP = "/extended/v1/tx/$TX->{tx_id}";
my $RUNEP = "/runes/v1/transactions/$RTX/activity";

my $db = new_index(@files);
my %example = example_config();
# the deprecated rune routes beside the example's chaindata_runes
$example{locations} .= rune_locations();
my $ng = ChainData::Test::Nginx->start(db => $db, %example);
my $port = $ng->port;

sub get { my ($path, %h) = @_; return http_get($port, $path, %h) }

my %GZ = ('Accept-Encoding' => 'gzip');

# ---------------------------------------------------------------- gzip

{
    like($example{http}, qr/^\s*gzip_vary on;/m,
         'nginx.conf.example: gzip_vary on beside gzip on');

    # a transaction: gzip made of its stored pieces, a strong ETag each
    {
        my $plain = get($TXP);
        my $etag = $plain->{headers}{etag};
        (my $getag = $etag) =~ s/"\z/-gz"/;
        my $gz = get($TXP, %GZ);
        is($gz->{headers}{'content-encoding'}, 'gzip', 'tx gzip: gzip');
        is($gz->{headers}{etag}, $getag, 'tx gzip: a strong ETag of its own');
        like($gz->{headers}{vary} // '', qr/^Accept-Encoding\z/,
             'tx gzip: one Vary: Accept-Encoding (gzip_vary on)');
        like($plain->{headers}{vary} // '', qr/^Accept-Encoding\z/,
             'tx plain: Vary: Accept-Encoding');

        for my $inm ($getag, "W/$getag", qq("x", $getag)) {
            my $nm = get($TXP, %GZ, 'If-None-Match' => $inm);
            is($nm->{status}, 304, "tx gzip, If-None-Match $inm: 304");
            is($nm->{headers}{etag}, $getag, '... the gzip ETag, as its 200');
            like($nm->{headers}{vary} // '', qr/^Accept-Encoding\z/,
                 '... Vary');
        }

        # the plain copy is another representation
        my $nm = get($TXP, %GZ, 'If-None-Match' => $etag);
        is($nm->{status}, 200, 'tx gzip, If-None-Match of plain: 200');
        is($nm->{headers}{'content-encoding'}, 'gzip', '... gzip');
        $nm = get($TXP, 'If-None-Match' => $getag);
        is($nm->{status}, 200, 'tx plain, If-None-Match of gzip: 200');
        $nm = get($TXP, 'If-None-Match' => "W/$etag");
        is($nm->{status}, 304, 'tx plain, If-None-Match W/: 304');
        is($nm->{headers}{etag}, $etag, '... the strong ETag, as its 200');

        my $h = http_request($port, 'HEAD', $TXP, %GZ);
        for my $hd ('etag', 'content-encoding', 'vary', 'content-length') {
            is($h->{headers}{$hd}, $gz->{headers}{$hd},
               "tx gzip: HEAD has the $hd of GET");
        }
    }

    # a rune page: gzip made of its stored chunks, a strong ETag each, as
    # a transaction (doc/module.md, "Rune activity and balances")
    for my $path ($RUNEP) {
        my $plain = get($path);
        my $etag = $plain->{headers}{etag};
        like($etag, qr/^"[^"]+"\z/, "$path: a strong ETag");
        (my $getag = $etag) =~ s/"\z/-gz"/;

        my $gz = get($path, %GZ);
        is($gz->{status}, 200, "$path gzip: 200");
        is($gz->{headers}{'content-encoding'}, 'gzip', "$path gzip: gzip");
        like($gz->{headers}{vary} // '', qr/^Accept-Encoding\z/,
             "$path gzip: one Vary: Accept-Encoding");
        is($gz->{headers}{etag}, $getag, "$path gzip: a strong ETag of its own");

        # the 304 carries the ETag the 200 to the same request carries
        for my $inm ($getag, "W/$getag", qq("x", $getag)) {
            my $nm = get($path, %GZ, 'If-None-Match' => $inm);
            is($nm->{status}, 304, "$path gzip, If-None-Match $inm: 304");
            is($nm->{headers}{etag}, $getag, '... the gzip ETag, as its 200');
            is($nm->{headers}{'cache-control'},
               'public, no-cache, must-revalidate', '... Cache-Control');
        }

        my $nm = get($path, 'If-None-Match' => "W/$etag");
        is($nm->{status}, 304, "$path no gzip, If-None-Match W/: 304");
        is($nm->{headers}{etag}, $etag,
           "$path no gzip, 304: the strong ETag, as its 200");

        # the plain copy is another representation
        $nm = get($path, %GZ, 'If-None-Match' => $etag);
        is($nm->{status}, 200, "$path gzip, If-None-Match of plain: 200");
        is($nm->{headers}{'content-encoding'}, 'gzip', '... gzip');
        $nm = get($path, 'If-None-Match' => $getag);
        is($nm->{status}, 200, "$path plain, If-None-Match of gzip: 200");

        my $h = http_request($port, 'HEAD', $path, %GZ);
        for my $hd ('etag', 'content-encoding', 'vary', 'content-length') {
            is($h->{headers}{$hd}, $gz->{headers}{$hd},
               "$path gzip: HEAD has the $hd of GET");
        }
    }

    my $nm = get($RUNEP, %GZ,
                 'If-None-Match' => get($RUNEP, %GZ)->{headers}{etag});
    is($nm->{status}, 304, 'rune gzip 304');
    is($nm->{headers}{deprecation}, DEPRECATION_AT, 'rune 304: deprecated');
}

# ---------------------------------------------------------------- If-None-Match without quotes

{
    for my $path ($TXP, "$TXP?event_offset=20&event_limit=7",
                  "/extended/v1/tx/$POOL->{tx_id}", $RUNEP, "$RUNEP?limit=3")
    {
        my $etag = get($path)->{headers}{etag};
        (my $text = $etag) =~ s/^"|"\z//g;
        for my $inm ($text, " $text ", qq("x", $text), "$text, \"x\"",
                     qq("x",$text,"y"))
        {
            my $r = get($path, 'If-None-Match' => $inm);
            is($r->{status}, 304, "$path: If-None-Match: $inm: 304");
            is($r->{headers}{etag}, $etag, "$path: ... with its ETag");
        }
        is(http_request($port, 'HEAD', $path,
                        'If-None-Match' => $text)->{status}, 304,
           "$path: HEAD, If-None-Match: $text: 304");

        # upstream strips W/ only from a quoted tag
        for my $inm ("W/$text", "x$text", "${text}x", substr($text, 1),
                     '"' . $text)
        {
            is(get($path, 'If-None-Match' => $inm)->{status}, 200,
               "$path: If-None-Match: $inm: 200");
        }
        # as before: quoted, weak, "*"
        for my $inm ($etag, "W/$etag", '*', qq("x", *)) {
            is(get($path, 'If-None-Match' => $inm)->{status}, 304,
               "$path: If-None-Match: $inm: still 304");
        }
    }
}

# ---------------------------------------------------------------- the conditional before the redirect

{
    my $p = "/extended/v1/tx/$HEX";
    my $e = get($TXP)->{headers}{etag};
    my $e5 = get("$TXP?event_limit=5")->{headers}{etag};
    isnt($e, $e5, 'another page, another ETag');

    # [query, If-None-Match, name, the ETag of the 304]
    my @not_modified = (
        ['', $e, 'the ETag of the 0x path', $e],
        ['', "W/$e", 'its weak form', $e],
        ['', '*', '*', $e],
        ['?event_limit=5', $e5, 'the ETag of that page', $e5],
        ['', substr($e, 1, -1), 'without quotes', $e],
        ['?event_limit=5&foo=1', qq("x", $e5), 'in a list', $e5],
    );
    for my $c (@not_modified) {
        my ($q, $inm, $name, $etag) = @$c;
        for my $method ('GET', 'HEAD') {
            my $r = http_request($port, $method, "$p$q",
                                 'If-None-Match' => $inm);
            is($r->{status}, 304, "no 0x, $method $q, $name: 304");
            ok(!defined $r->{headers}{location}, '... no Location');
            is($r->{headers}{etag}, $etag, '... the ETag of the document');
            is($r->{headers}{'cache-control'},
               'public, no-cache, must-revalidate', '... its Cache-Control');
        }
    }
    (my $eg = $e) =~ s/"\z/-gz"/;
    my $w = get($p, %GZ, 'If-None-Match' => "W/$eg");
    is($w->{status}, 304, 'no 0x, gzip, weak: 304');
    is($w->{headers}{etag}, $eg, '... the gzip ETag, as the 200');
    is(get($p, %GZ, 'If-None-Match' => $e)->{status}, 302,
       'no 0x, gzip, the plain ETag: the redirect');

    my @redirect = (
        ['', '"nope"', 'another tag'],
        ['?event_limit=5', $e, 'the ETag of another page'],
        ['?event_limit=500', $e, 'a query the document refuses'],
        ['?event_limit=x', '*', 'a query the document refuses, *'],
    );
    for my $c (@redirect) {
        my ($q, $inm, $name) = @$c;
        my $r = get("$p$q", 'If-None-Match' => $inm);
        is($r->{status}, 302, "no 0x, $name: 302");
        is($r->{headers}{location}, "/extended/v1/tx/0x$HEX$q",
           "no 0x, $name: Location");
    }
    my $unknown = substr(random_tx_id(), 2);
    my $r = get("/extended/v1/tx/$unknown", 'If-None-Match' => '*');
    is($r->{status}, 302, 'no 0x, unknown, *: 302 (nothing to match)');
}

# ---------------------------------------------------------------- redirects stay on this host

$ng->stop;
$ng = ChainData::Test::Nginx->start(db => $db,
    http => "    merge_slashes off;\n",
    locations => <<'EOF');
        location / {
            chaindata_tx;
        }
        location /ordinals/ {
            chaindata_migration;
            chaindata_migration_base https://api.replacement.example;
            chaindata_migration_redirect on;
        }
EOF
$port = $ng->port;

{
    my @cases = (
        ["//evil.example/$HEX", '/evil.example/0x', 'two slashes'],
        ["///evil.example/$HEX", '/evil.example/0x', 'three slashes'],
        ["/%2F/evil.example/$HEX", '/evil.example/0x', 'an encoded slash'],
        # a backslash, which browsers take for a slash, goes encoded
        ["/\\evil.example/$HEX", '/%5Cevil.example/0x', 'a backslash'],
        ["/%5C/evil.example/$HEX", '/%5C/evil.example/0x',
         'an encoded backslash'],
        ["/\\/\\evil.example/$HEX", '/%5C/%5Cevil.example/0x',
         'both, twice'],
        ["/a//evil.example/$HEX", '/a//evil.example/0x', 'slashes later on'],
    );
    for my $c (@cases) {
        my ($path, $want, $name) = @$c;
        my $r = get($path);
        is($r->{status}, 302, "$name: 302");
        is($r->{headers}{location}, "$want$HEX", "$name: a path of this host");
        unlike($r->{headers}{location} // '', qr{^/[/\\]},
               "$name: no Location of another host");
        my $f = get($r->{headers}{location} // '/');
        is($f->{status}, 200, "$name: the Location serves the transaction");
    }

    my $r = get('/ordinals/v1/stats');
    is($r->{status}, 308, 'migration: 308');
    is($r->{headers}{location}, 'https://api.replacement.example/stats',
       'migration: the absolute URL of the replacement');
}

$ng->stop;

done_testing();
