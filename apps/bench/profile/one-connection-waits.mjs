// What a slow request waits on, one JSON request at a time (the concurrency suite's tail case):
// the ready server (or the bare proxy) relaying to the stand-in, a client of this process on the
// load core timing each request, and the kernel's scheduler events of both cores recorded
// (`perf record -e sched:sched_switch -e sched:sched_waking`, root only) over the measured window.
// For the requests at or above the p99 and for the rest, it prints per request what the server's
// main thread did (ran, waited for its core, slept) and whose wake-up ended its sleeps (the
// client, the stand-in, another thread of the server, an interrupt), and what else ran on the
// server's core meanwhile.
// node apps/bench/profile/one-connection-waits.mjs [ready|bare] [warmupSeconds=15] [seconds=4]
// BENCH_WAITS_SETTINGS='{"store":{"usageWrites":"buffered"}}': more of the ready server's config.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild } from '../src/lib/child.mjs';
import { requestObject } from '../src/lib/fixtures.mjs';
import { pinning } from '../src/lib/options.mjs';
import { startRelaySide } from '../src/suites/relay-suite.mjs';

const side = process.argv[2] ?? 'ready';
const [warmupSeconds = 15, seconds = 4] = process.argv.slice(3, 5).map(Number);
const directory = mkdtempSync(join(tmpdir(), 'quantum-one-connection-waits-'));
const upstream = await startChild(fileURLToPath(new URL('../src/servers/upstream-mock.mjs', import.meta.url)), { role: 'load' });
const server = await startRelaySide(side, upstream.ready.port, directory, { settings: { overload: false, ...JSON.parse(process.env.BENCH_WAITS_SETTINGS ?? '{}') } });
// This process is the client: on the load core, beside the stand-in, as the load worker is.
if (pinning !== undefined) execFileSync('taskset', ['-a', '-p', '-c', pinning.load, String(process.pid)], { stdio: 'ignore' });

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const body = JSON.stringify({ ...requestObject, max_tokens: 62, stream: false });
const options = { host: '127.0.0.1', port: server.port, path: '/v1/chat/completions', method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` } };
const send = () =>
  new Promise((resolve, reject) => {
    const request = http.request(options, (response) => response.on('data', () => {}).on('end', resolve));
    request.on('error', reject);
    request.end(body);
  });

/** Requests back to back for `milliseconds`: each one's start (seconds, CLOCK_MONOTONIC, perf's clock) and duration (seconds). */
async function requestsFor(milliseconds) {
  const requests = [];
  const end = performance.now() + milliseconds;
  while (performance.now() < end) {
    const start = process.hrtime.bigint();
    await send();
    requests.push({ start: Number(start) / 1e9, duration: Number(process.hrtime.bigint() - start) / 1e9 });
  }
  return requests;
}

/** perf's scheduler events, parsed: time, event, the task it ran in, and its fields. */
function schedulerEvents(file) {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'tid,cpu,time,event,trace'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] });
  const events = [];
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+sched:(sched_switch|sched_waking):\s+(.*)$/.exec(line);
    if (match === null) continue;
    const [, tid, cpu, time, kind, fields] = match;
    if (kind === 'sched_waking') events.push({ time: Number(time), kind, tid, cpu: Number(cpu), wakee: /\bpid=(\d+)/.exec(fields)[1] });
    else {
      const sw = /prev_pid=(\d+) .*prev_state=(\S+) ==> .*next_pid=(\d+)/.exec(fields);
      events.push({ time: Number(time), kind, tid, cpu: Number(cpu), prev: sw[1], prevState: sw[2], next: sw[3] });
    }
  }
  return events;
}

/** The main thread's states as intervals: running, runnable but not running (waiting for its core), asleep (with who woke it, as `name` calls a thread). */
function mainThreadIntervals(events, main, name) {
  const intervals = [];
  let state = 'unknown';
  let since = events[0]?.time ?? 0;
  const close = (time, what) => {
    intervals.push({ from: since, to: time, what });
    since = time;
  };
  for (const event of events) {
    if (event.kind === 'sched_switch' && event.prev === main) {
      close(event.time, 'ran');
      state = event.prevState.startsWith('R') ? 'preempted' : 'asleep';
    } else if (event.kind === 'sched_switch' && event.next === main) {
      close(event.time, state === 'preempted' ? 'waited for its core (preempted)' : 'waited for its core (woken)');
      state = 'running';
    } else if (event.kind === 'sched_waking' && event.wakee === main && state === 'asleep') {
      close(event.time, `slept, woken by ${name(event.tid)}`);
      state = 'woken';
    }
  }
  return intervals;
}

/** What ran on `cpu`, as intervals by thread, as `name` calls it. */
function cpuIntervals(events, cpu, name) {
  const intervals = [];
  let running;
  let since;
  for (const event of events) {
    if (event.kind !== 'sched_switch' || event.cpu !== cpu) continue;
    if (running !== undefined) intervals.push({ from: since, to: event.time, what: running });
    running = name(event.next);
    since = event.time;
  }
  return intervals;
}

/** Milliseconds of each `what` within [from, to], summed over `intervals` (sorted by `from`). */
function overlap(intervals, from, to, into) {
  let low = 0;
  let high = intervals.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (intervals[middle].to <= from) low = middle + 1;
    else high = middle;
  }
  for (let index = low; index < intervals.length && intervals[index].from < to; index++) {
    const { what } = intervals[index];
    const shared = Math.min(intervals[index].to, to) - Math.max(intervals[index].from, from);
    if (shared > 0) into.set(what, (into.get(what) ?? 0) + shared * 1000);
  }
}

try {
  const serverThreads = new Set(readdirSync(`/proc/${server.pid}/task`));
  await requestsFor(warmupSeconds * 1000);
  const perfFile = join(directory, 'sched.data');
  const perf = spawn('perf', ['record', '-q', '-k', 'CLOCK_MONOTONIC', '-e', 'sched:sched_switch', '-e', 'sched:sched_waking', '-a', '-o', perfFile, '--', 'sleep', String(seconds + 1)], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const requests = await requestsFor(seconds * 1000);
  await new Promise((resolve) => perf.on('exit', resolve));
  for (const tid of readdirSync(`/proc/${server.pid}/task`)) serverThreads.add(tid);
  const clientThreads = new Set(readdirSync(`/proc/${process.pid}/task`));
  const upstreamThreads = new Set(readdirSync(`/proc/${upstream.pid}/task`));
  const main = String(server.pid);
  const events = schedulerEvents(perfFile);
  if (events.length === 0) throw new Error('perf recorded no scheduler events (it needs root, or a perf_event_paranoid of -1)');
  const recorded = requests.filter((request) => request.start > events[0].time && request.start + request.duration < events.at(-1).time);
  const sorted = recorded.map((request) => request.duration).sort((a, b) => a - b);
  const p99 = sorted[Math.floor(sorted.length * 0.99)];
  const p50 = sorted[Math.floor(sorted.length * 0.5)];
  const name = (tid) => {
    if (tid === '0') return 'an interrupt (idle task)';
    if (tid === main) return 'the server main thread';
    if (serverThreads.has(tid)) return `server thread ${tid}`;
    if (clientThreads.has(tid)) return 'the client';
    if (upstreamThreads.has(tid)) return 'the stand-in';
    return `other task ${tid}`;
  };
  const mainIntervals = mainThreadIntervals(events, main, name);
  const coreIntervals = cpuIntervals(events, Number(pinning?.server ?? 0), name);
  const groups = { 'at or above p99': recorded.filter((request) => request.duration >= p99), 'below p99': recorded.filter((request) => request.duration < p99) };
  console.log(`${side}: ${recorded.length} requests recorded, p50 ${(p50 * 1000).toFixed(3)} ms, p99 ${(p99 * 1000).toFixed(3)} ms`);
  for (const [group, members] of Object.entries(groups)) {
    const states = new Map();
    const core = new Map();
    for (const request of members) {
      overlap(mainIntervals, request.start, request.start + request.duration, states);
      overlap(coreIntervals, request.start, request.start + request.duration, core);
    }
    const perRequest = (map) =>
      [...map]
        .sort((a, b) => b[1] - a[1])
        .filter(([, ms]) => ms / members.length >= 0.005)
        .map(([what, ms]) => `${what} ${(ms / members.length).toFixed(3)}`)
        .join('; ');
    console.log(`\n${group} (${members.length} requests), ms per request:`);
    console.log(`  the main thread: ${perRequest(states)}`);
    console.log(`  the server's core ran: ${perRequest(core)}`);
  }
} finally {
  agent.destroy();
  await server.stop();
  await upstream.stop();
  rmSync(directory, { recursive: true, force: true });
}
