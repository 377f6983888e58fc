// Preloaded into the ready server by the scale suites (`node --expose-gc --import memory-probe.mjs cli.js serve`):
// on SIGUSR2 it collects garbage and writes the process's memory to BENCH_MEMORY_PROBE_FILE, so a
// process without IPC (the CLI) can say what it holds after a GC. Never part of the server.
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_MEMORY_PROBE_FILE;
if (file !== undefined && typeof globalThis.gc === 'function') {
  let probes = 0;
  process.on('SIGUSR2', () => {
    globalThis.gc();
    globalThis.gc();
    writeFileSync(file, JSON.stringify({ probe: ++probes, ...process.memoryUsage() }));
  });
}
