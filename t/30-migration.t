#!/usr/bin/perl
# The deprecated Bitcoin-layer endpoints (specification 9.2, 9.3;
# upstream-behaviour.md section 6): chaindata_migration answers them with
# the way out.  Every row of both tables with and without base URLs, with
# unsupported query parameters and with redirects on; the table endpoint;
# unmatched paths; hostile path parameters; configuration.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $JSON_CT    = 'application/json; charset=utf-8';
my $DEPRECATED = '@1773014400';
my $CACHE      = 'public, max-age=3600';
my $GONE_MSG   = 'This API has been deprecated and is no longer available.';
my $BASE       = 'https://api.replacement.example/ord';
my $BASE_BRC20 = 'https://brc20.replacement.example';
my $SUCCESSOR  = 'https://docs.replacement.example/migrate';

my $ID     = '6fb976ab49dcec017f1e201e84395983204ae1a7c2abf7ced0a85d692e442799i0';
my $HASH   = '0000000000000000000298f9c4d4f0e7e1e57ee3b5a4e4b7f1f1e8a2d4e43f5c';
my $HEIGHT = '767430';
my $COLL   = 'bitcoin-frogs';
my $TICK   = 'ordi';
my $ADDR   = 'bc1pxaneaf3w4d27hl2y93fuft2xk6m4u3wc4rafevc6slgd7f5tq2dqyfgy6q';

# ------------------------------------------------------------ the tables
#
# Written from the specification, independently of the module: path (after
# the prefix), its query parameters, replacement template (undef: none),
# the base it is served from, what the replacement supports / ignores,
# the "changes" codes (doc/module.md, "Deprecated Bitcoin-layer endpoints"), whether a redirect fits, the
# differences column verbatim, and a sample request with its parameters.

