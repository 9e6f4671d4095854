#!/usr/bin/perl
# Every id from upstream is parsed before it becomes a URL (issue 31): a
# block listing whose tx_id is "0x/../../../../../admin/delete-everything
# ?confirm=yes&x=aaa…" (66 characters, the length of a tx_id; hand-made:
# upstream cannot be made to serve it) is refused as "a transaction without
# a tx_id", and nothing is requested outside the API's path, where the
# Stacks header (its API key) would have gone.  And a URL libcurl would
# rewrite (dot segments) is never sent, whatever made it: a --stacks-api
# ending in "/.." is refused at its first request, nothing requested.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Upstream qw(confirmed_docs derive_doc make_chain write_chain
    nginx_locations);

require_build();
my $MIRROR = build_path('chaindata-mirror');

my @docs = grep { !/"event_count":640/ } confirmed_docs();
my $chain = make_chain(1000, [map { [derive_doc($docs[$_ % @docs], "u$_")] } 0 .. 1]);
my $root = temp_dir();
write_chain($root, $chain);

my $evil = '0x/../../../../../admin/delete-everything?confirm=yes&x=';
$evil .= 'a' x (66 - length $evil);
is(length $evil, 66, 'the hostile tx_id is as long as a tx_id');
my $page = "$root/up/extended/v2/blocks/1001/transactions/q=limit=50&offset=0";
my $body = slurp($page);
$body =~ s/"tx_id":"0x[0-9a-f]{64}"/"tx_id":"$evil"/ or die 'no tx_id';
spew($page, $body);

my $ng = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my $port = $ng->port;
sub requests { return grep { /"GET / } split /\n/, slurp($ng->{prefix} . '/access.log') }

my ($c, $o, $e) = run_cmd([$MIRROR, '--db', "$root/index", '--stacks-api',
    "http://127.0.0.1:$port/up", '--once', '--from-height', '1000',
    '--no-mempool', '--retries', '0', '--stacks-header', 'X-Api-Key: k-secret'],
    timeout => 60);
is($c, 1, 'the listing with a path for a tx_id: exit 1') or diag($e);
like($e, qr{level=error msg="GET http://127\.0\.0\.1:$port/up/extended/v2/blocks/1001/transactions\?limit=50&offset=0: a transaction without a tx_id \(0x and 64 hex digits\)},
     'the listing is refused, named');
my @outside = grep { !m{"GET /up/} } requests();
is_deeply(\@outside, [], 'nothing requested outside the API\'s path');
ok(!grep({ /admin/ } requests()), 'no request for the admin path');
my ($dc, $dump) = run_cmd(['mdb_dump', '-s', 'feed', "$root/index"]);
my $k = unpack('H*', 'stacks');
my ($c2, $o2) = load_index("$root/index", '--stats');
like($o2, qr/"height":1000\b/, 'block 1000 is written, not block 1001');

# a URL with dot segments is never sent
my $before = scalar requests();
($c, $o, $e) = run_cmd([$MIRROR, '--db', "$root/index2", '--stacks-api',
    "http://127.0.0.1:$port/up/x/..", '--once', '--from-height', '1000',
    '--no-mempool', '--retries', '0'], timeout => 60);
is($c, 1, 'a URL with a dot segment: exit 1') or diag($e);
like($e, qr{level=error msg="GET http://127\.0\.0\.1:$port/up/x/\.\. \[cut\]: refused, never sent: a dot segment, or a character a plain URL does not have, ends where it is cut},
     'refused before it is sent, named up to the dot segment');
is(scalar requests(), $before, 'nothing requested');

$ng->stop;
done_testing();
