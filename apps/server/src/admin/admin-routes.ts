import { QuantumChatError } from '@quantum-chat/core';
import { bodyRejectionError, hostStatusError, methodNotAllowedError } from '@quantum-chat/core/host';
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { adminError, sendAdminError } from './admin-errors.js';
import type { AdminActor, AdminService } from './admin-service.js';
import { adminFailureWindowSeconds, type AdminTokenThrottle } from './admin-token-throttle.js';
import type { AdminIdentity } from './admin-tokens.js';

/** Admin bodies are small objects: 64 KiB is plenty, and bounds what a token holder can send. */
const adminBodyLimitBytes = 64 * 1024;

type Params = Record<string, string>;
type Operation = (service: AdminService, request: { params: Params; query: unknown; body: unknown }, by: AdminActor) => Promise<{ status: number; body: unknown }>;

const ok = (body: unknown) => ({ status: 200, body });
const created = (body: unknown) => ({ status: 201, body });
const list = (data: unknown[]) => ({ object: 'list', data });

/** Every admin path (below `/admin/v1`) and what each method does there. */
const adminRoutes: Record<string, Partial<Record<'GET' | 'POST' | 'PATCH', Operation>>> = {
  '/organisations': {
    GET: async (service) => ok(list(await service.listOrganisations())),
    POST: async (service, request, by) => created(await service.createOrganisation(request.body, by)),
  },
  '/organisations/:name': {
    GET: async (service, request) => ok(await service.getOrganisation(request.params.name!)),
    PATCH: async (service, request, by) => ok(await service.updateOrganisation(request.params.name!, request.body, by)),
  },
  '/keys': {
    GET: async (service, request) => ok(list(await service.listKeys(request.query))),
    POST: async (service, request, by) => created(await service.createKey(request.body, by)),
  },
  '/keys/:id': {
    GET: async (service, request) => ok(await service.getKey(request.params.id!)),
    PATCH: async (service, request, by) => ok(await service.updateKey(request.params.id!, request.body, by)),
  },
  '/keys/:id/revoke': {
    POST: async (service, request, by) => ok(await service.revokeKey(request.params.id!, by)),
  },
  '/keys/:id/rotate': {
    POST: async (service, request, by) => created(await service.rotateKey(request.params.id!, request.body, by)),
  },
  '/usage': {
    GET: async (service, request) => ok(await service.usage(request.query)),
  },
  '/audit-log': {
    GET: async (service, request) => ok(list(await service.auditLog(request.query))),
  },
};

export interface AdminRoutesOptions {
  service: AdminService;
  /** The identity behind a presented admin token, or undefined. */
  verifyToken: (token: string) => AdminIdentity | undefined;
  /** Counts wrong tokens per client address and says when one must wait. */
  throttle: AdminTokenThrottle;
}

declare module 'fastify' {
  interface FastifyRequest {
    adminIdentity?: AdminIdentity;
  }
}

/** The bearer token of the request: undefined without an Authorization header, null when it is not `Bearer <token>`. */
function bearerToken(request: FastifyRequest): string | null | undefined {
  const header = request.headers.authorization;
  if (header === undefined || header === '') return undefined;
  return /^Bearer +(\S+) *$/iu.exec(header)?.[1] ?? null;
}

/**
 * Checks in the order of decisions §1: route and method (405 with `Allow`), then the admin
 * token (401, or 429 for an address that presented too many wrong ones), before any body is
 * read, so that nobody without a token gets a body parsed. Each wrong token is logged (warn),
 * never the token itself.
 */
async function checkMethodAndToken(request: FastifyRequest, options: Pick<AdminRoutesOptions, 'verifyToken' | 'throttle'>): Promise<void> {
  const route = request.routeOptions.url?.slice(request.routeOptions.url.indexOf('/admin/v1') + '/admin/v1'.length) ?? '';
  const methods = Object.keys(adminRoutes[route] ?? {});
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (!methods.includes(method)) throw methodNotAllowedError(request.method, request.url.split('?', 1)[0]!, methods);
  const waitMs = await options.throttle.throttledFor(request.ip);
  if (waitMs !== undefined) throw throttledError(waitMs);
  const token = bearerToken(request);
  if (token === undefined) throw adminError('missing_admin_token', 'The admin API needs an admin token: send Authorization: Bearer <admin token>.');
  const identity = token === null ? undefined : options.verifyToken(token);
  if (identity === undefined) {
    const { failures, throttledNow } = await options.throttle.fail(request.ip);
    const where = { clientAddress: request.ip, path: request.url.split('?', 1)[0]!.slice(0, 256), failures };
    request.log.warn({ ...where, reason: token === null ? 'malformed_authorization' : 'invalid_admin_token' }, 'admin token refused');
    if (throttledNow) request.log.warn({ ...where, windowSeconds: adminFailureWindowSeconds }, 'admin token guesses throttled');
    if (token === null) throw adminError('invalid_admin_token', 'The Authorization header must be `Bearer <admin token>`.');
    throw adminError('invalid_admin_token', 'The admin token is not valid.');
  }
  request.adminIdentity = identity;
}

