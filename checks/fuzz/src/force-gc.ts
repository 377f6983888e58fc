import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap and RSS after a full collection, so growth figures are not garbage that is merely uncollected. */
export function measureMemory(): { heapUsed: number; rss: number; external: number } {
  gc();
  gc();
  const usage = process.memoryUsage();
  return { heapUsed: usage.heapUsed, rss: usage.rss, external: usage.external + usage.arrayBuffers };
}
