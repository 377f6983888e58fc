// Run options shared by every suite: `--quick` (or BENCH_QUICK=1) shrinks everything to a smoke run.
import { availableParallelism } from 'node:os';
import { execFileSync } from 'node:child_process';

const argv = process.argv.slice(2);

/** Whether this is the smoke run of a few seconds. */
export const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** `--only json,decoding`: run only these suites. */
export const only = (() => {
  const index = argv.indexOf('--only');
  const value = index !== -1 ? argv[index + 1] : process.env.BENCH_ONLY;
  return value ? new Set(value.split(',').map((name) => name.trim())) : undefined;
})();

/** The paired protocol's sizes: ≥ 7 pairs of ≥ 4 s after a warm-up. */
export const protocol = quick
  ? { pairs: 1, seconds: 0.5, warmupSeconds: 0.3 }
  : {
      pairs: Number(process.env.BENCH_PAIRS ?? 7),
      seconds: Number(process.env.BENCH_SECONDS ?? 4),
      // 5 s: at 3 s the adapters' ratios still rose pair after pair (their larger code was still warming up).
      warmupSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 5),
    };

function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU pinning: the server on core 0, the load generator on core 1. Without `taskset` or with
 * a single core, nothing is pinned and the report says so.
 */
export const pinning = hasTaskset() && availableParallelism() >= 2 ? { server: '0', load: '1' } : undefined;

/** The command prefix that pins a child to `cpu` ('server' or 'load'). */
export function pinned(role, command, args) {
  if (pinning === undefined) return { command, args };
  return { command: 'taskset', args: ['-c', pinning[role], command, ...args] };
}
