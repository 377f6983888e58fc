// Adapter authors: this file only converts between Fastify and the core. Routing, body
// rules, validation, errors and SSE framing live in @quantum-chat/core (createChatHandler).
import { createChatHandler } from '@quantum-chat/core';
import {
  applyRequestTimeout,
  createNodeChatRequest,
  FramesReadable,
  readChatRequest,
  requestTimedOut,
  toErrorHttpResponse,
  type ChatHttpRequestBody,
  type ChatHttpResponse,
  type HostOptions,
} from '@quantum-chat/core/node';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';

/** @deprecated Use `HostOptions` from `@quantum-chat/core/node`: every host takes the same options. */
export type FastifyQuantumChatOptions = HostOptions;

/**
 * A Fastify plugin serving the Quantum chat API below its prefix. Takes the `HostOptions` every
 * host takes: the handler's options, or `{ handler }`, plus `onBridgeError`. Not wrapped in
 * `fastify-plugin` on purpose: its body parser and error handler stay inside its scope.
 *
 * @example
 * await app.register(fastifyQuantumChat, { prefix: '/v1', engine: createReferenceEngine(), accessControl: staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]) });
 */
export const fastifyQuantumChat: FastifyPluginAsync<HostOptions> = async (fastify, options) => {
  const handler = 'handler' in options ? options.handler : createChatHandler(options);
  const { onBridgeError } = options;
  const { maxBodyBytes } = handler;
  const prefix = fastify.prefix;
  // Fastify times nothing by default (`requestTimeout: 0`): a body that trickles would hold its
  // connection for good. Unless the host set a timeout of its own, the handler's applies.
  if (fastify.server.requestTimeout === 0) applyRequestTimeout(fastify.server, handler);

  fastify.removeAllContentTypeParsers();
  // Raw bytes for every content type: the core decides 400/415 and checks signatures on them.
  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBodyBytes }, (_request, body, done) => done(null, body));

  function send(reply: FastifyReply, response: ChatHttpResponse): FastifyReply {
    reply.code(response.status).headers(response.headers);
    // Through reply.send, so other plugins' hooks and headers (CORS, ...) still apply.
    if (!('events' in response)) return reply.send(response.body);
    // A client that left (or a stream the core gave up on) destroys it without an error.
    const frames = new FramesReadable(response.events);
    if (onBridgeError) frames.on('error', onBridgeError);
    return reply.send(frames);
  }

  function fail(reply: FastifyReply, error: unknown): FastifyReply {
    onBridgeError?.(error);
    return send(reply, toErrorHttpResponse(error));
  }

  /**
   * Hands a request to the core (a body Fastify refused itself arrives as `rejected`) and sends
   * its answer through the reply. Returns nothing: Fastify then adds no reaction of its own to
   * the handler's promise, one less for each waiting stream. A throw while sending goes where
   * Fastify would send it.
   */
  function answer(request: FastifyRequest, reply: FastifyReply, body: ChatHttpRequestBody): void {
    const chatRequest = createNodeChatRequest(reply.raw, {
      method: request.method,
      path: request.url.slice(prefix.length).split('?', 1)[0] || '/',
      query: request.url.split('?')[1],
      basePath: prefix,
      headers: request.headers,
      body,
    });
    handler.handle(chatRequest).then(
      (response) => sendGuarded(reply, send, response),
      (error: unknown) => sendGuarded(reply, fail, error),
    );
  }

  /** Runs one of the two senders; a throw goes to Fastify as a rejected route's would. */
  function sendGuarded<T>(reply: FastifyReply, sender: (reply: FastifyReply, value: T) => FastifyReply, value: T): void {
    try {
      sender(reply, value);
    } catch (thrown) {
      reply.send(thrown);
    }
  }

  fastify.setErrorHandler((error, request, reply) => {
    const status = (error as { statusCode?: number }).statusCode ?? 500;
    // Every branch sends through the reply itself and returns nothing, as the route does.
    if (status >= 500) sendGuarded(reply, fail, error);
    // Fastify refuses a malformed content-type before reading the body: read it as Express
    // would, so the core checks size before type in both.
    else if (status === 415) readChatRequest(request.raw, reply.raw, { maxBodyBytes }).then(({ body }) => answer(request, reply, body), (thrown: unknown) => sendGuarded(reply, fail, thrown));
    else answer(request, reply, { kind: 'rejected', reason: requestTimedOut(request.raw) ? 'timed-out' : status === 413 ? 'too-large' : 'unreadable' });
  });

  fastify.all('/*', (request, reply) => {
    const body = request.body;
    answer(request, reply, Buffer.isBuffer(body) && body.byteLength > 0 ? { kind: 'bytes', bytes: body } : { kind: 'empty' });
  });
};
