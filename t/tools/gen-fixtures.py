#!/usr/bin/python3
"""Deterministic generator of the chaindata transaction fixtures.

Usage:  /usr/bin/python3 t/tools/gen-fixtures.py [OUTDIR]      (default: t/fixtures)

Writes:
  tx.ndjson              ~18 ingest records covering every tx shape the
                         GET /extended/v1/tx/{tx_id} route can serve
  tx-many-events.ndjson  one confirmed contract_call with 640 events

Each line is {"kind":"tx","data":<Transaction>} where <Transaction> is the
document exactly as upstream (stacks-blockchain-api 9.0.2, fast-json-stringify)
serves it, except that a confirmed transaction's "events" holds ALL of its
events (event_index 0..n-1 ascending) and "event_count" equals their number.

Key order follows the order in which the upstream JSON Schema lists
"properties" (hard-coded below; this script reads nothing but its own source).
Output is compact JSON, raw UTF-8 (ensure_ascii=False), "/" unescaped,
one record per line, trailing newline.  Standard library only; no randomness:
every hash/address is derived from sha256 of a fixed label, so reruns are
byte-identical.
"""

import datetime
import hashlib
import json
import os
import struct
import sys

# --------------------------------------------------------------------------
# Key orders (schema "properties" order of stacks-tx.strict.schema.json)
# --------------------------------------------------------------------------

CONFIRMED_KEYS = [
    "tx_id", "nonce", "fee_rate", "sender_address", "sponsor_nonce",
    "sponsored", "sponsor_address", "post_condition_mode", "post_conditions",
    "anchor_mode", "block_hash", "block_height", "block_time",
    "block_time_iso", "burn_block_time", "burn_block_height",
    "burn_block_time_iso", "parent_burn_block_time",
    "parent_burn_block_time_iso", "canonical", "tx_index", "tx_status",
    "tx_result", "event_count", "parent_block_hash", "is_unanchored",
    "microblock_hash", "microblock_sequence", "microblock_canonical",
    "execution_cost_read_count", "execution_cost_read_length",
    "execution_cost_runtime", "execution_cost_write_count",
    "execution_cost_write_length", "vm_error", "events", "tx_type",
    # + payload key (one of PAYLOAD_KEY values)
]

MEMPOOL_KEYS = [
    "tx_id", "nonce", "fee_rate", "sender_address", "sponsor_nonce",
    "sponsored", "sponsor_address", "post_condition_mode", "post_conditions",
    "anchor_mode", "tx_status", "replaced_by_tx_id", "receipt_time",
    "receipt_time_iso", "tx_type",
    # + payload key
]

PAYLOAD_KEY = {
    "token_transfer": "token_transfer",
    "smart_contract": "smart_contract",
    "contract_call": "contract_call",
    "poison_microblock": "poison_microblock",
    "coinbase": "coinbase_payload",
    "tenure_change": "tenure_change_payload",
}

PAYLOAD_KEYS = {
    "token_transfer": ["recipient_address", "amount", "memo"],
    "smart_contract": ["clarity_version", "contract_id", "source_code"],
    "contract_call": ["contract_id", "function_name", "function_signature",
                      "function_args"],
    "poison_microblock": ["microblock_header_1", "microblock_header_2"],
    "coinbase": ["data", "alt_recipient", "vrf_proof"],
    "tenure_change": ["tenure_consensus_hash", "prev_tenure_consensus_hash",
                      "burn_view_consensus_hash", "previous_tenure_end",
                      "previous_tenure_blocks", "cause", "pubkey_hash"],
}

FUNCTION_ARG_KEYS = ["hex", "repr", "name", "type"]
CLARITY_VALUE_KEYS = ["hex", "repr"]

PC_KEYS = {
    "stx": ["principal", "condition_code", "amount", "type"],
    "fungible": ["principal", "condition_code", "amount", "type", "asset"],
    "non_fungible": ["principal", "condition_code", "type", "asset_value",
                     "asset"],
}
PRINCIPAL_KEYS = ["type_id", "address", "contract_name"]
PC_ASSET_KEYS = ["asset_name", "contract_address", "contract_name"]

EVENT_KEYS = ["event_index", "event_type", "tx_id"]  # + payload key
EVENT_PAYLOAD_KEY = {
    "smart_contract_log": "contract_log",
    "stx_lock": "stx_lock_event",
    "stx_asset": "asset",
    "fungible_token_asset": "asset",
    "non_fungible_token_asset": "asset",
}
EVENT_PAYLOAD_KEYS = {
    "smart_contract_log": ["contract_id", "topic", "value"],
    "stx_lock": ["locked_amount", "unlock_height", "locked_address"],
    "stx_asset": ["asset_event_type", "sender", "recipient", "amount",
                  "memo"],
    "fungible_token_asset": ["asset_event_type", "asset_id", "sender",
                             "recipient", "amount"],
    "non_fungible_token_asset": ["asset_event_type", "asset_id", "sender",
                                 "recipient", "value"],
}


def ordered(d, keys):
    """Return a new dict with d's keys in `keys` order; fail on strays."""
    stray = set(d) - set(keys)
    assert not stray, "unexpected keys %r" % sorted(stray)
    return {k: d[k] for k in keys if k in d}


# --------------------------------------------------------------------------
# Deterministic hex / c32 addresses / times
# --------------------------------------------------------------------------

def hexbytes(label, n=32):
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(("%s#%d" % (label, i)).encode()).digest()
        i += 1
    return out[:n]


def h(label, n=32):
    return "0x" + hexbytes(label, n).hex()


