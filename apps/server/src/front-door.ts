import { getHeapStatistics } from 'node:v8';
import cors from '@fastify/cors';
import underPressure from '@fastify/under-pressure';
import { QuantumChatError } from '@quantum-chat/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CorsSettings, OverloadSettings } from './config-schema.js';
import { sampleEventLoopDelay } from './event-loop-delay.js';
import { sendError } from './send-error.js';

/** Headers a browser client sends beyond the CORS-safelisted ones. */
const corsAllowedHeaders = ['authorization', 'content-type', 'x-request-id', 'x-stream-format', 'x-service-signature', 'traceparent', 'tracestate'];
/** Response headers a browser script may read. */
const corsExposedHeaders = [
  'x-request-id',
  'x-quantum-ignored-params',
  'retry-after',
  'retry-after-ms',
  'x-should-retry',
  ...['limit', 'remaining', 'reset'].flatMap((part) => [`x-ratelimit-${part}-requests`, `x-ratelimit-${part}-tokens`]),
];

/** Routes an overloaded server still answers: a prober or a scraper must see what is going on. */
const unshedPaths = new Set(['/healthz', '/readyz', '/metrics']);

function pathOf(request: FastifyRequest): string {
  return request.url.split('?', 1)[0] ?? '/';
}

/**
 * Opt-in CORS for browsers on other origins (`cors` in the config; preflights are answered
 * before any route, so `OPTIONS` on the API gets 204 instead of 405).
 *
 * @example
 * await registerCors(app, { origins: ['https://app.example.com'], credentials: false, maxAgeSeconds: 600 });
 */
export async function registerCors(app: FastifyInstance, settings: CorsSettings): Promise<void> {
  const origins = settings.origins;
  await app.register(cors, {
    origin: origins === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: corsAllowedHeaders,
    exposedHeaders: corsExposedHeaders,
    credentials: settings.credentials,
    maxAge: settings.maxAgeSeconds,
    strictPreflight: false,
  });
}

/**
 * Load shedding (decisions §9): while the event loop lags or memory is past its threshold,
 * new requests get 503 `overloaded` with `retry-after`; requests already running, streams
 * included, go on (the check runs only as a request arrives). `/healthz`, `/readyz` and
 * `/metrics` are never shed. Register after the server hooks, so a shed response still has
 * its `x-request-id`.
 *
 * @example
 * await registerLoadShedding(app, { maxEventLoopDelayMs: 1000, retryAfterSeconds: 10 });
 */
export async function registerLoadShedding(app: FastifyInstance, settings: OverloadSettings): Promise<void> {
  const retryAfter = String(settings.retryAfterSeconds);
  const heapLimit = settings.maxHeapUsedBytes ?? Math.floor(getHeapStatistics().heap_size_limit * 0.9);
  const sampleIntervalMs = settings.sampleIntervalMs ?? 1000;
  const shed = (request: FastifyRequest, reply: FastifyReply, reason: string) => {
    if (unshedPaths.has(pathOf(request))) return undefined;
    return sendError(reply, new QuantumChatError('overloaded', `The server is overloaded (${reason}); retry after ${retryAfter} seconds.`, { headers: { 'retry-after': retryAfter } }));
  };
  // The event-loop delay is ours (see `sampleEventLoopDelay`); memory is under-pressure's.
  const loop = sampleEventLoopDelay(sampleIntervalMs);
  app.addHook('onClose', async () => loop.stop());
  app.addHook('onRequest', async (request, reply) => {
    if (loop.delayMs > settings.maxEventLoopDelayMs) return shed(request, reply, 'its event loop is delayed');
    return undefined;
  });
  await app.register(underPressure, {
    maxHeapUsedBytes: heapLimit,
    ...(settings.maxRssBytes !== undefined ? { maxRssBytes: settings.maxRssBytes } : {}),
    sampleInterval: sampleIntervalMs,
    retryAfter: settings.retryAfterSeconds,
    pressureHandler(request, reply) {
      // A reply sent here ends the request; returning nothing lets the others through.
      shed(request, reply, 'its memory is past its threshold');
      return undefined;
    },
  });
}
