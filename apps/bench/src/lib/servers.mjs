// Starting the HTTP server variants and reading their CPU time around a measured run.
import { fileURLToPath } from 'node:url';
import { startChild } from './child.mjs';

const serverScript = fileURLToPath(new URL('../servers/http-server.mjs', import.meta.url));
const loadScript = fileURLToPath(new URL('../load/load-worker.mjs', import.meta.url));

/** Starts one server variant pinned to the server core; `nodeFlags` e.g. `--expose-gc`. */
export async function startServer(variant, mode = 'back-to-back', nodeFlags = []) {
  const child = await startChild(serverScript, { role: 'server', args: [variant, mode], nodeFlags });
  return { ...child, variant, port: child.ready.port, url: `http://127.0.0.1:${child.ready.port}` };
}

/** Starts the load generator pinned to the load core. */
export function startLoad() {
  return startChild(loadScript, { role: 'load' });
}

/** CPU seconds the server spent (user + system) while `run` ran, with `run`'s result. */
export async function withServerCpu(server, run) {
  const before = await server.call('cpu');
  const result = await run();
  const after = await server.call('cpu');
  const cpuSeconds = (after.user - before.user + (after.system - before.system)) / 1e6;
  return { result, cpuSeconds };
}
