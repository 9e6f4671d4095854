package ChainData::TxV3;
# The v3 transaction routes against real upstream answers: the ingest
# records of a data set with what v3 needs beside the v1 document (the
# block's index hashes from the feed a follower reads, a mempool
# transaction's receipt_block_height), and the replay of its answers.

use strict;
use warnings;
use JSON::PP ();
use Test::More;
use ChainData::Test qw(:all);

our @EXPORT_OK = qw(v3_records replay_answers v3_locations);
use Exporter 'import';

my $JSON = JSON::PP->new->canonical;

# the locations that serve both API versions as upstream's paths
sub v3_locations {
    return <<'EOF';
        location /extended/v1/tx/ { chaindata_tx; }
        location ~ ^/extended/v3/transactions/[^/]+(/events)?/?$ {
            chaindata_tx_v3;
        }
EOF
}

# v3_records($ndjson, $feed, $answers) -> the NDJSON with, on each tx
# record, index_block_hash and parent_index_block_hash of its block (from
# the feed's /extended/v2/blocks/{h}) and, on a pending one, its
# receipt_block_height: upstream's mempool table holds it, its v1 and
# mempool listings do not, so it is taken from the v3 answer itself (the
# mirror reads it from the v3 mempool listing); likewise block_time where
# v3's differs from v1's (upstream's v1 writes the burn block's time for
# a block recorded without one, v3 the 0 it holds), and the parent's
# index hash where v3's differs from the block record's (the first
# block's transactions name the parent their event payload names).
sub v3_records {
    my ($ndjson, $feed, $answers) = @_;
    my (%block, %receipt, %time);
    for my $a (@$feed) {
        next unless $a->{status} == 200
            && $a->{path} =~ m{^/extended/v2/blocks/[^/?]+$};
        my $b = $JSON->decode($a->{body});
        $block{$b->{hash}} = [$b->{index_block_hash},
                              $b->{parent_index_block_hash}];
    }
    for my $a (@$answers) {
        next unless $a->{status} == 200 && ($a->{note} // '') eq 'lean';
        my $d = $JSON->decode($a->{body});
        $receipt{$d->{tx_id}} = $d->{receipt_block_height}
            if exists $d->{receipt_block_height};
        $time{$d->{tx_id}} = [$d->{block}{time}, $d->{parent_block}{index_hash}]
            if $d->{block};
    }
    my $out = '';
    for my $line (split /\n/, $ndjson) {
        next unless $line =~ /\S/;
        my $r = $JSON->decode($line);
        my $d = $r->{data};
        my $extra = '';
        if (defined $d && defined $d->{block_hash} && $block{$d->{block_hash}}) {
            my ($ib, $pib) = @{ $block{$d->{block_hash}} };
            my ($t, $p) = @{ $time{$d->{tx_id}} || [] };
            $pib = $p if defined $p;
            $extra = qq(,"index_block_hash":"$ib","parent_index_block_hash":"$pib");
            $extra .= qq(,"block_time":$t)
                if defined $t && $t != $d->{block_time};
        } elsif (defined $d && defined $receipt{$d->{tx_id}}) {
            $extra = qq(,"receipt_block_height":$receipt{$d->{tx_id}});
        }
        $line =~ s/\}\s*$/$extra}/ if $extra;
        $out .= "$line\n";
    }
    return $out;
}

# the headers a client sees that are compared (lower case), and the
# deliberate differences of doc/api.md: chaindata's ETag is its own (the
# stored document's digest and the page: compared as present or not),
# X-API-Version is not sent, an id without "0x" is a 302 on v3 as on v1
#
# $known: the ids the ingest records hold; an answer about another real
# transaction (one upstream's v1 route does not serve, so the records,
# made of its v1 answers, lack it) is left out, and counted.
sub replay_answers {
    my ($port, $answers, $label, $known) = @_;
    my ($n, $bad, $left) = (0, 0, 0);
    for my $a (@$answers) {
        my $path = $a->{path};
        next unless $path =~ m{^/extended/(v1/tx|v3/transactions)/};
        if ($known && $path =~ m{/(?:0x)?([0-9a-fA-F]{64})(?:[/?]|$)}
            && !$known->{lc $1} && $1 !~ /^0+$/) {
            $left++;
            next;
        }
        my $r = http_get($port, $path);
        my %want = map { (lc $_->[0] => $_->[1]) } @{ $a->{response_headers} };
        my $what = "$label: $a->{note}: GET $path";
        $n++;
        if ($a->{status} == 500 && $path =~ m{/v3/transactions/([0-9a-fA-F]{64})}) {
            my $id = $1;
            (my $to = $path) =~ s{/\Q$id\E}{/0x$id};
            $bad++ unless
                is($r->{status}, 302, "$what: 302 (upstream: 500)")
                && is($r->{headers}{location}, $to, "$what: to the 0x form");
            next;
        }
        my @diff;
        push @diff, "status $r->{status}, upstream $a->{status}"
            if ($r->{status} // 0) != $a->{status};
        push @diff, "body differs:\n  chaindata: $r->{body}\n  upstream:  $a->{body}"
            if $r->{body} ne $a->{body};
        for my $h (qw(content-type cache-control access-control-allow-origin
                      access-control-expose-headers warning)) {
            my ($got, $exp) = ($r->{headers}{$h}, $want{$h});
            push @diff, "$h: " . ($got // '(none)') . ', upstream ' . ($exp // '(none)')
                if ($got // '') ne ($exp // '');
        }
        push @diff, 'ETag: ' . ($r->{headers}{etag} // '(none)') . ', upstream '
            . ($want{etag} // '(none)')
            if !!defined $r->{headers}{etag} != !!defined $want{etag};
        $bad++ if @diff;
        ok(!@diff, $what) or diag(join "\n", @diff);
    }
    return ($n, $bad, $left);
}

1;
