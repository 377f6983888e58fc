import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { APIConnectionError, createChatClient } from '../src/index.js';

/** A port that was free a moment ago and has nobody listening now. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('connection errors', () => {
  it('should name the URL it could not reach and why, not only "fetch failed"', async () => {
    const port = await closedPort();
    const client = createChatClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k', maxRetries: 0 });
    const failure = await client.chat.completions.create({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect(APIConnectionError.isInstance(failure)).toBe(true);
    const { message } = failure as Error;
    expect(message).toContain(`POST http://127.0.0.1:${port}/v1/chat/completions`);
    expect(message).toContain('ECONNREFUSED');
    expect(message).not.toMatch(/^Connection error: fetch failed\.$/u);
  });

  it('should leave credentials in the base URL out of the message', async () => {
    const port = await closedPort();
    const client = createChatClient({ baseUrl: `http://user:secret@127.0.0.1:${port}/v1`, apiKey: 'k', maxRetries: 0, fetch: (url, init) => fetch(String(url).replace('user:secret@', ''), init) });
    const failure = (await client.models.list().catch((error: unknown) => error)) as Error;
    expect(failure.message).toContain(`GET http://127.0.0.1:${port}/v1/models`);
    expect(failure.message).not.toContain('secret');
  });
});
