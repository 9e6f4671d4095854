#!/usr/bin/perl
# chaindata bench: checks, before anything is measured, that every path of a
# request list gets the expected status from each server, and that the
# servers answer with the same body (the baseline serves the same
# documents).  Core Perl, one keep-alive connection per server.
#
# usage: check.pl --paths FILE --status CODE [--first-event N]
#                 [--max N] PORT [PORT ...]
#   --first-event N   the 200 body's first event has "event_index":N
#   --max N           check only the first N paths (default: all)
# Prints one line; exits 1 on the first mismatch, saying what it was.

use strict;
use warnings;

use Getopt::Long qw(GetOptions);
use IO::Socket::INET;

my ($paths, $status, $first_event, $max);
GetOptions('paths=s' => \$paths, 'status=i' => \$status,
           'first-event=i' => \$first_event, 'max=i' => \$max)
    && defined $paths && defined $status && @ARGV
    or die "usage: $0 --paths FILE --status CODE [--first-event N] [--max N] PORT...\n";
my @ports = @ARGV;

open my $fh, '<', $paths or die "open $paths: $!";
chomp(my @paths = grep { /\S/ } <$fh>);
close $fh;
@paths = @paths[0 .. $max - 1] if defined $max && $max < @paths;
die "$0: $paths is empty\n" unless @paths;

my %conn;
sub connection {
    my ($port) = @_;
    return $conn{$port} ||= IO::Socket::INET->new(
        PeerAddr => '127.0.0.1', PeerPort => $port, Proto => 'tcp', Timeout => 10)
        || die "connect 127.0.0.1:$port: $@\n";
}

sub fill {
    my ($s, $buf, $want) = @_;
    while (length $$buf < $want) {
        my $n = sysread $s, $$buf, 1 << 20, length $$buf;
        die "read: " . (defined $n ? 'connection closed' : $!) . "\n" unless $n;
    }
}

# get($port, $path) -> ($status, $body)
sub get {
    my ($port, $path) = @_;
    for my $try (1, 2) {    # a server may close an idle keep-alive connection
        my $s = connection($port);
        my ($st, $body) = eval {
            my $req = "GET $path HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            syswrite($s, $req) == length $req or die "write: $!\n";
            my $buf = '';
            my $end;
            until (($end = index $buf, "\r\n\r\n") >= 0) { fill($s, \$buf, length($buf) + 1) }
            my $head = substr $buf, 0, $end;
            substr($buf, 0, $end + 4) = '';
            my ($code) = $head =~ m{^HTTP/1\.[01] (\d{3})} or die "bad status line\n";
            my ($len) = $head =~ /^Content-Length:\s*(\d+)\s*$/mi;
            die "no Content-Length in the response to $path\n" unless defined $len;
            fill($s, \$buf, $len);
            die "more bytes than Content-Length\n" if length $buf > $len;
            ($code, $buf);
        };
        return ($st, $body) if defined $st;
        delete $conn{$port};
        die "127.0.0.1:$port $path: $@" if $try == 2;
    }
}

my ($n, $bytes) = (0, 0);
for my $path (@paths) {
    my $ref;
    for my $port (@ports) {
        my ($st, $body) = get($port, $path);
        die "FAIL: 127.0.0.1:$port$path answered $st, expected $status\n" if $st != $status;
        if (defined $first_event
            && !($body =~ /"events":\[\{.*?"event_index":(\d+)/s && $1 == $first_event)) {
            die "FAIL: 127.0.0.1:$port$path: the first event is not event_index $first_event\n";
        }
        if (!defined $ref) {
            $ref = $body;
        } elsif ($body ne $ref) {
            my $i = 0;
            $i++ while $i < length($ref) && substr($ref, $i, 1) eq substr($body, $i, 1);
            die "FAIL: $path: 127.0.0.1:$port answered another body than 127.0.0.1:$ports[0]"
                . " (they differ from byte $i: ...'" . substr($ref, $i, 40) . "' vs '"
                . substr($body, $i, 40) . "')\n";
        }
        $bytes += length $body;
    }
    $n++;
}
printf "ok: %d paths, status %d from %d server(s), identical bodies (%.0f bytes on average)\n",
    $n, $status, scalar @ports, $bytes / ($n * @ports);
