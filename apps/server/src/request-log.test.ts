import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { OneLineRequestLog } from './request-log.js';

/** A Fastify app whose log lines are collected, at `level`, over real HTTP. */
async function appLoggingAt(level: string) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ loggerInstance: pino({ level }, sink), logController: new OneLineRequestLog() });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/fails', async () => {
    throw new Error('boom');
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  onTestFinished(() => app.close());
  const { port } = app.server.address() as { port: number };
  return { lines, url: (path: string) => `http://127.0.0.1:${port}${path}` };
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
});
