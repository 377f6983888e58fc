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
import { gcFigure, mainIsolateLines, scavengeLines } from '../src/lib/gc-trace.mjs';
import { bytesBySite } from '../src/lib/sampled-sites.mjs';
import { withServerCpu } from '../src/lib/servers.mjs';
import { streamAll } from '../src/suites/resumable-suite.mjs';

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
const server = { url: `http://127.0.0.1:${child.ready.port}`, key: child.ready.key };
const resumable = kind === 'resumable';
await streamAll(server, resumable, 100, 8);
const { cpuSeconds } = await withServerCpu(child, () => streamAll(server, resumable, streams, 8));
if (profileFile) {
  process.kill(child.pid, 'SIGUSR2');
  await sleep(3000);
}
await child.stop();
closeSync(stdout);
// The main thread's scavenges (the store worker's are another isolate's), the warm-up's included.
const scavenges = scavengeLines(mainIsolateLines(readFileSync(traceFile, 'utf8').split('\n')));
const sum = (name) => scavenges.reduce((total, line) => total + gcFigure(line, name), 0);
console.log(
  `${kind}: ${((cpuSeconds * 1e6) / streams).toFixed(0)} µs of server CPU a stream; ${scavenges.length} scavenges, ${sum('pause').toFixed(0)} ms, ` +
    `${(sum('promoted') / 1048576).toFixed(0)} MiB promoted (${(sum('promoted') / streams / 1024).toFixed(1)} KiB a stream, warm-up included)`,
);
rmSync(directory, { recursive: true, force: true });
if (profileFile) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  for (const [site, bytes] of bytesBySite(profile).slice(0, 12)) console.log(`${(bytes / streams / 1024).toFixed(1).padStart(7)} KiB a stream  ${site}`);
}
