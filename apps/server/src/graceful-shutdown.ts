import type { FastifyInstance } from 'fastify';
import type { ShutdownState } from './shutdown-state.js';

/** How often idle keep-alive sockets are closed while draining (they would hold `close()` open). */
const idleSweepMs = 50;
/** After the grace period, how long ended streams get to flush before sockets are cut. */
const flushAfterGraceMs = 2_000;

/**
 * Stops accepting connections, lets open requests finish within `graceMs`, then ends the rest
 * with `shutting_down` and closes the server. Resolves once every socket is closed.
 *
 * @example
 * await shutdownGracefully(app, shutdownState, 10_000);
 */
export async function shutdownGracefully(app: FastifyInstance, state: ShutdownState, graceMs: number): Promise<void> {
  state.startDraining();
  app.log.info({ graceMs }, 'shutting down: no new connections; open requests have the grace period to finish');
  // Fastify's keep-alive timeout is 72 s: a socket left idle by a finished stream would hold
  // `close()` that long, so idle sockets are closed as soon as they appear.
  const sweep = setInterval(() => app.server.closeIdleConnections(), idleSweepMs);
  const grace = setTimeout(() => {
    app.log.warn('grace period over: ending open requests with shutting_down');
    state.endOpenRequests();
  }, graceMs);
  // A client that stopped reading would keep its socket forever; cut it after a last chance.
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs + flushAfterGraceMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(grace);
    clearTimeout(cut);
  }
  app.log.info('shutdown complete');
}
