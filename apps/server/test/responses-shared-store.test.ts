import { createPostgresStore, createSqliteResponseStore, createSqliteStore, type ServiceStore } from '@quantum-chat/access-control';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { postgresAvailable, postgresSkipMessage, startPostgresServer } from '../../../packages/access-control/test/postgres-server.js';
import { startInProcessServer, type InProcessServer } from './in-process-server.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

interface ResponseBody {
  id: string;
  status: string;
  previous_response_id: string | null;
  output: { type: string; content?: { text: string }[] }[];
}

const headers = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

async function create(server: InProcessServer, key: string, body: Record<string, unknown>): Promise<ResponseBody> {
  const response = await fetch(`${server.origin}/v1/responses`, { method: 'POST', headers: headers(key), body: JSON.stringify({ model: 'quantum-lite', ...body }) });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as ResponseBody;
}

/**
 * Two instances on one store (a PostgreSQL database, or one SQLite file): a response stored
 * through one is read, continued and listed through the other, and its usage row says it came
 * through the Responses API.
 */
async function expectSharedResponses(first: InProcessServer, second: InProcessServer, store: ServiceStore): Promise<void> {
  const key = first.testKey;
  expect(key).not.toBe('');
  const created = await create(first, key, { input: 'Tell me about shared stores.' });
  expect(created.status).toBe('completed');

  const read = await fetch(`${second.origin}/v1/responses/${created.id}`, { headers: headers(key) });
  expect(read.status).toBe(200);
  expect(await read.json()).toEqual(created);

  const followUp = await create(second, key, { previous_response_id: created.id, input: 'And then?' });
  expect(followUp.previous_response_id).toBe(created.id);
  const items = await fetch(`${first.origin}/v1/responses/${followUp.id}/input_items?order=asc`, { headers: headers(key) });
  expect(items.status).toBe(200);
  const { data } = (await items.json()) as { data: { role: string; content: unknown }[] };
  // This request's own input only: the earlier turn is the previous response's.
  expect(data).toHaveLength(1);
  expect(data[0]!.role).toBe('user');
  expect(JSON.stringify(data[0]!.content)).toContain('And then?');

  const deleted = await fetch(`${second.origin}/v1/responses/${created.id}`, { method: 'DELETE', headers: headers(key) });
  expect(deleted.status).toBe(200);
  const gone = await fetch(`${first.origin}/v1/responses/${created.id}`, { headers: headers(key) });
  expect(gone.status).toBe(404);
  expect(((await gone.json()) as { error: { code: string } }).error.code).toBe('response_not_found');

  const usage = await store.listUsage({ organisation: 'default' });
  expect(usage.map((row) => row.api)).toEqual(['responses', 'responses']);
}

describe('stored responses shared by two instances', { timeout: 120_000 }, () => {
  it('should serve a response stored through one instance from another on the same SQLite file', async () => {
    const first = await startInProcessServer();
    onTestFinished(() => first.close());
    const second = await startInProcessServer({ dataDir: first.dataDir });
    onTestFinished(() => second.close());
    const store = createSqliteStore(join(first.dataDir, 'quantum-chat.sqlite'));
    onTestFinished(() => store.close());
    await expectSharedResponses(first, second, store);
  });

  it('should keep a stored response for responses.retentionDays', async () => {
    const server = await startInProcessServer({ responses: { retentionDays: 2 } });
    onTestFinished(() => server.close());
    const before = Date.now();
    const created = await create(server, server.testKey, { input: 'Keep this.' });
    const after = Date.now();
    const store = createSqliteStore(join(server.dataDir, 'quantum-chat.sqlite'));
    const responses = createSqliteResponseStore(store);
    onTestFinished(async () => {
      await responses.close();
      await store.close();
    });
    // The owner is the key's organisation and kind, as for resumable streams.
    const stored = await responses.get(created.id, 'default:test');
    expect(stored?.response.id).toBe(created.id);
    expect(stored!.expiresAt).toBeGreaterThanOrEqual(before + 2 * 86_400_000);
    expect(stored!.expiresAt).toBeLessThanOrEqual(after + 2 * 86_400_000);
  });

  it.skipIf(!postgresAvailable)('should serve a response stored through one instance from another on the same PostgreSQL database', async () => {
    const pg = await startPostgresServer();
    onTestFinished(() => pg.stop());
    const databaseUrl = await pg.createDatabase();
    const first = await startInProcessServer({ databaseUrl });
    onTestFinished(() => first.close());
    const second = await startInProcessServer({ databaseUrl });
    onTestFinished(() => second.close());
    const store = createPostgresStore(databaseUrl);
    onTestFinished(() => store.close());
    await expectSharedResponses(first, second, store);
  });
});
