package ChainData::Harness;

# The harness `make test` runs prove with (--harness ChainData::Harness):
# prove's own, its summary left as it is (CI reads "Result: PASS" and the
# "Files=" line), followed by the checks that were skipped and why, so
# that a skip is seen without prove -v (a fresh clone without the
# upstream schema, a run that is not root's).  Core Perl only.

use strict;
use warnings;

use parent 'TAP::Harness';

# every parser reports its skips: a whole file (a plan "1..0 # SKIP why")
# or a check ("ok N # skip why")
sub make_parser {
    my ($self, $job) = @_;
    my ($parser, $session) = $self->SUPER::make_parser($job);
    my $file = $job->description;
    my $skips = $self->{chaindata_skips} ||= [];
    $parser->callback(plan => sub {
        my ($plan) = @_;
        push @$skips, [$file, 0, $plan->explanation] if $plan->has_skip;
    });
    $parser->callback(test => sub {
        my ($test) = @_;
        push @$skips, [$file, 1, $test->explanation] if $test->has_skip;
    });
    return ($parser, $session);
}

sub summary {
    my ($self, @args) = @_;
    $self->SUPER::summary(@args);
    print $self->skip_summary;
}

# "chaindata: N checks skipped, M files skipped whole:" and one line per
# file and reason; "chaindata: nothing skipped" when so
sub skip_summary {
    my ($self) = @_;
    my @skips = @{ $self->{chaindata_skips} || [] };
    return "chaindata: nothing skipped\n" unless @skips;
    my (%count, @order);
    for my $s (@skips) {
        my ($file, $check, $why) = @$s;
        $why = 'no reason given' if !defined $why || $why eq '';
        my $key = join "\0", $file, $check, $why;
        push @order, $key unless $count{$key}++;
    }
    my $checks = grep { $_->[1] } @skips;
    my $files = grep { !$_->[1] } @skips;
    my $out = sprintf "chaindata: %d check%s skipped, %d file%s skipped whole:\n",
        $checks, $checks == 1 ? '' : 's', $files, $files == 1 ? '' : 's';
    for my $key (@order) {
        my ($file, $check, $why) = split /\0/, $key;
        my $n = $count{$key};
        $out .= $check
            ? sprintf("  %s: %d check%s: %s\n", $file, $n, $n == 1 ? '' : 's', $why)
            : sprintf("  %s: the whole file: %s\n", $file, $why);
    }
    return $out;
}

1;
