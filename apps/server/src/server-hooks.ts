import { QuantumChatError } from '@quantum-chat/core';
import { hostStatusError, unknownUrlError } from '@quantum-chat/core/host';
import type { FastifyInstance } from 'fastify';
import { sendError } from './send-error.js';
import type { ShutdownState } from './shutdown-state.js';

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
    return sendError(reply, unknownUrlError(request.method, request.url.split('?', 1)[0] ?? '/'));
  });

  app.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    // Fastify's own 4xx (a body it refused before any route ran), worded as the core words it.
    return sendError(reply, status < 500 ? hostStatusError(status, request) : error);
  });
}