my @ROWS = (
    {
        section => '9.2', path => '/inscriptions',
        query => [qw(limit offset after before sat_ordinal_range content_type
                     content_length_range tag)],
        repl => '/inscriptions', base => 'base',
        supported => [qw(limit offset after content_type)], ignored => [],
        dropped => [qw(before sat_ordinal_range content_length_range tag)],
        changes => ['query_unsupported'], redirect => 0,
        text => 'service params: limit (default 20, max 100), offset, after, '
            . 'before, sat_ordinal_range, content_type, content_length_range, '
            . 'tag. Replacement supports limit, offset, after, content_type '
            . 'only; no before, sat_ordinal_range, content_length_range, tag',
        req => 'inscriptions', params => {}, repl_req => '/inscriptions',
    },
    {
        section => '9.2', path => '/inscriptions/{inscriptionId}', query => [],
        repl => '/inscriptions/{inscriptionId}', base => 'base',
        supported => [], ignored => [], dropped => [],
        changes => [], redirect => 1, text => 'none',
        req => "inscriptions/$ID", params => { inscriptionId => $ID },
        repl_req => "/inscriptions/$ID",
    },
    {
        section => '9.2', path => '/inscriptions/{inscriptionId}/content',
        query => [], repl => '/inscriptions/{inscriptionId}/content',
        base => 'base', supported => [], ignored => [], dropped => [],
        changes => ['raw_content'], redirect => 1,
        text => 'raw content; MIME type must be handled',
        req => "inscriptions/$ID/content", params => { inscriptionId => $ID },
        repl_req => "/inscriptions/$ID/content",
    },
    {
        section => '9.2', path => '/inscriptions/{inscriptionId}/sat',
        query => [], repl => undef, base => 'base',
        supported => [], ignored => [], dropped => [],
        changes => ['no_replacement'], redirect => 0,
        text => "replacement's inscription details include sat_ordinal only",
        alt => '/inscriptions/{inscriptionId}', alt_req => "/inscriptions/$ID",
        req => "inscriptions/$ID/sat", params => { inscriptionId => $ID },
    },
    {
        section => '9.2', path => '/inscriptions/block-height/{blockHeight}',
        query => [qw(limit offset)],
        repl => '/inscriptions/block/{blockHeight}', base => 'base',
        supported => [qw(limit offset)], ignored => [], dropped => [],
        changes => ['path'], redirect => 0,
        text => 'path segment differs; limit and offset supported',
        req => "inscriptions/block-height/$HEIGHT",
        params => { blockHeight => $HEIGHT },
        repl_req => "/inscriptions/block/$HEIGHT",
    },
    {
        section => '9.2', path => '/inscriptions/block-hash/{blockHash}',
        query => [qw(limit offset)],
        repl => '/inscriptions/block/{blockHash}', base => 'base',
        supported => [qw(limit offset)], ignored => [], dropped => [],
        changes => ['path'], redirect => 0,
        text => 'path segment differs; pagination supported',
        req => "inscriptions/block-hash/$HASH", params => { blockHash => $HASH },
        repl_req => "/inscriptions/block/$HASH",
    },
    {
        section => '9.2', path => '/collections', query => [qw(limit offset)],
        repl => '/collections', base => 'base',
        supported => [qw(limit offset)], ignored => [], dropped => [],
        changes => [], redirect => 1,
        text => 'limit (default 20, max 100), offset',
        req => 'collections', params => {}, repl_req => '/collections',
    },
    {
        section => '9.2', path => '/collections/{collectionId}', query => [],
        repl => '/collections/{collectionId}', base => 'base',
        supported => [], ignored => [], dropped => [],
        changes => [], redirect => 1, text => 'none',
        req => "collections/$COLL", params => { collectionId => $COLL },
        repl_req => "/collections/$COLL",
    },
    {
        section => '9.2', path => '/collections/{collectionId}/inscriptions',
        query => [qw(limit offset)],
        repl => '/collections/{collectionId}/inscriptions', base => 'base',
        supported => [qw(limit offset)], ignored => [], dropped => [],
        changes => [], redirect => 1, text => 'limit, offset',
        req => "collections/$COLL/inscriptions",
        params => { collectionId => $COLL },
        repl_req => "/collections/$COLL/inscriptions",
    },
    {
        section => '9.2', path => '/stats', query => [],
        repl => '/stats', base => 'base',
        supported => [], ignored => [], dropped => [],
        changes => [], redirect => 1, text => 'none',
        req => 'stats', params => {}, repl_req => '/stats',
    },
    {
        section => '9.3', path => '/brc-20/tokens', query => [qw(limit offset)],
        repl => undef, base => 'base',
        supported => [], ignored => [], dropped => [qw(limit offset)],
        changes => ['no_replacement'], redirect => 0,
        text => 'no global token list',
        req => 'brc-20/tokens', params => {},
    },
    {
        section => '9.3', path => '/brc-20/tokens/{ticker}', query => [],
        repl => '/v1/brc20/ticker/{ticker}', base => 'base',
        supported => [], ignored => [], dropped => [],
        changes => ['path', 'price_data'], redirect => 0,
        text => 'replacement adds price data',
        req => "brc-20/tokens/$TICK", params => { ticker => $TICK },
        repl_req => "/v1/brc20/ticker/$TICK",
    },
    {
        section => '9.3', path => '/brc-20/tokens/{ticker}/holders',
        query => [qw(limit offset)], repl => undef, base => 'base',
        supported => [], ignored => [], dropped => [qw(limit offset)],
        changes => ['no_replacement'], redirect => 0,
        text => 'no holder list',
        req => "brc-20/tokens/$TICK/holders", params => { ticker => $TICK },
    },
    {
        section => '9.3', path => '/brc-20/tokens/{ticker}/events',
        query => [qw(limit offset event_type)], repl => undef, base => 'base',
        supported => [], ignored => [],
        dropped => [qw(limit offset event_type)],
        changes => ['no_replacement'], redirect => 0,
        text => 'no per-token event history',
        req => "brc-20/tokens/$TICK/events", params => { ticker => $TICK },
    },
    {
        section => '9.3', path => '/brc-20/balances/{address}',
        query => [qw(ticker limit offset)],
        repl => '/v1/ordinals/address/{address}/brc20', base => 'brc20',
        supported => [], ignored => [qw(limit offset)], dropped => ['ticker'],
        changes => [qw(path base_url query_unsupported query_ignored
                       full_list)],
        redirect => 0,
        text => 'confirmed balances per ticker; limit and offset accepted but '
            . 'currently ignored, the full list is returned; base URL and '
            . 'path change',
        req => "brc-20/balances/$ADDR", params => { address => $ADDR },
        repl_req => "/v1/ordinals/address/$ADDR/brc20",
    },
);

