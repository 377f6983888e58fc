// What the report says about the machine and the code it measured.
import { execFileSync, execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';

function tryRun(run) {
  try {
    return run().toString().trim();
  } catch {
    return 'unknown';
  }
}

export function describeMachine() {
  const cpuModel = /model name\s*:\s*(.+)/.exec(tryRun(() => readFileSync('/proc/cpuinfo', 'utf8')))?.[1] ?? 'unknown';
  const commit = tryRun(() => execFileSync('git', ['rev-parse', '--short=12', 'HEAD']));
  // The report itself (left modified by the previous run) is not a change to what is measured.
  const changed = tryRun(() => execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)docs/benchmarks.md']));
  const dirty = changed !== '';
  return {
    date: new Date().toISOString(),
    nproc: tryRun(() => execFileSync('nproc')),
    availableParallelism: availableParallelism(),
    cpuModel,
    memoryGiB: (totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${process.platform} ${tryRun(() => execFileSync('uname', ['-r']))}`,
    fileDescriptorLimit: tryRun(() => execSync('ulimit -n', { shell: '/bin/sh' })),
    commit,
    dirty,
  };
}

/** The 1, 5 and 15 minute load averages, rounded. */
export function loadAverage() {
  return loadavg().map((value) => Number(value.toFixed(2)));
}
