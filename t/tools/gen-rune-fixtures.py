#!/usr/bin/python3
"""Deterministic generator of the chaindata rune fixtures.

Usage:  /usr/bin/python3 t/tools/gen-rune-fixtures.py [OUTDIR]   (default: t/fixtures)
        /usr/bin/python3 t/tools/gen-rune-fixtures.py --txs N OUTDIR
        /usr/bin/python3 t/tools/gen-rune-fixtures.py --txs N --blocks B OUTDIR

With --txs N (the size knob, for bench/gzip: the rune index against its
NDJSON), runes.ndjson is instead a synthetic chain of N Bitcoin
transactions: each one's activity list as the runes indexer makes it
(mints, transfers with their receives and change, burns, etchings, now and
then an airdrop of dozens of receives; every entry of a list shares its
transaction's location), then the balances of every address they touched
(one entry per rune held, largest first: most addresses hold a few runes,
a few hold hundreds).  The transactions go into blocks from 840000 up, a
new block after a transaction with probability 0.002 (about N / 500
blocks), or B / N with --blocks B (about B blocks: the draws are the same,
only the heights and tx_index differ; bench/runes-catchup spreads 200,000
transactions over about 4,000 blocks, as the Runes API measured in issue
25 held them).  Runes and addresses are drawn from pools, popular
ones more often; random.Random with a fixed seed, so reruns are
byte-identical too.

Writes runes.ndjson: "rune_activity" and "rune_balances" ingest records
(lmdb-schema/runes.md) for the two rune routes:

  - a transaction with 150 activity entries (more than two pages of the
    largest limit, 60), every operation, optional members present and
    absent, spaced names, amounts up to the u128 maximum;
  - a few small activity lists, one of them replaced and one deleted by a
    later line of the same file;
  - an address with 130 balances (more than two pages of 60), largest
    first, and small lists for every address form: bech32 P2WPKH, P2WSH,
    P2TR, testnet and regtest, base58 P2PKH and P2SH, mainnet and testnet.

Entries are written as the module serves them: compact JSON, raw UTF-8
(ensure_ascii=False), members in upstream's order (upstream-behaviour.md,
sections 2 and 3), absent values omitted.  Addresses are real encodings
(valid bech32/bech32m and base58check checksums) of made-up programs.
Standard library only; no randomness: every hash is derived from sha256 of
a fixed label, so reruns are byte-identical.
"""

import hashlib
import json
import os
import sys

U128_MAX = 2 ** 128 - 1


def h(label):
    return hashlib.sha256(label.encode()).digest()


def hexid(label):
    return h(label).hex()


# --------------------------------------------------------------------------
# Addresses (BIP-173 / BIP-350 bech32, base58check)
# --------------------------------------------------------------------------

BECH32_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
BECH32_CONST = 1
BECH32M_CONST = 0x2BC830A3


def bech32_polymod(values):
    gen = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if ((b >> i) & 1) else 0
    return chk


def bech32_hrp_expand(hrp):
    return [ord(x) >> 5 for x in hrp] + [0] + [ord(x) & 31 for x in hrp]


def convertbits(data, frombits, tobits):
    acc = 0
    bits = 0
    ret = []
    maxv = (1 << tobits) - 1
    for value in data:
        acc = (acc << frombits) | value
        bits += frombits
        while bits >= tobits:
            bits -= tobits
            ret.append((acc >> bits) & maxv)
    if bits:
        ret.append((acc << (tobits - bits)) & maxv)
    return ret


def segwit_address(hrp, version, program):
    data = [version] + convertbits(program, 8, 5)
    const = BECH32_CONST if version == 0 else BECH32M_CONST
    polymod = bech32_polymod(bech32_hrp_expand(hrp) + data + [0] * 6) ^ const
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(BECH32_CHARSET[d] for d in data + checksum)


