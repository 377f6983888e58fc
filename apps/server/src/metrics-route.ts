import { QuantumChatError } from '@quantum-chat/core';
import { methodNotAllowedError } from '@quantum-chat/core/host';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createAdminTokenVerifier } from './admin/admin-tokens.js';
import { sendError } from './send-error.js';
import type { ServerMetrics } from './server-metrics.js';

/** Refuses a scrape without the metrics token: 401 in the envelope, never echoing what was sent. */
function checkMetricsToken(request: FastifyRequest, verify: (token: string) => unknown): void {
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    throw new QuantumChatError('missing_api_key', 'GET /metrics needs the metrics token: send Authorization: Bearer <metrics token>.');
  }
  const token = /^Bearer +(\S+) *$/iu.exec(header)?.[1];
  if (token === undefined || verify(token) === undefined) throw new QuantumChatError('invalid_api_key', 'The metrics token is not valid.');
}

/**
 * `GET /metrics`: the Prometheus text format (decisions §9); with a `token`, only for
 * `Authorization: Bearer <token>` (compared in constant time).
 *
 * @example
 * registerMetricsRoute(app, createServerMetrics(), config.metricsToken);
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: ServerMetrics, token?: string): void {
  const verify = token === undefined ? undefined : createAdminTokenVerifier([{ id: 'metrics', token }]);
  app.all('/metrics', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendError(
        reply,
        methodNotAllowedError(request.method, '/metrics', ['GET']),
      );
    }
    if (verify !== undefined) {
      try {
        checkMetricsToken(request, verify);
      } catch (error) {
        return sendError(reply, error);
      }
    }
    const { contentType, body } = await metrics.scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}
