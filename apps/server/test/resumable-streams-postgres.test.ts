import { describe, expect, it, onTestFinished } from 'vitest';
import { postgresAvailable, postgresSkipMessage, startPostgresServer } from '../../../packages/access-control/test/postgres-server.js';
import { startInProcessServer } from './in-process-server.js';

if (!postgresAvailable) console.warn(postgresSkipMessage);

const body = JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { resumable: true } });

describe.skipIf(!postgresAvailable)('resumable streams on a shared PostgreSQL store without Redis', { timeout: 120_000 }, () => {
  it('should refuse them with a sentence saying why, unless the config says the instance is alone', async () => {
    const pg = await startPostgresServer();
    onTestFinished(() => pg.stop());
    for (const singleInstance of [false, true]) {
      const server = await startInProcessServer({ databaseUrl: await pg.createDatabase(), streams: { singleInstance } });
      onTestFinished(() => server.close());
      const response = await fetch(`${server.origin}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${server.testKey}`, 'content-type': 'application/json' }, body });
      if (singleInstance) {
        expect(response.status).toBe(200);
        expect(response.headers.get('x-quantum-stream-id')).toMatch(/^chatcmpl-/);
        expect(await response.text()).toMatch(/data: \[DONE\]\n\n$/);
        continue;
      }
      expect(response.status).toBe(400);
      const { error } = await response.json();
      expect(error).toMatchObject({ param: 'stream_options.resumable', code: 'unsupported_value' });
      expect(error.message).toContain('REDIS_URL');
    }
  });
});
