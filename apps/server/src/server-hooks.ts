import { bodyRejectionError, QuantumChatError } from '@quantum-chat/core';
import type { FastifyInstance } from 'fastify';
import { sendError } from './send-error.js';
import type { ShutdownState } from './shutdown-state.js';

/** Fastify's own 4xx errors (bodies it refused before a handler ran), in our envelope. */
function clientFailure(status: number): QuantumChatError {
  if (status === 413) return bodyRejectionError('too-large');
  if (status === 415) return new QuantumChatError('unsupported_media_type', 'Unsupported content type; send application/json.');
  return bodyRejectionError('unreadable');
}

/**
 * Hooks for every route, the chat plugins included: the request id travels to the core and
 * back in `x-request-id`; while draining, every new request gets 503 `shutting_down`; unknown
 * paths and errors outside the chat plugins get the core's envelope, never Fastify's shape.
 * Call before registering the plugins, so their scopes inherit the hooks.
 *
 * @example
 * registerServerHooks(app, shutdownState);
 */
export function registerServerHooks(app: FastifyInstance, shutdown: ShutdownState): void {
  app.addHook('onRequest', async (request, reply) => {
    // The core reads the id from this header, so logs and responses agree on it.
    request.headers['x-request-id'] = request.id;
    reply.header('x-request-id', request.id);
    if (shutdown.draining) {
      reply.header('connection', 'close');
      return sendError(reply, new QuantumChatError('shutting_down', 'The server is shutting down; retry the request.'));
    }
    return undefined;
  });

  // A plain `app.close()` drains too, so nothing new starts while it waits for open requests.
  app.addHook('preClose', async () => {
    shutdown.startDraining();
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? '/';
    return sendError(reply, new QuantumChatError('unknown_url', `Unknown request URL: ${request.method} ${path.slice(0, 200)}.`));
  });

  app.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, status < 500 ? clientFailure(status) : error);
  });
}
