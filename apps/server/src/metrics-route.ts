import { methodNotAllowedError } from '@quantum-chat/core/host';
import type { FastifyInstance } from 'fastify';
import { sendError } from './send-error.js';
import type { ServerMetrics } from './server-metrics.js';

/**
 * `GET /metrics`: the Prometheus text format (decisions §9).
 *
 * @example
 * registerMetricsRoute(app, createServerMetrics());
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: ServerMetrics): void {
  app.all('/metrics', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendError(
        reply,
        methodNotAllowedError(request.method, '/metrics', ['GET']),
      );
    }
    const { contentType, body } = await metrics.scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}
