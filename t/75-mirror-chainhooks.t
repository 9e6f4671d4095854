#!/usr/bin/perl
# chaindata-mirror --platform-api --chainhooks FILE against a recorded
# platform API (GET /v1/ext/{apiKey}/chainhooks/{uuid}/status, whose 200
# body is the status document: doc/module.md "Chainhook status"): each status is
# written as a chainhook record and answers at the edge as upstream's, a
# 404 deletes it; the file is refused while others can read it; keys never
# appear in the mirror's output, even when a status fails.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(nginx_locations);
use ChainData::Nats qw(nats_server);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my @hooks = grep { $_->{doc}{uuid} && $_->{doc}{api_key} && $_->{data_raw} }
    fixture_records(fixture_path('chainhook.ndjson'));
my %seen;
@hooks = grep { !$seen{ lc $_->{doc}{uuid} }++ } @hooks;
ok(@hooks >= 4, 'fixtures present') or BAIL_OUT('fixtures incomplete');
my @served = @hooks[0 .. 2];
my $gone = $hooks[3];

my $root = temp_dir();
my $db = "$root/index";
my $pre = "$root/pre.ndjson";
spew($pre, $gone->{text} . "\n");
my ($code, $out, $err) = load_index($db, $pre);
is($code, 0, 'a chainhook loaded beforehand') or diag($err);
fixup_index_perms($db);

sub status_path {
    my ($h) = @_;
    return "/v1/ext/$h->{doc}{api_key}/chainhooks/$h->{doc}{uuid}/status";
}

for my $h (@served) {
    my $dir = "$root/up" . status_path($h);
    system('mkdir', '-p', $dir);
    spew("$dir/q=", $h->{data_raw});
}

my $ng = ChainData::Test::Nginx->start(
    db => $db,
    http => "    limit_req_zone \$binary_remote_addr zone=up:1m rate=200r/s;\n",
    locations => "        location /v1/ext/ { chaindata_chainhook_status; }\n"
        . nginx_locations($root),
);
my $port = $ng->port;
my $api = "http://127.0.0.1:$port/up";

my $file = "$root/chainhooks";
spew($file, "# uuid api_key\n\n"
    . join('', map { "$_->{doc}{uuid} $_->{doc}{api_key}\n" } @served, $gone));
my @keys = map { $_->{doc}{api_key} } @served, $gone;

sub mirror {
    return run_cmd([$MIRROR, '--db', $db, '--platform-api', $api,
                    '--chainhooks', $file, '--once', @_], timeout => 300);
}

sub no_key {
    my ($text, $name) = @_;
    my @shown = grep { index($text, $_) >= 0 } @keys;
    is(scalar @shown, 0, "$name: no key in the output");
}

# 1. a file others can read is refused
chmod 0644, $file;
($code, $out, $err) = mirror();
is($code, 2, 'readable by others: exit 2');
like($err, qr/refused while group or others have access/, 'readable by others: says why');
no_key($out . $err, 'refused');

# 2. the statuses are mirrored; the one upstream no longer serves goes
chmod 0600, $file;
is(http_get($port, status_path($gone))->{status}, 200, 'the loaded chainhook answers');
($code, $out, $err) = mirror();
is($code, 0, 'statuses: exit 0') or diag($err);
for my $h (@served) {
    my $r = http_get($port, status_path($h));
    ok($r->{status} == 200 && $r->{body} eq $h->{data_raw},
       "chainhook $h->{doc}{uuid}: the edge answers as upstream");
}
is(http_get($port, status_path($gone))->{status}, 404,
   'a status upstream answers 404 for is deleted');
no_key($out . $err, 'statuses');

# 3. a status that stays broken: exit 1, named by its uuid, not its key;
# it is skipped and the others are mirrored (upstream deleted another)
my $cut = "$root/up" . status_path($served[0]) . '/q=';
spew($cut, substr($served[0]{data_raw}, 0, 10));
my $other = "$root/up" . status_path($served[1]) . '/q=';
my $other_doc = slurp($other);
unlink $other or die;
($code, $out, $err) = mirror('--retries', '1');
is($code, 1, 'a broken status: exit 1');
like($err, qr/the status of chainhook \Q$served[0]{doc}{uuid}\E/, 'the failure names the uuid');
like($err, qr/the status of chainhook \Q$served[0]{doc}{uuid}\E: .*skipped, the others go on/,
     'the broken status is skipped');
is(http_get($port, status_path($served[1]))->{status}, 404,
   'a broken status stops no other: the one upstream deleted is deleted');
no_key($out . $err, 'a broken status');
spew($other, $other_doc);

# 3b. a status that is JSON but not a status (its type a number): the
# record's checks refuse it, skipped, and counted in the chainhooks feed's
# "refused" as the answers the HTTP checks refuse are (the counters are
# the run's own: lmdb-schema/feed.md, "The feed's state")
sub hooks_state {
    my ($c, $o) = load_index($db, '--stats');
    my ($st) = grep { $_->{source} eq 'chainhooks' }
               @{ json_decode($o)->{feed_states} || [] };
    return $st || {};
}
spew($cut, $served[0]{data_raw} =~ s/"type":"[a-z_]+"/"type":7/r);
($code, $out, $err) = mirror('--retries', '1');
is($code, 1, 'a status the checks refuse: exit 1');
like($err, qr/chainhook \Q$served[0]{doc}{uuid}\E: the status upstream serves is refused: .*type/,
     'a status the checks refuse: says why');
is(hooks_state()->{refused}, 1,
   'a status the checks refuse: counted in refused');
no_key($out . $err, 'a status the checks refuse');
spew($cut, $served[0]{data_raw});

# 4. a malformed line is refused without being printed
spew($file, "$served[0]{doc}{uuid}\n");
chmod 0600, $file;
($code, $out, $err) = mirror();
is($code, 2, 'a line without a key: exit 2');
like($err, qr/chainhooks:1: not "uuid api_key"/, 'the line is named by its number');

# 5. publishing (--nats): the statuses go to the working index, never to
#    the stream (they carry API keys)
SKIP: {
    skip 'nats-server is not installed', 4 unless -x nats_server();
    my $ns = ChainData::Nats->start;
    spew($cut, $served[0]{data_raw});
    spew($file, join('', map { "$_->{doc}{uuid} $_->{doc}{api_key}\n" } @served));
    chmod 0600, $file;
    ($code, $out, $err) = run_cmd([$MIRROR, '--db', "$root/pub",
        '--platform-api', $api, '--chainhooks', $file, '--once',
        '--nats', $ns->url, '--stream', 'HOOKS'], timeout => 300);
    is($code, 0, 'with --nats: exit 0') or diag($err);
    ($code, $out) = load_index("$root/pub", '--stats');
    is(json_decode($out)->{databases}{chainhook}, scalar @served,
       'with --nats: the statuses are in the working index');
    my $info = $ns->request('$JS.API.STREAM.INFO.HOOKS', '');
    like($info, qr/"messages":0\b/, 'with --nats: nothing is published');
    no_key($info . $err, 'with --nats');
    $ns->stop;
}

$ng->stop;
done_testing();
