// handle() of the bench's stream request around the reference engine, plain against resumable
// (the memory stream store), in process: no HTTP, no access control, frames written to a sink, 8
// streams at a time, rounds alternated. Prints CPU per stream of each and resumable / plain: the
// resumable suite's question without the noise of a server and a client on two busy cores.
// taskset -c 0 node apps/bench/profile/resumable-in-process.mjs   (WORK streams a round, ROUNDS,
// RETAIN_MS: the store's retention, 10 minutes by default). The lanes never yield to the event
// loop while one has work left, so timers and nextTicks wait until all of them wait: a stream
// lives longer here than in a server, and its garbage-collection figures are not a server's
// (profile/resumable-server-gc.mjs measures those).
import { createChatHandler, createMemoryStreamStore, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { writeFrames } from '@quantum-chat/core/node';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { InProcessRequest } from '../src/lib/in-process-request.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { median } from '../src/lib/stats.mjs';
const engine = createReferenceEngine();
const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey(), streams: { store: createMemoryStreamStore(process.env.RETAIN_MS ? { retentionMs: Number(process.env.RETAIN_MS) } : {}) } });
const bodies = {
  plain: new TextEncoder().encode(JSON.stringify({ ...requestObject, stream: true })),
  resumable: new TextEncoder().encode(JSON.stringify({ ...requestObject, stream: true, stream_options: { resumable: true } })),
};
const sink = { destroyed: false, characters: 0, write(text) { this.characters += text.length; return true; }, once() {}, off() {} };
const work = Number(process.env.WORK ?? 400);
const run = async (kind) => {
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: 8 }, async (_, lane) => {
    for (let index = lane; index < work; index += 8) {
      const response = await handler.handle(new InProcessRequest(bodies[kind]));
      if (!('events' in response)) throw new Error(JSON.stringify(response).slice(0, 300));
      await writeFrames(sink, response.events[Symbol.asyncIterator]());
    }
  }));
  const usage = process.cpuUsage(start);
  return (usage.user + usage.system) / work;
};
for (const kind of ['plain', 'resumable', 'plain', 'resumable']) await run(kind);
const times = { plain: [], resumable: [] };
for (let round = 0; round < Number(process.env.ROUNDS ?? 9); round++) for (const kind of round % 2 ? ['resumable', 'plain'] : ['plain', 'resumable']) times[kind].push(await run(kind));
const ratios = times.plain.map((p, i) => times.resumable[i] / p);
console.log(`plain ${median(times.plain).toFixed(0)} µs, resumable ${median(times.resumable).toFixed(0)} µs a stream; resumable / plain ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
