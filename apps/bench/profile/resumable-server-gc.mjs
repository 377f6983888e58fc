// The resumable suite's load (the bench request around the reference engine, 8 at a time) on
// the ready server, one kind of stream per server, with V8's young-generation collections
// counted: server CPU per stream, the scavenges' pause and the bytes they promoted. With
// PROMOTED=<file>, also a sampling heap profile of the objects a scavenge promoted and a full
// collection later freed (allocation sites only; what start-up left alive counts too), summed
// by site into the console.
// node apps/bench/profile/resumable-server-gc.mjs <plain|resumable> [streams=1500]   (server built)
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startChild } from '../src/lib/child.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { withServerCpu } from '../src/lib/servers.mjs';

const [kind = 'resumable', streamsArg = '1500'] = process.argv.slice(2);
const streams = Number(streamsArg);
const directory = mkdtempSync(join(tmpdir(), 'resumable-gc-'));
// The server's stdout: its log lines and V8's, one line per collection.
const traceFile = join(directory, 'stdout.txt');
const stdout = openSync(traceFile, 'w');
const profileFile = process.env.PROMOTED;
// Started in the server before anything else: samples allocations, keeps those that outlived young-generation collections.
const preload = join(directory, 'sample-promoted.mjs');
writeFileSync(
  preload,
  `import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
const session = new Session();
session.connect();
session.post('HeapProfiler.enable', () => session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false }));
process.on('SIGUSR2', () => session.post('HeapProfiler.stopSampling', (error, result) => writeFileSync(${JSON.stringify(profileFile ?? '')}, JSON.stringify(result.profile))));
`,
);
const child = await startChild(fileURLToPath(new URL('../src/servers/ready-server.mjs', import.meta.url)), {
  role: 'server',
  args: ['ready', 'reference', 'sqlite'],
  stdout,
  nodeFlags: ['--trace-gc-nvp', ...(profileFile ? ['--import', preload] : [])],
});
const url = `http://127.0.0.1:${child.ready.port}/v1/chat/completions`;
const headers = { 'content-type': 'application/json', authorization: `Bearer ${child.ready.key}` };
const body = JSON.stringify({ ...requestObject, stream: true, ...(kind === 'resumable' ? { stream_options: { resumable: true } } : {}) });
async function streamAll(count) {
  let next = 0;
  const lane = async () => {
    while (next++ < count) await (await fetch(url, { method: 'POST', headers, body })).text();
  };
  await Promise.all(Array.from({ length: 8 }, lane));
}
await streamAll(100);
const { cpuSeconds } = await withServerCpu(child, () => streamAll(streams));
if (profileFile) {
  process.kill(child.pid, 'SIGUSR2');
  await sleep(3000);
}
await child.stop();
closeSync(stdout);
// The main isolate's scavenges (the store worker's have another isolate address), the run's and the warm-up's.
const scavenges = readFileSync(traceFile, 'utf8').split('\n').filter((line) => line.includes('gc=s '));
const isolate = (line) => line.slice(line.indexOf(':') + 1, line.indexOf(']'));
const main = isolate(scavenges.at(-1) ?? '');
const field = (line, name) => Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);
const ofMain = scavenges.filter((line) => isolate(line) === main);
const sum = (name) => ofMain.reduce((total, line) => total + field(line, name), 0);
console.log(
  `${kind}: ${((cpuSeconds * 1e6) / streams).toFixed(0)} µs of server CPU a stream; ${ofMain.length} scavenges, ${sum('pause').toFixed(0)} ms, ` +
    `${(sum('promoted') / 1048576).toFixed(0)} MiB promoted (${(sum('promoted') / streams / 1024).toFixed(1)} KiB a stream, warm-up included)`,
);
rmSync(directory, { recursive: true, force: true });
if (profileFile) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const bySite = new Map();
  const walk = (node, stack) => {
    const frame = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
    const path = [...stack, frame];
    if (node.selfSize > 0) bySite.set(path.slice(-3).reverse().join(' < '), (bySite.get(path.slice(-3).reverse().join(' < ')) ?? 0) + node.selfSize);
    for (const childNode of node.children) walk(childNode, path);
  };
  walk(profile.head, []);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${(bytes / streams / 1024).toFixed(1).padStart(7)} KiB a stream  ${site}`);
}
