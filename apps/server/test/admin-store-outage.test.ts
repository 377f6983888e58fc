// The admin API while its store is down: 503 store_unavailable with retry-after, in the error
// envelope (never a 500 or a hang), and answers again once the store is back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { postgresAvailable, postgresSkipMessage, startPostgresServer } from '../../../packages/access-control/test/postgres-server.js';
import { parseConfigFile, resolveConfig } from '../src/config.js';
import { createQuantumServer } from '../src/create-server.js';
import { adminTokens } from './admin-fixture-runner.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

describe.skipIf(!postgresAvailable)('the admin API while PostgreSQL is down', { timeout: 90_000 }, () => {
  it('should answer 503 store_unavailable with retry-after, then work again once the store is back', async () => {
    const pg = await startPostgresServer();
    onTestFinished(() => pg.stop());
    const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-admin-outage-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const config = resolveConfig(parseConfigFile({ logLevel: 'silent', metrics: false, overload: false, databaseUrl: await pg.createDatabase(), adminTokens }), {});
    const app = await createQuantumServer(config, { cwd: directory, env: {} });
    onTestFinished(() => app.close());
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const admin = (path: string, init: RequestInit = {}) =>
      fetch(`${origin}/admin/v1${path}`, { ...init, headers: { authorization: `Bearer ${adminTokens[0]!.token}`, 'content-type': 'application/json' } });

    expect((await admin('/organisations', { method: 'POST', body: JSON.stringify({ name: 'acme' }) })).status).toBe(201);
    await pg.stopServer();
    for (const [path, init] of [['/organisations', {}], ['/keys', { method: 'POST', body: JSON.stringify({ organisation: 'acme' }) }], ['/usage', {}]] as const) {
      const response = await admin(path, init);
      expect(response.status, path).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toEqual({ error: { message: 'The store did not answer; retry the request shortly.', type: 'server_error', param: null, code: 'store_unavailable' } });
    }
    await pg.startServer();
    // The driver reconnects on the next query.
    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
      status = (await admin('/organisations')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status).toBe(200);
  });
});
