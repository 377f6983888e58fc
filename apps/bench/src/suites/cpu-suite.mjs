// Runs each CPU microbenchmark group in its own process pinned to the server core.
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';

const workerScript = fileURLToPath(new URL('./cpu-worker.mjs', import.meta.url));

export async function runCpuGroup(group, { quick, log }) {
  log(`CPU: ${group}`);
  const worker = await startChild(workerScript, { role: 'server', args: quick ? ['--quick'] : [], nodeFlags: ['--max-old-space-size=4096'] });
  try {
    return await worker.call('run', { group, rounds: quick ? 1 : 7 });
  } finally {
    await worker.stop();
  }
}