my @EXTRAS = (
    { name => 'mint', operations => [qw(estimate order execute)],
      text => 'mint (estimate, order, execute)' },
    { name => 'deploy', operations => ['estimate'],
      text => 'deploy (estimate and related)' },
    { name => 'swap_quote', operations => ['quote'], text => 'swap-quote' },
);
my $EXTRAS_TEXT = 'The replacement provider additionally offers mint '
    . '(estimate, order, execute), deploy (estimate and related) and '
    . 'swap-quote endpoints that the service lacks.';

my @GONE_KEYS = qw(statusCode error message deprecation endpoint replacement
                   alternative differences unsupported_query ignored_query);

# ------------------------------------------------ the tables vs the spec

SKIP: {
    my $spec = repo_root() . '/../shared/spec/chain-data-service.md';
    skip 'specification not found beside the repository', 1 + 3 * @ROWS
        unless -f $spec;

    my @spec_rows;
    for my $line (split /\n/, slurp($spec)) {
        next unless $line =~ /^\| GET /;
        my (undef, $svc, $repl, $diff) = split /\s*\|\s*/, $line;
        $svc =~ s/^GET //;
        $svc =~ s/ \(.*\)$//;
        $svc =~ s{^/ordinals}{};
        push @spec_rows, { path => $svc, repl => $repl, text => $diff };
    }
    @spec_rows = grep { $_->{path} =~ m{^/(inscriptions|collections|stats|brc-20)} }
        @spec_rows;
    is(scalar @spec_rows, scalar @ROWS, 'spec: as many rows as the tables');

    for my $i (0 .. $#ROWS) {
        my ($row, $s) = ($ROWS[$i], $spec_rows[$i] || {});
        (my $path = $row->{path}) =~ s/\{[^}]*\}/{}/g;
        (my $spath = $s->{path} // '') =~ s/\{[^}]*\}/{}/g;
        is($path, $spath, "spec row $i: service path $row->{path}");
        my $want = !defined $row->{repl} ? 'none'
            : $row->{repl} eq $row->{path} && $s->{repl} eq 'same path'
            ? 'same path' : "GET $row->{repl}";
        is($s->{repl}, $want, "spec row $i: replacement");
        is($s->{text}, $row->{text}, "spec row $i: differences text");
    }
}

# ------------------------------------------------------------ helpers

sub plain {
    my ($v) = @_;
    if (ref $v eq 'HASH') { return { map { $_ => plain($v->{$_}) } keys %$v } }
    if (ref $v eq 'ARRAY') { return [map { plain($_) } @$v] }
    if (JSON::PP::is_bool($v)) { return $v ? 1 : 0 }
    return $v;
}

sub decode_ok {
    my ($r, $name) = @_;
    my $doc = eval { json_decode($r->{body}) };
    ok($doc, "$name: body is JSON") or diag($@, $r->{raw});
    return plain($doc);
}

sub top_keys {
    my ($body) = @_;
    return [map { $_->{key} } eval { json_members($body, 0) }];
}

sub base_of {
    my ($row, %o) = @_;
    return $row->{base} eq 'brc20' ? $o{base_brc20} : $o{base};
}

sub expected_gone {
    my ($row, %o) = @_;
    my $base = base_of($row, %o);
    return {
        statusCode => 410, error => 'Gone', message => $GONE_MSG,
        deprecation => { announced => '2026-02-06', effective => '2026-03-09' },
        endpoint => {
            section => $row->{section}, method => 'GET', path => $row->{path},
            params => $o{params} || $row->{params}, query => $row->{query},
        },
        replacement => !defined $row->{repl} ? undef : {
            method => 'GET', path => $o{repl_req} || $row->{repl_req},
            template => $row->{repl},
            url => $base ? $base . ($o{repl_req} || $row->{repl_req}) : undef,
            query => $row->{supported},
        },
        alternative => !$row->{alt} ? undef : {
            method => 'GET', path => $row->{alt_req},
            url => $o{base} ? $o{base} . $row->{alt_req} : undef,
            field => 'sat_ordinal',
        },
        differences => {
            changes => $row->{changes}, unsupported_query => $row->{dropped},
            ignored_query => $row->{ignored}, text => $row->{text},
        },
        unsupported_query => $o{unsupported} || [],
        ignored_query => $o{ignored} || [],
    };
}

