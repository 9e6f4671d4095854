#!/usr/bin/python3
"""Validate transaction documents against the (draft-07) JSON Schema.

Usage:
  /usr/bin/python3 t/tools/validate-tx-schema.py [--unwrap] SCHEMA.json < docs

Reads one JSON document per line from stdin (blank lines are skipped but
still counted) and prints, per document:
  ok N
  not ok N: <first error message> at <JSON path>
where N is the 1-based input line number.

--unwrap   each line is an ingest record {"kind":"tx","data":DOC}; validate DOC
           (handy for t/fixtures/*.ndjson).

Exit status: 0 all valid, 1 some invalid (or unparsable line),
             2 jsonschema not importable, schema unreadable/invalid, bad usage.

Needs the Debian package python3-jsonschema: run with /usr/bin/python3 (a
pyenv/venv "python3" on PATH may not have it).
"""

import json
import sys


def die(msg):
    sys.stderr.write("validate-tx-schema: %s\n" % msg)
    sys.exit(2)


def json_path(error):
    p = getattr(error, "json_path", None)
    if p is not None:
        return p
    out = "$"
    for part in error.absolute_path:
        out += "[%d]" % part if isinstance(part, int) else "." + str(part)
    return out


def _branches(error):
    """Group an anyOf/oneOf error's sub-errors by alternative index."""
    branches = {}
    for sub in error.context:
        idx = sub.relative_schema_path[0] if sub.relative_schema_path else 0
        branches.setdefault(idx, []).append(sub)
    return branches


def _score(error):
    """How far the instance is from satisfying the schema behind error:
    1 for a plain error; for anyOf/oneOf the best alternative's total."""
    if not error.context:
        return 1
    return min(sum(_score(e) for e in subs)
               for subs in _branches(error).values())


def _depth(errors):
    d = 0
    for e in errors:
        d = max(d, len(e.absolute_path))
        if e.context:
            d = max(d, _depth(e.context))
    return d


def first_error(validator, doc):
    """Most useful single error for doc, or None if valid.

    For the schema's nested anyOf (confirmed|mempool) x (6 tx_types) a bare
    "is not valid under any of the given schemas" is useless, so descend
    into the alternative the document is closest to (fewest errors, then
    deepest error); stop when alternatives tie (e.g. an enum spelled as an
    anyOf of one-value enums) and report the anyOf error itself.
    """
    errors = list(validator.iter_errors(doc))
    if not errors:
        return None
    errors.sort(key=lambda e: (_score(e), -_depth([e])))
    err = errors[0]
    while err.context:
        scored = [(sum(_score(e) for e in subs), -_depth(subs), i, subs)
                  for i, subs in _branches(err).items()]
        scored.sort(key=lambda t: t[:3])
        if len(scored) > 1 and scored[0][:2] == scored[1][:2]:
            break
        subs = sorted(scored[0][3],
                      key=lambda e: (_score(e), -_depth([e])))
        err = subs[0]
    return err


def main(argv):
    args = argv[1:]
    unwrap = False
    if args and args[0] == "--unwrap":
        unwrap = True
        args = args[1:]
    if len(args) != 1:
        die("usage: validate-tx-schema.py [--unwrap] SCHEMA.json < docs")
    try:
        import jsonschema
        from jsonschema import Draft7Validator
    except Exception as e:  # ImportError and friends
        die("cannot import jsonschema (%s); install python3-jsonschema and "
            "run with /usr/bin/python3" % e)
    try:
        with open(args[0], "r", encoding="utf-8") as f:
            schema = json.load(f)
        Draft7Validator.check_schema(schema)
    except (OSError, ValueError) as e:
        die("cannot read schema %s: %s" % (args[0], e))
    except jsonschema.exceptions.SchemaError as e:
        die("invalid schema %s: %s" % (args[0], e.message))
    validator = Draft7Validator(schema)

    bad = 0
    stdin = open(sys.stdin.fileno(), "r", encoding="utf-8", closefd=False)
    out = sys.stdout
    for n, line in enumerate(stdin, 1):
        if not line.strip():
            continue
        try:
            doc = json.loads(line)
            if unwrap:
                if not isinstance(doc, dict) or "data" not in doc:
                    raise ValueError("record has no \"data\" key")
                doc = doc["data"]
        except ValueError as e:
            bad += 1
            out.write("not ok %d: invalid JSON: %s\n" % (n, e))
            continue
        err = first_error(validator, doc)
        if err is None:
            out.write("ok %d\n" % n)
        else:
            bad += 1
            msg = err.message.replace("\n", " ")
            if len(msg) > 300:
                msg = msg[:297] + "..."
            out.write("not ok %d: %s at %s\n" % (n, msg, json_path(err)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
