import { methodNotAllowedError } from '@quantum-chat/core/host';
import type { FastifyInstance } from 'fastify';
import { sendError } from './send-error.js';

/**
 * `GET /healthz`: `{"status":"ok"}`. While the server drains, the drain hook answers first
 * with 503 `shutting_down`, so a load balancer stops sending traffic.
 *
 * @example
 * registerHealthRoute(app);
 */
export function registerHealthRoute(app: FastifyInstance): void {
  app.all('/healthz', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendError(
        reply,
        methodNotAllowedError(request.method, '/healthz', ['GET']),
      );
    }
    return reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });
}
