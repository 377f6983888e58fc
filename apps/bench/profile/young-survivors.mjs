// What of a stream outlives a young-generation collection it should not: handle() of the bench's
// stream request around the reference engine, in process, one stream at a time (each ends in a
// turn of its own, as in a server), with the young generation sized so that no collection runs
// during the measured streams; then one young collection. What survives it is kept only by that
// collection's view (a full collection frees it): old objects that point into the young
// generation, or weak references. Prints the survivors and, with SITES=1, their allocation sites.
// node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128 apps/bench/profile/young-survivors.mjs [plain|resumable] [streams=100]
import { Session } from 'node:inspector/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { createChatHandler, createMemoryStreamStore, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { writeFrames } from '@quantum-chat/core/node';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { InProcessRequest } from '../src/lib/in-process-request.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { bytesBySite } from '../src/lib/sampled-sites.mjs';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc --min-semi-space-size=128 --max-semi-space-size=128');
const [kind = 'resumable', streamsArg = '100'] = process.argv.slice(2);
const streams = Number(streamsArg);
const handler = createChatHandler({ engine: createReferenceEngine(), accessControl: insecureAcceptAnyApiKey(), streams: { store: createMemoryStreamStore() } });
const body = new TextEncoder().encode(JSON.stringify({ ...requestObject, stream: true, ...(kind === 'resumable' ? { stream_options: { resumable: true } } : {}) }));
const sink = { destroyed: false, characters: 0, write(text) { this.characters += text.length; return true; }, once() {}, off() {} };
const youngKiB = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_used_size / 1024;

async function oneStream() {
  const response = await handler.handle(new InProcessRequest(body));
  await writeFrames(sink, response.events[Symbol.asyncIterator]());
  await new Promise((resolve) => setImmediate(resolve));
}

for (let index = 0; index < 300; index++) await oneStream();
globalThis.gc();
const session = new Session();
session.connect();
if (process.env.SITES) await session.post('HeapProfiler.startSampling', { samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
for (let index = 0; index < streams; index++) await oneStream();
const allocated = youngKiB();
globalThis.gc({ type: 'minor' });
console.log(`${kind}: ${streams} streams allocated ${allocated.toFixed(0)} KiB in the young generation; ${youngKiB().toFixed(0)} KiB survived a young collection (${((youngKiB() * 1024) / streams).toFixed(0)} B a stream)`);
if (process.env.SITES) {
  const { profile } = await session.post('HeapProfiler.stopSampling');
  for (const [site, bytes] of bytesBySite(profile).slice(0, 20)) console.log(`${(bytes / streams).toFixed(0).padStart(7)} B a stream  ${site}`);
}
session.disconnect();
