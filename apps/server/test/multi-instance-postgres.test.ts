import { createPostgresStore, issueApiKey, type ServiceStore } from '@quantum-chat/access-control';
import { describe, expect, it, onTestFinished } from 'vitest';
import { postgresMigrations } from '../../../packages/access-control/src/postgres-store/migrations.js';
import { postgresAvailable, postgresSkipMessage, startPostgresServer } from '../../../packages/access-control/test/postgres-server.js';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { lastLine, runBuiltCli } from './run-cli.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { sharedLimitBurst } from './shared-limit-burst.js';
import { decodeSse } from './sse.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);
if (!redisServerAvailable) console.warn(redisSkipMessage);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/** What a client saw of one request. */
interface Outcome {
  requestId: string;
  origin: string;
  organisation: string;
  status: number;
  /** Usage the client received with a complete answer (a JSON body, or a stream that ended with [DONE]). */
  usage?: { promptTokens: number; completionTokens: number };
  code?: string;
  retryAfter?: string | null;
  error?: string;
}

let sequence = 0;

async function send(server: ServerProcess, key: string, organisation: string, options: { stream?: boolean; maxTokens?: number } = {}): Promise<Outcome> {
  const requestId = `mi-${++sequence}-${Date.now()}`;
  try {
    const response = await fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
      body: JSON.stringify({
        model: 'quantum-lite',
        messages: [{ role: 'user', content: `Tell me about horizontal scaling, request ${sequence}.` }],
        max_tokens: options.maxTokens ?? 24,
        stream: options.stream ?? false,
      }),
    });
    const text = await response.text();
    const outcome: Outcome = { requestId, origin: server.origin, organisation, status: response.status, retryAfter: response.headers.get('retry-after') };
    if (response.status !== 200) {
      outcome.code = (JSON.parse(text) as { error: { code: string } }).error.code;
      return outcome;
    }
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
    if (options.stream) {
      if (!text.endsWith('data: [DONE]\n\n')) {
        // Ended by an error frame: say which (a stream whose usage could not be recorded ends so).
        for (const event of decodeSse(text)) if (event.data.startsWith('{"error"')) outcome.code = (JSON.parse(event.data) as { error: { code: string } }).error.code;
        return outcome;
      }
      for (const event of decodeSse(text)) if (event.data !== '[DONE]') usage = (JSON.parse(event.data) as { usage?: typeof usage }).usage ?? usage;
    } else {
      usage = (JSON.parse(text) as { usage: typeof usage }).usage;
    }
    if (usage !== undefined) outcome.usage = { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
    return outcome;
  } catch (error) {
    return { requestId, origin: server.origin, organisation, status: 0, error: String(error) };
  }
}

async function readyStatus(server: ServerProcess, reasons?: string[]): Promise<number> {
  try {
    const response = await fetch(`${server.origin}/readyz`, { signal: AbortSignal.timeout(3000) });
    const text = await response.text();
    if (response.status !== 200) reasons?.push(text);
    return response.status;
  } catch {
    return 0;
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await sleep(50);
  }
}

