#!/usr/bin/perl
# Tips are checked (issue 31): upstream's tip is a claim, believed once
# the mirror has fetched the block at that height; until then status and
# metrics (--stats here, the same code) show the last verified tip.  An
# upstream whose tip listing claims height 2^63 (hand-made: no upstream
# says it) has the claim refused to status: the stored tip is the last
# block the mirror fetched, not 9.2e18 blocks ahead of it.

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
my $root = temp_dir();
my $chain = make_chain(1000, [map { [derive_doc($docs[$_ % @docs], "p$_")] } 0 .. 3]);
write_chain($root, $chain);
my $ng = ChainData::Test::Nginx->start(locations => nginx_locations($root));
my $api = 'http://127.0.0.1:' . $ng->port . '/up';

sub mirror {
    my ($db) = @_;
    return run_cmd([$MIRROR, '--db', $db, '--stacks-api', $api, '--once',
        '--from-height', '1000', '--no-mempool', '--retries', '0'], timeout => 60);
}
sub stacks {
    my ($db) = @_;
    my ($c, $o) = load_index($db, '--stats');
    my ($f) = grep { $_->{source} eq 'stacks' } @{ json_decode($o)->{feeds} || [] };
    return $f;
}

# a tip the mirror fetched: believed
my ($c, $o, $e) = mirror("$root/good");
is($c, 0, 'the chain to its tip 1003: exit 0') or diag($e);
my $f = stacks("$root/good");
is($f->{tip}{height}, 1003, 'the tip stored: 1003, its block fetched');
is($f->{behind}, 0, "behind 0");

# a tip of 2^63
my $tipfile = "$root/up/extended/v2/blocks/q=limit=1";
my $t = slurp($tipfile);
$t =~ s/"height":1003\b/"height":9223372036854775808/ or die 'no tip height';
spew($tipfile, $t);
($c, $o, $e) = mirror("$root/huge");
is($c, 1, 'a tip of 2^63: the pass fails at the block past the chain, exit 1');
$f = stacks("$root/huge");
is($f->{height}, 1003, 'the mirror fetched the chain to 1003');
is($f->{tip}{height}, 1003, 'the tip stored is the last verified one (1003), not 2^63');
ok(defined $f->{behind} && $f->{behind} < 10, "status says $f->{behind} blocks behind, not 9.2e18");

$ng->stop;
done_testing();
