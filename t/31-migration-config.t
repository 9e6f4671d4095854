#!/usr/bin/perl
# chaindata_migration: configuration checks, the kinds of location it can
# sit in, and living beside an index (or without one).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $DEPRECATED = '@1773014400';
my $BASE       = 'https://api.replacement.example';

sub gone_path {
    my ($r) = @_;
    my $doc = eval { json_decode($r->{body}) } || {};
    return ($doc->{endpoint} || {})->{path};
}

# ------------------------------------------------------------ nginx -t

sub config_ok {
    my ($name, %o) = @_;
    my ($code, $out) = ChainData::Test::Nginx->test_config(%o);
    is($code, 0, "$name: nginx -t succeeds") or diag($out);
}

sub config_fails {
    my ($name, $mention, %o) = @_;
    my ($code, $out) = ChainData::Test::Nginx->test_config(%o);
    isnt($code, 0, "$name: nginx -t fails");
    like($out, qr/\[emerg\]/, "$name: an emerg message");
    like($out, $mention, "$name: the message says what is wrong")
        or diag($out);
}

my $MIG = "        location /ordinals/ { chaindata_migration; }\n";

config_ok('no chaindata_db', locations => $MIG);
config_ok('base, redirect on', locations => $MIG,
    http => "chaindata_migration_base $BASE; chaindata_migration_redirect on;");
config_ok('base inherited from http, redirect on in the location',
    http => "chaindata_migration_base $BASE;",
    locations => "        location /ordinals/ { chaindata_migration; "
        . "chaindata_migration_redirect on; }\n");
config_ok('redirect on without base where no migration location is',
    http => 'chaindata_migration_redirect on;',
    locations => "        location /x { return 204; }\n");
config_ok('base off', locations => $MIG,
    http => 'chaindata_migration_base off; chaindata_migration_base_brc20 off;');
config_ok('http URL with port, path and escapes', locations => $MIG,
    http => 'chaindata_migration_base http://[::1]:8080/a%20b/c/;');

config_fails('redirect on without base',
    qr/"chaindata_migration_redirect on" needs "chaindata_migration_base"/,
    locations => $MIG, http => 'chaindata_migration_redirect on;');
config_fails('redirect on, only a BRC-20 base',
    qr/needs "chaindata_migration_base"/, locations => $MIG,
    http => "chaindata_migration_redirect on; "
        . "chaindata_migration_base_brc20 $BASE;");

for my $bad ('ftp://x.example', 'api.example.com', '/ordinals/v1',
    'https://', 'https:///path', 'https://a.example/?x=1',
    'https://a.example/#f', "'https://a.example/\"x'",
    'https://a.example/<x>', "'https://a.example/{x}'")
{
    config_fails("base $bad", qr/chaindata_migration_base/,
        locations => $MIG, http => "chaindata_migration_base $bad;");
}

config_fails('duplicate base', qr/is duplicate/, locations => $MIG,
    http => "chaindata_migration_base $BASE; chaindata_migration_base $BASE;");
config_fails('with chaindata_tx in one location', qr/conflicts/,
    locations => "        location /ordinals/ { chaindata_tx; "
        . "chaindata_migration; }\n");
config_fails('an argument', qr/invalid number of arguments/,
    locations => "        location /ordinals/ { chaindata_migration on; }\n");
config_fails('at server level', qr/not allowed here/,
    http => 'server { listen 127.0.0.1:1; chaindata_migration; }',
    locations => '');

# ------------------------------------------------------------ beside an index

{
    my $fx = fixture_path('tx.ndjson');
    my $db = new_index($fx);
    my ($tx) = grep { !$_->{mempool} } tx_fixtures($fx);

    my $ng = ChainData::Test::Nginx->start(db => $db, locations => <<'EOF');
        location /extended/v1/tx/ { chaindata_tx; }
        location /ordinals/ { chaindata_migration; }
EOF
    my $r = http_get($ng->port, "/extended/v1/tx/$tx->{tx_id}");
    is($r->{status}, 200, 'with chaindata_db: the transaction route serves');
    $r = http_get($ng->port, '/ordinals/v1/stats');
    is($r->{status}, 410, 'with chaindata_db: migration answers 410');
    is(gone_path($r), '/stats', 'with chaindata_db: the /stats row');
    $r = http_get($ng->port, '/ordinals/v1/');
    is($r->{status}, 200, 'with chaindata_db: the table');
    is(join("\n", $ng->bad_log_lines), '', 'with chaindata_db: clean log');
    $ng->stop;
}

# ------------------------------------------------------------ location kinds

