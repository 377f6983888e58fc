import v8 from 'node:v8';
if (process.env.NOTIMERS) {
  const realSetTimeout = globalThis.setTimeout, realClear = globalThis.clearTimeout;
  globalThis.setTimeout = (fn, ms, ...args) => {
    if ((ms ?? 0) <= 1) { const h = { cancelled: false, unref() { return h; }, ref() { return h; }, refresh() { return h; }, hasRef() { return true; } }; setImmediate(() => { if (!h.cancelled) fn(...args); }); return h; }
    const h = { cancelled: true, long: true, unref() { return h; }, ref() { return h; }, refresh() { return h; }, hasRef() { return false; } }; return h;
  };
  globalThis.clearTimeout = (h) => { if (h && typeof h === 'object' && 'cancelled' in h) h.cancelled = true; else realClear(h); };
}
import { createChatHandler, createMemoryStreamStore, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { writeFrames } from '@quantum-chat/core/node';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { InProcessRequest } from '../src/lib/in-process-request.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
let engine = createReferenceEngine();
let store = createMemoryStreamStore({ retentionMs: 1 });
let handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey(), streams: { store } });
const kind = process.argv[2] ?? 'resumable';
const body = new TextEncoder().encode(JSON.stringify({ ...requestObject, stream: true, ...(kind === 'resumable' ? { stream_options: { resumable: true } } : {}) }));
const sink = { destroyed: false, characters: 0, write(text) { this.characters += text.length; return true; }, once() {}, off() {} };
const newUsed = () => (v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_used_size / 1024).toFixed(0);
globalThis.__pins = [];
let pinNext = false;
const one = async () => {
  if (process.env.FRESH) { if (process.env.FRESH === "2") engine = createReferenceEngine(); store = createMemoryStreamStore({ retentionMs: 1 }); handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey(), streams: { store } }); }
  const request = new InProcessRequest(body);
  const response = await handler.handle(request);
  if (pinNext) { pinNext = false; globalThis.__pins.push(request, response, response.events, response.headers); }
  if (process.env.NOREAD) { await response.events[Symbol.asyncIterator]().return(); for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)); }
  else await writeFrames(sink, response.events[Symbol.asyncIterator]());
  await new Promise((r) => setImmediate(r));
};
for (let i = 0; i < 300; i++) await one(); globalThis.__dbg = Number(process.env.DBG ?? 0); // warm
gc(); gc();
console.log('baseline used KB', (v8.getHeapStatistics().used_heap_size / 1024).toFixed(0));
const { Session } = await import('node:inspector');
const session = new Session(); session.connect();
const post = (m, p) => new Promise((res, rej) => session.post(m, p, (e, r) => e ? rej(e) : res(r)));
await post('HeapProfiler.enable');
if (process.env.SAMPLE) await post('HeapProfiler.startSampling', { samplingInterval: Number(process.env.SAMPLE), includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
const n = Number(process.argv[3] ?? 100);
if (process.env.PIN === '1') pinNext = true;
for (let i = 0; i < n; i++) { if (process.env.PIN === 'last' && i === n - 1) pinNext = true; await one(); }
await new Promise((r) => setImmediate(r)); await new Promise((r) => setImmediate(r));
console.log('new space used before minor gc KB', newUsed());
const used = () => (v8.getHeapStatistics().used_heap_size / 1024).toFixed(0);
if (process.env.PIN) { const b = used(); gc(); console.log('PIN: full gc: used KB', b, '->', used(), '(baseline above)'); if (process.env.SNAP) { v8.writeHeapSnapshot(process.env.SNAP); console.log('snapshot written'); } }
if (process.env.FULL_FIRST) { const b = used(); gc(); console.log('full gc first: used KB', b, '->', used(), 'new', newUsed()); }
gc({ type: 'minor' });
console.log('after minor gc (survivors) KB', newUsed());
if (process.env.SAMPLE) {
  const { profile } = await post('HeapProfiler.stopSampling');
  const bySite = new Map();
  const walk = (node, stack) => {
    const frame = `${node.callFrame.functionName || '(anon)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
    const path = [...stack, frame];
    if (node.selfSize > 0) { const site = path.slice(-3).reverse().join(' < '); const v = bySite.get(site) ?? 0; bySite.set(site, v + node.selfSize); }
    for (const c of node.children) walk(c, path);
  };
  walk(profile.head, []);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.ROWS ?? 40))) console.log((bytes / n).toFixed(0).padStart(7), 'B/stream ', site);
}
const drop = process.env.DROP ?? '';
if (drop.includes('handler')) handler = undefined;
if (drop.includes('store')) store = undefined;
if (drop.includes('engine')) engine = undefined;
await new Promise((r) => setImmediate(r)); await new Promise((r) => setImmediate(r));
gc({ type: 'minor' });
console.log(`after dropping [${drop}], second minor gc KB`, newUsed(), '(promoted now: survivors of two)');
