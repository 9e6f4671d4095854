#!/usr/bin/perl
# A debug error log never crashes a worker (issue 20, point 1): with a
# location serving the chainhook route, every worker puts a writer of the
# module's in front of the error logs (ngx_http_chaindata_redact_log.c);
# the writers are nginx's own again before the cycle's pool is destroyed
# and the module unloaded, so the lines nginx writes while a worker exits
# (reload, quit) never jump into the unloaded module.  Reload and quit at
# debug and info, with and without a chainhook location.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Chainhook qw(:all);

require_build();

my $fx = fixture_path('chainhook.ndjson');
my ($hooks) = chainhook_fixtures($fx);
my $hook = $hooks->[0];
my $db = new_index($fx);

my %LOCATIONS = (
    chainhook => <<'EOF_LOC',
        location /v1/ext/ {
            chaindata_chainhook_status;
        }
EOF_LOC
    plain => <<'EOF_LOC',
        location /v1/ext/ {
            return 404;
        }
EOF_LOC
);

sub crashes {
    my ($log) = @_;
    return join "\n", grep { /exited on signal|\[alert\]/ } split /\n/, $log;
}

for my $level (qw(debug info)) {
    for my $kind (qw(chainhook plain)) {
        my $name = "$kind location, error_log $level";
        my $ng = ChainData::Test::Nginx->start(
            db => $db, error_log_level => $level,
            locations => $LOCATIONS{$kind});
        my $path = hook_path($hook->{key}, $hook->{uuid});
        my $want = $kind eq 'chainhook' ? 200 : 404;

        is(http_get($ng->port, $path)->{status}, $want, "$name: served");
        ok($ng->reload, "$name: a new worker after a reload");
        is(http_get($ng->port, $path)->{status}, $want,
           "$name: served after the reload");
        is(crashes($ng->error_log), '', "$name: no worker crashed on reload");

        my $prefix = $ng->prefix;
        my @workers = $ng->worker_pids;
        $ng->{expect} = [qr/exited on signal/];   # reported below, once
        $ng->stop;
        my $log = slurp("$prefix/error.log");
        is(crashes($log), '', "$name: no worker crashed on quit");
        like($log, qr/\[notice\] \d+#\d+: exit\n(?:.*\n)*?.*exit\n/,
             "$name: the worker logged its exit")
            if $level eq 'debug';
        if ($level eq 'debug' && $kind eq 'chainhook') {
            # the secret stays out of the debug log too
            unlike($log, qr/\Q$hook->{key}\E/, "$name: no key in the log");
        }
    }
}

done_testing();
