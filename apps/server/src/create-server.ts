import { maxHeaderSize } from 'node:http';
import { createChatHandler, createMemoryReplayGuard, createMemoryStreamStore, createOpenApiDocument, type AccessControl, type ChatHandlerOptions, type StreamEvent } from '@quantum-chat/core';
import { resolveRequestId } from '@quantum-chat/core/host';
import { applyRequestTimeout } from '@quantum-chat/core/node';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import { quantumChatWeb } from '@quantum-chat/web';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { adminBasePath, withAdminApi } from './admin/admin-openapi.js';
import { registerAdminApi } from './admin/register-admin-api.js';
import { createChatRequestLogging } from './chat-request-logging.js';
import type { ServerConfig } from './config-schema.js';
import { createEngines, type LocalModel } from './create-engines.js';
import { shutdownGracefully } from './graceful-shutdown.js';
import { registerCors, registerLoadShedding } from './front-door.js';
import { registerHealthRoute } from './health-route.js';
import { registerReadyRoute } from './ready-route.js';
import { registerMetricsRoute } from './metrics-route.js';
import { createLogDestination } from './log-destination.js';
import { OneLineRequestLog, requestLogFields } from './request-log.js';
import { openServerAccessControl } from './server-access-control.js';
import { registerServerHooks } from './server-hooks.js';
import { createServerMetrics } from './server-metrics.js';
import { observeRequests, startTracing } from './request-observers.js';
import { schemaCompilersOnFirstUse } from './schema-compilers-on-first-use.js';
import { createShutdownState } from './shutdown-state.js';
import { prepareStarterKeys, type StarterKeys } from './starter-keys.js';

export interface QuantumServerOptions {
  /** A pino logger to use instead of one built from `config.logLevel`. */
  logger?: FastifyBaseLogger;
  /**
   * Keys, plans and limits. By default `@quantum-chat/access-control` with the store the config
   * names (PostgreSQL with `databaseUrl`, else SQLite in `dataDir`) and limits shared through
   * `config.redisUrl` when set.
   */
  accessControl?: AccessControl;
  /** Where a relative `dataDir` is resolved; `process.cwd()` by default. */
  cwd?: string;
  /** Where upstream API keys (`apiKeyEnv`) are read; `process.env` by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Handler options on top of those the config gives, for both mounts (each keeps its stream
   * format): engines, ids, a clock. The shared conformance cases run the server this way.
   */
  handlerOptions?: Omit<ChatHandlerOptions, 'streamFormat'>;
  /**
   * The server's clock (ms since the epoch): the store's times, key expiry, usage days and the
   * admin API's checks. `Date.now` by default; tests inject one to step over an expiry.
   */
  now?: () => number;
  /** Where a `hf:` model download draws its progress bar (the CLI gives its stderr); none by default. */
  progress?: (text: string) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Drains and closes the server (SIGTERM): new requests get 503 `shutting_down`, open ones
     * have `shutdownGraceMs` to finish, then end with `shutting_down`. A second call ends them
     * at once. Resolves when every socket is closed.
     */
    shutdownGracefully(): Promise<void>;
    /** The llama.cpp models the config names, loading in the background (`engine.ready`). */
    localModels: readonly LocalModel[];
    /**
     * Call once listening: on an empty store, creates the `default` organisation (elite) and
     * returns its one test key, to be shown once; names the organisations without a usable
     * key. Does nothing with an `accessControl` passed in.
     */
    prepareStarterKeys(): Promise<StarterKeys>;
  }
}

/**
 * The ready server: `/v1` (the spec's stream format) and `/compat/v1` (OpenAI format) over one
 * model registry, `GET /healthz`, `GET /readyz`, structured logs and graceful shutdown. Call `listen` on it.
 *
 * @example
 * const app = await createQuantumServer(loadConfig({ env: process.env }).config);
 * await app.listen({ host: '127.0.0.1', port: 8080 });
 */