sub expected_table_row {
    my ($row, %o) = @_;
    my $base = base_of($row, %o);
    return {
        endpoint => {
            section => $row->{section}, method => 'GET', path => $row->{path},
            query => $row->{query},
        },
        replacement => !defined $row->{repl} ? undef : {
            method => 'GET', path => $row->{repl},
            url => $base ? $base . $row->{repl} : undef,
            query => $row->{supported},
        },
        alternative => !$row->{alt} ? undef : {
            method => 'GET', path => $row->{alt},
            url => $o{base} ? $o{base} . $row->{alt} : undef,
            field => 'sat_ordinal',
        },
        differences => {
            changes => $row->{changes}, unsupported_query => $row->{dropped},
            ignored_query => $row->{ignored}, text => $row->{text},
        },
        redirect => $row->{redirect},
    };
}

sub successor_links {
    my ($r) = @_;
    return [map { $_->[1] } grep { lc $_->[0] eq 'link'
        && $_->[1] =~ /rel="successor-version"/ } @{ $r->{header_list} }];
}

sub header_names {
    my ($r) = @_;
    return [sort map { lc $_->[0] } @{ $r->{header_list} }];
}

# a 410 as expected, headers included
sub check_gone {
    my ($r, $row, $name, %o) = @_;
    is($r->{status}, 410, "$name: 410") or diag($r->{raw});
    is($r->{headers}{'content-type'}, $JSON_CT, "$name: JSON");
    is($r->{headers}{deprecation}, $DEPRECATED, "$name: Deprecation");
    is($r->{headers}{'cache-control'}, $CACHE, "$name: Cache-Control");
    ok(!exists $r->{headers}{location}, "$name: no Location");
    my $base = base_of($row, %o);
    my $url = defined $row->{repl} && $base
        ? $base . ($o{repl_req} || $row->{repl_req}) : undef;
    my @links = $url ? ("<$url>; rel=\"successor-version\"")
        : $o{successor} ? ("<$o{successor}>; rel=\"successor-version\"") : ();
    is_deeply(successor_links($r), \@links,
        "$name: successor-version link " . ($url ? 'to the replacement'
            : $o{successor} ? 'configured' : 'absent'));
    my $doc = decode_ok($r, $name);
    is_deeply($doc, expected_gone($row, %o), "$name: body")
        or diag($r->{body});
    is_deeply(top_keys($r->{body}), \@GONE_KEYS, "$name: key order");
    return $doc;
}

sub query_for {
    my ($row) = @_;
    # every parameter the endpoint had, one nobody knows, one repeated
    my @q = (@{ $row->{query} }, 'bogus', @{ $row->{query} }[0 .. 0]);
    @q = grep { defined } @q;
    my %seen;
    my @unsupported = grep { !$seen{$_}++ }
        grep { my $n = $_; !grep { $_ eq $n } @{ $row->{supported} },
                                               @{ $row->{ignored} } } @q;
    %seen = ();
    my @ignored = grep { !$seen{$_}++ }
        grep { my $n = $_; grep { $_ eq $n } @{ $row->{ignored} } } @q;
    my $qs = join '&', map { "$_=1" } @q;
    return ($qs, \@unsupported, \@ignored);
}

# ------------------------------------------------------------ servers

my $LOCS = <<'EOF';
        location /ordinals/v1/ {
            chaindata_migration;
        }
        location /ordinals/ {
            chaindata_migration;
        }
EOF

my $plain = ChainData::Test::Nginx->start(locations => $LOCS);

my $based = ChainData::Test::Nginx->start(locations => $LOCS, http => <<"EOF");
    chaindata_migration_base $BASE/;
    chaindata_migration_base_brc20 $BASE_BRC20;
    chaindata_successor_link $SUCCESSOR;
EOF

my $half = ChainData::Test::Nginx->start(locations => $LOCS, http => <<"EOF");
    chaindata_migration_base $BASE;