C32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def c32encode(data):
    n = int.from_bytes(data, "big")
    s = ""
    while n > 0:
        s = C32[n % 32] + s
        n //= 32
    zeros = len(data) - len(data.lstrip(b"\0"))
    return "0" * zeros + s


def c32decode(s):
    zeros = len(s) - len(s.lstrip("0"))
    n = 0
    for ch in s:
        n = n * 32 + C32.index(ch)
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return b"\0" * zeros + body


def c32address(version, hash160):
    check = hashlib.sha256(hashlib.sha256(bytes([version]) + hash160)
                           .digest()).digest()[:4]
    return "S" + C32[version] + c32encode(hash160 + check)


def parse_address(addr):
    """c32check-decode a Stacks address -> (version, hash160)."""
    version = C32.index(addr[1])
    raw = c32decode(addr[2:])
    hash160 = raw[:-4]
    assert len(hash160) == 20, addr
    assert c32address(version, hash160) == addr, "bad checksum: " + addr
    return version, hash160


def addr(label, version=22):
    """Mainnet single-sig (SP, version 22) or multi-sig (SM, 20) address."""
    return c32address(version, hexbytes("addr:" + label, 20))


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%S.000Z")


# --------------------------------------------------------------------------
# Minimal Clarity value serializer (consensus hex + repr as upstream shows)
# --------------------------------------------------------------------------

def _ascii_escape(b):
    # Rust std::ascii::escape_default, as used by Clarity's Display impls
    if b == 0x09:
        return "\\t"
    if b == 0x0a:
        return "\\n"
    if b == 0x0d:
        return "\\r"
    if b in (0x5c, 0x27, 0x22):
        return "\\" + chr(b)
    if 0x20 <= b < 0x7f:
        return chr(b)
    return "\\x%02x" % b


class CV:
    def __init__(self, ser, repr_, type_):
        self.ser = ser        # bytes
        self.repr = repr_     # str
        self.type = type_     # Clarity type signature string

    @property
    def hex(self):
        return "0x" + self.ser.hex()

    def json(self):
        return {"hex": self.hex, "repr": self.repr}


def cv_uint(n):
    return CV(b"\x01" + n.to_bytes(16, "big"), "u%d" % n, "uint")


def cv_int(n):
    return CV(b"\x00" + n.to_bytes(16, "big", signed=True), "%d" % n, "int")


def cv_bool(v):
    return CV(b"\x03" if v else b"\x04", "true" if v else "false", "bool")


def cv_buff(data, maxlen=None):
    return CV(b"\x02" + struct.pack(">I", len(data)) + data,
              "0x" + data.hex(), "(buff %d)" % (maxlen or len(data)))


def cv_ascii(s, maxlen=None):
    b = s.encode("ascii")
    return CV(b"\x0d" + struct.pack(">I", len(b)) + b,
              '"' + "".join(_ascii_escape(c) for c in b) + '"',
              "(string-ascii %d)" % (maxlen or len(b)))


def cv_utf8(s, maxlen=None, raw_repr=False):
    """string-utf8.  Clarity's repr escapes each non-ASCII char as
    \\u{<utf8 hex>}; raw_repr=True keeps the raw characters instead (used to
    exercise raw UTF-8 passthrough)."""
    b = s.encode("utf-8")
    if raw_repr:
        body = "".join(c if ord(c) > 0x7f else _ascii_escape(ord(c))
                       for c in s)
    else:
        body = "".join(_ascii_escape(ord(c)) if ord(c) < 0x80
                       else "\\u{%s}" % c.encode("utf-8").hex() for c in s)
    return CV(b"\x0e" + struct.pack(">I", len(b)) + b, 'u"' + body + '"',
              "(string-utf8 %d)" % (maxlen or len(b)))


def cv_principal(p):
    if "." in p:
        a, name = p.split(".", 1)
        v, h160 = parse_address(a)
        nb = name.encode("ascii")
        return CV(b"\x06" + bytes([v]) + h160 + bytes([len(nb)]) + nb,
                  "'" + p, "principal")
    v, h160 = parse_address(p)
    return CV(b"\x05" + bytes([v]) + h160, "'" + p, "principal")


def cv_ok(v, err_type="uint"):
    return CV(b"\x07" + v.ser, "(ok %s)" % v.repr,
              "(response %s %s)" % (v.type, err_type))


def cv_err(v, ok_type="bool"):
    return CV(b"\x08" + v.ser, "(err %s)" % v.repr,
              "(response %s %s)" % (ok_type, v.type))


def cv_none(inner_type="uint"):
    return CV(b"\x09", "none", "(optional %s)" % inner_type)


def cv_some(v):
    return CV(b"\x0a" + v.ser, "(some %s)" % v.repr, "(optional %s)" % v.type)


def cv_list(items, item_type=None, maxlen=None):
    ser = b"\x0b" + struct.pack(">I", len(items)) + b"".join(i.ser
                                                            for i in items)
    r = "(list" + "".join(" " + i.repr for i in items) + ")"
    it = item_type or (items[0].type if items else "int")
    return CV(ser, r, "(list %d %s)" % (maxlen or len(items), it))


def cv_tuple(fields):
    names = sorted(fields)
    ser = b"\x0c" + struct.pack(">I", len(names))
    for n in names:
        nb = n.encode("ascii")
        ser += bytes([len(nb)]) + nb + fields[n].ser
    r = "(tuple" + "".join(" (%s %s)" % (n, fields[n].repr)
                           for n in names) + ")"
    t = "(tuple" + "".join(" (%s %s)" % (n, fields[n].type)
                           for n in names) + ")"
    return CV(ser, r, t)


