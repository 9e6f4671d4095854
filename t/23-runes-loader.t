#!/usr/bin/perl
# chaindata-load and the rune records: every validation message, nothing
# written when a record is refused, and how accepted entries are stored
# (members in upstream's order, values as given, null as absent).

use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/lib";

use Test::More;
use ChainData::Test qw(:all);
use ChainData::Runes qw(:all);

require_build();

my $fx = fixture_path('runes.ndjson');
my $L = rune_lists($fx);
my $db = new_index($fx);
my $ng = ChainData::Test::Nginx->start(db => $db, locations => rune_locations());
my $port = $ng->port;
my $paths = rune_paths();

sub get { return http_get($port, $_[0]) }

my $TX = '5f' x 32;
my $BH = '00000000000000000002' . ('7e' x 22);
my $ADDR = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
my $RCV = 'bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0';

# a complete activity entry and a balance, in upstream's member order
my $RUNE = qq({"id":"840000:3","number":3,"name":"DOGGOTOTHEMOON","spaced_name":"DOG\x{2022}GO\x{2022}TO\x{2022}THE\x{2022}MOON"});
utf8::encode($RUNE);
my $LOC = qq({"block_hash":"$BH","block_height":840000,"tx_id":"$TX","tx_index":3,"timestamp":1713571767,"vout":1,"output":"$TX:1"});
my $ENTRY = qq({"rune":$RUNE,"operation":"send","location":$LOC,"address":"$ADDR","receiver_address":"$RCV","amount":"5000.00000"});
my $BALANCE = qq({"rune":$RUNE,"balance":"2100","address":"$ADDR"});

# the canary lists every refused record must leave alone
my ($canary_tx) = grep { @{ $L->{activity}{$_} } == 150 } keys %{ $L->{activity} };
my ($canary_addr) = grep { @{ $L->{balances}{$_} } == 130 } keys %{ $L->{balances} };
my $canary_a = get($paths->{activity}->($canary_tx) . '?offset=60&limit=60')->{body};
my $canary_b = get($paths->{balances}->($L->{address}{$canary_addr}) . '?offset=120&limit=60')->{body};
is($canary_a, expected_page($L->{activity}{$canary_tx}, 60, 60), 'canary activity served');

sub replace_member {
    my ($json, $path, $raw) = @_;    # path like 'rune.id'; undef $raw removes
    my ($first, $rest) = split /\./, $path, 2;
    if (defined $rest) {
        my $inner = json_member_value($json, $first);
        return json_replace_member($json, $first, replace_member($inner, $rest, $raw));
    }
    return json_remove_member($json, $first) unless defined $raw;
    return json_replace_member($json, $first, $raw) if defined json_member_value($json, $first);
    (my $s = $json) =~ s/\}\z/,"$first":$raw}/;
    return $s;
}

# ---------------------------------------------------------------- the templates load

{
    my ($code, $out, $err) = load_index($db, { stdin => activity_line($TX, $ENTRY) . balances_line($ADDR, $BALANCE) });
    is($code, 0, 'template records load') or diag($err);
    like($err, qr/1 rune activity lists, 0 rune activity deletes, 1 rune balance lists, 0 rune balance deletes/,
        'the summary counts rune records');
    is(get($paths->{activity}->($TX))->{body}, expected_page([$ENTRY], 0, 20), 'template activity served as given');
    is(get($paths->{balances}->($ADDR))->{body}, expected_page([$BALANCE], 0, 20), 'template balance served as given');
    ($code, $out, $err) = load_index($db, { stdin => activity_line($TX) . balances_line($ADDR) });
    like($err, qr/0 rune activity lists, 1 rune activity deletes, 0 rune balance lists, 1 rune balance deletes/,
        'the summary counts deletions');
}

# ---------------------------------------------------------------- refused records

my $N = 0;
sub refused {
    my ($line, $re, $name) = @_;
    $N++;
    chomp $line;
    my ($code, $out, $err) = load_index($db, { stdin => "$line\n" });
    is($code, 1, "$name: exit 1");
    like($err, qr/^chaindata-load: <stdin>:1: $re/m, "$name: message") or diag($err);
    like($err, qr/none of it was applied/, "$name: batch rejected");
}

