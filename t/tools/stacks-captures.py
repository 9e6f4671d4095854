#!/usr/bin/env python3
"""Copies what the real Stacks API 9.0.2 served on the mirror's routes into
t/captures/stacks-api-9.0.2/NAME.json, for the tests to replay
(t/captures/stacks-api-9.0.2/README.md says what is there and why).

  t/tools/stacks-captures.py REFERENCE_DIR OUT_DIR NAME [--api URL]

REFERENCE_DIR is ../shared/reference/stacks-api-9.0.2: its NAME.feed.json
(status, tip, every block, listings in pages of 50, mempool listing; the
pages of 30 are left out: the mirror asks pages of 50) and, of
NAME.answers.json, the answers noted "v1 pair" (GET /extended/v1/tx/{id}).

--api URL: the real API serving the same data set (../shared/upstream,
stacks-upstream/api-start ds_NAME CHAIN_ID): the pages of events the mirror
asks for (/extended/v1/tx/{id}?event_limit=100&event_offset=N, every page
of every mined transaction) are captured from it, noted "events page",
with the first listing page past each block's last row when its rows are
a multiple of 50 (a 404 upstream), noted "listing end", and, when the
mempool is not empty, the first page of the v3 mempool listing the mirror
reads pending transactions' receipt_block_height from, noted "v3 mempool
listing", and the v3 document of each transaction of the chain's first
block (/extended/v3/transactions/{id}), which the mirror reads their
parent index hash and time from, noted "first block v3".  An events page
the same as the v1 pair's answer (a transaction of at most 20 events, the
v1 route's default event_limit) is kept as "same_as", naming that path."""

import json
import sys
import urllib.error
import urllib.request

DROP = {'date', 'connection', 'keep-alive'}


def get(api, path):
    req = urllib.request.Request(api + path,
                                 headers={'Accept': 'application/json'})
    try:
        with urllib.request.urlopen(req) as r:
            status, headers, body = r.status, r.getheaders(), r.read()
    except urllib.error.HTTPError as e:
        status, headers, body = e.code, e.headers.items(), e.read()
    return {'method': 'GET', 'path': path, 'status': status,
            'response_headers': [[k.lower(), v] for k, v in headers
                                 if k.lower() not in DROP],
            'body': body.decode('utf-8')}


def main():
    ref, out, name = sys.argv[1:4]
    api = sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == '--api' else None
    feed = [a for a in json.load(open(f'{ref}/{name}.feed.json'))
            if 'pages of 30' not in a['note']]
    pairs = [a for a in json.load(open(f'{ref}/{name}.answers.json'))
             if a['note'] == 'v1 pair']
    extra = []
    if api:
        for a in feed:
            if 'pages of 50' not in a['note'] or a['status'] != 200:
                continue
            page = json.loads(a['body'])
            if len(page['results']) == 50:
                nxt = a['path'].replace(f"offset={page['offset']}",
                                        f"offset={page['offset'] + 50}")
                if not any(f['path'] == nxt for f in feed):
                    extra.append(dict(get(api, nxt), note='listing end'))
            for tx in page['results']:
                if a['path'].startswith('/extended/v2/blocks/1/'):
                    extra.append(dict(get(api, '/extended/v3/transactions/'
                                          + tx['tx_id']),
                                      note='first block v3'))
                count, off = 1, 0
                while off < count:
                    e = get(api, f"/extended/v1/tx/{tx['tx_id']}"
                            f"?event_limit=100&event_offset={off}")
                    count = json.loads(e['body'])['event_count']
                    extra.append(dict(e, note='events page'))
                    off += 100
        mempool = next(a for a in feed if a['note'] == 'mempool listing')
        if json.loads(mempool['body'])['results']:
            extra.append(dict(get(api, '/extended/v3/mempool/transactions'
                                  '?limit=50'), note='v3 mempool listing'))
    for a in extra:
        a['dataset'] = name
        pair = next((p for p in pairs
                     if a['path'].split('?')[0] == p['path']), None)
        if pair and all(a[k] == pair[k] for k in
                        ('status', 'response_headers', 'body')):
            del a['response_headers'], a['body']
            a['same_as'] = pair['path']     # a transaction of 20 events
    with open(f'{out}/{name}.json', 'w') as f:
        json.dump(feed + pairs + extra, f, indent=0)
        f.write('\n')


main()
