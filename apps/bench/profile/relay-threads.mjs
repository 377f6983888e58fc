// Where a relayed request's CPU goes by thread: the ready server relaying to the stand-in (or the
// bare proxy, its baseline) under the bare-proxy suite's load (autocannon, 32 connections), CPU per
// request of each thread from /proc/<pid>/task/*/stat, and its voluntary context switches.
// The process CPU counts every thread: the main one, the SQLite worker, V8's helpers, libuv's pool.
// node apps/bench/profile/relay-threads.mjs [json|stream] [ready|bare] [rounds=2] [seconds=8]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { procThreadCpuSeconds, startChild } from '../src/lib/child.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { startLoad } from '../src/lib/servers.mjs';
import { startRelaySide } from '../src/suites/relay-suite.mjs';

const [workload = 'json', side = 'ready'] = process.argv.slice(2, 4);
const [rounds = 2, seconds = 8] = process.argv.slice(4, 6).map(Number);
const directory = mkdtempSync(join(tmpdir(), 'quantum-relay-threads-'));
const upstream = await startChild(fileURLToPath(new URL('../src/servers/upstream-mock.mjs', import.meta.url)), { role: 'load' });
const server = await startRelaySide(side, upstream.ready.port, directory);
const load = await startLoad();
// The bare-proxy suite's bodies: a 700-byte chat completion, or a 20-chunk stream.
const body = JSON.stringify({ ...requestObject, ...(workload === 'stream' ? { max_tokens: 20, stream: true } : { max_tokens: 62, stream: false }) });
const headers = { 'content-type': 'application/json', authorization: `Bearer ${server.key}` };
const run = (duration) => load.call('autocannon', { url: `http://127.0.0.1:${server.port}/v1/chat/completions`, body, headers, connections: 32, seconds: duration });

/** CPU seconds and voluntary context switches of each thread of the server, by thread id. */
function threads() {
  const byThread = new Map();
  for (const id of readdirSync(`/proc/${server.pid}/task`)) {
    try {
      const switches = Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/task/${id}/status`, 'utf8'))[1]);
      byThread.set(id, { cpu: procThreadCpuSeconds(server.pid, id), switches });
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return byThread;
}

try {
  await run(5);
  for (let round = 0; round < rounds; round++) {
    const before = threads();
    const result = await run(seconds);
    const after = threads();
    const rows = [];
    let total = 0;
    for (const [id, { cpu, switches }] of after) {
      const usPerRequest = ((cpu - (before.get(id)?.cpu ?? 0)) * 1e6) / result.requests;
      total += usPerRequest;
      const switchesPerRequest = (switches - (before.get(id)?.switches ?? 0)) / result.requests;
      if (usPerRequest >= 0.1) rows.push(`  ${id === String(server.pid) ? 'main' : id}: ${usPerRequest.toFixed(1)} µs, ${switchesPerRequest.toFixed(2)} voluntary switches a request`);
    }
    console.log(`${side} ${workload}, round ${round + 1}: ${Math.round(result.requests / result.seconds)} req/s, ${total.toFixed(1)} µs a request in all`);
    console.log(rows.join('\n'));
  }
} finally {
  await load.stop();
  await server.stop();
  await upstream.stop();
  rmSync(directory, { recursive: true, force: true });
}
