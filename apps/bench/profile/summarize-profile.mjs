// Self and inclusive time per function of a .cpuprofile.
// node apps/bench/profile/summarize-profile.mjs /tmp/prof/<file>.cpuprofile [top] [requests]
// With `requests`, each line also shows µs per request (to compare two profiles' absolute costs).
import { readFileSync } from 'node:fs';
const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const top = Number(process.argv[3] ?? 40);
const requests = process.argv[4] ? Number(process.argv[4]) : undefined;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const dt = profile.timeDeltas; let total = 0;
const counts = new Map();
// Profile times are µs of a monotonic clock; the process's start maps it to the wall clock closely enough.
const fromMs = process.argv[5] ? Number(process.argv[5]) : undefined;
const wallAtStart = fromMs === undefined ? 0 : Number(process.argv[6]) - (profile.endTime - profile.startTime) / 1000;
let clock = profile.startTime;
profile.samples.forEach((id, i) => {
  clock += dt[i] ?? 0;
  if (fromMs !== undefined && wallAtStart + (clock - profile.startTime) / 1000 < fromMs) return;
  counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)); total += dt[i] ?? 0;
});
// self time by function
const selfBy = new Map();
for (const [id, t] of counts) { const n = byId.get(id); const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-3).join('/')}:${cf.lineNumber + 1}`; selfBy.set(key, (selfBy.get(key) ?? 0) + t); }
// inclusive time
const parent = new Map(); for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, t] of counts) { const seen = new Set(); let cur = id; while (cur !== undefined) { const cf = byId.get(cur).callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.split('/').slice(-3).join('/')}:${cf.lineNumber + 1}`; if (!seen.has(key)) { incl.set(key, (incl.get(key) ?? 0) + t); seen.add(key);} cur = parent.get(cur); } }
const fmt = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, t]) => `${(100 * t / total).toFixed(1).padStart(5)}%${requests ? `${(t / requests).toFixed(1).padStart(8)} µs` : ''}  ${k}`).join('\n');
console.log('SELF\n' + fmt(selfBy)); console.log('\nINCLUSIVE\n' + fmt(incl));
