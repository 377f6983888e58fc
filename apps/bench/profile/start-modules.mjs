// Where the ready server's memory at start goes, package by package: each imported in turn, in
// the order the server loads them, in this fresh process, RSS and heap after a GC.
// `node --expose-gc apps/bench/profile/start-modules.mjs` (server built). Those marked "first use"
// the server now loads only when a request or the config needs them; they are listed last.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
// Resolved as the server resolves them (its own dependencies).
const require = createRequire(new URL('../../server/package.json', import.meta.url));
const atStart = ['fastify', 'zod', 'pino', '@quantum-chat/core', '@quantum-chat/fastify', '@quantum-chat/web', 'rate-limiter-flexible', 'prom-client', '@fastify/cors', '@fastify/under-pressure', '@quantum-chat/access-control', 'better-sqlite3'];
const onFirstUse = ['@quantum-chat/engine-reference', 'ioredis', '@fastify/ajv-compiler (via fastify)', '@quantum-chat/engine-upstream', 'postgres'];

const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const heapMiB = () => process.memoryUsage().heapUsed / 2 ** 20;

async function settle() {
  await sleep(50);
  globalThis.gc();
  globalThis.gc();
}

await settle();
let rss = rssMiB();
let heap = heapMiB();
console.log(`node alone: ${rss.toFixed(1)} MiB RSS, ${heap.toFixed(1)} MiB heap`);
for (const [label, names] of [['at start', atStart], ['first use', onFirstUse]]) {
  for (const name of names) {
    const specifier = name.endsWith('(via fastify)') ? createRequire(require.resolve('fastify')).resolve(name.split(' ')[0]) : require.resolve(name);
    await import(specifier);
    await settle();
    console.log(`${label.padEnd(9)}  ${name.padEnd(40)} +${(rssMiB() - rss).toFixed(1).padStart(5)} MiB RSS  +${(heapMiB() - heap).toFixed(1).padStart(5)} MiB heap`);
    rss = rssMiB();
    heap = heapMiB();
  }
}
