// What a waiting relayed stream holds in the ready server: heap snapshots (node's
// --heapsnapshot-signal) before and with N streams held at a stand-in upstream that withholds
// their first token, and the difference per stream by object kind, largest first.
// Then the new objects by what retains them (see heap-retainers.mjs).
// `node apps/bench/profile/relayed-heap-snapshot.mjs [streams=1000] [rows=30]` (server built).
import { readdirSync, readFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startChild } from '../src/lib/child.mjs';
import { newObjectsByRetainer } from './heap-retainers.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { startLoad } from '../src/lib/servers.mjs';
import { startReadyServer } from '../src/suites/relay-suite.mjs';

const streams = Number(process.argv[2] ?? 1000);
const rows = Number(process.argv[3] ?? 30);
const mockScript = fileURLToPath(new URL('../src/servers/upstream-mock.mjs', import.meta.url));
const body = JSON.stringify({ ...requestObject, max_tokens: 20, stream: true });

async function waitFor(check, what) {
  for (let attempt = 0; attempt < 1200; attempt++) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`timed out: ${what}`);
}

/** Sends the signal, waits for the new snapshot file to be written whole; returns its path. */
async function snapshot(pid, directory) {
  const known = new Set(readdirSync(directory).filter((name) => name.endsWith('.heapsnapshot')));
  process.kill(pid, 'SIGUSR2');
  let file;
  await waitFor(() => (file = readdirSync(directory).find((name) => name.endsWith('.heapsnapshot') && !known.has(name))) !== undefined, 'snapshot file');
  let size = -1;
  await waitFor(async () => {
    const now = statSync(join(directory, file)).size;
    const stable = now > 0 && now === size;
    size = now;
    await sleep(500);
    return stable;
  }, 'snapshot written');
  return join(directory, file);
}

/** Self size and count per `type name` (objects by constructor, closures by function, strings as one). */
function summarise(path) {
  const { snapshot: meta, nodes, strings } = JSON.parse(readFileSync(path, 'utf8'));
  const fields = meta.meta.node_fields;
  const types = meta.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  const kinds = new Map();
  for (let index = 0; index < nodes.length; index += width) {
    const type = types[nodes[index + typeAt]];
    const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '' : strings[nodes[index + nameAt]];
    const key = `${type} ${name}`.slice(0, 80);
    const kind = kinds.get(key) ?? { size: 0, count: 0 };
    kind.size += nodes[index + sizeAt];
    kind.count++;
    kinds.set(key, kind);
  }
  return kinds;
}

const directory = mkdtempSync(join(tmpdir(), 'quantum-relayed-heap-'));
const load = await startLoad();
const upstream = await startChild(mockScript, { role: 'load', args: ['--hold'] });
const ready = await startReadyServer(upstream.ready.port, directory, { nodeFlags: ['--heapsnapshot-signal=SIGUSR2'], model: { firstTokenTimeoutMs: 600_000 } });
const headers = { host: `127.0.0.1:${ready.port}`, 'content-type': 'application/json', authorization: `Bearer ${ready.key}`, 'content-length': Buffer.byteLength(body) };
const request = `POST /v1/chat/completions HTTP/1.1\r\n${Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`;

async function hold(count) {
  for (let opened = 0; opened < count; ) {
    const batch = Math.min(400, count - opened);
    const result = await load.call('idleOpen', { port: ready.port, request, count: batch, parallel: 64 });
    if (result.failures > 0) throw new Error(`${result.failures} connections failed`);
    opened += batch;
    await waitFor(async () => (await upstream.call('held')) >= opened, `${opened} held`);
  }
}

try {
  // Warm-up: a stream's code, its end, the pools.
  await hold(100);
  await upstream.call('release');
  await waitFor(async () => (await load.call('idleFinished')).finished >= 100, 'warm-up streams ended');
  await load.call('idleClose');
  await sleep(1000);
  const beforePath = await snapshot(ready.pid, directory);
  const before = summarise(beforePath);
  await hold(streams);
  const heldPath = await snapshot(ready.pid, directory);
  const held = summarise(heldPath);
  const diff = [...held].map(([key, kind]) => {
    const was = before.get(key) ?? { size: 0, count: 0 };
    return { key, bytes: (kind.size - was.size) / streams, count: (kind.count - was.count) / streams };
  });
  diff.sort((a, b) => b.bytes - a.bytes);
  const total = diff.reduce((sum, row) => sum + row.bytes, 0);
  console.log(`Heap per held relayed stream (${streams} held): ${(total / 1024).toFixed(1)} KiB in all (self sizes)`);
  for (const row of diff.slice(0, rows)) console.log(`${row.bytes.toFixed(0).padStart(7)} B ${row.count.toFixed(2).padStart(7)} × ${row.key}`);
  console.log('\nNew objects per held stream by retainer (kind  ←  retainer .edge):');
  const retained = [...newObjectsByRetainer(beforePath, heldPath)].sort((a, b) => b[1].size - a[1].size);
  for (const [key, kind] of retained.slice(0, rows)) console.log(`${(kind.size / streams).toFixed(0).padStart(7)} B ${(kind.count / streams).toFixed(2).padStart(7)} × ${key}`);
} finally {
  await upstream.call('release').catch(() => undefined);
  await load.call('idleClose').catch(() => undefined);
  await ready.stop();
  await upstream.stop();
  await load.stop();
  rmSync(directory, { recursive: true, force: true });
}