{
    my $ng = ChainData::Test::Nginx->start(locations => <<'EOF');
        location ~ ^/ordinals(/v1)?/ { chaindata_migration; }
        location ~ ^/legacy/ { chaindata_migration; }
        location = /exact/ordinals/v1/ { chaindata_migration; }
        location /named/ordinals/ {
            root /nonexistent;
            try_files $uri @migration;
        }
        location @migration { chaindata_migration; }
EOF
    my $port = $ng->port;

    my @cases = (
        # regex: the upstream prefixes are skipped
        ['/ordinals/v1/stats', 410, '/stats'],
        ['/ordinals/stats', 410, '/stats'],
        ['/ordinals/v1/brc-20/tokens/ordi', 410, '/brc-20/tokens/{ticker}'],
        ['/ordinals/v1/', 200],
        ['/ordinals/', 200],
        ['/ordinals/v1/v1/stats', 404],
        ['/ordinals/v1/nope', 404],
        # a regex elsewhere: nothing to skip, nothing matches
        ['/legacy/stats', 404],
        ['/legacy/', 404],
        # exact
        ['/exact/ordinals/v1/', 200],
        # named location: the URI as it came, upstream prefixes skipped
        ['/named/ordinals/v1/stats', 404],
    );

    for my $c (@cases) {
        my ($path, $status, $row) = @$c;
        my $r = http_get($port, $path);
        is($r->{status}, $status, "GET $path: $status") or diag($r->{raw});
        is($r->{headers}{deprecation}, $DEPRECATED, "GET $path: Deprecation");
        is(gone_path($r), $row, "GET $path: row $row") if $row;
        if ($status == 200) {
            my $doc = eval { json_decode($r->{body}) } || {};
            is(scalar @{ $doc->{endpoints} || [] }, 15, "GET $path: the table");
        }
    }
    is(join("\n", $ng->bad_log_lines), '', 'location kinds: clean log');
    $ng->stop;
}

# a prefix without a trailing slash, ending in the version segment
{
    my $ng = ChainData::Test::Nginx->start(locations => <<'EOF');
        location /ordinals/v1 { chaindata_migration; }
        location /ord/ { chaindata_migration; }
EOF
    my @cases = (
        ['/ordinals/v1', 200],
        ['/ordinals/v1/', 200],
        ['/ordinals/v1/stats', 410, '/stats'],
        ['/ordinals/v1/collections/x', 410, '/collections/{collectionId}'],
        ['/ordinals/v1x', 404],
        ['/ordinals/v1x/stats', 404],
        ['/ordinals/v1/v1/stats', 404],
        # a prefix not ending in "v1": one "v1" segment is skipped
        ['/ord/v1/stats', 410, '/stats'],
        ['/ord/stats', 410, '/stats'],
        ['/ord/v1', 200],
        ['/ord/v1/v1/stats', 404],
    );
    for my $c (@cases) {
        my ($path, $status, $row) = @$c;
        my $r = http_get($ng->port, $path);
        is($r->{status}, $status, "GET $path: $status") or diag($r->{raw});
        is(gone_path($r), $row, "GET $path: row $row") if $row;
    }
    $ng->stop;
}

# a named location reached from a URI the upstream prefixes lead
{
    my $ng = ChainData::Test::Nginx->start(locations => <<'EOF');
        location /ordinals/ {
            root /nonexistent;
            try_files $uri @migration;
        }
        location @migration { chaindata_migration; }
EOF
    for my $path ('/ordinals/v1/stats', '/ordinals/stats') {
        my $r = http_get($ng->port, $path);
        is($r->{status}, 410, "named location, $path: 410");
        is(gone_path($r), '/stats', "named location, $path: the /stats row");
    }
    is(http_get($ng->port, '/ordinals/v1/')->{status}, 200,
        'named location: the table');
    $ng->stop;
}

# ------------------------------------------------------------ shared directives

{
    my $ng = ChainData::Test::Nginx->start(
        http => "chaindata_migration_base $BASE;",
        locations => <<'EOF');
        location /off/ordinals/ {
            chaindata_migration;
            chaindata_deprecation off;
        }
        location /linked/ordinals/ {
            chaindata_migration;
            chaindata_deprecation @1770336000;
            chaindata_deprecation_link https://docs.example/deprecation;
            chaindata_sunset "Wed, 01 Jul 2026 00:00:00 GMT";
        }
        location /nobase/ordinals/ {
            chaindata_migration;
            chaindata_migration_base off;
        }
EOF
    my $r = http_get($ng->port, '/off/ordinals/v1/stats');
    is($r->{status}, 410, 'chaindata_deprecation off: still 410');
    ok(!exists $r->{headers}{deprecation},
        'chaindata_deprecation off: no Deprecation header');
    is($r->{headers}{link}, "<$BASE/stats>; rel=\"successor-version\"",
        'chaindata_deprecation off: the successor link remains');

    $r = http_get($ng->port, '/linked/ordinals/v1/inscriptions/x');
    is($r->{headers}{deprecation}, '@1770336000',
        'configured deprecation date');
    is($r->{headers}{sunset}, 'Wed, 01 Jul 2026 00:00:00 GMT', 'Sunset');
    is($r->{headers}{link}, '<https://docs.example/deprecation>; '
        . "rel=\"deprecation\", <$BASE/inscriptions/x>; "
        . 'rel="successor-version"', 'both links');

    $r = http_get($ng->port, '/nobase/ordinals/v1/inscriptions/x');
    my $doc = eval { json_decode($r->{body}) } || {};
    is($doc->{replacement}{url}, undef,
        'chaindata_migration_base off in a location: no URL');
    ok(!exists $r->{headers}{link}, 'chaindata_migration_base off: no Link');

    is(join("\n", $ng->bad_log_lines), '', 'shared directives: clean log');
    $ng->stop;
}

done_testing;
