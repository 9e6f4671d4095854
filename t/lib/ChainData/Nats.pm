package ChainData::Nats;

# A nats-server with JetStream for the fan-out tests, started as the
# harness starts nginx: in a temporary directory, on a free loopback
# port; stop() and start() again keep the port and the store directory
# (a server restart).  require_nats() skips a test without nats-server
# (as root it installs it through tools/deps.sh, like other test deps).
#
#   my $ns = ChainData::Nats->start(max_payload => 65536);
#   $ns->url; $ns->stop; $ns->start; $ns->kill;
#
# include => FILE: a configuration the server includes (users and their
# permissions: nats-server-chaindata.conf), env => {NAME => value} the
# variables it reads; request(..., {user => U, pass => P}) connects as U.
#
# The signed-unit tests make their Ed25519 keys as operators do:
# ed25519_keys($dir, 'unit', 'other') writes $dir/unit.key (mode 0600)
# and $dir/unit.pub, and the same for other; openssl(ARGS) runs openssl
# and returns its output, dying with its error when it fails.

use strict;
use warnings;

use Exporter qw(import);
use IO::Socket::INET;
use POSIX qw(:sys_wait_h);
use Time::HiRes qw(sleep time);
use Test::More ();
use ChainData::Test qw(temp_dir spew repo_root is_root run_cmd);

our @EXPORT_OK = qw(require_nats nats_server openssl ed25519_keys);

my %RUNNING;    # pid => 1, stopped at exit

sub nats_server { return $ENV{CHAINDATA_NATS_SERVER} || '/usr/sbin/nats-server' }

sub require_nats {
    return if -x nats_server();
    if (is_root()) {
        system('sh', repo_root() . '/tools/deps.sh', 'test');
        return if -x nats_server();
    }
    Test::More::plan(skip_all => 'nats-server is not installed (Debian '
        . 'package nats-server; tools/deps.sh test installs it as root)');
}

sub openssl {
    my ($c, $o, $e) = run_cmd(['openssl', @_]);
    die "openssl @_: $e" if $c;
    return $o;
}

sub ed25519_keys {
    my ($dir, @names) = @_;
    for my $n (@names) {
        openssl('genpkey', '-algorithm', 'ed25519', '-out', "$dir/$n.key");
        openssl('pkey', '-in', "$dir/$n.key", '-pubout', '-out', "$dir/$n.pub");
        chmod 0600, "$dir/$n.key";
    }
}

sub _free_port {
    my $s = IO::Socket::INET->new(LocalAddr => '127.0.0.1', LocalPort => 0,
        Proto => 'tcp', Listen => 1, ReuseAddr => 1)
        or die "cannot bind 127.0.0.1:0: $@";
    my $port = $s->sockport;
    close $s;
    return $port;
}

sub new {
    my ($class, %o) = @_;
    my $dir = temp_dir();
    my $self = bless { dir => $dir, port => _free_port(), %o }, $class;
    my $conf = "listen: 127.0.0.1:$self->{port}\n"
        . "jetstream { store_dir: \"$dir/store\" }\n"
        . ($o{max_payload} ? "max_payload: $o{max_payload}\n" : '');
    if ($o{include}) {
        spew("$dir/include.conf", ChainData::Test::slurp($o{include}));
        $conf .= "include \"include.conf\"\n";
    }
    spew("$dir/nats.conf", $conf);
    return $self;
}

sub start {
    my ($self, %o) = @_;
    $self = $self->new(%o) unless ref $self;
    my $from = length $self->log;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>>', "$self->{dir}/nats.log" or POSIX::_exit(126);
        open STDERR, '>&', \*STDOUT or POSIX::_exit(126);
        $ENV{$_} = $self->{env}{$_} for keys %{ $self->{env} || {} };
        exec(nats_server(), '-js', '-c', "$self->{dir}/nats.conf")
            or POSIX::_exit(127);
    }
    $self->{pid} = $pid;
    $RUNNING{$pid} = 1;
    # ready when JetStream answers: its port accepts a little before
    my $deadline = time + 15;
    while (time < $deadline) {
        if (waitpid($pid, WNOHANG) == $pid) {
            delete $RUNNING{$pid};
            die "nats-server exited:\n" . $self->log;
        }
        return $self if substr($self->log, $from) =~ /Server is ready/;
        sleep 0.05;
    }
    die "nats-server did not start within 15 s:\n" . $self->log;
}

sub url  { return "nats://127.0.0.1:$_[0]{port}" }
sub port { return $_[0]{port} }
sub dir  { return $_[0]{dir} }
sub log  { return -e "$_[0]{dir}/nats.log" ? ChainData::Test::slurp("$_[0]{dir}/nats.log") : '' }

# A few words of the NATS protocol, enough for a test to write to a stream
# by hand: $ns->request($subject, $payload, \%headers) publishes with a
# reply subject and returns the reply's payload (a JetStream API call, or
# a JetStream publish whose reply is its acknowledgement).
sub request {
    my ($self, $subject, $payload, $headers, $as) = @_;
    my $s = IO::Socket::INET->new(PeerAddr => '127.0.0.1',
        PeerPort => $self->{port}, Proto => 'tcp', Timeout => 5)
        or die "connect to nats-server: $!";
    binmode $s;
    my $line = <$s>;
    die "nats-server: no INFO" unless defined $line && $line =~ /^INFO /;
    my $auth = $as ? qq{,"user":"$as->{user}","pass":"$as->{pass}"} : '';
    print $s qq{CONNECT {"verbose":false,"headers":true,"no_responders":true,"protocol":1$auth}\r\n}
        . "SUB _INBOX.t 1\r\n";
    if ($headers) {
        my $h = "NATS/1.0\r\n" . join('', map { "$_: $headers->{$_}\r\n" }
            sort keys %$headers) . "\r\n";
        print $s "HPUB $subject _INBOX.t " . length($h) . ' '
            . (length($h) + length $payload) . "\r\n$h$payload\r\n";
    } else {
        print $s "PUB $subject _INBOX.t " . length($payload) . "\r\n$payload\r\n";
    }
    local $SIG{ALRM} = sub { die "nats-server: no reply to $subject\n" };
    alarm 10;
    while (defined($line = <$s>)) {
        if ($line =~ /^PING/) { print $s "PONG\r\n"; next }
        die "nats-server: $line" if $line =~ /^-ERR/;
        # (the server writes an empty reply-to field: two spaces)
        next unless $line =~ /^H?MSG\s+\S+\s+\S+\s+(?:(\d+)\s+)?(\d+)\r\n$/;
        my $n = $2;
        read($s, my $body, $n + 2) == $n + 2 or die "nats-server: short read";
        alarm 0;
        close $s;
        $body = substr($body, $1) if defined $1;    # headers of the reply
        return substr($body, 0, -2);
    }
    die "nats-server: connection closed";
}

sub _end {
    my ($self, $sig) = @_;
    my $pid = delete $self->{pid} or return;
    CORE::kill($sig, $pid);
    waitpid($pid, 0);
    delete $RUNNING{$pid};
}

sub stop { $_[0]->_end('TERM') }
sub kill { $_[0]->_end('KILL') }

END {
    for my $pid (keys %RUNNING) {
        CORE::kill('KILL', $pid);
        waitpid($pid, 0);
    }
}

1;
