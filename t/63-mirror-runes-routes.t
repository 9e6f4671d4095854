#!/usr/bin/perl
# chaindata-mirror --catch-up fill of the real Runes API 3.0.2's small
# set (seed-runes --txs 5000 --runes 100 --addresses 4000 --airdrops 3,
# tip 840090), replayed from t/captures/runes-api-3.0.2/routes-fill.gz
# (its README says how it was made), then chaindata_runes on the index it
# filled, end to end.  Every block with activity gets its rune_block
# record (as many entries as the block's pages), every rune its etching
# as upstream served it.  Then the edge answers every request of
# routes.txt as the real API answered it (routes.gz: status, Content-Type
# and body), both prefixes, every form of an etching, paging, errors and
# conditional requests.  (t/38-runes-routes.t answers routes.gz from an
# index loaded from records; this one from the mirror's.)
#
# What may differ, each a row of doc/api.md's table of differences, and
# nothing else:
#   - the status route's server_version (it names upstream's build);
#   - `total` past a list's end (upstream: 0; the edge: the list's);
#   - an address's activity `total` (upstream: its per-rune operation
#     counts summed; the edge: the entries it lists) and its balances'
#     (upstream: history rows);
#   - holders: the order of equal balances (upstream has no tie-breaker)
#     and `total` (upstream: history rows; the edge: holders);
#   - an address's balances: the order of equal balances, as the
#     balances route always has;
#   - ETags (upstream: its tip block's hash; the edge: its own, made from
#     what it holds), so a conditional request names the edge's ETag of
#     the same route where upstream's named upstream's.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(write_capture capture_path nginx_locations
                           runes_held served_etchings);

require_build();
my $DIR = capture_path('runes-api-3.0.2');
my $CAPTURE = "$DIR/routes-fill.gz";
my $root = temp_dir();
my $answers = write_capture($root, $CAPTURE);
ok($answers > 4000, "capture $CAPTURE: $answers answers");
my $MIRROR = build_path('chaindata-mirror');

# the blocks with activity, and their entries, as the capture holds them
my %entries;
for my $f (glob "$root/up/runes/v1/blocks/*/activity/q=offset=0\\&limit=60") {
    my ($h) = $f =~ m{/blocks/(\d+)/};
    $entries{$h} = json_decode(slurp($f))->{total};
}
my @active = sort { $a <=> $b } grep { $entries{$_} } keys %entries;

my $db = "$root/a";
my ($code, $out, $err) = load_index($db);
is($code, 0, 'empty index created') or diag($err);
fixup_index_perms($db);

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    locations => "        location /runes {\n            chaindata_runes;\n"
               . "        }\n" . nginx_locations($root, captured => 1),
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

# --parallel 16, as the capture was made (a balance list's pages are
# asked --parallel at a time, past its end too)
($code, $out, $err) = run_cmd([$MIRROR, '--db', $db, '--runes-api', $api,
                               '--once', '--runes-from-height', '840000',
                               '--catch-up', 'fill', '--parallel', '16'],
                              timeout => 300);
is($code, 0, 'filled: exit 0') or diag($err);
like($err, qr/filled blocks 840000 to 840090 in 1 windows: 5000 transactions/,
     'filled: 91 blocks, 5,000 transactions');

my ($heights, $docs, undef, $count) = runes_held($db);
is("@$heights", "@active", scalar(@active) . ' blocks with activity, each '
   . 'with its rune_block record');
is(join(' ', map { $count->{$_} // 0 } @active),
   join(' ', map { $entries{$_} } @active),
   'each with its entries, as many as its pages hold');
my $want = served_etchings($root);
is(scalar keys %$want, 101, 'the capture holds 101 etchings');
is_deeply($docs, $want, 'every etching as upstream served it');

# the answers upstream gave: [target, header, status, type, body]
my @cases;
open my $fh, '-|', 'gzip', '-dc', "$DIR/routes.gz" or die "routes.gz: $!";
while (defined(my $req = <$fh>)) {
    my $head = <$fh>;
    my $body = <$fh>;
    die 'routes.gz: an answer cut short' unless defined $body;
    chomp($req, $head, $body);
    my ($target, $header) = split /\t/, $req, 2;
    my ($status, $type) = split /\t/, $head;
    push @cases, [$target, $header, $status, $type, $body];
}
close $fh or die 'gzip -dc routes.gz: failed';
is(scalar @cases, 118, 'routes.gz: 118 answers');

# a holders or balances page: `total` set aside, the balances
# in order, and the entries but those of the first and the last balance
# (equal balances are in no order upstream, so a page that cuts them may
# hold others)
sub by_balance {
    my ($body, $holders) = @_;
    my $doc = json_decode($body);
    $doc->{total} = 'T';
    my @r = @{ $doc->{results} };
    my @balance = map { $_->{balance} } @r;
    my %edge = map { $_ => 1 } @balance ? @balance[0, -1] : ();
    $doc->{results} = [sort { $a cmp $b } map { json_encode_canonical($_) }
                       grep { !$edge{ $_->{balance} } } @r];
    return (json_encode_canonical($doc), join(',', @balance));
}

# what the comparison sets aside on a route (the rows above)
sub comparable {
    my ($target, $body) = @_;
    return $body unless $body =~ /^\{/;
    my ($path) = split /\?/, $target;
    if ($path =~ m{^/runes(?:/v1)?/?$}) {
        $body =~ s/"server_version":"[^"]*"/"server_version":"V"/;
    } elsif ($path =~ m{/addresses/[^/]+/activity$}
             || $body =~ /"results":\[\]\}$/)
    {
        $body =~ s/^\{"limit":(\d+),"offset":(\d+),"total":\d+/{"limit":$1,"offset":$2,"total":T/;
    }
    return $body;
}

my %etag;
for my $c (@cases) {
    my ($target, $header, $status, $type, $body) = @$c;
    my %h;
    if (defined $header) {
        my ($name, $value) = split /:\s*/, $header, 2;
        if ($value eq '"$ETAG"') {
            my ($route) = $target;
            $etag{$route} //= http_get($port, $route)->{headers}{etag};
            $value = $etag{$route};
        }
        $h{$name} = $value;
    }
    my $r = http_get($port, $target, %h);
    my $what = $target . (defined $header ? " ($header)" : '');
    is($r->{status}, $status, "$what: $status");
    if ($status == 304) {
        is($r->{body}, '', "$what: no body");
        next;
    }
    is($r->{headers}{'content-type'}, $type, "$what: Content-Type");
    if ($target =~ m{/holders(?:\?|$)} && $status == 200
        || $target =~ m{/balances(?:\?|$)} && $status == 200)
    {
        my $holders = $target =~ m{/holders};
        my ($got, $got_b) = by_balance($r->{body}, $holders);
        my ($want, $want_b) = by_balance($body, $holders);
        is($got_b, $want_b, "$what: the balances in upstream's order");
        is($got, $want, "$what: the same entries");
        next;
    }
    is(comparable($target, $r->{body}), comparable($target, $body),
       "$what: body") or diag(substr($r->{body}, 0, 300));
}

$ng->stop;
done_testing();