function throttledError(waitMs: number): QuantumChatError<'too_many_failed_admin_tokens'> {
  const seconds = Math.ceil(waitMs / 1000);
  return adminError('too_many_failed_admin_tokens', `Too many wrong admin tokens from this address; retry in ${seconds} s.`, {
    headers: { 'retry-after': String(seconds), 'retry-after-ms': String(Math.ceil(waitMs)) },
  });
}

/**
 * The `x-request-id` the client sent (the first, at most 128 characters), read from the raw
 * headers: the server hook has replaced the parsed one with our id, which an admin request
 * always gets (see create-server.ts).
 */
function clientRequestId(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    if (raw[index]!.toLowerCase() === 'x-request-id') return raw[index + 1]!.slice(0, 128);
  }
  return undefined;
}

function storeUnavailable(cause: unknown): QuantumChatError {
  return new QuantumChatError('store_unavailable', 'The store did not answer; retry the request shortly.', { cause, headers: { 'retry-after': '1', 'retry-after-ms': '1000' } });
}

/** A body Fastify refused before the route ran, worded as the core words it. */
function bodyError(error: { statusCode?: number; code?: string }, request: FastifyRequest): unknown {
  if (error.statusCode === 413) return hostStatusError(413, { maxBodyBytes: adminBodyLimitBytes });
  if (error.statusCode === 415) return hostStatusError(415, { headers: request.headers });
  if (error.statusCode === 400) return bodyRejectionError('invalid-json');
  return error;
}

/**
 * The admin API under `/admin/v1` (decisions §9): organisations, keys, usage and the audit
 * log, each call authenticated with an admin token and answered in the error envelope when
 * refused. Register with `{ prefix: '/admin/v1' }`, and only when admin tokens are configured.
 *
 * @example
 * await app.register(adminApiRoutes, { prefix: '/admin/v1', service, verifyToken });
 */
export const adminApiRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (fastify: FastifyInstance, options) => {
  // JSON only; an empty body is no body (POST /keys/{id}/revoke needs none).
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: adminBodyLimitBytes }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });

  fastify.addHook('onRequest', async (request) => {
    await checkMethodAndToken(request, options);
  });
  fastify.setErrorHandler((error, request, reply) => {
    if (QuantumChatError.isInstance(error)) return sendAdminError(reply, error);
    if ((error as { statusCode?: number }).statusCode !== undefined) return sendAdminError(reply, bodyError(error as { statusCode?: number }, request));
    // Past the checks, what fails is the store (down, locked, restarting): say so, with a wait.
    request.log.error({ err: error }, 'admin request failed');
    return sendAdminError(reply, storeUnavailable(error));
  });

  for (const [path, operations] of Object.entries(adminRoutes)) {
    fastify.route({
      // Not OPTIONS: CORS preflights (when configured) are answered before any route.
      method: ['GET', 'HEAD', 'POST', 'PATCH', 'PUT', 'DELETE'],
      url: path,
      bodyLimit: adminBodyLimitBytes,
      handler: async (request, reply) => {
        const method = (request.method === 'HEAD' ? 'GET' : request.method) as keyof typeof operations;
        const sent = clientRequestId(request);
        const by: AdminActor = { actor: request.adminIdentity!.actor, requestId: request.id, ...(sent !== undefined ? { clientRequestId: sent } : {}) };
        const result = await operations[method]!(options.service, { params: request.params as Params, query: request.query, body: request.body }, by);
        return reply.code(result.status).header('cache-control', 'no-store').send(result.body);
      },
    });
  }
};