# a line with what the schema does not know yet (an upstream addition):
# loaded, said with its place, counted, served byte for byte; then gone
sub stored_new {
    my ($line, $what, $name, $path, $entry) = @_;
    chomp $line;
    my ($code, $out, $err) = load_index($db, { stdin => "$line\n" });
    is($code, 0, "$name: exit 0") or diag($err);
    like($err, qr/^chaindata-load: <stdin>:1: stored as given, with what the schema does not know yet: \Q$what\E/m,
         "$name: said");
    like($err, qr/1 records with what the schema does not know yet, stored as given/, "$name: counted");
    is(get($path)->{body}, expected_page([$entry], 0, 20), "$name: served as given");
}

sub act_new {
    my ($path, $raw, $what) = @_;
    my $entry = replace_member($ENTRY, $path, $raw);
    stored_new(activity_line($TX, $entry), $what, "activity $path = $raw",
               $paths->{activity}->($TX), $entry);
    load_index($db, { stdin => activity_line($TX) });
}

sub bal_new {
    my ($path, $raw, $what) = @_;
    my $entry = replace_member($BALANCE, $path, $raw);
    stored_new(balances_line($ADDR, $entry), $what, "balance $path = $raw",
               $paths->{balances}->($ADDR), $entry);
    load_index($db, { stdin => balances_line($ADDR) });
}

