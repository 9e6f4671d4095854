#!/usr/bin/perl
# One body budget for the whole mirror (issue 31): --max-body-bytes bounds
# the answers being received all together, whatever --parallel, decoded
# (a gzip bomb is stopped at it, not at its compressed size).  Hostile
# answers, hand-made (upstream cannot be made to serve them): every block's
# transactions page is 1 GB (a sparse file, its Content-Length says so),
# then a gzip bomb (about 1 MB that inflates to 1 GB).  At --parallel 8,
# with the mirror's heap limited to 512 MiB (ulimit -d: malloc fails past
# it), the pass fails in the mirror's words (the route, the size claimed
# or read, the budget), nothing of the blocks written, and the peak
# resident memory (VmHWM through /usr/bin/time, when installed) stays
# under 512 MiB.

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
my $HEAP_KB = 512 * 1024;

my @docs = grep { !/"event_count":640/ } confirmed_docs();
my $chain = make_chain(1000, [map { [derive_doc($docs[$_ % @docs], "b$_")] } 0 .. 15]);

# /up: 1 GB pages; /bomb: gzip bombs, served with Content-Encoding: gzip
my $root = temp_dir();
my $bombs = temp_dir();
write_chain($root, $chain);
write_chain($bombs, $chain);
symlink("$bombs/up", "$bombs/bomb") or die "symlink: $!";
system("head -c 1073741824 /dev/zero | gzip -9 > $bombs/bomb.gz") == 0
    or die 'gzip';
my $gz = -s "$bombs/bomb.gz";
ok($gz < 2 * 1024 * 1024, "a gzip bomb of $gz bytes (1 GB inflated)");
for my $b (@$chain) {
    my $page = "/extended/v2/blocks/$b->{height}/transactions/q=limit=50&offset=0";
    truncate_to("$root/up$page", 1 << 30);
    system('cp', "$bombs/bomb.gz", "$bombs/up$page") == 0 or die 'cp';
}
sub truncate_to {
    my ($f, $n) = @_;
    open(my $fh, '>', $f) or die "$f: $!";
    truncate($fh, $n) or die "truncate: $!";
    close $fh;
}

my $ng = ChainData::Test::Nginx->start(locations => nginx_locations($root) . <<"EOF");
        location ~ ^/bomb/extended/v2/blocks/[0-9]+/transactions\$ {
            root $bombs;
            default_type application/json;
            add_header Content-Encoding gzip;
            try_files "\$uri/q=\$args" =404;
        }
        location /bomb/ {
            root $bombs;
            default_type application/json;
            try_files "\$uri/q=\$args" =404;
        }
EOF
my $port = $ng->port;

my $TIME = -x '/usr/bin/time' ? '/usr/bin/time' : undef;
sub mirror {
    my ($db, $api, @o) = @_;
    my @argv = ($MIRROR, '--db', $db, '--stacks-api', $api, '--once',
        '--from-height', '1000', '--no-mempool', '--parallel', '8',
        '--retries', '1', @o);
    unshift @argv, $TIME, '-f', 'peak_rss_kb=%M' if $TIME;
    # under the sanitizers (CHAINDATA_BUILD=build/asan) no heap limit: their
    # runtime maps its shadow memory, which ulimit -d counts too; the
    # budget's failures are checked all the same
    return run_cmd(\@argv, timeout => 300) if $ENV{CHAINDATA_BUILD};
    return run_cmd(['sh', '-c', 'ulimit -d "$0" && exec "$@"', $HEAP_KB, @argv],
        timeout => 300);
}
sub peak {
    my ($e) = @_;
    return $e =~ /^peak_rss_kb=(\d+)$/m ? $1 : undef;
}

for my $case (['up', 'claims 1073741824 bytes', '1 GB pages'],
              ['bomb', 'grew past \d+ bytes', 'gzip bombs']) {
    my ($path, $what, $name) = @$case;
    my $db = "$root/index-$path";
    my ($c, $o, $e) = mirror($db, "http://127.0.0.1:$port/$path");
    is($c, 1, "$name at --parallel 8: the pass fails, exit 1") or diag($e);
    like($e, qr{level=error msg="GET http://127\.0\.0\.1:$port/$path/extended/v2/blocks/10\d\d/transactions\?limit=50&offset=0: the answer $what, over the mirror's body budget of 134217728 bytes( with the answers being received)? \(--max-body-bytes: every answer being received, together\)},
         "$name: said in the mirror's words (route, size, budget)");
    unlike($e, qr/Failed writing|out of memory/, "$name: no libcurl words, no failed allocation");
    my ($dc, $dump) = run_cmd(['mdb_dump', '-s', 'block', $db]);
    unlike($dump, qr/^ 06737461636b73/m, "$name: no block written");
    SKIP: {
        skip('/usr/bin/time is not installed: no peak measured', 1) unless $TIME;
        skip('the sanitizers\' runtime is in the peak: measured on the plain '
             . 'build', 1) if $ENV{CHAINDATA_BUILD};
        my $kb = peak($e);
        ok(defined $kb && $kb < 512 * 1024, "$name: peak RSS under 512 MiB")
            or diag($e);
        diag("$name at --parallel 8: peak RSS " . int(($kb // 0) / 1024) . ' MiB');
    }
}

# a smaller budget: the same answers refused at it, named
my ($c, $o, $e) = mirror("$root/index-small", "http://127.0.0.1:$port/bomb",
    '--max-body-bytes', '1M');
is($c, 1, '--max-body-bytes 1M: exit 1');
like($e, qr/over the mirror's body budget of 1048576 bytes/, 'the budget given is named');
($c, $o, $e) = run_cmd([$MIRROR, '--db', "$root/x", '--stacks-api', 'http://127.0.0.1:1',
    '--max-body-bytes', '12']);
is($c, 2, '--max-body-bytes 12: a usage error');
like($e, qr/--max-body-bytes wants a size of 64K or more/, 'it says so');

$ng->stop;
done_testing();
