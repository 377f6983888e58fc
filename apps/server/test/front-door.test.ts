import { errorEnvelopeSchema } from '@quantum-chat/core/schemas';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startInProcessServer } from './in-process-server.js';
import { openStream } from './sse.js';

const appOrigin = 'https://app.example.com';
const question = { model: 'quantum-lite', messages: [{ role: 'user', content: 'Tell me about lighthouses in four sentences.' }] };

function preflight(origin: string, url: string, headers = 'authorization, content-type'): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });
}

describe('CORS (over real HTTP)', () => {
  it('should stay off unless configured: a preflight gets 405 and no CORS header', async () => {
    const server = await startInProcessServer();
    onTestFinished(() => server.close());
    const response = await preflight(appOrigin, `${server.origin}/v1/chat/completions`);
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('should answer a browser preflight and expose the API headers to an allowed origin', async () => {
    const server = await startInProcessServer({ cors: { origins: [appOrigin], maxAgeSeconds: 120 } });
    onTestFinished(() => server.close());
    for (const path of ['/v1/chat/completions', '/compat/v1/chat/completions', '/v1/models']) {
      const response = await preflight(appOrigin, `${server.origin}${path}`, 'authorization, content-type, x-stream-format');
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe(appOrigin);
      expect(response.headers.get('access-control-allow-methods')).toContain('POST');
      expect(response.headers.get('access-control-allow-headers')).toContain('authorization');
      expect(response.headers.get('access-control-allow-headers')).toContain('x-stream-format');
      expect(response.headers.get('access-control-max-age')).toBe('120');
    }
    // The request itself, JSON and streamed: the origin is allowed and the API's headers readable.
    const json = await fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: appOrigin, authorization: `Bearer ${server.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(question),
    });
    expect(json.status).toBe(200);
    expect(json.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(json.headers.get('access-control-expose-headers')).toContain('x-request-id');
    expect(json.headers.get('access-control-expose-headers')).toContain('x-ratelimit-remaining-requests');
    const stream = await fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: appOrigin, authorization: `Bearer ${server.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...question, stream: true }),
    });
    expect(stream.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(await stream.text()).toMatch(/data: \[DONE\]\n\n$/);
    // Errors carry it too, so a browser can read the envelope.
    const refused = await fetch(`${server.origin}/v1/chat/completions`, { method: 'POST', headers: { origin: appOrigin, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(appOrigin);
  });

  it('should not allow an origin it was not given', async () => {
    const server = await startInProcessServer({ cors: { origins: [appOrigin] } });
    onTestFinished(() => server.close());
    const response = await preflight('https://evil.example.net', `${server.origin}/v1/chat/completions`);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('should refuse credentials with any origin at start', async () => {
    await expect(startInProcessServer({ cors: { origins: '*', credentials: true } })).rejects.toThrow(/cors\.credentials: credentials need explicit origins/);
  });
});

describe('load shedding (over real HTTP)', () => {
  it('should answer new requests 503 overloaded with retry-after while memory is past its threshold, and let a running stream finish', async () => {
    // A first server loads what every server in this process shares (the tokenizer), so the
    // heap measured next is the one the shedding server starts from.
    await (await startInProcessServer()).close();
    const threshold = process.memoryUsage().heapUsed + 400 * 1024 * 1024;
    const server = await startInProcessServer({
      overload: { maxHeapUsedBytes: threshold, sampleIntervalMs: 20, retryAfterSeconds: 7 },
      // Paced, so the stream is still running while the server is overloaded.
      reference: { tokensPerSecond: 40 },
      shutdownGraceMs: 500,
    });
    let ballast: number[][] | undefined = [];
    onTestFinished(async () => {
      ballast = undefined;
      await server.close();
    });
    const running = await openStream(`${server.origin}/v1/chat/completions`, server.testKey, question);
    expect(running.status).toBe(200);
    await running.firstBytes;

    // This process is the server's: 800 MiB held (doubles, 8 bytes each) put its heap past the
    // threshold whatever garbage the heap measured at start held.
    // Filling it takes seconds on a busy machine: the poll waits generously.
    for (let index = 0; index < 100; index++) ballast.push(new Array<number>(1 << 20).fill(1.5));
    await expect.poll(async () => (await fetch(`${server.origin}/v1/models`)).status, { timeout: 30_000, interval: 25 }).toBe(503);

    for (const request of [
      fetch(`${server.origin}/v1/models`),
      fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.testKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...question, stream: true }),
      }),
    ]) {
      const response = await request;
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('7');
      expect(response.headers.get('x-request-id')).toMatch(/^req_/);
      const envelope = errorEnvelopeSchema.parse(await response.json());
      expect(envelope.error).toMatchObject({ type: 'server_error', code: 'overloaded', param: null });
      expect(envelope.error.message).toContain('retry after 7 seconds');
    }
    // Probes and scrapes still answer.
    expect((await fetch(`${server.origin}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.origin}/metrics`)).status).toBe(200);
    // The stream that was running goes on to its end.
    const body = await running.body;
    expect(body).toMatch(/data: \[DONE\]\n\n$/);
    expect(ballast.length).toBeGreaterThan(0);
  }, 60_000);

  it('should not shed an idle server, however short its sampling interval', async () => {
    // A sample with no event-loop tick in it (the loop's 10 ms clock had not ticked twice yet)
    // once read as an infinite delay: an idle server answered a tenth of its requests 503.
    const server = await startInProcessServer({ overload: { sampleIntervalMs: 20 } });
    onTestFinished(() => server.close());
    const statuses: number[] = [];
    for (let index = 0; index < 60; index++) {
      statuses.push((await fetch(`${server.origin}/v1/models`)).status);
      await new Promise((resolve) => setTimeout(resolve, 7));
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  }, 30_000);

  it('should shed new requests while the event loop was blocked past its threshold, and serve again after', async () => {
    const server = await startInProcessServer({ overload: { maxEventLoopDelayMs: 100, sampleIntervalMs: 400, retryAfterSeconds: 3 } });
    onTestFinished(() => server.close());
    expect((await fetch(`${server.origin}/v1/models`)).status).toBe(200);
    // This process is the server's: hold its loop for 700 ms.
    const until = performance.now() + 700;
    while (performance.now() < until);
    const shed = await fetch(`${server.origin}/v1/models`);
    expect(shed.status).toBe(503);
    expect(shed.headers.get('retry-after')).toBe('3');
    expect(errorEnvelopeSchema.parse(await shed.json()).error.message).toContain('event loop is delayed');
    await expect.poll(async () => (await fetch(`${server.origin}/v1/models`)).status, { timeout: 10_000, interval: 50 }).toBe(200);
  }, 30_000);
});
