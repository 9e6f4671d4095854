#!/usr/bin/perl
# The Debian packages: `make deb` builds them (lintian-clean), they hold
# what doc/operations.md "Install" says with the nginx ABI dependency, and Debian's
# nginx serves an index from a throwaway root they were extracted into
# (dpkg -x: the machine's own root and nginx are left alone), with the
# packaged module and snippet and an index built by the packaged loader.
# There the packaged site, enabled by the README's link, passes nginx -t,
# and so does Debian's nginx.conf once the package is removed, then purged
# (purge_keeps_nginx).  make deb compiles without a warning.  The systemd
# units pass `systemd-analyze verify` where systemd is there.

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);

plan skip_all => 'needs root: make deb installs the packaging tools'
    unless is_root();
plan skip_all => 'the packages are built from the plain build, not '
    . "CHAINDATA_BUILD=$ENV{CHAINDATA_BUILD}" if $ENV{CHAINDATA_BUILD};

my $root = repo_root();
my ($code, $out, $err) = run_cmd(['sh', "$root/tools/deps.sh", 'deb'],
    timeout => 600);
plan skip_all => "the packaging tools cannot be installed: $out$err"
    if $code != 0;

# a few minutes at most: two builds of the module and the loader
($code, $out, $err) = run_cmd(['make', '-C', $root, 'deb'], timeout => 900);
is($code, 0, 'make deb builds the packages, lintian-clean')
    or diag(substr("$out$err", -4000));
my @warnings = "$out$err" =~ /^(.*warning: .*\[-W[^\]]+\])$/mg;
is(scalar(@warnings), 0, 'make deb: no compiler warning')
    or diag(join "\n", @warnings);

my ($version) = slurp("$root/debian/changelog") =~ /^\S+ \(([^)]+)\)/;
my %deb;
for my $pkg (qw(libnginx-mod-http-chaindata chaindata-tools)) {
    ($deb{$pkg}) = glob("$root/build/${pkg}_${version}_*.deb");
    ok($deb{$pkg} && -f $deb{$pkg}, "build/ holds $pkg $version")
        or BAIL_OUT("no $pkg package");
}

sub field {
    my ($pkg, $name) = @_;
    my ($c, $o) = run_cmd(['dpkg-deb', '-f', $deb{$pkg}, $name]);
    chomp $o;
    return $o;
}

sub files {
    my ($pkg) = @_;
    my ($c, $o) = run_cmd(['dpkg-deb', '-c', $deb{$pkg}]);
    return map { m{\s\.(/\S*?)/?(?: -> .*)?$} ? $1 : () } split /\n/, $o;
}

# the ABI dependency is the one Debian's nginx provides
my ($c, $provides) = run_cmd(['dpkg-query', '-W', '-f=${Provides}', 'nginx']);
my ($abi) = $provides =~ /(nginx-abi-[\w.+~-]+)/;
ok($abi, "Debian's nginx provides an ABI ($provides)");
my $depends = field('libnginx-mod-http-chaindata', 'Depends');
like($depends, qr/(^|, )\Q$abi\E(,|$)/, "the module depends on $abi");
like($depends, qr/liblmdb0/, 'and on LMDB');
like($depends, qr/libyajl2/, 'and on yajl');
like(field('chaindata-tools', 'Depends'), qr/liblmdb0/,
     'the tools depend on LMDB');

# every program the Makefile builds: src/NAME/chaindata_NAME.c
my @programs = map { m{src/(\w+)/} ? "chaindata-$1" : () }
               grep { m{src/(\w+)/chaindata_\1\.c$} }
               glob("$root/src/*/chaindata_*.c");
ok(scalar(@programs) >= 1, "programs: @programs");

my %module = map { $_ => 1 } files('libnginx-mod-http-chaindata');
my %tools  = map { $_ => 1 } files('chaindata-tools');
# each package its pages: the module's reference, the API and operations
# with the module, the programs' pages and operations with the tools, the
# schema with both; the example server in front of upstream
# (t/82-examples.t) with the module, and in sites-available
my $mdoc = '/usr/share/doc/libnginx-mod-http-chaindata';
my $tdoc = '/usr/share/doc/chaindata-tools';
for my $f ('/usr/lib/nginx/modules/ngx_http_chaindata_module.so',
           '/usr/share/nginx/modules-available/mod-http-chaindata.conf',
           '/etc/nginx/sites-available/chaindata',
           '/usr/share/man/man8/chaindata.8.gz',
           '/usr/share/man/man7/chaindata-operations.7.gz',
           (map { "$mdoc/$_" } qw(README.md module.md api.md operations.md
               lmdb-schema/README.md lmdb-schema/feed.md nginx.conf.example
               examples/front-of-upstream.conf
               monitoring/chaindata.rules.yml
               monitoring/chaindata-dashboard.json copyright)))
{
    ok($module{$f}, "module package: $f");
}
for my $f ((map { ("/usr/bin/$_", "/usr/share/man/man1/$_.1.gz") }
            @programs),
           '/lib/systemd/system/chaindata-mirror@.service',
           '/lib/systemd/system/chaindata-follow@.service',
           '/usr/lib/tmpfiles.d/chaindata.conf',
           '/usr/lib/sysusers.d/chaindata.conf',
           (map { "$tdoc/$_" } qw(first-fill.md loader.md mirror.md operations.md
               nats-server-chaindata.conf lmdb-schema/README.md lmdb-schema/feed.md
               examples/mirror.conf.example examples/follow.conf.example)),
           '/var/lib/chaindata', '/etc/chaindata')
{
    ok($tools{$f}, "tools package: $f");
}
ok(!(grep { m{^/usr/share/man/man1/} && !m{/man1$} } keys %module),
   'the module package has no program\'s man page');