EOF

my $redir = ChainData::Test::Nginx->start(locations => $LOCS, http => <<"EOF");
    chaindata_migration_base $BASE;
    chaindata_migration_base_brc20 $BASE_BRC20;
    chaindata_migration_redirect on;
EOF

my @PREFIXES = ('/ordinals/v1/', '/ordinals/');

# ------------------------------------------------------------ every row

for my $row (@ROWS) {
    for my $prefix (@PREFIXES) {
        my $uri = $prefix . $row->{req};

        check_gone(http_get($plain->port, $uri), $row, "no base: GET $uri");

        check_gone(http_get($based->port, $uri), $row, "bases: GET $uri",
            base => $BASE, base_brc20 => $BASE_BRC20,
            successor => $SUCCESSOR);

        check_gone(http_get($half->port, $uri), $row,
            "base, no BRC-20 base: GET $uri", base => $BASE);

        my ($qs, $unsupported, $ignored) = query_for($row);
        check_gone(http_get($based->port, "$uri?$qs"), $row,
            "bases, query: GET $uri?$qs",
            base => $BASE, base_brc20 => $BASE_BRC20,
            successor => $SUCCESSOR,
            unsupported => $unsupported, ignored => $ignored);

        check_gone(http_get($plain->port, "$uri?$qs"), $row,
            "no base, query: GET $uri?$qs",
            unsupported => $unsupported, ignored => $ignored);

        # redirects on
        for my $q ('', "?$qs") {
            my $r = http_get($redir->port, "$uri$q");
            my $name = "redirect on: GET $uri$q";
            if ($row->{redirect}) {
                my $url = $BASE . $row->{repl_req};
                is($r->{status}, 308, "$name: 308") or diag($r->{raw});
                is($r->{headers}{location}, "$url$q", "$name: Location");
                is_deeply(successor_links($r),
                    ["<$url>; rel=\"successor-version\""], "$name: Link");
                is($r->{headers}{deprecation}, $DEPRECATED,
                    "$name: Deprecation");
                is($r->{headers}{'cache-control'}, $CACHE,
                    "$name: Cache-Control");
                is($r->{body}, '', "$name: no body");
            } else {
                my ($u, $i) = $q ? ($unsupported, $ignored) : ([], []);
                check_gone($r, $row, "$name: not a redirect row",
                    base => $BASE, base_brc20 => $BASE_BRC20,
                    unsupported => $u, ignored => $i);
            }
        }
    }

    # HEAD: the same answer without its body
    my $get = http_get($plain->port, "/ordinals/v1/$row->{req}");
    my $head = http_request($plain->port, 'HEAD', "/ordinals/v1/$row->{req}");
    is($head->{status}, 410, "HEAD $row->{path}: 410");
    is($head->{body}, '', "HEAD $row->{path}: no body");
    is($head->{headers}{'content-length'}, length $get->{body},
        "HEAD $row->{path}: Content-Length of the GET body");
}

# ------------------------------------------------------------ the table

sub check_table {
    my ($r, $name, %o) = @_;
    is($r->{status}, 200, "$name: 200") or diag($r->{raw});
    is($r->{headers}{'content-type'}, $JSON_CT, "$name: JSON");
    is($r->{headers}{deprecation}, $DEPRECATED, "$name: Deprecation");
    is($r->{headers}{'cache-control'}, $CACHE, "$name: Cache-Control");
    my $doc = decode_ok($r, $name);
    is_deeply(top_keys($r->{body}),
        [qw(deprecation base_url base_url_brc20 redirect endpoints
            replacement_extras)], "$name: key order");
    is_deeply($doc->{deprecation},
        { announced => '2026-02-06', effective => '2026-03-09' },
        "$name: dates");
    is($doc->{base_url}, $o{base}, "$name: base_url");
    is($doc->{base_url_brc20}, $o{base_brc20}, "$name: base_url_brc20");
    is($doc->{redirect}, $o{redirect} ? 1 : 0, "$name: redirect");
    is(scalar @{ $doc->{endpoints} || [] }, scalar @ROWS,
        "$name: every row of 9.2 and 9.3");
    for my $i (0 .. $#ROWS) {
        is_deeply($doc->{endpoints}[$i], expected_table_row($ROWS[$i], %o),
            "$name: row $ROWS[$i]{path}");
    }
    is_deeply($doc->{replacement_extras},
        { capabilities => \@EXTRAS, text => $EXTRAS_TEXT },
        "$name: the replacement's extra capabilities");
    return $doc;
}

