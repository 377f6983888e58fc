import type { IncomingMessage } from 'node:http';
import { resolveRequestId } from '@quantum-chat/core/host';

/**
 * Fastify's `genReqId`: the client's `x-request-id` when well formed, else a new one, by the
 * core's own rule (`resolveRequestId`). The same id then labels the logs, the core's response
 * header and its settled record.
 *
 * @example
 * Fastify({ genReqId: requestIdOf });
 */
export function requestIdOf(request: IncomingMessage): string {
  return resolveRequestId(request.headers);
}