ok(!(grep { m{^/usr/share/man/man8/} && !m{/man8$} } keys %tools),
   'the tools package has no chaindata(8)');
ok(!(grep { m{/(module|api|developer)\.md$} } keys %tools)
   && !(grep { m{/(loader|mirror|developer)\.md$} } keys %module),
   'each page in the package of its reader, the developer guide in none');
ok(!(grep { m{^/etc/nginx/(?:modules|sites)-enabled} } keys %module),
   'no modules-enabled link shipped: the maintainer scripts make it; '
   . 'nor a sites-enabled one: the site is installed disabled');

# the modules-enabled link, made and removed as Debian's modules do
my $ctl = temp_dir();
run_cmd(['dpkg-deb', '-e', $deb{'libnginx-mod-http-chaindata'}, $ctl]);
like(slurp("$ctl/postinst"),
     qr{mod-http-chaindata\.conf:50-mod-http-chaindata\.conf},
     'postinst links modules-enabled/50-mod-http-chaindata.conf');
ok(-f "$ctl/postrm" && -f "$ctl/prerm", 'prerm and postrm undo it');
like(-f "$ctl/conffiles" ? slurp("$ctl/conffiles") : '',
     qr{^/etc/nginx/sites-available/chaindata$}m,
     'the site is a conffile: the operator\'s edits stay, a purge takes it');

# a throwaway root
my $dest = temp_dir();
for my $pkg (sort keys %deb) {
    ($code, $out, $err) = run_cmd(['dpkg', '-x', $deb{$pkg}, $dest]);
    is($code, 0, "dpkg -x $pkg") or diag($err);
}
# what a man page cites is in its package
for my $m (glob("$dest/usr/share/man/man*/*.gz")) {
    my $text = qx{gzip -dc "$m"};
    my @cited = $text =~ m{\\fI(/usr/share/doc/[^\\\s]+)\\fR}g;
    my @missing = grep { !-e "$dest$_" } @cited;
    my ($name) = $m =~ m{([^/]+)\.gz$};
    ok(@cited && !@missing, "$name cites " . scalar(@cited)
       . ' installed files, each in the packages')
        or diag("missing: @missing");
}
is(slurp("$dest/usr/share/nginx/modules-available/mod-http-chaindata.conf"),
   "load_module modules/ngx_http_chaindata_module.so;\n",
   'the snippet loads the module from nginx\'s modules directory');
like(slurp("$dest/usr/lib/tmpfiles.d/chaindata.conf"),
     qr{^d /var/lib/chaindata 2750 chaindata www-data -$}m,
     'tmpfiles.d gives the index directory to the writer, nginx\'s group');
like(slurp("$dest/usr/lib/sysusers.d/chaindata.conf"),
     qr{^u chaindata - .*\n(?:.*\n)*m chaindata www-data$}m,
     'sysusers.d makes the writer, in nginx\'s group');
($c, my $postinst) = run_cmd(['dpkg-deb', '-I', $deb{'chaindata-tools'},
                              'postinst']);
like($postinst, qr/systemd-sysusers/,
     'the tools\' postinst makes the user');
for my $p (@programs) {
    ($code, $out) = run_cmd(["$dest/usr/bin/$p", '--version']);
    is($out, "$p $version\n", "$p --version");
}

