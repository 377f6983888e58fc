import { QuantumChatError, type AccessControl } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import Fastify from 'fastify';

/** How the host's limiter answers one key. */
export type RetryScenario = 'rate-limited-once' | 'quota-exhausted';

/**
 * `retry-after-ms` says 1 s and `retry-after` 4 s, far enough apart that a client's wait shows
 * which one it read even on a loaded machine (and the openai SDK's own first backoff is ≤ 0.5 s).
 */
export const retryAfterHeaders = { 'retry-after': '4', 'retry-after-ms': '1000' } as const;

export interface RetryHost {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** Gives a key a scenario; the key's admissions are then counted. */
  assign(apiKey: string, scenario: RetryScenario): void;
  /** How many chat requests reached the limiter with this key (server side). */
  admissions(apiKey: string): number;
  /** Milliseconds between the first and the second admission of this key (server side). */
  retryGap(apiKey: string): number | undefined;
  close(): Promise<void>;
}

/**
 * A Fastify host of `@quantum-chat/fastify` and the reference engine whose `accessControl`
 * plays one limit scenario per key: `rate-limited-once` refuses the first request with 429
 * `rate_limit_exceeded` (the headers of decisions §5) and then admits; `quota-exhausted`
 * always refuses with 429 `insufficient_quota` and `x-should-retry: false`. The ready server's
 * own limits answer `retry-after` in whole seconds of a one-minute window, too long to wait
 * for in a test, which is why this host exists.
 *
 * @example
 * const host = await startRetryHost();
 * host.assign(key, 'rate-limited-once');
 */
export async function startRetryHost(): Promise<RetryHost> {
  const scenarios = new Map<string, RetryScenario>();
  const counts = new Map<string, number>();
  const times = new Map<string, number[]>();
  const accessControl: AccessControl = {
    // The whole key as the organisation: admit() then knows which scenario it plays.
    authenticate: async (key) => ({ keyId: key.display, organisationId: key.key, plan: 'elite', kind: key.kind }),
    async admit(principal) {
      const key = principal.organisationId;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      times.set(key, [...(times.get(key) ?? []), performance.now()]);
      const scenario = scenarios.get(key);
      if (scenario === 'quota-exhausted') {
        throw new QuantumChatError('insufficient_quota', 'You exceeded your daily token quota.', { headers: { 'x-should-retry': 'false' } });
      }
      if (scenario === 'rate-limited-once' && count === 1) {
        throw new QuantumChatError('rate_limit_exceeded', 'Rate limit reached for requests per minute. Please try again in 1s.', { headers: { ...retryAfterHeaders } });
      }
      return { headers: {}, settle: () => {} };
    },
  };
  const app = Fastify();
  await app.register(fastifyQuantumChat, { prefix: '/v1', engine: createReferenceEngine(), accessControl });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl: `${address}/v1`,
    assign: (apiKey, scenario) => scenarios.set(apiKey, scenario),
    admissions: (apiKey) => counts.get(apiKey) ?? 0,
    retryGap: (apiKey) => {
      const [first, second] = times.get(apiKey) ?? [];
      return first !== undefined && second !== undefined ? second - first : undefined;
    },
    close: () => app.close(),
  };
}