OK_TRUE = cv_ok(cv_bool(True))


# --------------------------------------------------------------------------
# Builders
# --------------------------------------------------------------------------

U64_MAX = 18446744073709551615
MICROBLOCK_SEQ_NONE = 2147483647   # upstream value for "not in a microblock"

# Well-known / recurring principals
BOOT = "SP000000000000000000002Q6VF78"
ALICE = "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7"
BOB = addr("bob")
CAROL = addr("carol")
DAVE = addr("dave")
ERIN = addr("erin")
SPONSOR = addr("sponsor-relayer")
MULTISIG = addr("dao-treasury-multisig", 20)
MINER_A = addr("miner-a")
MINER_B = addr("miner-b")
TOKEN_DEPLOYER = addr("token-deployer")
NFT_DEPLOYER = addr("nft-deployer")
POOL = addr("stacking-pool")

TOKEN = TOKEN_DEPLOYER + ".wrapped-sats"
TOKEN_ASSET = TOKEN + "::wrapped-sats"
NFT = NFT_DEPLOYER + ".moon-cats"
NFT_ASSET = NFT + "::moon-cat"
MARKET = addr("market-deployer") + ".nft-market-v2"
POX4 = BOOT + ".pox-4"


def block(label, height, t, burn_height, burn_t, parent_burn_t,
          nakamoto=True):
    return {
        "block_hash": h("block:" + label),
        "block_height": height,
        "block_time": t if nakamoto else burn_t,
        "block_time_iso": iso(t if nakamoto else burn_t),
        "burn_block_time": burn_t,
        "burn_block_height": burn_height,
        "burn_block_time_iso": iso(burn_t),
        "parent_burn_block_time": parent_burn_t,
        "parent_burn_block_time_iso": iso(parent_burn_t),
        "parent_block_hash": h("block:parent-of:" + label),
    }


def principal_origin():
    return ordered({"type_id": "principal_origin"}, PRINCIPAL_KEYS)


def principal_standard(a):
    return ordered({"type_id": "principal_standard", "address": a},
                   PRINCIPAL_KEYS)


def principal_contract(cid):
    a, name = cid.split(".", 1)
    return ordered({"type_id": "principal_contract", "address": a,
                    "contract_name": name}, PRINCIPAL_KEYS)


def pc_asset(asset_id):
    cid, asset_name = asset_id.split("::", 1)
    a, cname = cid.split(".", 1)
    return ordered({"asset_name": asset_name, "contract_address": a,
                    "contract_name": cname}, PC_ASSET_KEYS)


def pc_stx(principal, code, amount):
    return ordered({"principal": principal, "condition_code": code,
                    "amount": str(amount), "type": "stx"}, PC_KEYS["stx"])


def pc_ft(principal, code, amount, asset_id):
    return ordered({"principal": principal, "condition_code": code,
                    "amount": str(amount), "type": "fungible",
                    "asset": pc_asset(asset_id)}, PC_KEYS["fungible"])


def pc_nft(principal, code, value, asset_id):
    return ordered({"principal": principal, "condition_code": code,
                    "type": "non_fungible", "asset_value": value.json(),
                    "asset": pc_asset(asset_id)}, PC_KEYS["non_fungible"])


# Events are built without event_index/tx_id; finalize() numbers them.
def ev_log(contract_id, value, topic="print"):
    return ("smart_contract_log",
            {"contract_id": contract_id, "topic": topic,
             "value": ordered(value.json(), CLARITY_VALUE_KEYS)})


def ev_lock(amount, unlock_height, locked_address):
    return ("stx_lock", {"locked_amount": str(amount),
                         "unlock_height": unlock_height,
                         "locked_address": locked_address})


def ev_stx(kind, sender, recipient, amount, memo=None):
    d = {"asset_event_type": kind, "sender": sender,
         "recipient": recipient, "amount": str(amount)}
    if memo is not None:
        d["memo"] = memo
    return ("stx_asset", d)


def ev_ft(kind, asset_id, sender, recipient, amount):
    return ("fungible_token_asset",
            {"asset_event_type": kind, "asset_id": asset_id,
             "sender": sender, "recipient": recipient,
             "amount": str(amount)})


def ev_nft(kind, asset_id, sender, recipient, value):
    return ("non_fungible_token_asset",
            {"asset_event_type": kind, "asset_id": asset_id,
             "sender": sender, "recipient": recipient,
             "value": value.json()})


def make_events(tx_id, evs):
    out = []
    for i, (etype, payload) in enumerate(evs):
        pk = EVENT_PAYLOAD_KEY[etype]
        out.append({"event_index": i, "event_type": etype, "tx_id": tx_id,
                    pk: ordered(payload, EVENT_PAYLOAD_KEYS[etype])})
    return out


def fn_arg(name, v, type_=None):
    return ordered({"hex": v.hex, "repr": v.repr, "name": name,
                    "type": type_ or v.type}, FUNCTION_ARG_KEYS)


def memo_hex(text):
    """token_transfer memo as upstream shows it: 34-byte buffer, 0x-hex."""
    b = text.encode("utf-8")
    assert len(b) <= 34
    return "0x" + (b + b"\0" * (34 - len(b))).hex()


def payload(tx_type, d):
    return ordered(d, PAYLOAD_KEYS[tx_type])


