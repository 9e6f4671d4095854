#!/usr/bin/perl
# Health for a load balancer (doc/module.md, chaindata_status_max_behind):
# chaindata_status_max_lag and chaindata_status_max_behind make
# chaindata_status answer 503 while a feed is beyond them, and 200 again
# once it is back; without them an old feed stays a 200.  The Prometheus
# text stays a 200 and says chaindata_healthy 0.  The blocks
# behind are counted from the feed's stored upstream tip
# (lmdb-schema/feed.md "The upstream tip"), written here with mdb_load as
# a writer would.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $db = new_index(fixture_path('tx.ndjson'));

# block $h of "stacks", its time $t, empty
sub block {
    my ($h, $t) = @_;
    return qq({"kind":"block","source":"stacks","height":$h,"hash":"b$h",)
         . qq("parent":"b${\ ($h - 1)}","time":$t}\n)
         . qq({"kind":"block_end","source":"stacks","height":$h}\n);
}

sub load {
    my ($code, $out, $err) = load_index($db, '-', { stdin => join '', @_ });
    is($code, 0, 'blocks loaded') or diag($err);
}

# the tip record: format 3, 7 bytes 0, height, block time, polled (u64 le)
sub store_tip {
    my ($height, $time, $polled) = @_;
    my $v = pack('C x7 Q< Q< Q<', 3, $height, $time, $polled);
    my $text = "VERSION=3\nformat=print\ntype=btree\nHEADER=END\n"
             . ' ' . join('', map { sprintf '\\%02x', ord } split //, 'tip:stacks')
             . "\n " . join('', map { sprintf '\\%02x', ord } split //, $v)
             . "\nDATA=END\n";
    my ($code, $out, $err) = run_cmd(['mdb_load', '-s', 'feed', $db],
                                     stdin => $text);
    is($code, 0, "tip $height stored") or diag($err);
}

my $now = time;
load(block(100, $now - 3600));

my $ng = ChainData::Test::Nginx->start(db => $db, locations => <<'EOF');
        location = /status {
            chaindata_status;
        }
        location = /health {
            chaindata_status;
            chaindata_status_max_lag 10m;
        }
        location = /health-blocks {
            chaindata_status;
            chaindata_status_max_behind 5;
        }
EOF
my $port = $ng->port;

sub get { my $r = http_get($port, @_); return ($r, json_decode($r->{body})) }

my ($r, $st) = get('/status');
is($r->{status}, 200, 'no limit: an hour behind is a 200');
ok($st->{healthy}, 'no limit: healthy');

($r, $st) = get('/health');
is($r->{status}, 503, 'max_lag 10m, the block an hour old: 503');
ok(!$st->{healthy} && !$st->{feeds}[0]{healthy}, 'healthy: false, the feed too');
is($st->{feeds}[0]{height}, 100, 'the body is the status still');
$r = http_get($port, '/health?format=prometheus');
is($r->{status}, 200, 'prometheus: a 200 (a 503 would be a failed scrape)');
like($r->{body}, qr/^chaindata_healthy 0$/m, 'chaindata_healthy 0');
like($r->{body}, qr/^chaindata_feed_healthy\{source="stacks"\} 0$/m,
     'chaindata_feed_healthy 0');

($r, $st) = get('/health-blocks');
is($r->{status}, 200, 'max_behind 5, no tip stored: 200 (not known)');

# the feed catches up: the health check clears
load(block(101, $now - 60));
($r, $st) = get('/health');
is($r->{status}, 200, 'a block a minute old: 200 again');
ok($st->{healthy}, 'healthy again');

# a tip 10 blocks ahead: behind by blocks, and by time
store_tip(111, $now, $now);
($r, $st) = get('/health-blocks');
is($r->{status}, 503, 'max_behind 5, the tip 10 blocks ahead: 503');
is_deeply([@{ $st->{feeds}[0] }{qw(behind)}, $st->{feeds}[0]{tip}{height}],
          [10, 111], 'the feed: 10 behind the tip 111');
$r = http_get($port, '/health-blocks?format=prometheus');
like($r->{body}, qr/^chaindata_feed_behind_blocks\{source="stacks"\} 10$/m,
     'prometheus: chaindata_feed_behind_blocks');
like($r->{body}, qr/^chaindata_feed_tip_height\{source="stacks"\} 111$/m,
     'prometheus: chaindata_feed_tip_height');

store_tip(104, $now - 30, $now);
($r, $st) = get('/health-blocks');
is($r->{status}, 200, 'the tip 3 blocks ahead: 200');

# a tip polled long ago: the writer stopped asking upstream
store_tip(101, $now - 60, $now - 3600);
($r, $st) = get('/health');
is($r->{status}, 503, 'a tip polled an hour ago: 503 under max_lag 10m');

# every health 503 is counted by its reason
($r, $st) = get('/status');
is($st->{traffic}{unavailable}{behind}, 3, 'the three 503s counted as "behind"');

# the directives' syntax
for my $bad ('chaindata_status_max_behind 0;', 'chaindata_status_max_behind x;',
             'chaindata_status_max_lag 0;', 'chaindata_status_max_lag soon;')
{
    my ($code, $out) = ChainData::Test::Nginx->test_config(db => $db,
        locations => "        location / { chaindata_status; $bad }\n");
    isnt($code, 0, "nginx -t refuses \"$bad\"");
}
my ($code, $out) = ChainData::Test::Nginx->test_config(db => $db,
    locations => "        location / { chaindata_status;"
        . " chaindata_status_max_behind off; chaindata_status_max_lag 90s; }\n");
is($code, 0, 'off and 90s are taken') or diag($out);

done_testing();