export async function createQuantumServer(config: ServerConfig, options: QuantumServerOptions = {}): Promise<FastifyInstance> {
  // Our own logger writes in batches, not one asynchronous write per line (see log-destination.ts).
  const logDestination = options.logger === undefined ? createLogDestination() : undefined;
  const app: FastifyInstance = Fastify({
    ...(options.logger !== undefined ? { loggerInstance: options.logger } : { logger: { level: config.logLevel, serializers: { req: requestLogFields }, stream: logDestination } }),
    // The core's rule for `x-request-id`, so logs, the response header and settled records agree.
    // An admin request always gets our own: its audit row must name an id a client cannot choose.
    genReqId: (request) => resolveRequestId(request.url?.startsWith(`${adminBasePath}/`) ? {} : request.headers, options.handlerOptions?.generateId),
    // Our drain hook answers 503 in the core's envelope instead of Fastify's own body.
    return503OnClosing: false,
    // One access line per request, not two (see request-log.ts).
    logController: new OneLineRequestLog(),
    // Fastify's own limit (100) answered a long admin path parameter with its own 414 body,
    // before any hook checked the admin token. Node already bounds the request line.
    routerOptions: { maxParamLength: maxHeaderSize },
    // No route of ours has a Fastify schema: ajv loads only if a plugin's route needs it.
    schemaController: schemaCompilersOnFirstUse(),
  });
  if (logDestination !== undefined) app.addHook('onClose', async () => logDestination.close());
  // Headers and body within the request timeout, else 408 in the envelope and the connection
  // closed (decisions §9); Fastify's own default is no timeout at all.
  applyRequestTimeout(app.server, { requestTimeoutMs: config.requestTimeoutMs });
  const shutdown = createShutdownState();
  const env = options.env ?? process.env;
  const tracing = await startTracing(env);
  if (tracing !== undefined) app.addHook('onClose', () => tracing.shutdown());
  const { registry, testEngine, summary, localModels } = await createEngines(
    config,
    env,
    {
      ...(tracing !== undefined ? { onUpstreamRequest: tracing.onUpstreamRequest } : {}),
      // Usage an upstream reported is checked, not trusted (decisions §6): a replaced one is logged, figures only.
      onUsageReplaced: ({ requestId, model, reported, used, reasons }) => app.log.warn({ reqId: requestId, upstreamModel: model, reported, used, reasons }, 'upstream usage replaced by our own count'),
    },
    { cwd: options.cwd ?? process.cwd(), ...(options.progress !== undefined ? { progress: options.progress } : {}) },
  );
  // Last in, first out: the models are freed after the server stops answering.
  app.addHook('onClose', async () => {
    await Promise.all(localModels.map((local) => local.engine.dispose()));
  });
  const access =
    options.accessControl === undefined
      ? await openServerAccessControl(config, { cwd: options.cwd ?? process.cwd(), log: app.log, ...(options.now !== undefined ? { now: options.now } : {}) })
      : undefined;
  if (access !== undefined) app.addHook('onClose', () => access.close());
  const metrics = config.metrics ? createServerMetrics() : undefined;

  // One guard for both mounts: a signature used on /v1 is used on /compat/v1 too.
  // Redis modules (ioredis: about 6 MiB) load only when the config names Redis.
  const replayGuard = config.signingSecrets.length > 0 && config.redisUrl !== undefined
    ? (await import('./redis-replay-guard.js')).createRedisReplayGuard(config.redisUrl, (available, reason) => {
        if (available) app.log.info('signature replay guard: redis answers again');
        else app.log.warn({ err: reason }, 'signature replay guard: redis did not answer; this instance decides alone until it is back');
      })
    : undefined;
  if (replayGuard !== undefined) app.addHook('onClose', () => replayGuard.close());
  // Resumable streams (decisions §4.7): in Redis Streams when there is Redis (any instance serves a resume), else in memory.
  const { streams } = config;
  const streamStore =
    config.redisUrl !== undefined
      ? (await import('./redis-stream-store.js')).createRedisStreamStore(config.redisUrl, {
          retentionSeconds: streams.retentionSeconds,
          heartbeatSeconds: streams.heartbeatSeconds,
          onError: (error) => app.log.warn({ err: error }, 'stream store: a write to redis failed; resumes on other instances may miss frames'),
        })
      : createMemoryStreamStore({ retentionMs: streams.retentionSeconds * 1000 });
  app.addHook('onClose', async () => streamStore.close?.());
  // PostgreSQL without Redis is how several instances share keys: a resume could reach one that never saw the stream.
  const refuseReason =
    config.redisUrl === undefined && config.databaseUrl !== undefined && !streams.singleInstance
      ? 'this server shares its database with other instances but has no Redis (REDIS_URL) to share streams through, so a resume could reach an instance without the stream. Set REDIS_URL, or streams.singleInstance if this instance is the only one.'
      : undefined;
  const shared: ChatHandlerOptions = {
    registry,
    testEngine,
    accessControl: options.accessControl ?? access!.accessControl,
    ...(config.signingSecrets.length > 0 ? { signingSecrets: config.signingSecrets, requireSignatures: config.requireSignatures, signatureReplayGuard: replayGuard ?? createMemoryReplayGuard() } : {}),
    ...(config.keepAliveIntervalMs !== undefined ? { keepAliveIntervalMs: config.keepAliveIntervalMs } : {}),
    requestTimeoutMs: config.requestTimeoutMs,
    streams: {
      store: streamStore,
      resumableByDefault: streams.resumableByDefault,
      maxDetachedPerOrganisation: streams.maxDetachedPerOrganisation,
      runTimeoutMs: streams.runTimeoutSeconds * 1000,
      ...(metrics !== undefined ? { onStreamEvent: (event: StreamEvent) => metrics.onStreamEvent(event) } : {}),
      ...(refuseReason !== undefined ? { refuseReason } : {}),
    },
    shutdownSignal: shutdown.signal,
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...createChatRequestLogging(app.log),
    ...observeRequests(metrics, tracing),
    // The reference at /docs shows the admin API too (off unless admin tokens are configured).
    openApiDocument: (context) => withAdminApi(createOpenApiDocument(context), context.models),
    // Stored responses (decisions §10) in the server's own store, every instance on it reading
    // them (in memory, the handler's default, when an accessControl was passed in).
    ...(access !== undefined ? { responseStore: access.responseStore } : {}),
    responses: { retentionSeconds: config.responses.retentionDays * 86_400 },
    ...options.handlerOptions,
  };

  registerServerHooks(app, shutdown);
  if (config.cors !== undefined) await registerCors(app, config.cors);
  if (config.overload !== false) await registerLoadShedding(app, config.overload);
  registerHealthRoute(app);
  registerReadyRoute(app, access && { store: access.store, limiter: access.limiter }, localModels);
  if (metrics !== undefined) registerMetricsRoute(app, metrics, config.metricsToken);
  if (access !== undefined) await registerAdminApi(app, config, { store: access.store, accessControl: access.accessControl, ...(options.now !== undefined ? { now: options.now } : {}) });
  else if (config.adminTokens.length > 0) app.log.warn('admin API off: it needs the server\'s own store (an accessControl was passed in)');
  await app.register(fastifyQuantumChat, { prefix: '/v1', handler: createChatHandler({ ...shared, streamFormat: 'quantum' }) });
  await app.register(fastifyQuantumChat, { prefix: '/compat/v1', handler: createChatHandler({ ...shared, streamFormat: 'openai' }) });
  // GET / (playground) and GET /docs (API reference), served from @quantum-chat/web's own files.
  await app.register(quantumChatWeb, { apiBasePath: '/v1' });

  app.decorate('localModels', localModels);
  app.decorate('prepareStarterKeys', () => (access === undefined ? Promise.resolve({ organisationsWithoutUsableKey: [] }) : prepareStarterKeys(access.store)));
  let closing: Promise<void> | undefined;
  app.decorate('shutdownGracefully', () => {
    if (closing !== undefined) {
      // Asked twice (a second Ctrl-C): skip the rest of the grace period.
      shutdown.endOpenRequests();
      return closing;
    }
    closing = shutdownGracefully(app, shutdown, config.shutdownGraceMs);
    return closing;
  });
  app.log.debug({ models: summary }, 'model engines');
  return app;
}