def confirmed(label, tx_type, body, *, nonce, fee, sender, blk, tx_index,
              pcs, events, status="success", result=OK_TRUE,
              pc_mode="deny", anchor_mode="on_chain_only", sponsor=None,
              cost=(0, 0, 0, 0, 0), vm_error=None, canonical=True,
              microblock=None):
    tx_id = h("tx:" + label)
    d = {
        "tx_id": tx_id,
        "nonce": nonce,
        "fee_rate": str(fee),
        "sender_address": sender,
        "sponsored": sponsor is not None,
        "post_condition_mode": pc_mode,
        "post_conditions": pcs,
        "anchor_mode": anchor_mode,
        "canonical": canonical,
        "tx_index": tx_index,
        "tx_status": status,
        "tx_result": ordered(result.json(), CLARITY_VALUE_KEYS),
        "is_unanchored": False,
        "microblock_hash": "0x",
        "microblock_sequence": MICROBLOCK_SEQ_NONE,
        "microblock_canonical": True,
        "execution_cost_read_count": cost[0],
        "execution_cost_read_length": cost[1],
        "execution_cost_runtime": cost[2],
        "execution_cost_write_count": cost[3],
        "execution_cost_write_length": cost[4],
        "vm_error": vm_error,
        "tx_type": tx_type,
        PAYLOAD_KEY[tx_type]: payload(tx_type, body),
    }
    if sponsor is not None:
        d["sponsor_address"], d["sponsor_nonce"] = sponsor
    if microblock is not None:
        d["microblock_hash"], d["microblock_sequence"] = microblock
    d.update(blk)
    evs = make_events(tx_id, events)
    d["events"] = evs
    d["event_count"] = len(evs)
    return ordered(d, CONFIRMED_KEYS + [PAYLOAD_KEY[tx_type]])


def mempool(label, tx_type, body, *, nonce, fee, sender, pcs, status,
            receipt_time, replaced_by=None, pc_mode="deny",
            anchor_mode="any", sponsor=None):
    d = {
        "tx_id": h("tx:" + label),
        "nonce": nonce,
        "fee_rate": str(fee),
        "sender_address": sender,
        "sponsored": sponsor is not None,
        "post_condition_mode": pc_mode,
        "post_conditions": pcs,
        "anchor_mode": anchor_mode,
        "tx_status": status,
        "replaced_by_tx_id": replaced_by,
        "receipt_time": receipt_time,
        "receipt_time_iso": iso(receipt_time),
        "tx_type": tx_type,
        PAYLOAD_KEY[tx_type]: payload(tx_type, body),
    }
    if sponsor is not None:
        d["sponsor_address"], d["sponsor_nonce"] = sponsor
    return ordered(d, MEMPOOL_KEYS + [PAYLOAD_KEY[tx_type]])


# --------------------------------------------------------------------------
# Fixture content
# --------------------------------------------------------------------------

# Blocks.  Nakamoto blocks: block_time is the Stacks block's own time.
# Pre-Nakamoto (epoch 2.x) blocks: block_time == burn_block_time.
BLK_N1 = block("n1", 1923456, 1735689611, 877310, 1735689600, 1735689012)
BLK_N2 = block("n2", 1923461, 1735689659, 877310, 1735689600, 1735689012)
BLK_N3 = block("n3", 1937020, 1736000000, 877820, 1735999421, 1735998803)
BLK_N4 = block("n4", 2088415, 1741392017, 886601, 1741391707, 1741391188)
BLK_OLD1 = block("e21-1", 98765, 0, 778123, 1677721612, 1677720988,
                 nakamoto=False)
BLK_OLD2 = block("e24-2", 150001, 0, 843900, 1715299280, 1715298702,
                 nakamoto=False)
BLK_OLD3 = block("e20-3", 12345, 0, 679900, 1618331437, 1618330804,
                 nakamoto=False)

SIP10_TRANSFER_SIG = ("(define-public (transfer (amount uint) "
                      "(sender principal) (recipient principal) "
                      "(memo (optional (buff 34)))))")

SOURCE_CLARITY3 = (
    ';; wrapped-sats: SIP-010 token\r\n'
    ';; docs: https://example.com/tokens/wrapped-sats (see "README")\n'
    '(impl-trait \'SP3FBR2AGK5H9QBDH3EEN6DF8EK8JY7RX8QJ5SVTE.sip-010-trait-ft-standard.sip-010-trait)\n'
    '\n'
    '(define-fungible-token wrapped-sats)\n'
    '(define-constant ERR-NOT-AUTHORIZED (err u401))\n'
    '(define-data-var token-uri (string-utf8 256) u"https://example.com/tokens/wrapped-sats.json")\n'
    '\n'
    '(define-public (transfer (amount uint) (sender principal) (recipient principal) (memo (optional (buff 34))))\n'
    '\t(begin\n'
    '\t\t(asserts! (is-eq tx-sender sender) ERR-NOT-AUTHORIZED)\n'
    '\t\t(try! (ft-transfer? wrapped-sats amount sender recipient))\n'
    '\t\t(match memo to-print (print to-print) 0x)\n'
    '\t\t(ok true)))\n'
    '\n'
    '(define-read-only (get-name) (ok "Wrapped \\"Sats\\""))\n'
    '(define-read-only (get-symbol) (ok "wSATS"))\n'
    '(define-read-only (get-decimals) (ok u8))\n'
    '(define-read-only (get-separator) (ok "back\\\\slash / forward"))\n'
    '\n'
    '(ft-mint? wrapped-sats u2100000000000000 tx-sender)\n'
    "(print { event: \"deployed\", note: \"tab\\there\" })\n"
    '(stx-burn? u1000000 tx-sender)\n'
)