for my $root ('/ordinals/v1/', '/ordinals/', '/ordinals/v1') {
    check_table(http_get($plain->port, $root), "table, no base: GET $root");
}
check_table(http_get($based->port, '/ordinals/v1/?limit=3'),
    'table, bases: GET /ordinals/v1/?limit=3',
    base => $BASE, base_brc20 => $BASE_BRC20);
check_table(http_get($redir->port, '/ordinals/v1/'),
    'table, redirect on', base => $BASE, base_brc20 => $BASE_BRC20,
    redirect => 1);
{
    my $r = http_get($based->port, '/ordinals/v1/');
    is_deeply(successor_links($r), ["<$SUCCESSOR>; rel=\"successor-version\""],
        'table: the configured successor link');
    my $h = http_request($plain->port, 'HEAD', '/ordinals/v1/');
    is($h->{status}, 200, 'table: HEAD 200');
    is($h->{body}, '', 'table: HEAD has no body');
}

# ------------------------------------------------------------ unmatched

my $NOT_FOUND = '{"statusCode":404,"error":"Not Found","message":"no '
    . 'deprecated endpoint matches this path; the location root lists them '
    . 'all"}';

for my $path (qw(
    /ordinals/v1/nope
    /ordinals/v1/inscriptions/
    /ordinals/v1/Inscriptions
    /ordinals/v1/stats/
    /ordinals/v1/stats/x
    /ordinals/v1/inscriptions/x/y
    /ordinals/v1/inscriptions/x/content/y
    /ordinals/v1/collections/x/y
    /ordinals/v1/brc-20
    /ordinals/v1/brc-20/tokens/ordi/x
    /ordinals/v1/brc-20/balances
    /ordinals/v1/brc-20/balances/a/b
    /ordinals/v1/v1/stats
    /ordinals/v2/stats
    /ordinals/v1/inscriptions/a/b/c/d/e/f
    /ordinals/runes/v1/etchings
)) {
    my $r = http_get($plain->port, $path);
    is($r->{status}, 404, "unmatched $path: 404") or diag($r->{raw});
    is($r->{body}, $NOT_FOUND, "unmatched $path: JSON body");
    is($r->{headers}{'content-type'}, $JSON_CT, "unmatched $path: JSON");
    is($r->{headers}{deprecation}, $DEPRECATED, "unmatched $path: Deprecation");
    is($r->{headers}{'cache-control'}, 'no-store',
        "unmatched $path: Cache-Control");
    is_deeply(successor_links($r), [], "unmatched $path: no successor link");
}

# static segments before parameters
check_gone(http_get($plain->port, '/ordinals/v1/inscriptions/block-height/content'),
    $ROWS[4], 'block-height/content is a block height',
    params => { blockHeight => 'content' },
    repl_req => '/inscriptions/block/content');
check_gone(http_get($plain->port, '/ordinals/v1/inscriptions/block-hash/sat'),
    $ROWS[5], 'block-hash/sat is a block hash',
    params => { blockHash => 'sat' }, repl_req => '/inscriptions/block/sat');
check_gone(http_get($plain->port, '/ordinals/v1/inscriptions/block-height'),
    $ROWS[1], 'a lone "block-height" is an inscription id',
    params => { inscriptionId => 'block-height' },
    repl_req => '/inscriptions/block-height');

# ------------------------------------------------------------ methods

