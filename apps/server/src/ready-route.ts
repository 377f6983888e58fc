import type { ServiceStore, Limiter } from '@quantum-chat/access-control';
import { QuantumChatError } from '@quantum-chat/core';
import { methodNotAllowedError } from '@quantum-chat/core/host';
import type { FastifyInstance } from 'fastify';
import type { LocalModel } from './create-engines.js';
import { sendError } from './send-error.js';

/** The most a readiness check waits on the store or Redis (decisions §9: a store silent for 1 s is unavailable). */
const checkTimeoutMs = 1000;

function answers(check: () => Promise<unknown>): Promise<string | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(`no answer within ${checkTimeoutMs} ms`), checkTimeoutMs);
    check().then(
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve((error as Error)?.message ?? String(error));
      },
    );
  });
}

export interface ReadinessTargets {
  store: ServiceStore;
  /** Checked only when limits are shared through Redis. */
  limiter?: Limiter;
}

/**
 * `GET /readyz`, what a load balancer polls: 200 `{"status":"ready"}` when the store (and Redis,
 * when configured) answer within 1 s, else 503 with `retry-after` naming what failed. Redis's
 * answer also puts a limiter that had fallen back to counting per instance back on Redis, so a
 * 200 means the limits are shared. Concurrent probes share one check. A local (llama.cpp) model
 * that has not finished loading makes it 503 too.
 *
 * @example
 * registerReadyRoute(app, { store, limiter });
 */
export function registerReadyRoute(app: FastifyInstance, targets: ReadinessTargets | undefined, localModels: readonly LocalModel[] = []): void {
  let running: Promise<{ store?: string | undefined; redis?: string | undefined }> | undefined;
  const check = () =>
    (running ??= (async () => {
      if (targets === undefined) return {};
      const [store, redis] = await Promise.all([
        answers(() => targets.store.ping()),
        targets.limiter?.backend === 'redis' ? answers(() => targets.limiter!.ping()) : undefined,
      ]);
      return { store, redis };
    })().finally(() => {
      running = undefined;
    }));

  app.all('/readyz', async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendError(
        reply,
        methodNotAllowedError(request.method, '/readyz', ['GET']),
      );
    }
    reply.header('cache-control', 'no-store');
    const notLoaded = localModels.find((local) => local.engine.summary === undefined);
    if (notLoaded !== undefined) {
      const failure = notLoaded.engine.loadFailure;
      const why = failure === undefined ? `the model ${notLoaded.file} is still loading` : `the model ${notLoaded.file} could not be loaded (${failure.message})`;
      return sendError(reply, new QuantumChatError('engine_unavailable', `Not ready: ${why}.`, { headers: { 'retry-after': '1' } }));
    }
    const failed = await check();
    if (failed.store !== undefined) {
      return sendError(reply, new QuantumChatError('store_unavailable', `Not ready: the store does not answer (${failed.store}).`, { headers: { 'retry-after': '1' } }));
    }
    if (failed.redis !== undefined) {
      return sendError(reply, new QuantumChatError('engine_unavailable', `Not ready: Redis does not answer (${failed.redis}).`, { headers: { 'retry-after': '1' } }));
    }
    return reply.send({ status: 'ready' });
  });
}