SOURCE_CLARITY1 = (
    '(define-map names { name: (buff 48) } { owner: principal })\n'
    '\n'
    '(define-public (register (name (buff 48)))\n'
    '  (begin\n'
    '    (asserts! (map-insert names { name: name } { owner: tx-sender }) (err u1))\n'
    '    (ok true)))\n'
)


def build_tx_fixtures():
    txs = []

    # 1. tenure_change block_found, first tx of a Nakamoto tenure, 0 events
    txs.append(confirmed(
        "tenure-change-block-found", "tenure_change", {
            "tenure_consensus_hash": h("ch:n1", 20),
            "prev_tenure_consensus_hash": h("ch:n0", 20),
            "burn_view_consensus_hash": h("ch:n1", 20),
            "previous_tenure_end": h("block:end-of-n0"),
            "previous_tenure_blocks": 37,
            "cause": "block_found",
            "pubkey_hash": h("pkh:miner-a", 20),
        }, nonce=48211, fee=0, sender=MINER_A, blk=BLK_N1, tx_index=0,
        pcs=[], events=[]))

    # 2. coinbase (Nakamoto): alt_recipient null, vrf_proof string
    txs.append(confirmed(
        "coinbase-nakamoto", "coinbase", {
            "data": h("coinbase-data:n1"),
            "alt_recipient": None,
            "vrf_proof": h("vrf:n1", 80),
        }, nonce=48212, fee=0, sender=MINER_A, blk=BLK_N1, tx_index=1,
        pcs=[], events=[]))

    # 3. token_transfer, unsponsored, empty post_conditions, 1 stx_asset
    #    transfer event with memo (hex, as upstream shows it)
    tt_memo = memo_hex("invoice 2025/01 #42")
    t3 = "token-transfer-plain"
    txs.append(confirmed(
        t3, "token_transfer", {
            "recipient_address": BOB,
            "amount": "2500000000",
            "memo": tt_memo,
        }, nonce=17, fee=180, sender=ALICE, blk=BLK_N1, tx_index=2,
        pcs=[], pc_mode="deny", cost=(0, 0, 0, 0, 0),
        events=[ev_stx("transfer", ALICE, BOB, 2500000000, tt_memo)]))

    # 4. contract_call SIP-010 transfer, SPONSORED, function_args,
    #    pcs: fungible/principal_standard + stx/principal_origin;
    #    events: ft transfer, contract_log with raw UTF-8 repr
    memo_buf = "Merci • café 🚀".encode("utf-8")
    note = cv_utf8("Merci • café 🚀 — paid", raw_repr=True)
    txs.append(confirmed(
        "sip10-transfer-sponsored", "contract_call", {
            "contract_id": TOKEN,
            "function_name": "transfer",
            "function_signature": SIP10_TRANSFER_SIG,
            "function_args": [
                fn_arg("amount", cv_uint(150000000)),
                fn_arg("sender", cv_principal(CAROL)),
                fn_arg("recipient", cv_principal(DAVE)),
                fn_arg("memo", cv_some(cv_buff(memo_buf, 34))),
            ],
        }, nonce=3, fee=3000, sender=CAROL, blk=BLK_N1, tx_index=3,
        sponsor=(SPONSOR, 901),
        pcs=[pc_ft(principal_standard(CAROL), "sent_equal_to", 150000000,
                   TOKEN_ASSET),
             pc_stx(principal_origin(), "sent_less_than_or_equal_to", 0)],
        cost=(5, 1902, 219330, 2, 1), result=OK_TRUE,
        events=[
            ev_ft("transfer", TOKEN_ASSET, CAROL, DAVE, 150000000),
            ev_log(TOKEN, note),
        ]))

    # 5. contract_call pox-4 stack-stx: stx_lock + pox print event
    lock_amt = 125000000000
    pox_print = cv_ok(cv_tuple({
        "name": cv_ascii("stack-stx"),
        "stacker": cv_principal(ERIN),
        "balance": cv_uint(130500000000),
        "locked": cv_uint(0),
        "burnchain-unlock-height": cv_uint(0),
        "data": cv_tuple({
            "lock-amount": cv_uint(lock_amt),
            "lock-period": cv_uint(6),
            "start-burn-height": cv_uint(877311),
            "unlock-burn-height": cv_uint(890400),
        }),
    }), err_type="int")
    txs.append(confirmed(
        "pox4-stack-stx", "contract_call", {
            "contract_id": POX4,
            "function_name": "stack-stx",
            "function_signature": (
                "(define-public (stack-stx (amount-ustx uint) "
                "(pox-addr (tuple (hashbytes (buff 32)) (version (buff 1)))) "
                "(start-burn-ht uint) (lock-period uint) "
                "(signer-sig (optional (buff 65))) (signer-key (buff 33)) "
                "(max-amount uint) (auth-id uint)))"),
            "function_args": [
                fn_arg("amount-ustx", cv_uint(lock_amt)),
                fn_arg("pox-addr", cv_tuple({
                    "version": cv_buff(b"\x04"),
                    "hashbytes": cv_buff(hexbytes("btc:erin", 20), 32)})),
                fn_arg("start-burn-ht", cv_uint(877311)),
                fn_arg("lock-period", cv_uint(6)),
                fn_arg("signer-sig", cv_some(cv_buff(hexbytes("sig:erin", 65)))),
                fn_arg("signer-key", cv_buff(b"\x02" + hexbytes("key:s1", 32))),
                fn_arg("max-amount", cv_uint(U64_MAX)),
                fn_arg("auth-id", cv_uint(93125)),
            ],
        }, nonce=112, fee=2000, sender=ERIN, blk=BLK_N1, tx_index=4,
        pcs=[], pc_mode="deny", cost=(96, 41788, 1190477, 7, 2013),
        result=cv_ok(cv_tuple({"lock-amount": cv_uint(lock_amt),
                               "stacker": cv_principal(ERIN),
                               "unlock-burn-height": cv_uint(890400)}),
                     err_type="int"),
        events=[
            ev_log(POX4, pox_print),
            ev_lock(lock_amt, 890400, ERIN),
        ]))

    # 6. NFT marketplace purchase: all three pc kinds, principal_origin and
    #    principal_contract; stx_asset with and without memo (raw UTF-8
    #    memo), nft transfer, print with escaped quotes/backslash and "/"
    cat = cv_uint(4077)
    listing_note = cv_ascii('sold "Moon Cat #4077" \\o/ ipfs://bafy/4077.json')
    txs.append(confirmed(
        "nft-market-buy", "contract_call", {
            "contract_id": MARKET,
            "function_name": "purchase-asset",
            "function_signature": (
                "(define-public (purchase-asset (nft-asset-contract <nft-trait>) "
                "(token-id uint)))"),
            "function_args": [
                fn_arg("nft-asset-contract", cv_principal(NFT),
                       "trait_reference"),
                fn_arg("token-id", cat),
            ],
        }, nonce=58, fee=12500, sender=BOB, blk=BLK_N2, tx_index=0,
        pc_mode="deny",
        pcs=[pc_stx(principal_origin(), "sent_less_than_or_equal_to",
                    99000000),
             pc_nft(principal_contract(MARKET), "sent", cat, NFT_ASSET),
             pc_ft(principal_contract(MARKET), "sent_greater_than_or_equal_to",
                   0, TOKEN_ASSET)],
        cost=(14, 8830, 104220, 4, 370),
        events=[
            ev_stx("transfer", BOB, DAVE, 96525000,
                   "Merci • café 🚀 for cat #4077"),
            ev_stx("transfer", BOB, MULTISIG, 2475000),
            ev_nft("transfer", NFT_ASSET, MARKET, BOB, cat),
            ev_log(MARKET, cv_tuple({"a": cv_ascii("purchase-asset"),
                                     "note": listing_note,
                                     "payload": cv_tuple({
                                         "id": cat,
                                         "price": cv_uint(99000000)})})),
        ]))

    # 7. contract_call with an EMPTY function_args array (claim()),
    #    events: ft mint (sender ""), nft mint, print
    minted = cv_uint(5001)
    txs.append(confirmed(
        "airdrop-claim-empty-args", "contract_call", {
            "contract_id": TOKEN_DEPLOYER + ".wrapped-sats-airdrop",
            "function_name": "claim",
            "function_signature": "(define-public (claim))",
            "function_args": [],
        }, nonce=0, fee=1000, sender=DAVE, blk=BLK_N2, tx_index=1,
        pc_mode="allow", pcs=[], cost=(9, 3105, 61231, 3, 144),
        result=cv_ok(cv_uint(U64_MAX)),
        events=[
            ev_ft("mint", TOKEN_ASSET, "", DAVE, U64_MAX),
            ev_nft("mint", NFT_ASSET, "", DAVE, minted),
            ev_log(TOKEN_DEPLOYER + ".wrapped-sats-airdrop",
                   cv_tuple({"event": cv_ascii("claim"),
                             "user": cv_principal(DAVE),
                             "id": minted})),
        ]))

    # 8. contract_call WITHOUT the function_args key, sponsored by a
    #    multisig; events: nft burn, ft burn, stx burn
    txs.append(confirmed(
        "burn-no-function-args", "contract_call", {
            "contract_id": NFT,
            "function_name": "burn",
            "function_signature": "(define-public (burn (token-id uint)))",
        }, nonce=9, fee=4200, sender=CAROL, blk=BLK_N3, tx_index=2,
        sponsor=(MULTISIG, 0), pc_mode="allow",
        pcs=[pc_nft(principal_origin(), "sent", cv_uint(12), NFT_ASSET)],
        cost=(6, 2451, 38119, 3, 97),
        events=[
            ev_nft("burn", NFT_ASSET, CAROL, "", cv_uint(12)),
            ev_ft("burn", TOKEN_ASSET, CAROL, "", 1),
            ev_stx("burn", CAROL, "", 1000000),
        ]))

    # 9. abort_by_response, vm_error null, zero events
    txs.append(confirmed(
        "swap-abort-by-response", "contract_call", {
            "contract_id": addr("amm-deployer") + ".amm-pool-v2-01",
            "function_name": "swap-x-for-y",
            "function_signature": (
                "(define-public (swap-x-for-y (pool-trait <pool-trait>) "
                "(dx uint) (min-dy (optional uint))))"),
            "function_args": [
                fn_arg("pool-trait", cv_principal(
                    addr("amm-deployer") + ".token-amm-pool-v2-01"),
                    "trait_reference"),
                fn_arg("dx", cv_uint(1000000)),
                fn_arg("min-dy", cv_none()),
            ],
        }, nonce=231, fee=53000, sender=BOB, blk=BLK_N3, tx_index=3,
        status="abort_by_response", result=cv_err(cv_uint(2006)),
        pc_mode="deny",
        pcs=[pc_stx(principal_origin(), "sent_equal_to", 1000000)],
        cost=(28, 95033, 370001, 0, 0), events=[]))

    # 10. abort_by_post_condition, vm_error string, zero events
    txs.append(confirmed(
        "transfer-abort-by-post-condition", "contract_call", {
            "contract_id": TOKEN,
            "function_name": "transfer",
            "function_signature": SIP10_TRANSFER_SIG,
            "function_args": [
                fn_arg("amount", cv_uint(500)),
                fn_arg("sender", cv_principal(ALICE)),
                fn_arg("recipient", cv_principal(CAROL)),
                fn_arg("memo", cv_none("(buff 34)")),
            ],
        }, nonce=18, fee=3000, sender=ALICE, blk=BLK_N3, tx_index=4,
        status="abort_by_post_condition", result=OK_TRUE,
        vm_error=("Post-condition check failure on fungible asset " +
                  TOKEN_ASSET + " owned by " + ALICE +
                  ": 500 SentGt 400 (\"/\" path)"),
        pc_mode="deny",
        pcs=[pc_ft(principal_standard(ALICE), "sent_less_than", 400,
                   TOKEN_ASSET)],
        cost=(5, 1902, 201774, 2, 1), events=[]))

    # 11. smart_contract, Clarity 3, sponsored, tricky source code;
    #     events at deploy: ft mint, print, stx burn
    txs.append(confirmed(
        "deploy-wrapped-sats", "smart_contract", {
            "clarity_version": 3,
            "contract_id": TOKEN,
            "source_code": SOURCE_CLARITY3,
        }, nonce=0, fee=250000, sender=TOKEN_DEPLOYER, blk=BLK_N3,
        tx_index=1, sponsor=(SPONSOR, 902), pc_mode="allow", pcs=[],
        cost=(31, 12240, 412877, 9, 8810),
        events=[
            ev_ft("mint", TOKEN_ASSET, "", TOKEN_DEPLOYER,
                  2100000000000000),
            ev_log(TOKEN, cv_tuple({"event": cv_ascii("deployed"),
                                    "note": cv_ascii("tab\there")})),
            ev_stx("burn", TOKEN_DEPLOYER, "", 1000000),
        ]))

    # 12. smart_contract, clarity_version null (epoch 2.0), anchor_mode any
    txs.append(confirmed(
        "deploy-clarity1-names", "smart_contract", {
            "clarity_version": None,
            "contract_id": ALICE + ".names-v0",
            "source_code": SOURCE_CLARITY1,
        }, nonce=2, fee=26000, sender=ALICE, blk=BLK_OLD3, tx_index=5,
        anchor_mode="any", pc_mode="allow", pcs=[],
        cost=(0, 0, 0, 4, 412), events=[]))

    # 13. poison_microblock (epoch 2.x), 0 events
    txs.append(confirmed(
        "poison-microblock", "poison_microblock", {
            "microblock_header_1": h("mbh:1", 132),
            "microblock_header_2": h("mbh:2", 132),
        }, nonce=4, fee=3000, sender=DAVE, blk=BLK_OLD1, tx_index=7,
        anchor_mode="any", pc_mode="deny", pcs=[], events=[]))

    # 14. coinbase (epoch 2.1): alt_recipient (contract), vrf_proof null
    txs.append(confirmed(
        "coinbase-epoch21-alt-recipient", "coinbase", {
            "data": h("coinbase-data:e21"),
            "alt_recipient": addr("mining-pool") + ".payout-v1",
            "vrf_proof": None,
        }, nonce=3101, fee=0, sender=MINER_B, blk=BLK_OLD1, tx_index=0,
        anchor_mode="on_chain_only", pcs=[], events=[]))

    # 15. token_transfer confirmed in a microblock (epoch 2.4),
    #     stx_asset event without memo, multisig sender
    txs.append(confirmed(
        "token-transfer-microblock", "token_transfer", {
            "recipient_address": CAROL,
            "amount": "1",
            "memo": "0x" + "00" * 34,
        }, nonce=41, fee=U64_MAX, sender=MULTISIG, blk=BLK_OLD2, tx_index=3,
        anchor_mode="any", pc_mode="deny", pcs=[],
        microblock=(h("microblock:e24-2:2"), 2),
        events=[ev_stx("transfer", MULTISIG, CAROL, 1)]))

    # 16. tenure_change extended (Nakamoto), 0 events
    txs.append(confirmed(
        "tenure-change-extended", "tenure_change", {
            "tenure_consensus_hash": h("ch:n4", 20),
            "prev_tenure_consensus_hash": h("ch:n4", 20),
            "burn_view_consensus_hash": h("ch:n4b", 20),
            "previous_tenure_end": h("block:end-of-n4a"),
            "previous_tenure_blocks": 120,
            "cause": "extended",
            "pubkey_hash": h("pkh:miner-b", 20),
        }, nonce=90817, fee=0, sender=MINER_B, blk=BLK_N4, tx_index=0,
        pcs=[], events=[]))

    # 17. mempool: pending contract_call with function_args (utf8 arg)
    pending = mempool(
        "mempool-pending-call", "contract_call", {
            "contract_id": addr("bns-deployer") + ".profile-v1",
            "function_name": "set-bio",
            "function_signature": (
                "(define-public (set-bio (bio (string-utf8 256)) "
                "(tags (list 4 (string-ascii 16)))))"),
            "function_args": [
                fn_arg("bio", cv_utf8("Builder • \"Stacks\" fan 🧡 from Zürich",
                                      256)),
                fn_arg("tags", cv_list([cv_ascii("defi", 16),
                                        cv_ascii("nft/art", 16)],
                                       "(string-ascii 16)", 4)),
            ],
        }, nonce=77, fee=9000, sender=BOB, pc_mode="deny", pcs=[],
        status="pending", receipt_time=1741392100, replaced_by=None)
    # 18. mempool: dropped_replace_by_fee token_transfer (same sender and
    #     nonce as 17, lower fee), sponsored
    dropped = mempool(
        "mempool-dropped-rbf", "token_transfer", {
            "recipient_address": ALICE,
            "amount": "777",
            "memo": memo_hex("gm"),
        }, nonce=77, fee=500, sender=BOB, pc_mode="deny",
        pcs=[pc_stx(principal_standard(BOB), "sent_greater_than", 776)],
        status="dropped_replace_by_fee", receipt_time=1741392033,
        replaced_by=pending["tx_id"], sponsor=(SPONSOR, 903))
    txs.append(pending)
    txs.append(dropped)
    return txs