for my $m (qw(POST PUT DELETE PATCH)) {
    my $r = http_request($plain->port, $m, "/ordinals/v1/inscriptions/$ID",
        _body => '{"x":1}');
    is($r->{status}, 405, "$m: 405");
    is($r->{headers}{allow}, 'GET, HEAD', "$m: Allow");
    is($r->{headers}{deprecation}, $DEPRECATED, "$m: Deprecation");
    like($r->{body}, qr/^\{"statusCode":405,/, "$m: JSON body");
}

# ------------------------------------------------------------ hostile input

# every header value is printable ASCII; nothing but the expected headers
sub headers_clean {
    my ($r, $name, @extra) = @_;
    my %allowed = map { $_ => 1 } qw(server date content-type content-length
        connection deprecation link cache-control location
        access-control-allow-origin), @extra;
    my @odd = grep { !$allowed{$_} } @{ header_names($r) };
    is_deeply(\@odd, [], "$name: no injected header");
    my @bad = grep { $_->[1] =~ /[^\x21-\x7e ]/ } @{ $r->{header_list} };
    is_deeply(\@bad, [], "$name: header values are printable ASCII");
    unlike($r->{raw} =~ s/\r\n\r\n.*//sr, qr/\r(?!\n)|(?<!\r)\n/,
        "$name: no bare CR or LF in the head");
}

my @HOSTILE = (
    ['CR/LF', 'abc%0D%0AX-Evil:%201', "abc\r\nX-Evil: 1",
     'abc%0D%0AX-Evil%3A%201'],
    ['LF alone', 'abc%0ASet-Cookie:x=1', "abc\nSet-Cookie:x=1",
     'abc%0ASet-Cookie%3Ax%3D1'],
    ['double quotes', '%22q%22', '"q"', '%22q%22'],
    ['raw double quote', 'a"b', 'a"b', 'a%22b'],
    ['angle brackets and semicolon', '%3Cx%3E%3Brel=%22a%22',
     '<x>;rel="a"', '%3Cx%3E%3Brel%3D%22a%22'],
    ['backslash', 'a%5Cb', 'a\\b', 'a%5Cb'],
    ['space and comma', 'a%20b,c', 'a b,c', 'a%20b%2Cc'],
    ['tab and DEL', 'a%09b%7F', "a\tb\x7f", 'a%09b%7F'],
    ['question mark and hash', 'a%3Fb%23c', 'a?b#c', 'a%3Fb%23c'],
    ['percent', 'a%25b', 'a%b', 'a%25b'],
    ['UTF-8', '%CF%80%E2%80%A2', "\x{3c0}\x{2022}", '%CF%80%E2%80%A2'],
    ['4-byte UTF-8', '%F0%9F%90%B8%F4%8F%BF%BF', "\x{1f438}\x{10ffff}",
     '%F0%9F%90%B8%F4%8F%BF%BF'],
    ['dots', 'a..', 'a..', 'a..'],
);

for my $h (@HOSTILE) {
    my ($what, $raw, $value, $encoded) = @$h;
    for my $row ($ROWS[1], $ROWS[11]) {
        my ($pname) = keys %{ $row->{params} };
        (my $req = $row->{req}) =~ s/\Q$row->{params}{$pname}\E/$raw/;
        (my $repl_req = $row->{repl_req}) =~ s/\Q$row->{params}{$pname}\E/$encoded/;
        my $name = "hostile $what in {$pname}";
        my $r = http_get($based->port, "/ordinals/v1/$req");
        check_gone($r, $row, $name, base => $BASE, base_brc20 => $BASE_BRC20,
            params => { $pname => $value }, repl_req => $repl_req);
        headers_clean($r, $name);
    }

    # and through a redirect, with a hostile query string besides
    my $name = "hostile $what, redirect";
    my $r = http_get($redir->port,
        "/ordinals/v1/inscriptions/$raw?a=%0D%0A&b=\"<x>\"&c=%zz&d=\\");
    is($r->{status}, 308, "$name: 308") or diag($r->{raw});
    is($r->{headers}{location},
        "$BASE/inscriptions/$encoded?a=%0D%0A&b=%22%3Cx%3E%22&c=%25zz&d=%5C",
        "$name: Location percent-encoded");
    headers_clean($r, $name);
}

# %00 in the path: nginx refuses it before any location is chosen
{
    my $r = http_get($based->port, '/ordinals/v1/inscriptions/abc%00def');
    is($r->{status}, 400, '%00 in the path: 400 from nginx');
    is_deeply(successor_links($r), [], '%00 in the path: no link');
    ok(!exists $r->{headers}{location}, '%00 in the path: no Location');
}

# hostile query parameter names reach the body, escaped
{
    my $row = $ROWS[0];
    my $r = http_get($based->port, '/ordinals/v1/inscriptions?a%00b=1'
        . '&c%0D%0Ad=2&%FF%FEx=3&%22q%22=4&&=5&limit=6&tag&tag=2');
    check_gone($r, $row, 'hostile query names',
        base => $BASE, base_brc20 => $BASE_BRC20,
        unsupported => ["a\x00b", "c\r\nd", "\x{fffd}\x{fffd}x", '"q"', 'tag']);
    headers_clean($r, 'hostile query names');
    like($r->{body}, qr/"a\\u0000b"/, 'hostile query names: NUL as \u0000');
}

# many query parameters: at most 64 listed, each once
{
    my $qs = join '&', map { "p$_=1" } 1 .. 200;
    my $r = http_get($plain->port, "/ordinals/v1/stats?$qs&p1=2");
    my $doc = decode_ok($r, '200 query parameters');
    is_deeply($doc->{unsupported_query}, [map { "p$_" } 1 .. 64],
        '200 query parameters: the first 64 listed');
}

# invalid UTF-8 and overlong path parameters: 400
my $BAD = '{"statusCode":400,"code":"FST_ERR_VALIDATION","error":"Bad Request",'
    . '"message":"params/%s"}';

for my $case (
    ['lone continuation byte', 'inscriptions/%80abc', 'inscriptionId'],
    ['0xFF', 'brc-20/tokens/%FF', 'ticker'],
    ['overlong "/"', 'collections/%C0%AF', 'collectionId'],
    ['surrogate', 'brc-20/balances/%ED%A0%80', 'address'],
    ['above U+10FFFF', 'brc-20/tokens/%F4%90%80%80', 'ticker'],
    ['overlong 4-byte', 'brc-20/tokens/%F0%8F%BF%BF', 'ticker'],
    ['truncated sequence', 'inscriptions/block-hash/ab%E2%80', 'blockHash'],
) {
    my ($what, $path, $pname) = @$case;
    my $r = http_get($based->port, "/ordinals/v1/$path");
    is($r->{status}, 400, "not UTF-8 ($what): 400");
    is($r->{body}, sprintf($BAD, "$pname must be UTF-8"),
        "not UTF-8 ($what): message");
    is($r->{headers}{deprecation}, $DEPRECATED, "not UTF-8 ($what): Deprecation");
    is($r->{headers}{'cache-control'}, 'no-store',
        "not UTF-8 ($what): Cache-Control");
    is_deeply(successor_links($r), ["<$SUCCESSOR>; rel=\"successor-version\""],
        "not UTF-8 ($what): only the configured link");
    headers_clean($r, "not UTF-8 ($what)");
}

{
    my $max = 'a' x 256;
    check_gone(http_get($based->port, "/ordinals/v1/inscriptions/$max"),
        $ROWS[1], '256-byte parameter', base => $BASE,
        base_brc20 => $BASE_BRC20, params => { inscriptionId => $max },
        repl_req => "/inscriptions/$max");

    for my $len (257, 4000) {
        my $r = http_get($based->port,
            '/ordinals/v1/inscriptions/' . ('a' x $len) . '/content');
        is($r->{status}, 400, "$len-byte parameter: 400");
        is($r->{body},
            sprintf($BAD, 'inscriptionId must NOT be longer than 256 bytes'),
            "$len-byte parameter: message");
        headers_clean($r, "$len-byte parameter");
    }

    # 129 two-byte characters are 258 bytes
    my $r = http_get($based->port,
        '/ordinals/v1/brc-20/tokens/' . ('%C3%A9' x 129));
    is($r->{status}, 400, '258 bytes in 129 characters: 400');

    $r = http_get($based->port, '/ordinals/v1/inscriptions/' . ('a' x 20000));
    is($r->{status}, 414, 'a URI longer than nginx takes: 414 from nginx');
}

# ------------------------------------------------------------ health

for my $ng ($plain, $based, $half, $redir) {
    is(join("\n", $ng->bad_log_lines), '', 'no alerts or crashes in the log');
    $ng->stop;
}

done_testing;
