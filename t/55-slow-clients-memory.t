#!/usr/bin/perl
# Memory under slow clients stays inside the budget (issue 20, point 4;
# doc/operations.md: "Memory"): ten real clients that ask for a 52 MB page
# (100 events of 512 KiB) and read nothing, spread over two workers, grow
# the workers' private memory, together, by no more than
# chaindata_body_budget plus the documented constant, and the workers
# give it back when they go.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use Time::HiRes qw(sleep time);
use ChainData::Test qw(:all);

require_build();

$SIG{PIPE} = 'IGNORE';

my $MiB = 1024 * 1024;
my $BUDGET = 256 * $MiB;          # chaindata_body_budget's default
my $SLACK = 16 * $MiB;            # doc/operations.md: the budget plus this

# a transaction of 100 events of 512 KiB each
my $n = 0;
my ($ID, $raw) = log_events_tx(100, sub {
    join ' ', map { sprintf '%08x', ($n++ * 2654435761) % 4294967296 }
                  1 .. 58_500;
});
my $dir = temp_dir();
spew("$dir/big.ndjson", qq({"kind":"tx","data":$raw}\n));
my $PAGE = "/extended/v1/tx/$ID?event_limit=100";
my $len = length splice_events($raw, 0, 100);
cmp_ok($len, '>', 50 * $MiB, "a page of 52 MB ($len bytes)");

my $db = new_index("$dir/big.ndjson");

# a worker's private memory: what it alone holds, resident, and not the
# index's pages it maps (page cache, which the kernel may drop at will)
sub private_bytes {
    my ($pid) = @_;
    my $t = slurp("/proc/$pid/status");
    my ($kb) = $t =~ /^RssAnon:\s+(\d+) kB/m;
    return $kb * 1024;
}

for my $case (['plain', []], ['gzip', ['Accept-Encoding: gzip']]) {
    my ($name, $headers) = @$case;
    my $ng = ChainData::Test::Nginx->start(
        db => $db,
        # two workers, the clients spread over them by the kernel
        workers => 2,
        listen => 'sndbuf=64k reuseport',
        locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
    );
    # the second worker may still be starting on a busy machine
    my @workers = $ng->worker_pids;
    for (1 .. 100) {
        last if @workers == 2;
        sleep 0.05;
        @workers = $ng->worker_pids;
    }
    is(scalar @workers, 2, "$name: two workers");
    my $before = 0;
    $before += private_bytes($_) for @workers;

    my (@held, %status);
    for (1 .. 10) {
        my ($s, $r) = slow_client($ng->port, $PAGE, @$headers);
        $status{$r->{status}}++;
        push @held, $s;
    }
    ok($status{200}, "$name: some slow clients got their page ("
       . join(', ', map { "$_ x$status{$_}" } sort keys %status) . ')');
    my $peak = 0;
    $peak += private_bytes($_) for @workers;
    my $growth = $peak - $before;
    diag(sprintf '%s: the two workers grew by %.1f MiB for ten slow '
         . 'clients (budget %d MiB)', $name, $growth / $MiB, $BUDGET / $MiB);
    cmp_ok($growth, '<=', $BUDGET + 2 * $SLACK,
           "$name: growth within the budget plus "
           . ($SLACK / $MiB) . ' MiB a worker');

    close $_ for @held;
    ok(eventually(30, sub { http_get($ng->port, $PAGE)->{status} == 200 }),
       "$name: served again once they went");
    SKIP: {
        # ASan's allocator keeps what is freed (its quarantine) a while
        skip "$name: the sanitizers' allocator keeps freed memory", 1
            if $ENV{CHAINDATA_PRELOAD};
        my $after = 0;
        $after += private_bytes($_) for @workers;
        cmp_ok($after - $before, '<=', 2 * $SLACK,
               "$name: the memory given back once they went");
    }
    $ng->stop;
}

done_testing();