# the units: as the index owner, restarted, hardened, credentials from a
# root-only file, the journal
for my $u ('mirror', 'follow') {
    my $unit = slurp("$dest/lib/systemd/system/chaindata-$u\@.service");
    like($unit, qr/^User=chaindata$/m,
         "$u unit: runs as the index writer, not nginx's user");
    like($unit, qr/^Group=www-data$/m, "$u unit: in nginx's group");
    like($unit, qr/^LimitCORE=0$/m, "$u unit: no core file");
    unlike($unit, qr/CHAINDATA_MIRROR_AUTH|^Environment=/m,
           "$u unit: no secret through the environment");
    like($unit, qr/^Restart=(on-failure|always)$/m, "$u unit: restarts");
    like($unit, qr{^EnvironmentFile=/etc/chaindata/$u-%i\.conf$}m,
         "$u unit: its configuration and credentials from a file");
    like($unit, qr/^StandardError=journal$/m, "$u unit: journal");
    for my $h (qw(NoNewPrivileges=yes ProtectSystem=strict PrivateTmp=yes
                  ReadWritePaths=/var/lib/chaindata))
    {
        like($unit, qr/^\Q$h\E$/m, "$u unit: $h");
    }
}

SKIP: {
    skip 'systemd-analyze is not installed: units not verified', 2
        unless -x '/usr/bin/systemd-analyze';
    # the units pointed at the throwaway root's programs, as instances
    my $dir = temp_dir();
    for my $u ('mirror', 'follow') {
        my $unit = slurp("$dest/lib/systemd/system/chaindata-$u\@.service");
        $unit =~ s{/usr/bin/}{$dest/usr/bin/}g;
        spew("$dir/chaindata-$u\@.service", $unit);
        symlink("chaindata-$u\@.service", "$dir/chaindata-$u\@test.service");
        ($code, $out, $err) = run_cmd(['systemd-analyze', 'verify',
            '--man=no', "$dir/chaindata-$u\@test.service"]);
        is($code, 0, "systemd-analyze verify chaindata-$u\@.service")
            or diag("$out$err");
    }
}

# an index built by the packaged loader
my $fx = fixture_path('tx.ndjson');
my $index = temp_dir() . '/index';
($code, $out, $err) = run_cmd(["$dest/usr/bin/chaindata-load", '--db',
    $index, $fx]);
is($code, 0, 'the packaged loader builds an index') or diag($err);
fixup_index_perms($index);

# Debian's nginx, the packaged module and snippet: its prefix's modules
# is the root's (Debian's /usr/share/nginx/modules links nginx's modules
# directory), modules-enabled as the postinst makes it, included as
# Debian's nginx.conf includes it
my $snippet = "$dest/usr/share/nginx/modules-available/mod-http-chaindata.conf";
my $ng = ChainData::Test::Nginx->start(
    no_load_module => 1,
    prefix_setup => sub {
        my ($prefix) = @_;
        symlink("$dest/usr/lib/nginx/modules", "$prefix/modules") or die $!;
        mkdir "$prefix/modules-enabled" or die $!;
        symlink($snippet, "$prefix/modules-enabled/50-mod-http-chaindata.conf")
            or die $!;
    },
    main => "include modules-enabled/*.conf;\n",
    db => $index,
    locations => "        location /extended/v1/tx/ { chaindata_tx; }\n",
);
my ($tx) = tx_fixtures($fx);
my $r = http_get($ng->port, "/extended/v1/tx/$tx->{tx_id}");
is($r->{status}, 200, 'nginx serves a transaction with the packaged module');
like($r->{body}, qr/"tx_id":"\Q$tx->{tx_id}\E"/, 'the transaction');
$ng->stop;

purge_keeps_nginx();

# make install: the same places under DESTDIR, the link included, the
# index directory given to the worker user
my $stage = temp_dir();
($code, $out, $err) = run_cmd(['make', '-C', $root, 'install',
    "DESTDIR=$stage", 'PREFIX=/usr']);
is($code, 0, 'make install DESTDIR=… PREFIX=/usr') or diag("$out$err");
for my $f ((map { ("/usr/bin/$_", "/usr/share/man/man1/$_.1") } @programs),
           '/usr/lib/nginx/modules/ngx_http_chaindata_module.so',
           '/usr/share/man/man8/chaindata.8',
           "$mdoc/README.md", "$mdoc/module.md", "$mdoc/nginx.conf.example",
           "$mdoc/examples/front-of-upstream.conf", "$tdoc/loader.md",
           "$tdoc/examples/mirror.conf.example",
           '/lib/systemd/system/chaindata-mirror@.service',
           '/usr/lib/tmpfiles.d/chaindata.conf')
{
    ok(-f "$stage$f", "make install: $f");
}
my $site = "$stage/etc/nginx/sites-available/chaindata";
is(slurp($site), slurp("$root/doc/examples/front-of-upstream.conf"),
   'make install: the site in sites-available');
spew($site, "# the operator's\n");
($code, $out, $err) = run_cmd(['make', '-C', $root, 'install',
    "DESTDIR=$stage", 'PREFIX=/usr']);