describe.skipIf(!postgresAvailable || !redisServerAvailable)('three server instances on PostgreSQL and Redis, under failures', { timeout: 180_000 }, () => {
  it('should keep limits exact, the ledger equal to what clients received, daily quotas held and /readyz truthful', async () => {
    const started = Date.now();
    const pg = await startPostgresServer();
    onTestFinished(() => pg.stop());
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const databaseUrl = await pg.createDatabase();

    // The CLI works against the store DATABASE_URL names.
    const migrated = await runBuiltCli(['migrate'], { env: { DATABASE_URL: databaseUrl } });
    expect(migrated.stdout, migrated.stderr).toMatch(new RegExp(`Migrated the store at postgres://127\\.0\\.0\\.1:\\d+/quantum_chat_\\d+ from schema version 0 to ${postgresMigrations.length}`));
    const cliKey = lastLine((await runBuiltCli(['keys', 'create', '--org', 'mixed-a', '--plan', 'elite', '--database-url', databaseUrl])).stdout);
    const store: ServiceStore = createPostgresStore(databaseUrl);
    onTestFinished(() => store.close());
    const unlimited = { requestsPerMinute: null, tokensPerMinute: null, tokensPerDay: null };
    await store.updateOrganisation('mixed-a', { limits: unlimited });
    await store.createOrganisation({ name: 'mixed-b', plan: 'free', limits: { requestsPerMinute: null, tokensPerMinute: null } });
    await store.createOrganisation({ name: 'rate', plan: 'free', limits: { requestsPerMinute: 20, tokensPerMinute: null, tokensPerDay: null } });
    await store.createOrganisation({ name: 'rate-after', plan: 'free', limits: { requestsPerMinute: 15, tokensPerMinute: null, tokensPerDay: null } });
    await store.createOrganisation({ name: 'daily', plan: 'free', limits: { requestsPerMinute: null, tokensPerMinute: null } });
    await store.createOrganisation({ name: 'revoke', plan: 'elite', limits: unlimited });
    const keys: Record<string, string> = {
      'mixed-a': cliKey,
      'mixed-b': (await issueApiKey(store, { organisation: 'mixed-b', kind: 'live' })).key,
      rate: (await issueApiKey(store, { organisation: 'rate', kind: 'live' })).key,
      'rate-after': (await issueApiKey(store, { organisation: 'rate-after', kind: 'live' })).key,
      daily: (await issueApiKey(store, { organisation: 'daily', kind: 'live' })).key,
    };

    const config = { store: { usageFlushIntervalMs: 100, abandonedAfterMs: 3000 }, reference: { tokensPerSecond: 150 } };
    const env = { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, LOG_LEVEL: 'warn' };
    const servers = await Promise.all([0, 1, 2].map(() => startServerProcess(config, env)));
    for (const server of servers) onTestFinished(() => server.dispose());
    const outcomes: Outcome[] = [];
    const record = (outcome: Outcome) => (outcomes.push(outcome), outcome);

    // /readyz of every live instance, polled throughout, beside what is really up.
    const truth = { postgres: true, redis: true, changedAt: Date.now(), version: 0, starting: false };
    const readiness: { at: number; status: number; expected: boolean; sinceChange: number; instance: number; reason?: string | undefined }[] = [];
    const live = new Set([0, 1, 2]);
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await Promise.all(
          [...live].map(async (index) => {
            const expected = truth.postgres && truth.redis;
            const version = truth.version;
            const at = Date.now();
            const reasons: string[] = [];
            const status = await readyStatus(servers[index]!, reasons);
            // A sample during which something failed or came back says nothing either way.
            if (status !== 0 && live.has(index) && version === truth.version && !truth.starting) readiness.push({ at, status, expected, sinceChange: at - truth.changedAt, instance: index, reason: reasons[0] });
          }),
        );
        await sleep(100);
      }
    })();
    /** Spans when /readyz may still show the state before: 1 s after a failure, and until every instance was ready again after a recovery. */
    const transitions: { from: number; to: number }[] = [];
    /** While a service starts, it may answer before its start command returns: no sample counts then. */
    const starting = () => {
      truth.starting = true;
      truth.version++;
    };
    const change = (what: 'postgres' | 'redis', up: boolean) => {
      truth.starting = false;
      truth[what] = up;
      truth.changedAt = Date.now();
      truth.version++;
      if (!up) transitions.push({ from: truth.changedAt, to: truth.changedAt + 1000 });
    };
    const recovered = async (what: string) => {
      const since = truth.changedAt;
      await until(async () => (await Promise.all(servers.map((server) => readyStatus(server)))).every((status) => status === 200), 20_000, `every instance ready after ${what}`);
      transitions.push({ from: since, to: Date.now() });
      recoveries.push(`${what} ${((Date.now() - since) / 1000).toFixed(1)} s`);
    };
    const recoveries: string[] = [];

    /**
     * A burst of `count` requests over the three instances at an organisation limited to
     * `limit` requests per minute; repeated with a fresh organisation when an instance counted
     * on its own (see sharedLimitBurst).
     */
    const burstAtLimit = (name: string, limit: number, count: number) =>
      sharedLimitBurst({
        redisUrl: redis.url,
        async prepare(attempt) {
          const organisation = attempt === 1 ? name : `${name}-${attempt}`;
          if (attempt > 1) {
            await store.createOrganisation({ name: organisation, plan: 'free', limits: { requestsPerMinute: limit, tokensPerMinute: null, tokensPerDay: null } });
            keys[organisation] = (await issueApiKey(store, { organisation, kind: 'live' })).key;
          }
          return { organisation, key: keys[organisation]! };
        },
        async send(key, organisation) {
          const burst = await Promise.all(Array.from({ length: count }, (_, index) => send(servers[index % 3]!, key, organisation, { maxTokens: 4 })));
          burst.forEach(record);
          return burst.map((outcome) => outcome.status);
        },
      });
    const bursts: string[] = [];

    // 1. Rate limits are one count across the three instances.
    const burst = await burstAtLimit('rate', 20, 60);
    bursts.push(`${burst.attempts}`);
    expect(burst.statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(burst.statuses.filter((status) => status === 429)).toHaveLength(40);

    // 2. A daily quota of six requests' worth (each uses exactly what it reserves: it hits max_tokens).
    const first = record(await send(servers[0]!, keys.daily!, 'daily', { maxTokens: 24 }));
    const perRequest = first.usage!.promptTokens + first.usage!.completionTokens;
    await store.updateOrganisation('daily', { limits: { tokensPerDay: perRequest * 6 + Math.floor(perRequest / 2) } });
    // Heard by every instance through NOTIFY; a moment for the notification to arrive.
    await sleep(200);
    for (let index = 1; index < 9; index++) record(await send(servers[index % 3]!, keys.daily!, 'daily', { maxTokens: 24 }));
    const dailyOutcomes = () => outcomes.filter((outcome) => outcome.organisation === 'daily');
    expect(dailyOutcomes().filter((outcome) => outcome.status === 200)).toHaveLength(6);
    expect(dailyOutcomes().filter((outcome) => outcome.status === 429).every((outcome) => outcome.code === 'insufficient_quota')).toBe(true);

    // 3. Mixed load (JSON and streams, two organisations) on the live instances while things fail.
    let loading = true;
    const workers = Array.from({ length: 4 }, (_, worker) =>
      (async () => {
        for (let round = 0; loading && round < 400; round++) {
          const targets = [...live];
          const server = servers[targets[(worker + round) % targets.length]!]!;
          const organisation = round % 2 ? 'mixed-a' : 'mixed-b';
          record(await send(server, keys[organisation]!, organisation, { stream: (worker + round) % 3 === 0, maxTokens: 16 + ((worker * 7 + round) % 20) }));
        }
      })(),
    );

    // (a) SIGKILL an instance in the middle of a stream.
    const cut = await fetch(`${servers[1]!.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys['mixed-a']}`, 'content-type': 'application/json', 'x-request-id': 'mi-killed-stream' },
      body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Write a long answer about databases.' }], max_tokens: 2000, stream: true }),
    });
    const reader = cut.body!.getReader();
    let received = '';
    while ((received.match(/event: message/g) ?? []).length < 40) received += new TextDecoder().decode((await reader.read()).value);
    // Two flush intervals: the running row has been written at least once.
    await sleep(250);
    live.delete(1);
    const killedOrigin = servers[1]!.origin;
    servers[1]!.child.kill('SIGKILL');
    await servers[1]!.exited;
    await reader.read().then(() => undefined, () => undefined);
    const receivedPieces = (received.match(/event: message/g) ?? []).length;
    servers[1] = await startServerProcess(config, env);
    onTestFinished(() => servers[1]!.dispose());
    live.add(1);

    // (b) Restart Redis.
    change('redis', false);
    await redis.kill();
    await sleep(2500);
    starting();
    await redis.restart();
    change('redis', true);
    await recovered('Redis');

    // (c) Stop PostgreSQL for 5 s.
    change('postgres', false);
    await pg.stopServer();
    await sleep(5000);
    starting();
    await pg.startServer();
    change('postgres', true);
    await recovered('PostgreSQL');
    await sleep(1000);
    loading = false;
    await Promise.all(workers);
    polling = false;
    await poller;

    // Rate limits after the restarts: still one count.
    const after = await burstAtLimit('rate-after', 15, 45);
    bursts.push(`${after.attempts}`);
    expect(after.statuses.filter((status) => status === 200)).toHaveLength(15);
    expect(after.statuses.filter((status) => status === 429)).toHaveLength(30);
    // The daily quota held across every restart, on every instance.
    // (A 503 with retry-after, from a store slow to answer on a loaded machine, is retried as a client would.)
    for (const server of servers) {
      let outcome = record(await send(server, keys.daily!, 'daily'));
      for (let retry = 0; retry < 3 && outcome.status === 503; retry++) {
        await sleep(Number(outcome.retryAfter) * 1000);
        outcome = record(await send(server, keys.daily!, 'daily'));
      }
      expect(outcome.code).toBe('insufficient_quota');
    }

    // No 5xx but the documented 503s (with retry-after); no failed connection but to the killed instance.
    const statuses = new Map<number, number>();
    for (const outcome of outcomes) statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
    for (const outcome of outcomes.filter((candidate) => candidate.status >= 500)) {
      expect(outcome.status).toBe(503);
      expect(['store_unavailable', 'engine_unavailable']).toContain(outcome.code);
      expect(Number(outcome.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    const cutByKill = outcomes.filter((outcome) => outcome.status === 0);
    expect(cutByKill.filter((outcome) => outcome.origin !== killedOrigin)).toEqual([]);
    // An answer is acknowledged only once its usage row is committed: while PostgreSQL was down,
    // a stream whose row could not be written ends with a store_unavailable error frame instead
    // of its usage and [DONE] (a JSON answer becomes a 503, checked above).
    expect(outcomes.filter((outcome) => outcome.status === 200 && outcome.usage === undefined && outcome.code !== 'store_unavailable')).toEqual([]);
    const unacknowledged = new Set(outcomes.filter((outcome) => outcome.code === 'store_unavailable').map((outcome) => outcome.requestId));

    // The ledger: one row per admitted request, equal to what the client received; nothing twice.
    const completed = outcomes.filter((outcome) => outcome.status === 200 && outcome.usage !== undefined);
    await until(
      async () => {
        const rows = (await Promise.all(Object.keys(keys).map((organisation) => store.listUsage({ organisation })))).flat();
        return rows.length >= completed.length + 1 && rows.every((row) => row.settled);
      },
      30_000,
      'every usage row written and settled',
    );
    const rows = (await Promise.all(Object.keys(keys).map((organisation) => store.listUsage({ organisation })))).flat();
    const byRequest = new Map(rows.map((row) => [row.requestId, row]));
    expect(byRequest.size).toBe(rows.length);
    // Besides the completed requests: only those the killed instance was running, settled from their last count.
    const cutIds = new Set(['mi-killed-stream', ...cutByKill.map((outcome) => outcome.requestId)]);
    const completedIds = new Set(completed.map((outcome) => outcome.requestId));
    for (const row of rows.filter((candidate) => !completedIds.has(candidate.requestId))) {
      // Produced but not acknowledged (its row was late): billed for what it produced, by its own
      // instance (marked interrupted, unless its write was already under way when the wait ran out).
      if (unacknowledged.has(row.requestId)) {
        expect(row).toMatchObject({ settled: true });
        expect(row.abandoned ?? false).toBe(false);
        continue;
      }
      expect(cutIds.has(row.requestId), row.requestId).toBe(true);
      expect(row).toMatchObject({ settled: true, abandoned: true, interrupted: true });
    }
    for (const outcome of completed) {
      const row = byRequest.get(outcome.requestId);
      expect(row, outcome.requestId).toBeDefined();
      expect({ promptTokens: row!.promptTokens, completionTokens: row!.completionTokens, interrupted: row!.interrupted }).toEqual({ ...outcome.usage, interrupted: false });
    }
    // The stream cut by SIGKILL is billed from the last count its instance wrote: within one
    // flush interval of what the client had received (150 tokens/s, 100 ms).
    const killed = byRequest.get('mi-killed-stream')!;
    expect(killed).toMatchObject({ settled: true, abandoned: true, interrupted: true });
    expect(killed.completionTokens).toBeGreaterThan(receivedPieces - 30);
    expect(killed.completionTokens).toBeLessThanOrEqual(receivedPieces + 60);
    // The day's count equals the ledger, and never passed the quota.
    const dailyRows = rows.filter((row) => row.organisation === 'daily');
    const dailyTotal = dailyRows.reduce((sum, row) => sum + row.promptTokens + row.completionTokens, 0);
    expect(dailyTotal).toBe(perRequest * 6);
    expect(await store.readDailyTokens({ bucket: 'daily:live', day: new Date().toISOString().slice(0, 10) })).toBe(dailyTotal);

    // /readyz told the truth: 503 while PostgreSQL or Redis was down (from 1 s after the failure),
    // 200 otherwise (once every instance had reconnected after a recovery).
    const settledSamples = readiness.filter((sample) => !transitions.some((span) => sample.at >= span.from && sample.at <= span.to));
    const lies = settledSamples.filter((sample) => (sample.status === 200) !== sample.expected);
    expect(settledSamples.filter((sample) => !sample.expected).length).toBeGreaterThan(10);
    expect(lies).toEqual([]);

    // Revocation through the store reaches every instance.
    const latencies: number[] = [];
    for (let round = 0; round < 10; round++) {
      const { key, record: keyRecord } = await issueApiKey(store, { organisation: 'revoke', kind: 'live' });
      const models = (server: ServerProcess) => fetch(`${server.origin}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then(async (response) => (await response.arrayBuffer(), response.status));
      expect(await Promise.all(servers.map(models))).toEqual([200, 200, 200]);
      const revokedAt = performance.now();
      await store.revokeKey(keyRecord.id);
      await Promise.all(
        servers.map(async (server) => {
          while ((await models(server)) !== 401) await sleep(2);
          latencies.push(performance.now() - revokedAt);
        }),
      );
    }
    const summary = [...statuses].map(([status, count]) => `${status}: ${count}`).join(', ');
    console.info(
      `three instances: ${outcomes.length} requests (${summary}), ${rows.length} ledger rows, killed stream billed ${killed.completionTokens} tokens (client had ${receivedPieces} pieces), ` +
        `${readiness.length} /readyz samples, ready again after ${recoveries.join(', ')}; bursts sent per limit check ${bursts.join(', ')}; revocation across 3 instances p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    // The 1 s of the contract is the key cache's lifetime; that the store tells every connection
    // at once (LISTEN/NOTIFY) is proven by the store contract tests. The figures above show it.
  });
});
