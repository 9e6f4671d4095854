'use strict';
// chaindata bench: the baseline.  A Node.js HTTP server (core modules only)
// answering GET /extended/v1/tx/{tx_id} the way the upstream Node + Postgres
// service does, minus the database: the documents are parsed once at start
// and held in memory, and each request
//   - validates the id (^(0x)?[a-fA-F0-9]{64}$; no 0x: 302; else 400),
//   - validates event_offset / event_limit / exclude_function_args,
//   - looks the transaction up (404 with Cache-Control: no-store),
//   - slices the page of events, copies the document around it (leaving out
//     contract_call.function_args when asked) and JSON.stringify's it,
//   - sets the same headers (Content-Type, ETag, Cache-Control) and answers
//     If-None-Match with 304.
// No query, no connection pool, no Fastify, no logging: it is an UPPER BOUND
// on the speed of the upstream service, which also pays a Postgres round
// trip (two queries: the transaction, then its page of events) per request.
//
// usage: node baseline-server.js --data FILE.ndjson --port N [--host 127.0.0.1]
//        prints "ready <port> <transactions> <events> <ms>" once listening.

const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const readline = require('readline');

function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}
const dataFile = arg('--data');
const port = Number(arg('--port', '0'));
const host = arg('--host', '127.0.0.1');
if (!dataFile || !port) {
  console.error('usage: baseline-server.js --data FILE.ndjson --port N [--host H]');
  process.exit(2);
}

const TX_ID_RE = /^(0x)?[a-fA-F0-9]{64}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
const CACHE_OK = 'public, no-cache, must-revalidate';

// tx_id (lowercase, 0x) -> { doc, events (sorted), digest }
const txs = new Map();

async function load() {
  const t0 = Date.now();
  let nevents = 0;
  const rl = readline.createInterface({
    input: fs.createReadStream(dataFile, { highWaterMark: 1 << 20 }),
    crlfDelay: Infinity,
  });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const rec = JSON.parse(line);
    if (rec.kind !== 'tx') continue;
    if (rec.delete) { txs.delete(rec.delete.toLowerCase()); continue; }
    const doc = rec.data;
    let events = null;
    if (Array.isArray(doc.events)) {
      events = doc.events.sort((a, b) => a.event_index - b.event_index);
      doc.events = [];
      nevents += events.length;
    }
    const digest = crypto.createHash('sha256').update(line).digest('hex').slice(0, 32);
    txs.set(doc.tx_id, { doc, events, digest });
  }
  return { nevents, ms: Date.now() - t0 };
}

function send(res, status, headers, body) {
  headers['Content-Length'] = Buffer.byteLength(body);
  res.writeHead(status, headers);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function error(res, status, error, message, code) {
  const body = code === undefined
    ? { statusCode: status, error, message }
    : { statusCode: status, code, error, message };
  const headers = { 'Content-Type': JSON_TYPE };
  if (status === 404) headers['Cache-Control'] = 'no-store';
  send(res, status, headers, JSON.stringify(body));
}

function badQuery(res, message) {
  error(res, 400, 'Bad Request', 'querystring/' + message, 'FST_ERR_VALIDATION');
}

function intParam(q, name, dflt) {
  const v = q.getAll(name);
  if (v.length === 0) return dflt;
  if (v.length > 1 || !/^[+-]?\d+$/.test(v[0])) return { bad: name + ' must be integer' };
  return Number(v[0]);
}

const PREFIX = '/extended/v1/tx/';

function handle(req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return error(res, 405, 'Method Not Allowed', 'method not allowed');
  }
  const url = new URL(req.url, 'http://localhost');
  if (!url.pathname.startsWith(PREFIX)) {
    return error(res, 404, 'Not Found', 'Route not found');
  }
  const id = url.pathname.slice(PREFIX.length);
  if (!TX_ID_RE.test(id)) {
    return error(res, 400, 'Bad Request',
      'params/tx_id must match pattern "^(0x)?[a-fA-F0-9]{64}$"', 'FST_ERR_VALIDATION');
  }
  if (!id.startsWith('0x')) {
    res.writeHead(302, { Location: PREFIX + '0x' + id + url.search, 'Content-Length': 0 });
    return res.end();
  }
  const q = url.searchParams;
  let limit = intParam(q, 'event_limit', 20);
  if (limit.bad) return badQuery(res, limit.bad);
  if (limit > 100) return badQuery(res, 'event_limit must be <= 100');
  if (limit < 0) return badQuery(res, 'event_limit must be >= 0');
  if (limit === 0) limit = 20;
  const offset = intParam(q, 'event_offset', 0);
  if (offset.bad) return badQuery(res, offset.bad);
  if (offset < 0) return badQuery(res, 'event_offset must be >= 0');
  const efa = q.get('exclude_function_args');
  if (efa !== null && efa !== 'true' && efa !== 'false') {
    return badQuery(res, 'exclude_function_args must be boolean');
  }

  const tx = txs.get(id.toLowerCase());
  if (tx === undefined) {
    return error(res, 404, 'Not Found', 'could not find transaction by ID');
  }
  const etag = '"' + tx.digest + '-' + offset + '-' + limit + (efa === 'true' ? '-x' : '') + '"';
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, { ETag: etag, 'Cache-Control': CACHE_OK });
    return res.end();
  }
  // the result object, as the upstream handler assembles it from its rows
  const result = { ...tx.doc };
  if (tx.events !== null) result.events = tx.events.slice(offset, offset + limit);
  if (efa === 'true' && result.contract_call) {
    const { function_args, ...rest } = result.contract_call;
    result.contract_call = rest;
  }
  const body = JSON.stringify(result);
  send(res, 200, { 'Content-Type': JSON_TYPE, ETag: etag, 'Cache-Control': CACHE_OK }, body);
}

load().then(({ nevents, ms }) => {
  const server = http.createServer(handle);
  server.keepAliveTimeout = 65000;
  server.listen(port, host, () => {
    console.log(`ready ${port} ${txs.size} ${nevents} ${ms}`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}).catch((e) => {
  console.error('baseline-server: ' + (e && e.stack || e));
  process.exit(1);
});
