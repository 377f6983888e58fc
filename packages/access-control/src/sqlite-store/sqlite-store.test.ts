import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { describeKeyStoreContract } from '../test/key-store-contract.js';
import { hashApiKey } from './hash-api-key.js';
import { issueApiKey } from './issue-api-key.js';
import { createSqliteKeyStore } from './sqlite-key-store.js';
import { sqliteMigrations } from './sqlite-migrations.js';

const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-sqlite-'));
let files = 0;
const nextPath = () => join(directory, `store-${++files}.sqlite`);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeKeyStoreContract('createSqliteKeyStore', {
  open: async () => createSqliteKeyStore(nextPath()),
  openShared: async () => {
    const path = nextPath();
    return [createSqliteKeyStore(path), createSqliteKeyStore(path)];
  },
});

describe('createSqliteKeyStore', () => {
  it('should keep keys, organisations and usage across reopening', async () => {
    const path = nextPath();
    const first = createSqliteKeyStore(path);
    await first.createOrganisation({ name: 'acme', plan: 'elite', limits: { requestsPerMinute: 3 } });
    const { key } = await issueApiKey(first, { organisation: 'acme', kind: 'live' });
    await first.close();
    const second = createSqliteKeyStore(path);
    expect((await second.findKeyByHash(hashApiKey(key)))?.organisation).toMatchObject({ plan: 'elite', limits: { requestsPerMinute: 3 } });
    await second.close();
  });

  it('should never write the secret key to disk, only its hash', async () => {
    const path = nextPath();
    const store = createSqliteKeyStore(path);
    await store.createOrganisation({ name: 'acme', plan: 'free' });
    const { key } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
    await store.close();
    const bytes = readFileSync(path).toString('latin1');
    expect(bytes).toContain(hashApiKey(key));
    expect(bytes).not.toContain(key.slice(8, 30));
  });

  it('should let two connections (two server processes) share one file in WAL mode', async () => {
    const path = nextPath();
    const writer = createSqliteKeyStore(path);
    const reader = createSqliteKeyStore(path);
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

    const store = createSqliteKeyStore(path);
    expect(await store.migrate()).toEqual({ from: 3, to: sqliteMigrations.length });
    await store.writeAudit({ at: 2_000, actor: 'admin:ops', action: 'key.revoke', subject: 'key_1', details: {}, requestId: 'req_new', clientRequestId: 'theirs' });
    expect((await store.listAudit()).map(({ requestId, clientRequestId }) => ({ requestId, clientRequestId }))).toEqual([
      { requestId: 'req_new', clientRequestId: 'theirs' },
      { requestId: 'req_old', clientRequestId: null },
    ]);
    await store.close();
  });
});
