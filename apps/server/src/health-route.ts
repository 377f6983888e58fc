import { QuantumChatError } from '@quantum-chat/core';
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
        new QuantumChatError('method_not_allowed', `Method ${request.method} is not allowed on /healthz; use GET.`, { headers: { allow: 'GET, HEAD' } }),
      );
    }
    return reply.header('cache-control', 'no-store').send({ status: 'ok' });
  });
}