B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def base58check(version, payload):
    raw = bytes([version]) + payload
    raw += hashlib.sha256(hashlib.sha256(raw).digest()).digest()[:4]
    n = int.from_bytes(raw, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = B58[r] + out
    pad = len(raw) - len(raw.lstrip(b"\0"))
    return "1" * pad + out


ADDR = {
    "p2wpkh": segwit_address("bc", 0, h("addr p2wpkh")[:20]),
    "p2wsh": segwit_address("bc", 0, h("addr p2wsh")),
    "p2tr": segwit_address("bc", 1, h("addr p2tr")),
    "p2tr_holder": segwit_address("bc", 1, h("addr p2tr holder")),
    "tb_p2wpkh": segwit_address("tb", 0, h("addr tb p2wpkh")[:20]),
    "bcrt_p2tr": segwit_address("bcrt", 1, h("addr bcrt p2tr")),
    "p2pkh": base58check(0x00, h("addr p2pkh")[:20]),
    "p2sh": base58check(0x05, h("addr p2sh")[:20]),
    "tn_p2pkh": base58check(0x6F, h("addr testnet p2pkh")[:20]),
    "tn_p2sh": base58check(0xC4, h("addr testnet p2sh")[:20]),
    "replaced": segwit_address("bc", 0, h("addr replaced")[:20]),
    "deleted": base58check(0x05, h("addr deleted")[:20]),
}

SENDERS = [ADDR["p2wpkh"], ADDR["p2tr"], ADDR["p2pkh"], ADDR["p2sh"],
           ADDR["p2wsh"]]


# --------------------------------------------------------------------------
# Runes
# --------------------------------------------------------------------------

# (name, spacer positions, divisibility); the last is u128's largest name
NAMED_RUNES = [
    ("UNCOMMONGOODS", [7], 0),
    ("DOGGOTOTHEMOON", [2, 4, 6, 9], 5),
    ("RSICGENESISRUNE", [3, 10], 0),
    ("ZZZZZFEHUZZZZZ", [0, 1, 2, 3, 4, 8, 9, 10, 11, 12], 2),
    ("A", [], 0),
    ("BCGDENLQRQWDSLRUGSNLBTMFIJAV", [], 38),
    ("SATOSHINAKAMOTO", [6], 8),
]


def spaced(name, spacers):
    out = ""
    for i, c in enumerate(name):
        out += c
        if i in spacers and i < len(name) - 1:
            out += "\u2022"
    return out


def synthetic_rune(i):
    d = h("rune %d" % i)
    length = 4 + d[0] % 12
    name = "".join(chr(ord("A") + d[1 + k] % 26) for k in range(length))
    spacers = [k for k in range(length - 1) if d[20 + k % 12] % 3 == 0]
    return (name, spacers, d[31] % 9)


def rune_ref(i, number=True):
    if i < len(NAMED_RUNES):
        name, spacers, div = NAMED_RUNES[i]
    else:
        name, spacers, div = synthetic_rune(i)
    block = 840000 + i * 7
    ref = {"id": "%d:%d" % (block, i % 50)}
    if number:
        ref["number"] = i
    ref["name"] = name
    ref["spaced_name"] = spaced(name, spacers)
    return ref, div


def amount(raw, div):
    """A raw u128 amount with the rune's divisibility applied."""
    s = str(raw)
    if div == 0:
        return s
    s = s.rjust(div + 1, "0")
    return s[:-div] + "." + s[-div:]


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------
# Activity
# --------------------------------------------------------------------------

OPERATIONS = ["etching", "mint", "burn", "send", "receive"]


def activity_entry(tx_id, i, op, n, opts):
    rune_index = (i * 3) % 40
    ref, div = rune_ref(rune_index, number=opts.get("number", True))
    block = 840100 + n - i // 4      # newest first
    e = {"rune": ref, "operation": op}
    loc = {
        "block_hash": hexid("block %d" % block),
        "block_height": block,
        "tx_id": tx_id,
        "tx_index": 10 + (n - i) % 200,
        "timestamp": 1713571767 + (n - i) * 600,
    }
    if opts.get("vout", True):
        vout = i % 5
        loc["vout"] = vout
        if opts.get("output", True):
            loc["output"] = "%s:%d" % (tx_id, vout)
    e["location"] = loc
    if opts.get("address", True):
        e["address"] = SENDERS[i % len(SENDERS)]
    if opts.get("receiver", op in ("send", "receive")):
        e["receiver_address"] = SENDERS[(i + 1) % len(SENDERS)]
    if opts.get("amount", True):
        if i % 17 == 0:
            raw = U128_MAX
        else:
            raw = int.from_bytes(h("amount %d" % i)[:5 + i % 11], "big")
        e["amount"] = amount(raw, div)
    return e


def big_activity(tx_id, n):
    out = []
    for i in range(n):
        op = OPERATIONS[i % 5]
        k = i % 7
        opts = {
            # vary which optional members are there
            "number": k != 3,
            "vout": k not in (2, 5),
            "output": k != 4,
            "address": k not in (1, 6) and op != "etching" or i % 2 == 0,
            "receiver": op in ("send", "receive") and k != 0,
            "amount": not (op == "etching" and i % 10 == 0),
        }
        out.append(activity_entry(tx_id, i, op, n, opts))
    return out


def activity_line(tx_id, entries):
    return dumps({"kind": "rune_activity", "tx_id": tx_id,
                  "results": entries})


# --------------------------------------------------------------------------
# Balances
# --------------------------------------------------------------------------


def balances(address, n, label, with_address=True):
    rows = []
    for i in range(n):
        ref, div = rune_ref(i)
        if i == 0:
            raw = U128_MAX
        else:
            raw = int.from_bytes(h("%s balance %d" % (label, i))[:1 + i % 15],
                                 "big") + 1
        rows.append((raw, i, ref, div))
    # largest first, as upstream orders them (by the raw amount)
    rows.sort(key=lambda r: (-r[0], r[1]))
    out = []
    for k, (raw, i, ref, div) in enumerate(rows):
        e = {"rune": ref, "balance": amount(raw, div)}
        if with_address and not (k % 9 == 4):
            e["address"] = address
        out.append(e)
    return out


def balances_line(address, entries):
    return dumps({"kind": "rune_balances", "address": address,
                  "results": entries})


# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# A synthetic chain (--txs N)
# --------------------------------------------------------------------------


def synthetic_chain(n_txs, out, n_blocks=None):
    import random

    new_block = n_blocks / n_txs if n_blocks else 0.002

    rnd = random.Random(13)
    n_runes = max(50, n_txs // 20)
    runes = []
    for i in range(n_runes):
        ref, div = rune_ref(i)
        runes.append((ref, div))
    n_addrs = max(100, n_txs // 2)
    addrs = []
    for i in range(n_addrs):
        label = "chain addr %d" % i
        r = rnd.random()
        if r < 0.55:
            addrs.append(segwit_address("bc", 1, h(label)))
        elif r < 0.85:
            addrs.append(segwit_address("bc", 0, h(label)[:20]))
        elif r < 0.95:
            addrs.append(base58check(0x00, h(label)[:20]))
        else:
            addrs.append(base58check(0x05, h(label)[:20]))

    def pick(pool):
        # popular ones more often: a power law over the pool
        return pool[min(len(pool) - 1, int(len(pool) * rnd.random() ** 3))]

    def raw_amount():
        return rnd.randrange(1, 10 ** rnd.randrange(1, 20))

    held = {}
    block = 840000
    tx_index = 0
    for t in range(n_txs):
        if rnd.random() < new_block:
            block += 1
            tx_index = 0
        tx_index += 1 + rnd.randrange(5)
        tx_id = hexid("chain tx %d" % t)
        loc = {"block_hash": hexid("chain block %d" % block),
               "block_height": block, "tx_id": tx_id, "tx_index": tx_index,
               "timestamp": 1713571767 + (block - 840000) * 600}
        r = rnd.random()
        rune = pick(runes)
        sender = pick(addrs)
        if r < 0.50:
            ops = [("mint", sender, None), ("receive", sender, None)]
        elif r < 0.85:
            ops = [("send", sender, None)]
            for _ in range(1 + int(rnd.random() ** 2 * 3)):
                ops.append(("receive", pick(addrs), sender))
            if rnd.random() < 0.5:
                ops.append(("receive", sender, sender))
        elif r < 0.93:
            ops = [("send", sender, None), ("burn", sender, None)]
        elif r < 0.995:
            ops = [("etching", sender, None), ("receive", sender, None)]
            rune = runes[rnd.randrange(len(runes))]
        else:
            ops = [("send", sender, None)]
            ops += [("receive", pick(addrs), sender)
                    for _ in range(20 + rnd.randrange(180))]
        ref, div = rune
        entries = []
        for vout, (op, addr, frm) in enumerate(ops):
            e = {"rune": ref, "operation": op}
            l = dict(loc)
            l["vout"] = vout
            l["output"] = "%s:%d" % (tx_id, vout)
            e["location"] = l
            e["address"] = addr
            if frm is not None:
                e["receiver_address"] = addr
                e["address"] = frm
            if op != "etching":
                raw = raw_amount()
                e["amount"] = amount(raw, div)
                if op == "receive":
                    mine = held.setdefault(addr, {})
                    was = mine.get(ref["id"], (0, ref, div))[0]
                    mine[ref["id"]] = (was + raw, ref, div)
            entries.append(e)
        out.write(activity_line(tx_id, entries) + "\n")

    for addr in addrs:
        if addr not in held:
            continue
        rows = sorted(held[addr].values(), key=lambda x: (-x[0], x[1]["id"]))
        out.write(balances_line(addr, [
            {"rune": ref, "balance": amount(raw, div), "address": addr}
            for raw, ref, div in rows]) + "\n")


def main():
    if len(sys.argv) in (4, 6) and sys.argv[1] == "--txs":
        blocks = None
        if len(sys.argv) == 6:
            if sys.argv[3] != "--blocks":
                sys.exit("usage: gen-rune-fixtures.py --txs N [--blocks B] "
                         "OUTDIR")
            blocks = int(sys.argv[4])
        path = os.path.join(sys.argv[-1], "runes.ndjson")
        with open(path, "w", encoding="utf-8") as f:
            synthetic_chain(int(sys.argv[2]), f, blocks)
        return

    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")

    tx_big = hexid("rune tx big")
    tx_etch = hexid("rune tx etching")
    tx_small = hexid("rune tx small")
    tx_replaced = hexid("rune tx replaced")
    tx_deleted = hexid("rune tx deleted")

    etching = activity_entry(tx_etch, 0, "etching", 1,
                             {"receiver": False})
    small = [activity_entry(tx_small, i, op, 5,
                            {"vout": False, "address": False,
                             "receiver": False, "amount": op != "etching",
                             "number": False})
             for i, op in enumerate(["receive", "send", "burn", "mint",
                                     "etching"])]

    lines = [
        activity_line(tx_big, big_activity(tx_big, 150)),
        activity_line(tx_etch, [etching]),
        activity_line(tx_small, small),
        activity_line(tx_replaced, big_activity(tx_replaced, 7)),
        activity_line(tx_deleted, big_activity(tx_deleted, 3)),
        balances_line(ADDR["p2tr_holder"],
                      balances(ADDR["p2tr_holder"], 130, "holder")),
        balances_line(ADDR["p2wpkh"], balances(ADDR["p2wpkh"], 3, "p2wpkh")),
        balances_line(ADDR["p2wsh"], balances(ADDR["p2wsh"], 2, "p2wsh",
                                              with_address=False)),
        balances_line(ADDR["p2tr"], balances(ADDR["p2tr"], 1, "p2tr")),
        balances_line(ADDR["tb_p2wpkh"], balances(ADDR["tb_p2wpkh"], 2, "tb")),
        balances_line(ADDR["bcrt_p2tr"], balances(ADDR["bcrt_p2tr"], 2,
                                                  "bcrt")),
        balances_line(ADDR["p2pkh"], balances(ADDR["p2pkh"], 61, "p2pkh")),
        balances_line(ADDR["p2sh"], balances(ADDR["p2sh"], 1, "p2sh")),
        balances_line(ADDR["tn_p2pkh"], balances(ADDR["tn_p2pkh"], 2, "tn")),
        balances_line(ADDR["tn_p2sh"], balances(ADDR["tn_p2sh"], 4, "tn2sh")),
        balances_line(ADDR["replaced"], balances(ADDR["replaced"], 5,
                                                 "before")),
        balances_line(ADDR["deleted"], balances(ADDR["deleted"], 3,
                                                "deleted")),
        # later lines of the same file: replacements and deletions
        activity_line(tx_replaced, big_activity(tx_replaced, 2)),
        activity_line(tx_deleted, []),
        balances_line(ADDR["replaced"], balances(ADDR["replaced"], 2,
                                                 "after")),
        balances_line(ADDR["deleted"], []),
    ]

    path = os.path.join(outdir, "runes.ndjson")
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
