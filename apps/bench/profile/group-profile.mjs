// Busy CPU time of a .cpuprofile by package (core, engine-upstream, undici, pino…), per request.
// node apps/bench/profile/group-profile.mjs <profile> <requests> <fromEpochMs> <endedEpochMs>
// Only samples taken from `fromEpochMs` count; `endedEpochMs` is when the profiled process ended.
import { readFileSync } from 'node:fs';
const [file, requests, fromMs, endMs] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const by = new Map(p.nodes.map((n) => [n.id, n]));
const wallAtStart = Number(endMs) - (p.endTime - p.startTime) / 1000;
let clock = p.startTime; const groups = new Map(); let total = 0;
const group = (url, name) => {
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return 'GC';
  if (name === 'postMessage') return 'postMessage (store worker)';
  if (name === '(program)') return 'program';
  if (/quantum-chat\/core|packages\/core\//.test(url) || url.includes('core/dist')) return 'core';
  if (url.includes('engine-upstream')) return 'engine-upstream';
  if (url.includes('access-control')) return 'access-control';
  if (url.includes('server/dist') || url.includes('apps/server')) return 'server app';
  for (const lib of ['fastify', 'find-my-way', 'undici', 'pino', 'sonic-boom', 'prom-client', 'opentelemetry', 'avvio', 'light-my-request']) if (url.includes(lib)) return lib;
  if (url.startsWith('node:') || url === '') return name === 'writev' || name === 'writeString' || name === 'writeBuffer' ? 'socket writes' : 'node internals';
  return 'other: ' + url.split('/').slice(-3).join('/');
};
p.samples.forEach((id, i) => {
  clock += p.timeDeltas[i] ?? 0;
  if (wallAtStart + (clock - p.startTime) / 1000 < Number(fromMs)) return;
  const n = by.get(id); const g = group(n.callFrame.url, n.callFrame.functionName);
  groups.set(g, (groups.get(g) ?? 0) + (p.timeDeltas[i] ?? 0)); total += p.timeDeltas[i] ?? 0;
});
const busy = total - (groups.get('idle') ?? 0);
console.log(`busy ${(busy / requests).toFixed(0)} µs per request`);
for (const [g, t] of [...groups].filter(([g]) => g !== 'idle').sort((a, b) => b[1] - a[1]).slice(0, 16)) console.log(`${(t / requests).toFixed(0).padStart(6)} µs  ${(100 * t / busy).toFixed(1).padStart(5)}%  ${g}`);