is(slurp($site), "# the operator's\n", 'make install again: the site kept');
is(readlink("$stage/etc/nginx/modules-enabled/50-mod-http-chaindata.conf"),
   '/usr/share/nginx/modules-available/mod-http-chaindata.conf',
   'make install: the modules-enabled link');
like(slurp("$stage/usr/share/nginx/modules-available/mod-http-chaindata.conf"),
     qr{^load_module /usr/lib/nginx/modules/ngx_http_chaindata_module\.so;$},
     'make install: the snippet');
if (defined getpwnam('chaindata')) {
    is((stat "$stage/var/lib/chaindata")[4], scalar getpwnam('chaindata'),
       'make install: the index directory belongs to chaindata');
} else {
    like($out, qr/give \/var\/lib\/chaindata to chaindata/,
         'make install: says to give the index directory to chaindata');
}
ok(-f "$stage/usr/lib/sysusers.d/chaindata.conf", 'make install: sysusers.d');

done_testing();


# The site the module's package installs disabled, enabled with the
# README's link, in the throwaway root laid out as Debian's /etc/nginx
# (the module's snippet linked as the postinst links it): nginx -t passes
# with the site, then after what `apt remove` and `apt purge` do: dpkg
# removes the package's files (a purge the conffiles too), dh_nginx's
# scripts rename the modules-enabled link (remove) and delete it (purge),
# and the package's own postrm, run with DPKG_ROOT, removes the link
# enabling the site.
sub purge_keeps_nginx {
    my $etc = "$dest/etc/nginx";
    my $site = "$etc/sites-available/chaindata";
    is(slurp($site), slurp("$root/doc/examples/front-of-upstream.conf"),
       'the site is the example in front of upstream');
    my $readme = slurp("$root/README.md");
    like($readme,
         qr{^\s*ln -s \.\./sites-available/chaindata /etc/nginx/sites-enabled/}m,
         'the README enables it with a link in sites-enabled');

    # Debian's prefix, nginx.conf and links; the operator's edit of the
    # site: chaindata_db names the index built above
    debian_nginx_conf($etc, temp_dir());
    symlink('../../lib/nginx/modules', "$dest/usr/share/nginx/modules")
        or die "symlink: $!";
    my $mod_link = "$etc/modules-enabled/50-mod-http-chaindata.conf";
    symlink($snippet, $mod_link) or die "symlink: $!";
    symlink('../sites-available/chaindata', "$etc/sites-enabled/chaindata")
        or die "symlink: $!";
    spew($site, slurp($site) =~ s{/var/lib/chaindata\b}{$index}gr);
    my $nginx_t = sub {
        my ($name) = @_;
        my ($c, $o, $e) = run_cmd([nginx_binary(), '-t', '-p',
            "$dest/usr/share/nginx/", '-c', "$etc/nginx.conf"]);
        is($c, 0, "nginx -t $name") or diag("$o$e");
    };
    $nginx_t->('with the site enabled');

    # the package's postrm less debhelper's sections, which are emulated
    (my $postrm = slurp("$ctl/postrm"))
        =~ s/^# Automatically added by dh_.*?^# End automatically added section\n//msg;
    like($postrm, qr/sites-enabled/, 'the postrm removes the site\'s link');
    spew("$ctl/postrm.own", $postrm);
    my %conffile = map { $_ => 1 } split /\n/,
        -f "$ctl/conffiles" ? slurp("$ctl/conffiles") : '';
    my @files = grep { -f "$dest$_" || -l "$dest$_" }
                files('libnginx-mod-http-chaindata');

    # apt remove
    unlink map { "$dest$_" } grep { !$conffile{$_} } @files;
    rename($mod_link, "$mod_link.removed") or die "rename: $!";
    my ($c, $o, $e) = run_cmd(['sh', "$ctl/postrm.own", 'remove'],
                              env => { DPKG_ROOT => $dest });
    is($c, 0, 'postrm remove') or diag("$o$e");
    ok(!-l "$etc/sites-enabled/chaindata", 'the site\'s link is gone');
    ok(-f $site, 'the site stays until the purge');
    $nginx_t->('after apt remove');

    # apt purge, after the operator enabled the site again by mistake
    symlink('../sites-available/chaindata', "$etc/sites-enabled/chaindata")
        or die "symlink: $!";
    unlink map { "$dest$_" } keys %conffile;
    ($c, $o, $e) = run_cmd(['sh', "$ctl/postrm.own", 'purge'],
                           env => { DPKG_ROOT => $dest });
    is($c, 0, 'postrm purge') or diag("$o$e");
    unlink "$mod_link.removed";
    ok(!-l "$etc/sites-enabled/chaindata", 'no link left in sites-enabled');
    $nginx_t->('after apt purge');
}
