// Reading a process's memory from outside: RSS from /proc, and (for a process started with
// servers/memory-probe.mjs preloaded) its heap after a GC.
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { procRssBytes } from './child.mjs';

/** Node flags that preload the memory probe; its output goes to `file` (BENCH_MEMORY_PROBE_FILE). */
export const memoryProbeFlags = ['--expose-gc', '--import', fileURLToPath(new URL('../servers/memory-probe.mjs', import.meta.url))];

/** Asks the probe in `pid` for a GC and its memory; resolves with `{ rss, heapUsed, external, … }` (bytes). */
export async function probeMemory(pid, file) {
  let previous = 0;
  try {
    previous = JSON.parse(readFileSync(file, 'utf8')).probe;
  } catch {
    // no probe yet
  }
  process.kill(pid, 'SIGUSR2');
  for (let attempt = 0; attempt < 1200; attempt++) {
    await sleep(50);
    let report;
    try {
      report = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // caught half written
    }
    if (report.probe > previous) return { ...report, rss: procRssBytes(pid) };
  }
  throw new Error(`process ${pid} did not answer the memory probe`);
}

/**
 * Raises the open-file limit of a running process (soft and hard) to `files`, with `prlimit`:
 * 10,000 relayed streams hold two sockets each in the server. Needs root (or CAP_SYS_RESOURCE)
 * past the hard limit; answers the soft limit the process ends up with.
 */
export function raiseOpenFiles(pid, files) {
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${files}:${files}`], { stdio: 'ignore' });
  } catch {
    // Not allowed: the process keeps its own limit, read below.
  }
  const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
  return Number(/Max open files\s+(\d+)/.exec(limits)?.[1] ?? 0);
}