def build_many_events():
    """One confirmed contract_call with 640 events of all five kinds."""
    label = "batch-many-events"
    contract = POOL + ".batch-ops-v1"
    members = [addr("member-%d" % i) for i in range(64)]
    evs = []
    for i in range(640):
        m = members[i % 64]
        k = i % 10
        if k == 0:
            evs.append(ev_log(contract, cv_tuple({
                "op": cv_ascii("step"), "i": cv_uint(i),
                "who": cv_principal(m)})))
        elif k == 1:
            evs.append(ev_stx("transfer", POOL, m, 1000 + i,
                              memo_hex("payout %d" % i)))
        elif k == 2:
            if i % 20 == 12:
                evs.append(ev_stx("mint", "", m, 2000 + i))
            else:
                evs.append(ev_stx("transfer", POOL, m, 2000 + i))
        elif k == 3:
            evs.append(ev_ft("transfer", TOKEN_ASSET, POOL, m, 10 ** 8 + i))
        elif k == 4:
            evs.append(ev_nft("mint", NFT_ASSET, "", m, cv_uint(100000 + i)))
        elif k == 5:
            evs.append(ev_lock(10 ** 11 + i, 890400 + (i % 7) * 2100, m))
        elif k == 6:
            evs.append(ev_ft("mint", TOKEN_ASSET, "", m, i + 1))
        elif k == 7:
            evs.append(ev_nft("transfer", NFT_ASSET, POOL, m,
                              cv_uint(200000 + i)))
        elif k == 8:
            if i % 20 == 18:
                evs.append(ev_nft("burn", NFT_ASSET, m, "",
                                  cv_uint(100000 + i - 4)))
            else:
                evs.append(ev_ft("burn", TOKEN_ASSET, m, "", i))
        else:
            evs.append(ev_log(contract, cv_utf8(
                "done #%d • ok/\"fine\"" % i, raw_repr=(i % 20 == 9))))
    return confirmed(
        label, "contract_call", {
            "contract_id": contract,
            "function_name": "run-batch",
            "function_signature": (
                "(define-public (run-batch (batch-id uint) "
                "(members (list 64 principal))))"),
            "function_args": [
                fn_arg("batch-id", cv_uint(31)),
                fn_arg("members", cv_list([cv_principal(m) for m in members],
                                          "principal", 64)),
            ],
        }, nonce=1204, fee=1500000, sender=POOL, blk=BLK_N4, tx_index=6,
        pc_mode="allow", pcs=[], cost=(2311, 1893022, 98123456, 1290, 441096),
        result=cv_ok(cv_uint(640)), events=evs)


