// Loaded into a server process under test (`node --import`): how long its event loop was held
// by work. A 1 ms interval notes the main thread's CPU time at every tick (Linux:
// /proc/thread-self/schedstat, in ns; elsewhere the whole process's); the longest stretch
// between two ticks, counted in that CPU time, is work that kept the loop from answering.
// Waiting for a core on a busy machine is not counted: it is the machine, not the server.
// SIGUSR2 writes the longest stretch since the last report to stderr, then starts over.
import { readFileSync } from 'node:fs';

function readThreadCpu() {
  try {
    const [onCpu, waiting] = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    if (Number.isFinite(onCpu) && Number.isFinite(waiting)) return { cpuMs: onCpu / 1e6, waitMs: waiting / 1e6 };
  } catch {
    // Not Linux: the process's CPU time (worker threads included) is the next best.
  }
  const usage = process.cpuUsage();
  return { cpuMs: (usage.user + usage.system) / 1000, waitMs: 0 };
}

let last = performance.now();
let lastCpu = readThreadCpu();
let longest = { cpuMs: 0, elapsedMs: 0, waitMs: 0 };

function tick() {
  const now = performance.now();
  const cpu = readThreadCpu();
  const stretch = { cpuMs: cpu.cpuMs - lastCpu.cpuMs, elapsedMs: now - last, waitMs: cpu.waitMs - lastCpu.waitMs };
  if (stretch.cpuMs > longest.cpuMs) longest = stretch;
  last = now;
  lastCpu = cpu;
}

setInterval(tick, 1).unref();
process.on('SIGUSR2', () => {
  tick();
  process.stderr.write(`event-loop-probe ${JSON.stringify(longest)}\n`);
  longest = { cpuMs: 0, elapsedMs: 0, waitMs: 0 };
});
