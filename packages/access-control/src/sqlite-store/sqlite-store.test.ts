import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { describeServiceStoreContract } from '../../test/service-store-contract.js';
import { hashApiKey } from '../hash-api-key.js';
import { issueApiKey } from '../issue-api-key.js';
import { createSqliteStore } from './index.js';
import { sqliteMigrations } from './migrations.js';

const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-sqlite-'));
let files = 0;
const nextPath = () => join(directory, `store-${++files}.sqlite`);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeServiceStoreContract('createSqliteStore', {
  open: async () => createSqliteStore(nextPath()),
  openShared: async () => {
    const path = nextPath();
    return [createSqliteStore(path), createSqliteStore(path)];
  },
});

describe('createSqliteStore', () => {
  it('should keep keys, organisations and usage across reopening', async () => {
    const path = nextPath();
    const first = createSqliteStore(path);
    await first.createOrganisation({ name: 'acme', plan: 'elite', limits: { requestsPerMinute: 3 } });
    const { key } = await issueApiKey(first, { organisation: 'acme', kind: 'live' });
    await first.close();
    const second = createSqliteStore(path);
    expect((await second.findKeyByHash(hashApiKey(key)))?.organisation).toMatchObject({ plan: 'elite', limits: { requestsPerMinute: 3 } });
    await second.close();
  });

  it('should never write the secret key to disk, only its hash', async () => {
    const path = nextPath();
    const store = createSqliteStore(path);
    await store.createOrganisation({ name: 'acme', plan: 'free' });
    const { key } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
    await store.close();
    const bytes = readFileSync(path).toString('latin1');
    expect(bytes).toContain(hashApiKey(key));
    expect(bytes).not.toContain(key.slice(8, 30));
  });

  it('should let two connections (two server processes) share one file in WAL mode', async () => {
    const path = nextPath();
    const writer = createSqliteStore(path);
    const reader = createSqliteStore(path);
    await writer.createOrganisation({ name: 'acme', plan: 'free' });
    const { key } = await issueApiKey(writer, { organisation: 'acme', kind: 'test' });
    await writer.updateOrganisation('acme', { limits: { requestsPerMinute: 2 } });
    expect((await reader.findKeyByHash(hashApiKey(key)))?.organisation.limits).toEqual({ requestsPerMinute: 2 });
    expect(readFileSync(`${path}-wal`).length).toBeGreaterThan(0);
    await writer.close();
    await reader.close();
  });

  it('should upgrade a store whose audit log predates client_request_id: old entries read as null, new ones keep it', async () => {
    const path = nextPath();
    const old = new Database(path);
    for (const migration of sqliteMigrations.slice(0, 3)) old.exec(migration);
    old.pragma('user_version = 3');
    old.prepare('INSERT INTO audit_log (at, actor, action, subject, details, request_id) VALUES (?, ?, ?, ?, ?, ?)').run(1_000, 'admin:ops', 'organisation.create', 'acme', '{"plan":"free"}', 'req_old');
    old.close();

    const store = createSqliteStore(path);
    expect(await store.migrate()).toEqual({ from: 3, to: sqliteMigrations.length });
    await store.writeAudit({ at: 2_000, actor: 'admin:ops', action: 'key.revoke', subject: 'key_1', details: {}, requestId: 'req_new', clientRequestId: 'theirs' });
    expect((await store.listAudit()).map(({ requestId, clientRequestId }) => ({ requestId, clientRequestId }))).toEqual([
      { requestId: 'req_new', clientRequestId: 'theirs' },
      { requestId: 'req_old', clientRequestId: null },
    ]);
    await store.close();
  });

  it('should upgrade a store whose usage rows predate the api column: they read as chat completions', async () => {
    const path = nextPath();
    const old = new Database(path);
    const beforeApi = sqliteMigrations.findIndex((migration) => migration.includes('ADD COLUMN api'));
    for (const migration of sqliteMigrations.slice(0, beforeApi)) old.exec(migration);
    old.pragma(`user_version = ${beforeApi}`);
    old.prepare(`INSERT INTO usage (usage_id, request_id, key_id, organisation, model, prompt_tokens, completion_tokens, status, interrupted, settled, created_at, updated_at)
      VALUES ('u_old', 'req_old', 'key_1', 'acme', 'quantum-lite', 10, 5, 200, 0, 1, 1000, 1000)`).run();
    old.close();

    const store = createSqliteStore(path);
    expect(await store.migrate()).toEqual({ from: beforeApi, to: sqliteMigrations.length });
    expect((await store.listUsage({ organisation: 'acme' })).map(({ usageId, api }) => [usageId, api])).toEqual([['u_old', 'chat.completions']]);
    await store.close();
  });
});
