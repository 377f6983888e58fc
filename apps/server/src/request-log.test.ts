import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { OneLineRequestLog, requestLogFields } from './request-log.js';

/** A Fastify app whose log lines are collected, at `level`, over real HTTP. */
async function appLoggingAt(level: string, options: pino.LoggerOptions = {}) {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      raw.push(chunk.toString('utf8'));
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ loggerInstance: pino({ level, ...options }, sink), logController: new OneLineRequestLog() });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  onTestFinished(() => app.close());
  const { port } = app.server.address() as { port: number };
  return { lines, raw, url: (path: string) => `http://127.0.0.1:${port}${path}` };
}

describe('OneLineRequestLog', () => {
  it('should write one line per request, with the request, the status and the time', async () => {
    const { lines, url } = await appLoggingAt('info');
    expect((await fetch(url('/ok?probe=1'))).status).toBe(200);
    expect((await fetch(url('/fails'))).status).toBe(500);
    await new Promise((resolve) => setImmediate(resolve));
    const requestLines = lines.filter((line) => line.reqId !== undefined && line.req !== undefined);
    expect(lines.some((line) => line.msg === 'incoming request')).toBe(false);
    const completed = requestLines.filter((line) => line.msg === 'request completed');
    expect(completed).toHaveLength(2);
    expect(completed[0]).toMatchObject({ level: 30, req: { method: 'GET', url: '/ok?probe=1' }, res: { statusCode: 200 } });
    expect(completed[1]).toMatchObject({ req: { method: 'GET', url: '/fails' }, res: { statusCode: 500 } });
    expect(typeof completed[0]!.responseTime).toBe('number');
    expect(new Set(completed.map((line) => line.reqId)).size).toBe(2);
  });

  it('should still show a request as it arrives at debug', async () => {
    const { lines, url } = await appLoggingAt('debug');
    await (await fetch(url('/ok'))).text();
    await new Promise((resolve) => setImmediate(resolve));
    const incoming = lines.find((line) => line.msg === 'incoming request');
    expect(incoming).toMatchObject({ level: 20, req: { method: 'GET', url: '/ok' } });
    const completed = lines.find((line) => line.msg === 'request completed');
    expect(completed?.reqId).toBe(incoming?.reqId);
  });

  it('should show the request by its listed fields only, never a credential header', async () => {
    const { lines, raw, url } = await appLoggingAt('debug', { serializers: { req: requestLogFields } });
    const secrets = { authorization: 'Bearer qc_live_secretsecretsecret', 'x-service-signature': 't=1,v1=deadbeefdeadbeef', 'accept-version': 'version-from-a-header' };
    await (await fetch(url('/ok'), { headers: secrets })).text();
    await new Promise((resolve) => setImmediate(resolve));
    for (const message of ['incoming request', 'request completed']) {
      const line = lines.find((entry) => entry.msg === message);
      expect(Object.keys(line!.req as object).sort()).toEqual(['host', 'method', 'remoteAddress', 'remotePort', 'url']);
    }
    const text = raw.join('');
    for (const secret of Object.values(secrets)) expect(text).not.toContain(secret);
  });
});
