#!/usr/bin/perl
# The packaged site works as it is: doc/examples/front-of-upstream.conf
# (the package's /etc/nginx/sites-available/chaindata) in sites-enabled,
# included as Debian's nginx.conf includes it, with the module loaded as
# the package's modules-enabled snippet loads it, passes `nginx -t` (no
# error, no warning) with the built module, against a demo index put
# where its chaindata_db names it (/var/lib/chaindata, the one change).
# Then the same file serves: a transaction from the index, the rest to
# upstream.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

require_build();

my $root = repo_root();
my $site = slurp("$root/doc/examples/front-of-upstream.conf");

like($site, qr{^chaindata_db /var/lib/chaindata;$}m,
     'the site names the packaged index directory, at the http level');
unlike($site, qr/^\s*load_module\b/m,
       'it does not load the module: the package\'s modules-enabled does');

my $index = new_index(fixture_path('tx.ndjson'), fixture_path('runes.ndjson'));

# a prefix laid out as Debian's /etc/nginx, the temporary files in it
my $prefix = temp_dir();
debian_nginx_conf($prefix, $prefix);
spew("$prefix/modules-enabled/50-mod-http-chaindata.conf",
     'load_module ' . build_path('ngx_http_chaindata_module.so') . ";\n");
$site =~ s{/var/lib/chaindata\b}{$index}g;
spew("$prefix/sites-available/chaindata", $site);
symlink("$prefix/sites-available/chaindata", "$prefix/sites-enabled/chaindata")
    or die $!;

# under the sanitizers, their runtimes preloaded as the harness does
my $env = ChainData::Test::Nginx::_sanitizer_env($prefix);
my ($code, $out, $err) = run_cmd([nginx_binary(), '-t', '-p', "$prefix/",
    '-c', "$prefix/nginx.conf"], env => $env);
is($code, 0, 'nginx -t passes with the site as it is')
    or diag("$out$err");
unlike("$out$err", qr/\[(warn|emerg|alert|crit|error)\]/,
       'nginx -t says nothing but that the test is successful')
    or diag("$out$err");

# the site serves as it is, on a free port instead of 80 (nginx -t
# opens no socket; serving does)
my $port = ChainData::Test::Nginx::_free_port();
(my $served = $site) =~ s/^(\s*listen\s+)80;/${1}127.0.0.1:$port;/m
    or die "the site does not listen on port 80\n";
# and its upstream on a port nothing listens on: 3999, the example's, may
# be a real upstream on this machine
my $none = ChainData::Test::Nginx::_free_port();
$served =~ s/^(\s*server\s+)127\.0\.0\.1:3999;/${1}127.0.0.1:$none;/m
    or die "the site's upstream is not 127.0.0.1:3999\n";
spew("$prefix/sites-available/chaindata", $served);
($code, $out, $err) = run_cmd([nginx_binary(), '-p', "$prefix/",
    '-c', "$prefix/nginx.conf"], env => $env);
is($code, 0, 'nginx starts with the site') or diag("$out$err");
my ($tx) = tx_fixtures(fixture_path('tx.ndjson'));
my $r;
for (1 .. 50) {
    $r = eval { http_get($port, "/extended/v1/tx/$tx->{tx_id}") };
    last if $r;
    select(undef, undef, undef, 0.1);
}
is($r && $r->{status}, 200, 'the site serves a transaction of the index');
$r = http_get($port, '/extended/v1/tx/mempool');
is($r->{status}, 502, 'and passes the rest to upstream (none here: 502)');
like($r->{body}, qr/"statusCode":502/, 'in the JSON error shape');
if (-s "$prefix/nginx.pid") {
    my $pid = slurp("$prefix/nginx.pid") =~ s/\s+//gr;
    kill 'QUIT', $pid;
    for (1 .. 100) {
        last unless kill 0, $pid;
        select(undef, undef, undef, 0.05);
    }
}
my @reports = glob("$prefix/sanitizer*");
is(scalar(@reports), 0, 'no sanitizer report') or diag(slurp($reports[0]));

done_testing();
