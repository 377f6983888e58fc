// Heap-snapshot diff of idle streams over real HTTP: a Fastify server in this process, 2,000
// streaming requests from a child process that never get a first token. Bytes per stream by kind,
// then the new objects by what retains them (see heap-retainers.mjs). `adapter` (default) is the
// Fastify plugin; `bare` the idle suite's hand-written route, to tell what the adapter adds.
// node --expose-gc apps/bench/profile/idle-fastify-heap-snapshot.mjs [adapter|bare]
/* global gc -- defined by --expose-gc */
import v8 from 'node:v8';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import Fastify from 'fastify';
import { createFixedEngine, requestHeaders, streamRequestBody } from '../src/lib/fixtures.mjs';
import { newObjectsByRetainer } from './heap-retainers.mjs';

const variant = process.argv[2] ?? 'adapter';
const live = { count: 0 };
const engine = createFixedEngine({ mode: 'idle', live });
const app = Fastify({ logger: false });
if (variant === 'adapter') {
  await app.register(fastifyQuantumChat, { prefix: '/v1', handler: createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() }) });
} else {
  // The idle part of the bench's bare route: a signal, a close listener, the engine's first step.
  app.post('/v1/chat/completions', async (request, reply) => {
    reply.hijack();
    const controller = new AbortController();
    reply.raw.once('close', () => controller.abort());
    const events = engine.generate({ user: request.body.user }, { signal: controller.signal, requestId: 'bare' })[Symbol.asyncIterator]();
    await events.next();
    return reply;
  });
}
await app.listen({ host: '127.0.0.1', port: 0 });
app.server.requestTimeout = 0;
app.server.headersTimeout = 0;
app.server.keepAliveTimeout = 60_000;
const port = app.server.address().port;

const directory = mkdtempSync(join(tmpdir(), 'quantum-idle-fastify-heap-'));
// The client: raw sockets held open in a process of their own, so their memory is not counted.
const clientPath = join(directory, 'client.mjs');
writeFileSync(
  clientPath,
  `import net from 'node:net';
const sockets = [];
process.on('message', ({ port, request, count }) => {
  for (let i = 0; i < count; i++) {
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(request));
    socket.on('error', () => undefined);
    sockets.push(socket);
  }
});`,
);
const client = fork(clientPath);
const headers = Object.entries({ ...requestHeaders, host: `127.0.0.1:${port}`, 'content-length': Buffer.byteLength(streamRequestBody) })
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');
const request = `POST /v1/chat/completions HTTP/1.1\r\n${headers}\r\n${streamRequestBody}`;

async function open(count) {
  const target = live.count + count;
  client.send({ port, request, count });
  while (live.count < target) await sleep(50);
  await sleep(200);
}

function kindsNow(path) {
  gc();
  gc();
  v8.writeHeapSnapshot(path);
  return path;
}

const n = 2000;
await open(200);
const beforePath = kindsNow(join(directory, 'before.heapsnapshot'));
const rssBefore = process.memoryUsage().rss;
await open(n);
const afterPath = kindsNow(join(directory, 'after.heapsnapshot'));
const rssAfter = process.memoryUsage().rss;
console.log(`${variant}: ${n} idle streams; RSS ${((rssAfter - rssBefore) / n / 1024).toFixed(1)} KiB per stream (snapshots included: rough)`);
const retained = [...newObjectsByRetainer(beforePath, afterPath)].sort((x, y) => y[1].size - x[1].size);
const byKind = new Map();
for (const [key, { size, count }] of retained) {
  const kind = key.split('  ←  ')[0];
  const entry = byKind.get(kind) ?? { size: 0, count: 0 };
  entry.size += size;
  entry.count += count;
  byKind.set(kind, entry);
}
const kinds = [...byKind].sort((x, y) => y[1].size - x[1].size);
console.log(`new objects per stream: ${(kinds.reduce((sum, [, kind]) => sum + kind.size, 0) / n).toFixed(0)} B`);
for (const [kind, { size, count }] of kinds.slice(0, 40)) console.log((size / n).toFixed(0).padStart(6), (count / n).toFixed(2).padStart(5), kind);
console.log('\nnew objects per stream by retainer (kind  ←  retainer .edge):');
for (const [key, kind] of retained.slice(0, Number(process.env.ROWS ?? 60))) console.log((kind.size / n).toFixed(0).padStart(6), (kind.count / n).toFixed(2).padStart(5), key);
client.kill();
rmSync(directory, { recursive: true, force: true });
await app.close();
