/* global gc */
import v8 from 'node:v8';
import { EventEmitter } from 'node:events';
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createNodeChatRequest } from '@quantum-chat/core/node';
import { createFixedEngine, requestHeaders, streamRequestBody } from '/work/wt/stream-memory/apps/bench/src/lib/fixtures.mjs';
import { newObjectsByRetainer } from '/work/wt/stream-memory/apps/bench/profile/heap-retainers.mjs';
const handler = createChatHandler({ engine: createFixedEngine({ mode: 'idle' }), accessControl: insecureAcceptAnyApiKey() });
const bytes = Buffer.from(streamRequestBody);
const keep = [];
function waitingRequest() {
  const res = Object.assign(new EventEmitter(), { writableEnded: false, destroyed: false });
  keep.push(res);
  return createNodeChatRequest(res, { method: 'POST', path: '/chat/completions', headers: requestHeaders, body: { kind: 'bytes', bytes } });
}
const n = 2000;
for (let i = 0; i < 100; i++) keep.push(handler.handle(waitingRequest()));
await new Promise((r) => setTimeout(r, 100));
gc(); gc();
const a = v8.writeHeapSnapshot('/tmp/sm-idle-a.heapsnapshot');
for (let i = 0; i < n; i++) keep.push(handler.handle(waitingRequest()));
await new Promise((r) => setTimeout(r, 200));
gc(); gc();
const b = v8.writeHeapSnapshot('/tmp/sm-idle-b.heapsnapshot');
const kinds = [...newObjectsByRetainer(a, b)].sort((x, y) => y[1].size - x[1].size);
let total = 0; for (const [, k] of kinds) total += k.size;
console.log('total per request', (total / n).toFixed(0));
for (const [key, k] of kinds.slice(0, 60)) console.log((k.size / n).toFixed(0).padStart(6), (k.count / n).toFixed(2).padStart(6), key);
