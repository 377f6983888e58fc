import type { IncomingMessage } from 'node:http';
import { generateRandomId } from '@quantum-chat/core';

/** The ids a client may choose (the core accepts the same shape). */
const requestIdPattern = /^[\w.:-]{1,128}$/;

/**
 * Fastify's `genReqId`: the client's `x-request-id` when well formed, else `req_<24 base62>`.
 * The same id then labels the logs, the core's response header and its settled record.
 *
 * @example
 * Fastify({ genReqId: requestIdOf });
 */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && requestIdPattern.test(incoming) ? incoming : generateRandomId('request');
}
