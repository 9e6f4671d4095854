#!/usr/bin/perl
# What a newcomer runs first: `make test` says, after prove's summary
# (kept as it is), how many checks it skipped and why; `make run PORT=N`
# serves the demo on that port, in v1 and in v3.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use IO::Socket::INET;
use POSIX qw(setsid);
use Test::More;
use Time::HiRes qw(sleep);
use ChainData::Test qw(:all);

require_build();

my $root = repo_root();

# ---------------------------------------------------------------- make test

# the prove command of `make test`, as make would run it, on two files:
# one skipped whole, one that skips two checks
my ($code, $out, $err) = run_cmd(['make', '-n', '-C', $root, 'test']);
my ($prove) = grep { /--harness/ } split /\n/, $out;
ok($prove && $prove =~ s{\st/\*\.t\s*$}{}, 'make test runs prove with a harness')
    or diag($out);
# t/upstream/ needs the real upstreams: `make test-upstream` alone
($code, $out, $err) = run_cmd(['make', '-n', '-C', $root, 'test-upstream']);
ok((grep { /--harness .* t\/upstream\/\s*$/ } split /\n/, $out),
   'make test-upstream runs prove on t/upstream/, which make test leaves out')
    or diag($out);
my $dir = temp_dir();
spew("$dir/a.t", "use Test::More skip_all => 'needs root: the packaging tools';\n");
spew("$dir/b.t", "use Test::More tests => 4;\nok(1);\n"
    . "SKIP: { skip 'the reference schema is not there', 2; ok(1); ok(1); }\n"
    . "ok(1);\n");
($code, $out, $err) = run_cmd(['sh', '-c', "cd '$root' && $prove '$dir/a.t' '$dir/b.t'"]);
is($code, 0, 'the two files pass');
like($out, qr/^All tests successful\.\nFiles=2, Tests=4, .*\nResult: PASS\n/m,
     'prove\'s own summary, as it is');
like($out, qr/^Result: PASS\nchaindata: 2 checks skipped, 1 file skipped whole:\n/m,
     'then how many checks were skipped');
like($out, qr{^  \Q$dir\E/a\.t: the whole file: needs root: the packaging tools$}m,
     'a file skipped whole, and why');
like($out, qr{^  \Q$dir\E/b\.t: 2 checks: the reference schema is not there$}m,
     'checks skipped, how many, and why');

spew("$dir/c.t", "use Test::More tests => 1;\nok(0);\n");
($code, $out, $err) = run_cmd(['sh', '-c', "cd '$root' && $prove '$dir/c.t'"]);
isnt($code, 0, 'a failure still fails');
like($out, qr/^Result: FAIL\nchaindata: nothing skipped\n/m,
     'and says nothing was skipped');

# ---------------------------------------------------------------- make run

# what the demo loads: the fixtures with the members v3 needs made up
# (tools/v3-stand-ins); a record of another kind, or with them already,
# as it is; a mined transaction it cannot name a parent of, refused
{
    my $tool = "$root/tools/v3-stand-ins";
    my ($mined) = grep { ($_->{tx_status} // '') eq 'success' }
        tx_fixtures(fixture_path('tx.ndjson'));
    my $rec = qq({"kind":"tx","data":$mined->{data_raw}});
    my $held = qq({"kind":"tx","data":{},"index_block_hash":"0x1"});
    my $hook = qq({"kind":"chainhook","uuid":"u"});
    my $in = "$dir/in.ndjson";
    spew($in, "$rec\n$held\n$hook\n");
    ($code, $out, $err) = run_cmd([$tool, $in]);
    my @out = split /\n/, $out;
    is($code, 0, 'v3-stand-ins: exit 0') or diag($err);
    my $open = substr($rec, 0, -1);
    like($out[0], qr/^\Q$open\E,"index_block_hash":"0x[0-9a-f]{64}","parent_index_block_hash":"0x[0-9a-f]{64}"\}$/,
         'v3-stand-ins: a mined transaction gets its index hashes');
    is("$out[1]\n$out[2]", "$held\n$hook", 'the others as they are');
    (my $orphan = $rec) =~ s/"parent_block_hash":"0x[0-9a-f]+",?//;
    spew($in, "$hook\n$orphan\n");
    ($code, $out, $err) = run_cmd([$tool, $in]);
    isnt($code, 0, 'v3-stand-ins: a mined transaction without '
         . 'parent_block_hash refused');
    like($err, qr/^v3-stand-ins: \Q$in\E line 2: a mined transaction without parent_block_hash$/m,
         '… saying where');
}

SKIP: {
    skip 'make run serves the plain build, not '
        . "CHAINDATA_BUILD=$ENV{CHAINDATA_BUILD}", 6 if $ENV{CHAINDATA_BUILD};

    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
                                  Proto => 'tcp', Listen => 1, ReuseAddr => 1)
        or die "bind: $!";
    my $port = $s->sockport;
    close $s;

    my $log = temp_dir() . '/run.log';
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        setsid();
        open STDOUT, '>', $log or die;
        open STDERR, '>&', \*STDOUT or die;
        exec 'make', '-s', '-C', $root, 'run', "PORT=$port";
        exit 127;
    }
    my $up = eventually(60, sub {
        IO::Socket::INET->new(PeerAddr => '127.0.0.1', PeerPort => $port,
                              Proto => 'tcp') ? 1 : 0;
    });
    my ($tx) = tx_fixtures(fixture_path('tx-many-events.ndjson'));
    my $r = $up ? eval { http_get($port, "/extended/v1/tx/$tx->{tx_id}") }
                : undef;
    # v3 too, of every transaction of the demo: its document (a dropped
    # one: upstream's v3 404), never the 503 of one held without it
    my (%v3, @other);
    for my $t ($tx, tx_fixtures(fixture_path('tx.ndjson'))) {
        my $s = $up ? eval { http_get($port, "/extended/v3/transactions/"
                                             . $t->{tx_id})->{status} } : 0;
        my $want = ($t->{tx_status} // '') =~ /^dropped/ ? 404 : 200;
        $v3{$want}++;
        push @other, "$t->{tx_id} ($t->{tx_status}): " . ($s // 'none')
            if ($s // 0) != $want;
    }
    my $v3 = $up ? eval { http_get($port, "/extended/v3/transactions/$tx->{tx_id}") }
                 : undef;
    # make and the nginx it runs in the foreground: their process group
    kill 'TERM', -$pid;
    waitpid $pid, 0;
    ok($up, "make run PORT=$port listens there") or diag(slurp($log));
    is($r && $r->{status}, 200, 'and serves the demo index');
    is($v3 && $v3->{status}, 200, 'in v3 too');
    is(scalar @other, 0, "every demo transaction in v3: $v3{200} documents, "
       . ($v3{404} // 0) . ' dropped (404)') or diag(join "\n", @other);
    like(slurp($log), qr{serving on http://127\.0\.0\.1:$port/},
         'and says where');
    like(slurp($log), qr{^chaindata: +or curl -i http://127\.0\.0\.1:$port/extended/v3/transactions/\Q$tx->{tx_id}\E$}m,
         'and which v3 request to try');
}

done_testing();
