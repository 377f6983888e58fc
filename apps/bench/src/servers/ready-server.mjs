// The ready server (apps/server's createQuantumServer: auth, limits, daily quota, usage ledger,
// logs) as a bench child, and the bare Fastify route it is compared with.
// argv: <ready|bare> <fixed|reference> [sqlite|postgres] [durable|buffered] [leases]. PostgreSQL's URL comes in DATABASE_URL.
// The fourth is how usage rows are written (store.usageWrites; durable by default); `leases` turns
// on the per-instance leases of the day's tokens (limits.dailyLeases).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPostgresKeyStore, createSqliteKeyStore, issueApiKey } from '@quantum-chat/access-control';
import { createChatHandler, createModelRegistry, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { createQuantumServer, resolveConfig } from '@quantum-chat/server';
import Fastify from 'fastify';
import { serveParent } from '../lib/child.mjs';
import { createFixedEngine, jsonRequestBody, requestHeaders } from '../lib/fixtures.mjs';

const [side, engineName, storeName = 'sqlite', usageWrites = 'durable', leases] = process.argv.slice(2);
const engine = engineName === 'reference' ? createReferenceEngine() : createFixedEngine();
let app;
let cleanup = async () => undefined;
let key;
let organisation;
// The admin API, on for the ready side: its usage report flushes the ledger first, which is how
// the group-commit suite charges the buffered ledger for writing what it answered.
const adminToken = randomBytes(24).toString('hex');

if (side === 'ready') {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-bench-ready-'));
  const config = resolveConfig({ dataDir: join(directory, 'data'), store: { usageWrites }, limits: { dailyLeases: leases === 'leases' }, adminTokens: [{ id: 'bench', token: adminToken }], ...(storeName === 'postgres' ? { databaseUrl: process.env.DATABASE_URL } : {}) }, {});
  // The organisation's limits are far off, but every one is counted: the daily one in the store.
  // Logs at info through the server's own destination, to stdout, as in production: the bench
  // starts this process with stdout on /dev/null.
  app = await createQuantumServer(config, {
    // Every model, and test keys, answered by the engine measured.
    handlerOptions: { registry: createModelRegistry({ engine }), testEngine: engine },
  });
  const store = storeName === 'postgres' ? createPostgresKeyStore(process.env.DATABASE_URL) : createSqliteKeyStore(join(directory, 'data', 'quantum-chat.sqlite'));
  organisation = `bench-${process.pid}`;
  await store.createOrganisation({ name: organisation, plan: 'free', limits: { requestsPerMinute: 1e12, tokensPerMinute: 1e15, tokensPerDay: 1e15 } });
  key = (await issueApiKey(store, { organisation, kind: 'live' })).key;
  await store.close();
  cleanup = async () => rmSync(directory, { recursive: true, force: true });
} else {
  // Bare Fastify answering the bytes the ready server answers (this engine's answer to the same request).
  const sample = await createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() }).handle({
    method: 'POST',
    path: '/chat/completions',
    headers: requestHeaders,
    body: { kind: 'text', text: jsonRequestBody },
    signal: new AbortController().signal,
  });
  app = Fastify();
  app.post('/v1/chat/completions', (request, reply) => reply.header('content-type', sample.headers['content-type']).send(sample.body));
}
await app.listen({ host: '127.0.0.1', port: 0 });

serveParent(
  {
    cpu: () => process.cpuUsage(),
    async stop() {
      await app.close();
      await cleanup();
      setImmediate(() => process.exit(0));
      return true;
    },
  },
  { port: app.server.address().port, key, ...(side === 'ready' ? { adminToken, organisation } : {}) },
);
process.on('SIGTERM', async () => {
  await app.close().catch(() => undefined);
  await cleanup();
  process.exit(0);
});
