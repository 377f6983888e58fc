// `GET /metrics` behind a token (config `metricsToken`, env `QUANTUM_CHAT_METRICS_TOKEN`), and
// open without one as before; over real HTTP against the ready server.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ConfigError, parseConfigFile, resolveConfig } from '../src/config.js';
import { startInProcessServer } from './in-process-server.js';

const fileToken = 'qc-metrics-file-3d9a7c1e5b2f4a6d8c0e';
const envToken = 'qc-metrics-env-8b1d4f7a2c9e6b3d5f0a';

const scrape = (origin: string, authorization?: string) => fetch(`${origin}/metrics`, { headers: authorization === undefined ? {} : { authorization } });

describe('GET /metrics with a metrics token', () => {
  it('should answer 401 in the error envelope without the token or with a wrong one, and the metrics with it', async () => {
    const server = await startInProcessServer({ metricsToken: fileToken });
    onTestFinished(() => server.close());

    const missing = await scrape(server.origin);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const missingBody = (await missing.json()) as { error: { type: string; code: string; message: string } };
    expect(missingBody.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
    expect(missingBody.error.message).toContain('metrics token');

    for (const authorization of [`Bearer ${fileToken}x`, `Basic ${fileToken}`, 'Bearer', `Bearer ${server.testKey}`]) {
      const wrong = await scrape(server.origin, authorization);
      expect(wrong.status, authorization).toBe(401);
      const body = (await wrong.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_api_key');
      expect(body.error.message).not.toContain(fileToken);
    }

    const allowed = await scrape(server.origin, `Bearer ${fileToken}`);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await allowed.text()).toContain('quantum_chat_requests_total');
  });

  it('should take QUANTUM_CHAT_METRICS_TOKEN over the config file', async () => {
    const server = await startInProcessServer({ metricsToken: fileToken }, { QUANTUM_CHAT_METRICS_TOKEN: envToken });
    onTestFinished(() => server.close());
    expect((await scrape(server.origin, `Bearer ${fileToken}`)).status).toBe(401);
    expect((await scrape(server.origin, `Bearer ${envToken}`)).status).toBe(200);
  });

  it('should stay open without a token, as before', async () => {
    const server = await startInProcessServer();
    onTestFinished(() => server.close());
    const open = await scrape(server.origin);
    expect(open.status).toBe(200);
    expect(await open.text()).toContain('quantum_chat_requests_total');
  });

  it('should refuse a token too short to be a secret, from the file or the environment', () => {
    expect(() => parseConfigFile({ metricsToken: 'short' })).toThrow(ConfigError);
    expect(() => resolveConfig({}, { QUANTUM_CHAT_METRICS_TOKEN: 'short' })).toThrow(/QUANTUM_CHAT_METRICS_TOKEN/);
  });
});