sub act_refused {
    my ($path, $raw, $re, $name) = @_;
    refused(activity_line($TX, replace_member($ENTRY, $path, $raw)), $re, $name || "activity $path = " . ($raw // 'absent'));
}

sub bal_refused {
    my ($path, $raw, $re, $name) = @_;
    refused(balances_line($ADDR, replace_member($BALANCE, $path, $raw)), $re, $name || "balance $path = " . ($raw // 'absent'));
}

# envelopes
refused(qq({"kind":"rune_activity","tx_id":"$TX","results":[],"extra":1}),
    qr/unexpected member "extra" in a rune_activity record/, 'activity: unknown envelope member');
refused(qq({"kind":"rune_balances","address":"$ADDR","results":[],"tx_id":"$TX"}),
    qr/unexpected member "tx_id" in a rune_balances record/, 'balances: tx_id in a balances record');
refused(qq({"kind":"rune_activity","results":[]}), qr/tx_id must be 64 hex digits \(no "0x"\)/, 'activity: no tx_id');
refused(qq({"kind":"rune_activity","tx_id":"0x$TX","results":[]}), qr/tx_id must be 64 hex digits/, 'activity: 0x tx_id');
refused(qq({"kind":"rune_activity","tx_id":"${\ substr($TX, 1)}","results":[]}), qr/tx_id must be 64 hex digits/,
    'activity: 63 digits');
refused(qq({"kind":"rune_activity","tx_id":"${\ substr($TX, 1)}g","results":[]}), qr/tx_id must be 64 hex digits/,
    'activity: a non-hex digit');
refused(qq({"kind":"rune_activity","tx_id":12,"results":[]}), qr/tx_id must be 64 hex digits/, 'activity: numeric tx_id');
refused(qq({"kind":"rune_activity","tx_id":"$TX"}), qr/results is missing or not an array/, 'activity: no results');
refused(qq({"kind":"rune_activity","tx_id":"$TX","results":{}}), qr/results is missing or not an array/,
    'activity: results an object');
refused(qq({"kind":"rune_activity","tx_id":"$TX","results":null}), qr/results is missing or not an array/,
    'activity: results null');
refused(qq({"kind":"rune_balances","results":[]}), qr/address must be a Bitcoin address/, 'balances: no address');
refused(qq({"kind":"rune_balances","address":"bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4","results":[]}),
    qr/address must be a Bitcoin address/, 'balances: mixed-case bech32');
refused(qq({"kind":"rune_balances","address":"hello","results":[]}), qr/address must be a Bitcoin address/,
    'balances: garbage address');
refused(qq({"kind":"rune_balances","address":"$ADDR","results":[1]}), qr/results\[0\] must be an object/,
    'balances: an entry that is a number');
refused(activity_line($TX, $ENTRY, 'null'), qr/results\[1\] must be an object/, 'activity: a null entry');
refused(activity_line($TX, $ENTRY, $ENTRY, '[]'), qr/results\[2\] must be an object/, 'activity: an array entry');
refused(activity_line($TX, $ENTRY =~ s/"operation":"send",/"operation":"send","operation":"mint",/r),
    qr/duplicate member "operation"/, 'activity: a member twice');

# members upstream adds, at every level: stored as given, said, counted,
# and served as stored (the canary checks below see nothing else moved)
act_new('symbol', '"x"', 'results[0].symbol');
act_new('rune.divisibility', '5', 'results[0].rune.divisibility');
act_new('location.sat', '1', 'results[0].location.sat');
bal_new('amount', '"1"', 'results[0].amount');
bal_new('operation', '"mint"', 'results[0].operation');

# required members
for my $p (qw(rune operation location rune.id rune.name rune.spaced_name location.block_hash
              location.block_height location.tx_id location.tx_index location.timestamp))
{
    (my $re = $p) =~ s/\./\\./g;
    act_refused($p, undef, qr/results\[0\]\.$re is missing/);
}
bal_refused('rune', undef, qr/results\[0\]\.rune is missing/);
bal_refused('balance', undef, qr/results\[0\]\.balance is missing/);
bal_refused('rune.spaced_name', undef, qr/results\[0\]\.rune\.spaced_name is missing/);

# types, null where a value is required
for my $c (['rune', 'null', 'an object'], ['rune', '"x"', 'an object'], ['location', '[]', 'an object'],
           ['operation', 'null', 'a string'], ['operation', '1', 'a string'],
           ['rune.id', '840000', 'a string'], ['rune.name', 'null', 'a string'],
           ['rune.number', '"3"', 'an integer'], ['rune.number', '3.0', 'an integer'],
           ['rune.number', 'true', 'an integer'], ['location.block_height', '"840000"', 'an integer'],
           ['location.block_height', '8.4e5', 'an integer'], ['location.timestamp', 'null', 'an integer'],
           ['location.vout', '1.5', 'an integer'], ['location.output', '1', 'a string'],
           ['address', '1', 'a string'], ['receiver_address', '{}', 'a string'], ['amount', '5000', 'a string'])
{
    my ($p, $raw, $type) = @$c;
    (my $re = $p) =~ s/\./\\./g;
    act_refused($p, $raw, qr/results\[0\]\.$re must be \Q$type\E/);
}
bal_refused('balance', '2100', qr/results\[0\]\.balance must be a string/);
bal_refused('balance', 'null', qr/results\[0\]\.balance must be a string/);

# formats
my $RUNE_ID = qr/results\[0\]\.rune\.id must be "<block>:<tx>", two decimal integers/;
act_refused('rune.id', qq("$_"), $RUNE_ID) for ('840000', '840000:', ':3', '01:3', '840000:03', '840000:4294967296',
    '18446744073709551616:0', 'a:b', '840000:3:1', '840000 :3', '-1:3', '');
act_refused('rune.number', '-1', qr/results\[0\]\.rune\.number must be a non-negative integer/);
act_refused('rune.number', '18446744073709551616', qr/results\[0\]\.rune\.number must be a non-negative integer/);
my $NAME = qr/results\[0\]\.rune\.name must be 1 to 28 letters A-Z/;
act_refused('rune.name', qq("$_"), $NAME) for ('dog', '', 'DOG GO', 'DOG1', 'A' x 29, "DOG\\u2022GO");
my $SPACED = qr/results\[0\]\.rune\.spaced_name must be the name's letters A-Z with single bullets/;
for my $s ("\x{2022}DOG", "DOG\x{2022}", "DOG\x{2022}\x{2022}GO", 'DOG.GO', "dog\x{2022}go", '', "DOG GO",
           "DOG\x{25CF}GO", 'A' x 29)
{
    my $raw = qq("$s");
    utf8::encode($raw);
    act_refused('rune.spaced_name', $raw, $SPACED, 'spaced_name ' . ($s =~ s/\x{2022}/<bullet>/gr =~ s/([^\x00-\x7f])/sprintf('<U+%04X>', ord $1)/ger));
}
act_refused('rune.spaced_name', qq("DOG\xe2\x80\xa2GO\xe2\x80\xa2TO\xe2\x80\xa2THE\xe2\x80\xa2MOOM"),
    qr/results\[0\]\.rune\.spaced_name must be rune\.name with bullets/, 'spaced_name of another name');
act_refused('rune.spaced_name', qq("DOG\xe2\x80\xa2GO"),
    qr/results\[0\]\.rune\.spaced_name must be rune\.name with bullets/, 'spaced_name of a shorter name');
act_new('operation', qq("$_"), qq(results[0].operation "$_"))
    for ('transfer', 'Mint', 'SEND', '', 'etching ');
my $HEX = qr/must be 64 lowercase hex digits/;
act_refused('location.block_hash', '"' . uc($BH) . '"', qr/results\[0\]\.location\.block_hash $HEX/);
act_refused('location.block_hash', '"' . substr($BH, 1) . '"', qr/results\[0\]\.location\.block_hash $HEX/);
act_refused('location.block_hash', qq("0x${\ substr($BH, 2)}"), qr/results\[0\]\.location\.block_hash $HEX/);
act_refused('location.tx_id', '"' . uc($TX) . '"', qr/results\[0\]\.location\.tx_id $HEX/);
act_refused('location.tx_id', '"' . ('ab' x 32) . '"', qr/results\[0\]\.location\.tx_id must be the record's tx_id/);
act_refused('location.block_height', '-1', qr/results\[0\]\.location\.block_height must be a non-negative integer/);
act_refused('location.tx_index', '4294967296',
    qr/results\[0\]\.location\.tx_index must be an integer from 0 to 4294967295/);
act_refused('location.vout', '-1', qr/results\[0\]\.location\.vout must be an integer from 0 to 4294967295/);
act_refused('location.output', qq("$_"), qr/results\[0\]\.location\.output must be "<tx_id>:<vout>"/)
    for ('x', "$TX", "$TX:", "$TX:-1", "$TX:01", "$TX;1", "$TX:4294967296");
act_refused('location.output', qq("$TX:2"),
    qr/results\[0\]\.location\.output must be "<location\.tx_id>:<location\.vout>"$/m, 'output with another vout');
act_refused('location.output', '"' . ('ab' x 32) . ':1"',
    qr/results\[0\]\.location\.output must be "<location\.tx_id>:<location\.vout>"$/m, 'output of another tx');
act_refused('location.vout', undef,
    qr/results\[0\]\.location\.output must be "<location\.tx_id>:<location\.vout>" \(vout is missing\)/,
    'output without vout');
act_refused('address', qq("$_"), qr/results\[0\]\.address must be a Bitcoin address/)
    for ('', 'x', 'bc1qW508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', '0BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2');
act_refused('receiver_address', '"SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7"',
    qr/results\[0\]\.receiver_address must be a Bitcoin address/);
my $AMOUNT = qr/must be a decimal string such as "2100" or "5000\.00000" within the u128 range/;
act_refused('amount', qq("$_"), qr/results\[0\]\.amount $AMOUNT/)
    for ('', '-1', '+1', '1.', '.5', '1.2.3', '01', '00.5', '1e5', ' 1', '1,000', '0x10', 'NaN',
         '340282366920938463463374607431768211456', '340282366920938463463374607431768211455.0',
         '3402823669209384634633746074317682114.56', '1' . ('0' x 39), '0.' . ('0' x 38) . '1', '0.340282366920938463463374607431768211455',
         '999999999999999999999999999999999999999');
bal_refused('balance', qq("$_"), qr/results\[0\]\.balance $AMOUNT/) for ('-5', '1 000', '340282366920938463463374607431768211456');
bal_refused('address', '"bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"',
    qr/results\[0\]\.address must be the record's address/);
bal_refused('address', '"x"', qr/results\[0\]\.address must be a Bitcoin address/);
refused(balances_line($ADDR, $BALANCE, $BALANCE =~ s/"balance":"2100"/"balance":"1"/r),
    qr/results\[0\] and results\[1\] are both balances of rune 840000:3/, 'balances: one rune twice');
refused(balances_line($ADDR, $BALANCE, $BALANCE =~ s/840000:3/840000:4/r, $BALANCE =~ s/"2100"/"7"/r),
    qr/results\[0\] and results\[2\] are both balances of rune 840000:3/, 'balances: one rune twice, apart');

# an error deep in a long list names its position
{
    my @e = ($ENTRY) x 70;
    $e[67] = replace_member($ENTRY, 'amount', '"x"');
    refused(activity_line($TX, @e), qr/results\[67\]\.amount must be a decimal string/, 'the 68th entry of 70');
}

is(get($paths->{activity}->($canary_tx) . '?offset=60&limit=60')->{body}, $canary_a,
    "after $N refused records: the canary activity is unchanged");
is(get($paths->{balances}->($L->{address}{$canary_addr}) . '?offset=120&limit=60')->{body}, $canary_b,
    "after $N refused records: the canary balances are unchanged");
is(get($paths->{activity}->($TX))->{body}, expected_page([], 0, 20), 'no refused activity was stored');
is(get($paths->{balances}->($ADDR))->{body}, expected_page([], 0, 20), 'no refused balance was stored');

# --skip-invalid: the good records of the batch load, the bad are reported
{
    my $bad = activity_line($TX, replace_member($ENTRY, 'operation', '1'));
    my ($code, $out, $err) = load_index($db, '--skip-invalid',
        { stdin => $bad . balances_line($ADDR, $BALANCE) });
    is($code, 0, '--skip-invalid: exit 0');
    like($err, qr/<stdin>:1: results\[0\]\.operation must be a string/, '--skip-invalid: the bad line reported');
    is(get($paths->{balances}->($ADDR))->{body}, expected_page([$BALANCE], 0, 20), '--skip-invalid: the good line loaded');
    load_index($db, { stdin => balances_line($ADDR) });
}

# ---------------------------------------------------------------- accepted variants

sub accepted {
    my ($line, $path, $want_entries, $name) = @_;
    my ($code, $out, $err) = load_index($db, { stdin => $line });
    is($code, 0, "$name: loads") or diag($err);
    is(get($path)->{body}, expected_page($want_entries, 0, 20), "$name: served");
}

# members in another order are served in upstream's order, values unchanged
{
    my $shuffled = qq({"amount":"5000.00000","receiver_address":"$RCV","location":{"output":"$TX:1","vout":1,)
        . qq("timestamp":1713571767,"tx_index":3,"tx_id":"$TX","block_height":840000,"block_hash":"$BH"},)
        . qq("address":"$ADDR","operation":"send","rune":{"spaced_name":"DOG\xe2\x80\xa2GO\xe2\x80\xa2TO\xe2\x80\xa2THE\xe2\x80\xa2MOON",)
        . qq("name":"DOGGOTOTHEMOON","number":3,"id":"840000:3"}});
    accepted(activity_line($TX, $shuffled), $paths->{activity}->($TX), [$ENTRY], 'shuffled members');
    my $bal = qq({"address":"$ADDR","balance":"2100","rune":$RUNE});
    accepted(balances_line($ADDR, $bal), $paths->{balances}->($ADDR), [$BALANCE], 'shuffled balance members');
}

# escapes are decoded and re-written as JSON.stringify does; whitespace goes
{
    my $escaped = $ENTRY =~ s/\xe2\x80\xa2/\\u2022/gr;
    $escaped =~ s/"send"/"s\\u0065nd"/;
    $escaped =~ s/","/" , "/g;
    $escaped =~ s/\{"/{ \t"/g;
    $escaped =~ s/":/" :\r/g;
    accepted(activity_line($TX, $escaped), $paths->{activity}->($TX), [$ENTRY], 'escaped bullets, spaced JSON');
}

# null optional members are absent; the rest keeps its number text
{
    my $with_nulls = replace_member(replace_member(replace_member($ENTRY, 'address', 'null'),
        'amount', 'null'), 'rune.number', 'null');
    $with_nulls = replace_member(replace_member($with_nulls, 'location.vout', 'null'), 'location.output', 'null');
    my $want = replace_member(replace_member(replace_member($ENTRY, 'address', undef), 'amount', undef),
        'rune.number', undef);
    $want = replace_member(replace_member($want, 'location.vout', undef), 'location.output', undef);
    accepted(activity_line($TX, $with_nulls), $paths->{activity}->($TX), [$want], 'optional members null');
    my $minimal = qq({"rune":{"id":"1:0","name":"A","spaced_name":"A"},"operation":"etching",)
        . qq("location":{"block_hash":"$BH","block_height":0,"tx_id":"$TX","tx_index":0,"timestamp":0}});
    accepted(activity_line($TX, $minimal), $paths->{activity}->($TX), [$minimal], 'the smallest entry');
    my $vout0 = replace_member(replace_member($minimal, 'location.vout', '0'), 'location.output', qq("$TX:0"));
    accepted(activity_line($TX, $vout0), $paths->{activity}->($TX), [$vout0], 'vout 0 with its output');
    my $vout_only = replace_member($minimal, 'location.vout', '4294967295');
    accepted(activity_line($TX, $vout_only), $paths->{activity}->($TX), [$vout_only], 'vout without output');
}

# amounts at the edges of u128, every operation, the longest name
{
    my @ok;
    my @ops = qw(etching mint burn send receive);
    my @amounts = ('0', '1', '0.00000001', '340282366920938463463374607431768211455',
        '3402823669209384634633746074317.68211455', '3.40282366920938463463374607431768211455',
        '0.34028236692093846346337460743176821145', '99999999999999999999999999999999999999',
        '340282366920938463463374607431768211454', '0.' . ('0' x 37) . '1');
    for my $i (0 .. $#amounts) {
        push @ok, replace_member(replace_member($ENTRY, 'amount', qq("$amounts[$i]")), 'operation', qq("$ops[$i % 5]"));
    }
    my $long = qq({"id":"18446744073709551615:4294967295","number":18446744073709551615,)
        . qq("name":"BCGDENLQRQWDSLRUGSNLBTMFIJAV","spaced_name":"B\xe2\x80\xa2CGDENLQRQWDSLRUGSNLBTMFIJA\xe2\x80\xa2V"});
    push @ok, replace_member($ENTRY, 'rune', $long);
    accepted(activity_line(uc $TX, @ok), $paths->{activity}->($TX), \@ok, 'edge amounts and names (upper-case tx_id)');
    my @bal = map { replace_member($BALANCE =~ s/840000:3/1:$_/r, 'balance', qq("$amounts[$_]")) } 0 .. $#amounts;
    accepted(balances_line(uc $ADDR, @bal), $paths->{balances}->($ADDR), \@bal, 'edge balances (upper-case address)');
}

# a balance list may leave out the address, or give it in the other case
{
    my $no_addr = replace_member($BALANCE, 'address', undef);
    my $upper = replace_member($BALANCE =~ s/840000:3/840000:4/r, 'address', '"' . uc($ADDR) . '"');
    accepted(balances_line($ADDR, $no_addr, $upper), $paths->{balances}->(uc $ADDR), [$no_addr, $upper],
        'balances without address and with the address in upper case');
    for my $a ('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
               'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7')
    {
        my $b = replace_member($BALANCE, 'address', qq("$a"));
        accepted(balances_line($a, $b), $paths->{balances}->($a), [$b], "balances of $a");
        my $other = $a =~ /^1/ ? '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy' : '1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2';
        refused(balances_line($other, $b), qr/results\[0\]\.address must be the record's address/,
            "a balance of $a in the list of $other");
    }
}

is(join("\n", $ng->bad_log_lines), '', 'no alerts/crashes in the error log');
$ng->stop;

done_testing;
