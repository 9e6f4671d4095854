#!/usr/bin/perl
# The edge never answers a wrong 200: a transaction or rune request for
# what the index does not hold is answered as upstream would (a 404, an
# empty list) only when the index holds the chain's whole history, read
# from its block records (lmdb-schema/feed.md, "The history a feed
# holds"): a feed from the chain's first block (Stacks 1, Runes 840000),
# or records loaded without block framing.  Otherwise (no feed behind the
# route, a feed started later, as a mirror started at upstream's tip) it
# goes to chaindata_miss_fallback, or is a 503 that says why; a worker
# says at start which routes have no feed behind them.  The indexes are
# the loader's, from the fixtures in block framing records.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my @txs = grep { !$_->{mempool} } tx_fixtures(fixture_path('tx.ndjson'));
ok(@txs >= 2, 'fixtures present') or BAIL_OUT('fixtures incomplete');

# rune lists of the fixtures: an activity and a balance list with entries
my ($ACT, $BAL);
for my $line (split /\n/, slurp(fixture_path('runes.ndjson'))) {
    next unless $line =~ /"results":\[\{/;
    $ACT ||= $line if $line =~ /^\{"kind":"rune_activity"/;
    $BAL ||= $line if $line =~ /^\{"kind":"rune_balances"/;
}
my ($ACT_TX) = $ACT =~ /"tx_id":"([0-9a-f]{64})"/;
my ($ADDR) = $BAL =~ /"address":"([^"]+)"/;
ok($ACT_TX && $ADDR, 'rune fixtures present') or BAIL_OUT('fixtures incomplete');

my $UNKNOWN_TX = '0x' . ('ab' x 32);
my $UNKNOWN_RTX = 'cd' x 32;
my $UNKNOWN_ADDR = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
my $EMPTY = '{"limit":20,"offset":0,"total":0,"results":[]}';

sub tx { return qq({"kind":"tx","data":$txs[$_[0]]{data_raw}}\n) }
sub block {
    my ($source, $h, @records) = @_;
    return qq({"kind":"block","source":"$source","height":$h,"hash":"a$h","parent":"a${\ ($h - 1)}","time":${\ (1000 + $h)}}\n)
           . join('', @records)
           . qq({"kind":"block_end","source":"$source","height":$h}\n);
}

sub index_of {
    my ($ndjson) = @_;
    my $dir = temp_dir() . '/index';
    my ($code, $out, $err) = load_index($dir, '-', { stdin => $ndjson });
    die "chaindata-load: $err" if $code;
    return fixup_index_perms($dir);
}

# each route twice: alone, and with chaindata_miss_fallback to "upstream"
my $locations = '';
for my $fb ('', '/fb') {
    my $fallback = $fb ? "            chaindata_miss_fallback \@up;\n" : '';
    $locations .= "        location $fb/extended/v1/tx/ {\n"
                . "            chaindata_tx;\n$fallback        }\n"
                . "        location $fb/runes/v1/transactions/ {\n"
                . "            chaindata_rune_activity;\n$fallback        }\n"
                . "        location $fb/runes/v1/addresses/ {\n"
                . "            chaindata_rune_balances;\n$fallback        }\n";
}
$locations .= <<'CONF';
        location @up {
            default_type application/json;
            add_header X-Upstream yes always;
            return 200 '{"upstream":true}';
        }
        location = /chaindata/status {
            chaindata_status;
        }
CONF

my %path = (
    tx       => sub { "/extended/v1/tx/$_[0]" },
    activity => sub { "/runes/v1/transactions/$_[0]/activity" },
    balances => sub { "/runes/v1/addresses/$_[0]/balances" },
);

# the answer to a request the index cannot tell: 503 saying why, or the
# fallback's; never a 200 of chaindata's
sub untold {
    my ($port, $route, $key, $why, $name) = @_;
    my $r = http_get($port, $path{$route}->($key));
    is($r->{status}, 503, "$name: $route: 503") or diag($r->{body});
    like($r->{body}, qr/"message":"[^"]*\Q$why\E/, "$name: $route: says why");
    is($r->{headers}{'cache-control'}, 'no-store', "$name: $route: not cached");
    $r = http_get($port, '/fb' . $path{$route}->($key));
    is($r->{status} . ' ' . ($r->{headers}{'x-upstream'} || ''), '200 yes',
       "$name: $route: with chaindata_miss_fallback, upstream's answer");
}

# the answer upstream gives: a 404 of chaindata's for a transaction (the
# fallback's with one), the empty list for a rune key, fallback or not
sub told {
    my ($port, $route, $key, $name) = @_;
    my $r = http_get($port, $path{$route}->($key));
    if ($route eq 'tx') {
        is($r->{status}, 404, "$name: $route: 404");
        $r = http_get($port, '/fb' . $path{$route}->($key));
        is($r->{headers}{'x-upstream'}, 'yes', "$name: $route: with a fallback, upstream's");
        return;
    }
    is("$r->{status} $r->{body}", "200 $EMPTY", "$name: $route: the empty list");
    $r = http_get($port, '/fb' . $path{$route}->($key));
    is("$r->{status} $r->{body}", "200 $EMPTY",
       "$name: $route: the empty list with a fallback too");
}

sub known {
    my ($port, $route, $key, $name) = @_;
    for my $fb ('', '/fb') {
        my $r = http_get($port, $fb . $path{$route}->($key));
        ok($r->{status} == 200 && !$r->{headers}{'x-upstream'}
           && $r->{body} ne $EMPTY, "$name: $route$fb: held, the index's 200")
            or diag("$r->{status} $r->{body}");
    }
}

# 1. a mirror of Stacks started at block 1000 (its tip then), no runes
# feed: the README's path before this change
{
    my $db = index_of(block('stacks', 1000, tx(0)));
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $locations);
    my $port = $ng->port;
    known($port, 'tx', $txs[0]{tx_id}, 'stacks from 1000');
    untold($port, 'tx', $UNKNOWN_TX,
           'stacks feed holds blocks from 1000 on, not from the chain\'s first (1)',
           'stacks from 1000');
    untold($port, 'activity', $ACT_TX, 'the index holds no runes feed', 'no runes feed');
    untold($port, 'balances', $ADDR, 'the index holds no runes feed', 'no runes feed');
    my $st = json_decode(http_get($port, '/chaindata/status')->{body});
    is($st->{traffic}{unavailable}{no_history}, 3,
       'each such 503 counted as no_history');
    like($ng->error_log, qr/\[warn\].*the rune routes have no feed behind them/,
         'the worker says the rune routes have no feed behind them');
    like($ng->error_log, qr/\[notice\].*the stacks feed holds blocks from 1000 on/,
         'and where the stacks feed starts');
    my @warned = $ng->error_log =~ /no feed behind them/g;
    is(scalar @warned, 1, 'once');
    $ng->stop;
}

