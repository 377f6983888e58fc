// An "existing" Fastify app: a login that hands out bearer session tokens, a small projects
// API behind them, and Fastify's own pino request log. It mounts the Quantum chat API at /v1
// as a separate, encapsulated plugin, and hands its users API keys for it.
import { createAccessControl, createMemoryStore, issueApiKey, type ServiceStore } from '@quantum-chat/access-control';
import type { ChatEngine } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { createSessions } from './sessions.js';

export interface AppOptions {
  /** username → password of the app's own users. */
  users: Readonly<Record<string, string>>;
  /** Fastify's logger (pino): `true`, options, or a pino `{ level, stream }`. */
  logger?: FastifyServerOptions['logger'];
  engine?: ChatEngine;
  /** The API's key store; in memory by default (use `createSqliteStore` to keep keys). */
  store?: ServiceStore;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the app's auth hook on its private routes. */
    user?: string;
  }
}

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const sessions = createSessions(options.users);
  const store = options.store ?? createMemoryStore();
  const app = Fastify({ logger: options.logger ?? true, forceCloseConnections: true });

  // The API: its own scope, body parser and error envelope; the app's hooks and log still apply.
  await app.register(fastifyQuantumChat, {
    prefix: '/v1',
    engine: options.engine ?? createReferenceEngine(),
    accessControl: createAccessControl({ store }),
    onRequestSettled: (record) => app.log.info({ chat: { ...record, principal: record.principal?.organisationId } }, 'chat request settled'),
    onBridgeError: (error) => app.log.error({ err: error }, 'chat bridge failed'),
  });

  // The app's public routes.
  app.get('/', async (_request, reply) =>
    reply.type('text/html').send('<h1>Acme projects</h1><p>The chat API lives at <code>/v1</code>. Log in and create a key at <code>POST /me/api-keys</code>.</p>'),
  );
  app.get('/health', async () => ({ status: 'ok' }));
  app.post<{ Body: { username?: unknown; password?: unknown } }>('/login', async (request, reply) => {
    const { username, password } = request.body ?? {};
    const token = typeof username === 'string' && typeof password === 'string' ? sessions.login(username, password) : undefined;
    if (token === undefined) return reply.code(401).send({ message: 'Wrong username or password.' });
    return { token };
  });

  // The app's private routes: an encapsulated plugin, so its auth hook never sees /v1.
  await app.register(async (privateRoutes) => {
    const projects = new Map<string, { name: string }[]>();
    privateRoutes.addHook('onRequest', async (request, reply) => {
      const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
      const user = sessions.userOf(token);
      if (user === undefined) return reply.code(401).send({ message: 'Log in first.' });
      request.user = user;
    });
    privateRoutes.get('/me', async (request) => ({ username: request.user }));
    privateRoutes.get('/projects', async (request) => ({ projects: projects.get(request.user!) ?? [] }));
    privateRoutes.post<{ Body: { name?: unknown } }>('/projects', async (request, reply) => {
      const name = request.body?.name;
      if (typeof name !== 'string' || name.length === 0) return reply.code(400).send({ message: 'A project needs a name.' });
      const list = projects.get(request.user!) ?? [];
      list.push({ name });
      projects.set(request.user!, list);
      return reply.code(201).send({ name });
    });
    // Each user is an organisation of the API; a key is shown once.
    privateRoutes.post('/me/api-keys', async (request, reply) => {
      const organisation = request.user!;
      if ((await store.getOrganisation(organisation)) === undefined) await store.createOrganisation({ name: organisation, plan: 'elite' });
      const { key } = await issueApiKey(store, { organisation, kind: 'live' });
      request.log.info({ organisation }, 'api key issued');
      return reply.code(201).send({ key });
    });
  });

  return app;
}
