// Heap-snapshot diff of 2,000 handle() calls waiting for a first token: bytes per request by kind,
// then the new objects by what retains them (see heap-retainers.mjs).
// node --expose-gc apps/bench/profile/idle-heap-snapshot.mjs
/* global gc -- defined by --expose-gc */
import v8 from 'node:v8';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createNodeChatRequest } from '@quantum-chat/core/node';
import { createFixedEngine, requestHeaders, streamRequestBody } from '../src/lib/fixtures.mjs';
import { newObjectsByRetainer } from './heap-retainers.mjs';
const handler = createChatHandler({ engine: createFixedEngine({ mode: 'idle' }), accessControl: insecureAcceptAnyApiKey() });
const bytes = Buffer.from(streamRequestBody);
const keep = [];
// Requests as the adapters make them: a Node response stand-in that never closes.
function waitingRequest() {
  const res = Object.assign(new EventEmitter(), { writableEnded: false, destroyed: false });
  keep.push(res);
  return createNodeChatRequest(res, { method: 'POST', path: '/chat/completions', headers: requestHeaders, body: { kind: 'bytes', bytes } });
}
function summary() {
  gc(); gc();
  const snap = JSON.parse(require_snapshot());
  const f = snap.snapshot.meta.node_fields; const types = snap.snapshot.meta.node_types[0];
  const nf = f.length; const nodes = snap.nodes; const strings = snap.strings;
  const iType = f.indexOf('type'), iName = f.indexOf('name'), iSize = f.indexOf('self_size');
  const by = new Map();
  for (let i = 0; i < nodes.length; i += nf) {
    const t = types[nodes[i + iType]]; let name = strings[nodes[i + iName]];
    if (t !== 'object' && t !== 'closure') name = `(${t})`; else if (t === 'closure') name = 'closure ' + name;
    const e = by.get(name) ?? [0, 0]; e[0] += 1; e[1] += nodes[i + iSize]; by.set(name, e);
  }
  return by;
}
function require_snapshot() {
  const chunks = []; const s = v8.getHeapSnapshot(); let c; while ((c = s.read()) !== null) chunks.push(c); return Buffer.concat(chunks).toString();
}
const n = 2000;
for (let i = 0; i < 100; i++) keep.push(handler.handle(waitingRequest()));
await new Promise((r) => setTimeout(r, 100));
const directory = mkdtempSync(join(tmpdir(), 'quantum-idle-heap-'));
const a = summary();
const beforePath = v8.writeHeapSnapshot(join(directory, 'before.heapsnapshot'));
for (let i = 0; i < n; i++) keep.push(handler.handle(waitingRequest()));
await new Promise((r) => setTimeout(r, 200));
const b = summary();
const afterPath = v8.writeHeapSnapshot(join(directory, 'after.heapsnapshot'));
const rows = [];
for (const [name, [count, size]] of b) { const [c0, s0] = a.get(name) ?? [0, 0]; const dc = (count - c0) / n, ds = (size - s0) / n; if (ds > 20) rows.push([ds, dc, name]); }
rows.sort((x, y) => y[0] - x[0]); let tot = 0; for (const r of rows) tot += r[0];
console.log('total per request ~', tot.toFixed(0));
for (const r of rows.slice(0, 40)) console.log(r[0].toFixed(0).padStart(6), r[1].toFixed(1).padStart(5), r[2].slice(0, 80));
console.log('\nnew objects per request by retainer (kind  ←  retainer .edge):');
const retained = [...newObjectsByRetainer(beforePath, afterPath)].sort((x, y) => y[1].size - x[1].size);
for (const [key, kind] of retained.slice(0, 40)) console.log((kind.size / n).toFixed(0).padStart(6), (kind.count / n).toFixed(2).padStart(5), key);
rmSync(directory, { recursive: true, force: true });