# 1b. the same with Debian's stock error_log, which keeps "error" and
# above: nginx -t says it, and a start writes it to the default error log,
# where nginx logs before error_log applies (Debian's: stderr, the
# journal under systemd; -e here) and prints the warning
{
    my (undef, $o, $e) = run_cmd([nginx_binary(), '-V']);
    like($o . $e, qr{--error-log-path=stderr\s},
         'Debian\'s nginx: the default error log is stderr');
    my $db = index_of(block('stacks', 1000, tx(0)));
    my ($code, $out) = ChainData::Test::Nginx->test_config(
        db => $db, locations => $locations, error_log_level => 'error');
    is($code, 0, 'nginx -t passes') or diag($out);
    like($out, qr/\[warn\].*the rune routes have no feed behind them/,
         'nginx -t says the rune routes have no feed behind them');
    like($out, qr/\[notice\].*the stacks feed holds blocks from 1000 on/,
         'and where the stacks feed starts');
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $locations,
                                           error_log_level => 'error',
                                           default_log => 1);
    like($ng->error_log, qr/\[warn\].*the rune routes have no feed behind them/,
         'a start writes it to the default error log, error_log at error');
    like($ng->error_log, qr/\[notice\].*the stacks feed holds blocks from 1000 on/,
         'and where the stacks feed starts');
    like($ng->start_output,
         qr/^nginx: \[warn\] .*the rune routes have no feed behind them/m,
         'and prints the warning');
    $ng->stop;
}

# 2. a runes feed started at Bitcoin block 870000: what it holds is
# served, an older key is not an empty list
{
    my $db = index_of(block('runes', 870000, "$ACT\n", "$BAL\n"));
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $locations);
    my $port = $ng->port;
    known($port, 'activity', $ACT_TX, 'runes from 870000');
    known($port, 'balances', $ADDR, 'runes from 870000');
    my $why = 'runes feed holds blocks from 870000 on, not from the chain\'s first (840000)';
    untold($port, 'activity', $UNKNOWN_RTX, $why, 'runes from 870000');
    untold($port, 'balances', $UNKNOWN_ADDR, $why, 'runes from 870000');
    untold($port, 'tx', $UNKNOWN_TX, 'the index holds no stacks feed', 'no stacks feed');
    $ng->stop;
}

# 3. both feeds from the chains' first blocks: an unknown key is
# upstream's answer
{
    my $db = index_of(block('stacks', 1, tx(0)) . block('runes', 840000, "$ACT\n"));
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $locations);
    my $port = $ng->port;
    told($port, 'tx', $UNKNOWN_TX, 'whole history');
    told($port, 'activity', $UNKNOWN_RTX, 'whole history');
    told($port, 'balances', $UNKNOWN_ADDR, 'whole history');
    unlike($ng->error_log, qr/no feed behind them|holds blocks from/,
           'whole history: nothing to say at start');
    $ng->stop;
}

# 4. records loaded without block framing (the fixtures, an NDJSON
# export): the loader's input is taken as the whole history
{
    my $db = new_index(fixture_path('tx.ndjson'), fixture_path('runes.ndjson'));
    my $ng = ChainData::Test::Nginx->start(db => $db, locations => $locations);
    my $port = $ng->port;
    told($port, 'tx', $UNKNOWN_TX, 'loaded');
    told($port, 'activity', $UNKNOWN_RTX, 'loaded');
    told($port, 'balances', $UNKNOWN_ADDR, 'loaded');
    $ng->stop;
}

# 5. each transaction route alone, on an index of runes alone: the
# worker says at start that it has no feed behind it, v3 as v1 (the v3
# route once said nothing and answered every miss 503)
{
    my $db = index_of(block('runes', 840000, "$ACT\n"));
    my %alone = (
        chaindata_tx    => [ '/extended/v1/tx/',
                             "/extended/v1/tx/$UNKNOWN_TX" ],
        chaindata_tx_v3 => [ '/extended/v3/transactions/',
                             "/extended/v3/transactions/$UNKNOWN_TX" ],
    );
    for my $directive (sort keys %alone) {
        my ($prefix, $miss) = @{ $alone{$directive} };
        my $ng = ChainData::Test::Nginx->start(db => $db,
            locations => "        location $prefix { $directive; }\n");
        my $r = http_get($ng->port, $miss);
        is($r->{status}, 503, "$directive alone: a miss is a 503");
        like($r->{body}, qr/the index holds no stacks feed/,
             "$directive alone: saying why");
        like($ng->error_log,
             qr/\[warn\].*the transaction routes have no feed behind them/,
             "$directive alone: the worker says its routes have no feed");
        $ng->stop;
    }
}

done_testing();
