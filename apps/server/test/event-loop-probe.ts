import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ServerProcess } from './server-process.js';

const probePath = fileURLToPath(new URL('./event-loop-probe.mjs', import.meta.url));

/** The environment that loads the event-loop probe into a server process (see event-loop-probe.mjs). */
export function eventLoopProbeEnv(): Record<string, string> {
  return { NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${pathToFileURL(probePath).href}`].filter(Boolean).join(' ') };
}

/** The longest stretch a server's event loop went without a turn since the last reading. */
export interface LoopStretch {
  /** CPU time the server's main thread spent in it: work that held the loop. */
  cpuMs: number;
  /** Its elapsed time, waiting for a core included. */
  elapsedMs: number;
  /** Time the main thread waited for a core in it (Linux). */
  waitMs: number;
}

/**
 * Reads (and restarts) the probe of a server started with `eventLoopProbeEnv()`.
 *
 * @example
 * await readEventLoopProbe(server); // start of the measured stretch
 * const { cpuMs } = await readEventLoopProbe(server);
 */
export async function readEventLoopProbe(server: ServerProcess): Promise<LoopStretch> {
  const reports = () => server.stderr().match(/^event-loop-probe .*$/gm) ?? [];
  const seen = reports().length;
  server.child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (reports().length === seen) {
    if (Date.now() > deadline) throw new Error('The server did not report its event-loop probe: was it started with eventLoopProbeEnv()?');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(reports()[seen]!.slice('event-loop-probe '.length)) as LoopStretch;
}