# --------------------------------------------------------------------------
# Output + self-checks
# --------------------------------------------------------------------------

def _check(obj, path="$"):
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check(v, path + "." + k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check(v, "%s[%d]" % (path, i))
    elif isinstance(obj, float):
        raise AssertionError("float at " + path)
    elif isinstance(obj, str):
        for c in obj:
            if (ord(c) < 0x20 and c not in "\n\t\r") or 0xd800 <= ord(c) <= 0xdfff \
                    or c in "\u2028\u2029\x7f":
                raise AssertionError("bad char %r at %s" % (c, path))


def _check_tx(tx):
    _check(tx)
    tid = tx["tx_id"]
    assert len(tid) == 66 and tid.startswith("0x") and tid == tid.lower()
    if "events" in tx:
        assert tx["event_count"] == len(tx["events"])
        for i, e in enumerate(tx["events"]):
            assert e["event_index"] == i and e["tx_id"] == tid
    for a in (tx["sender_address"], tx.get("sponsor_address")):
        if a:
            parse_address(a)


def dump(tx):
    return json.dumps({"kind": "tx", "data": tx}, separators=(",", ":"),
                      ensure_ascii=False)


def write(path, txs):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for tx in txs:
            _check_tx(tx)
            f.write(dump(tx) + "\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, "..", "fixtures")
    os.makedirs(outdir, exist_ok=True)
    # sanity: c32 implementation against two well-known addresses
    assert c32address(22, b"\0" * 20) == BOOT
    parse_address(ALICE)

    txs = build_tx_fixtures()
    many = build_many_events()
    ids = [t["tx_id"] for t in txs] + [many["tx_id"]]
    assert len(ids) == len(set(ids)), "duplicate tx_id"
    assert len(many["events"]) == 640

    write(os.path.join(outdir, "tx.ndjson"), txs)
    write(os.path.join(outdir, "tx-many-events.ndjson"), [many])
    print("wrote %d + 1 records to %s" % (len(txs), os.path.normpath(outdir)))


if __name__ == "__main__":
    main()
