// Guessing admin tokens: each refused token is logged (never the token) and, past a few in a
// minute, the guessing address gets 429 in the error envelope; over real HTTP, ready server.
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { defaultAdminTokenFailuresPerMinute } from '../src/admin/admin-token-throttle.js';
import { parseConfigFile, resolveConfig } from '../src/config.js';
import { createQuantumServer } from '../src/create-server.js';
import { adminTokens } from './admin-fixture-runner.js';

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: { error?: { type: string; code: string; message: string } } };

/** One admin request from a chosen loopback address (the whole of 127/8 reaches a 127.0.0.1 listener). */
function adminRequest(origin: string, path: string, from: string, authorization?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(`${origin}${path}`, { localAddress: from, headers: authorization === undefined ? {} : { authorization } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(text) as Answer['body'] }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

async function startLoggedServer(file: Record<string, unknown> = {}) {
  const directory = mkdtempSync(join(tmpdir(), 'quantum-chat-throttle-'));
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = resolveConfig(parseConfigFile({ dataDir: join(directory, 'data'), metrics: false, overload: false, adminTokens, ...file }), {});
  const app = await createQuantumServer(config, { cwd: directory, env: {}, logger: pino({ level: 'info' }, sink) });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  onTestFinished(async () => {
    await app.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { origin, lines };
}

describe('failed admin tokens', () => {
  it('should log each refused token as a warning without the token, and answer 429 with retry-after once an address has failed too often', async () => {
    const { origin, lines } = await startLoggedServer();
    const good = `Bearer ${adminTokens[0]!.token}`;
    const guesses = Array.from({ length: defaultAdminTokenFailuresPerMinute }, (_, index) => `qc-admin-guess-${String(index).padStart(4, '0')}-7f3a9c1e5b`);

    // A missing token is no guess: refused, not counted.
    for (let index = 0; index <= defaultAdminTokenFailuresPerMinute; index += 1) {
      const missing = await adminRequest(origin, '/admin/v1/organisations', '127.0.0.2');
      expect(missing.body.error?.code).toBe('missing_admin_token');
    }
    for (const guess of guesses) {
      const refused = await adminRequest(origin, '/admin/v1/organisations', '127.0.0.2', `Bearer ${guess}`);
      expect(refused.status).toBe(401);
      expect(refused.body.error?.code).toBe('invalid_admin_token');
    }
    // Now even a missing token waits: the address is throttled, not the token.
    expect((await adminRequest(origin, '/admin/v1/organisations', '127.0.0.2')).status).toBe(429);

    const throttled = await adminRequest(origin, '/admin/v1/keys', '127.0.0.2', 'Bearer qc-admin-one-more-guess-0000000000');
    expect(throttled.status).toBe(429);
    expect(throttled.body.error).toMatchObject({ type: 'rate_limit_error', code: 'too_many_failed_admin_tokens' });
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(throttled.headers['content-type']).toBe('application/json; charset=utf-8');
    // While it lasts, even the right token from that address waits: a guess must not learn it was right.
    expect((await adminRequest(origin, '/admin/v1/organisations', '127.0.0.2', good)).status).toBe(429);

    // Another address is not affected.
    expect((await adminRequest(origin, '/admin/v1/organisations', '127.0.0.3', good)).status).toBe(200);
    expect((await adminRequest(origin, '/admin/v1/organisations', '127.0.0.3', 'Bearer qc-admin-typo-00000000000000000')).status).toBe(401);

    // One line per refused token, one when an address is throttled (not one per throttled request).
    const warnings = lines.filter((line) => line.msg === 'admin token refused');
    expect(warnings).toHaveLength(defaultAdminTokenFailuresPerMinute + 1);
    expect(lines.filter((line) => line.msg === 'admin token guesses throttled')).toEqual([expect.objectContaining({ level: 40, clientAddress: '127.0.0.2', failures: defaultAdminTokenFailuresPerMinute })]);
    expect(warnings.every((line) => line.level === 40)).toBe(true);
    expect(warnings[0]).toMatchObject({ clientAddress: '127.0.0.2', reason: 'invalid_admin_token', path: '/admin/v1/organisations' });
    expect(warnings.at(-1)).toMatchObject({ clientAddress: '127.0.0.3' });
    const logged = JSON.stringify(lines);
    for (const guess of guesses) expect(logged).not.toContain(guess);
    expect(logged).not.toContain(adminTokens[0]!.token);
  });

  it('should throttle after as many wrong tokens a minute as adminTokenFailuresPerMinute says', async () => {
    const { origin } = await startLoggedServer({ adminTokenFailuresPerMinute: 2 });
    const wrong = 'Bearer qc-admin-wrong-token-000000000000';
    expect((await adminRequest(origin, '/admin/v1/usage', '127.0.0.4', wrong)).status).toBe(401);
    expect((await adminRequest(origin, '/admin/v1/usage', '127.0.0.4', wrong)).status).toBe(401);
    const throttled = await adminRequest(origin, '/admin/v1/usage', '127.0.0.4', wrong);
    expect(throttled.status).toBe(429);
    expect(throttled.body.error?.code).toBe('too_many_failed_admin_tokens');
  });
});
