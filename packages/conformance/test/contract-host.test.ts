/**
 * A host written only from the documented host contract (the core README, "Writing a host"):
 * plain node:http, no `@quantum-chat/core/node` bridge, no hidden hooks. It must pass every
 * conformance case, and the core must still free a stream whose client stopped reading (it
 * closes the connection through `connection.destroy()`), notice a client that left
 * (`connection.onClose`), and read the body under the handler's own limit.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { insecureAcceptAnyApiKey, createChatHandler, generateApiKey, type ChatEngine, type ChatHandler, type ChatRequestRecord } from '@quantum-chat/core';
import type { ChatHttpReadBody, ClientConnection } from '@quantum-chat/core/host';
import { afterEach, describe, expect, it } from 'vitest';
import { runServerConformance } from '../src/index.js';

/** The contract's connection for a Node response: closed on 'close' before the end, destroyed with the socket. */
function connectionOf(res: ServerResponse): ClientConnection {
  let closed = false;
  const listeners = new Set<() => void>();
  res.on('close', () => {
    if (res.writableEnded) return;
    closed = true;
    for (const listener of listeners) listener();
    listeners.clear();
  });
  return {
    get closed() {
      return closed;
    },
    onClose(listener) {
      if (closed) {
        listener();
        return () => undefined;
      }
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    destroy() {
      res.destroy();
    },
  };
}

/** The body, read when the core asks, under the limit the core gives. */
function readBody(req: IncomingMessage, maxBodyBytes: number): Promise<ChatHttpReadBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBodyBytes) resolve({ kind: 'rejected', reason: 'too-large' });
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(total === 0 ? { kind: 'empty' } : { kind: 'bytes', bytes: Buffer.concat(chunks) }));
    req.on('error', () => resolve({ kind: 'rejected', reason: 'unreadable' }));
  });
}

/** Resolves on 'drain' or on 'close' (a destroyed socket never drains). */
function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

function contractHost(handler: ChatHandler): Server {
  return createServer(async (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const query = queryAt === -1 ? undefined : url.slice(queryAt + 1);
    const mounted = pathname === '/v1' || pathname.startsWith('/v1/');
    const response = await handler.handle({
      method: req.method ?? 'GET',
      path: (mounted ? pathname.slice('/v1'.length) : pathname) || '/',
      query,
      basePath: mounted ? '/v1' : '',
      headers: req.headers,
      body: { kind: 'unread', read: (maxBodyBytes) => readBody(req, maxBodyBytes) },
      connection: connectionOf(res),
    });
    res.writeHead(response.status, response.headers);
    if (!('events' in response)) {
      res.end(response.body);
      return;
    }
    try {
      for await (const frame of response.events) {
        if (res.destroyed) break;
        if (!res.write(frame)) await drainedOrClosed(res);
      }
      res.end();
    } catch {
      res.destroy();
    }
  });
}

runServerConformance('contract-host', async (options) => {
  const server = contractHost(createChatHandler(options));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
});

const key = generateApiKey('live');

/** Content in 64 KiB pieces until aborted: fills any socket quickly. */
function floodingEngine(onAbort: () => void): ChatEngine {
  const piece = 'x'.repeat(64 * 1024);
  return {
    async *generate(_request, { signal }) {
      signal.addEventListener('abort', onAbort, { once: true });
      while (!signal.aborted) {
        await new Promise((resolve) => setImmediate(resolve));
        yield { type: 'content', text: piece };
      }
    },
  };
}

function rawRequest(body: string): string {
  return [
    'POST /v1/chat/completions HTTP/1.1',
    'host: 127.0.0.1',
    `authorization: Bearer ${key}`,
    'content-type: application/json',
    `content-length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(handler: ChatHandler): Promise<{ server: Server; port: number }> {
  const server = contractHost(handler);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}

describe('a host written from the documented contract', () => {
  it('should have the connection of a stream whose client stopped reading closed by the core, the engine stopped and the request settled', async () => {
    let engineAborted!: () => void;
    const aborted = new Promise<void>((resolve) => (engineAborted = resolve));
    let settle!: (record: ChatRequestRecord) => void;
    const settled = new Promise<ChatRequestRecord>((resolve) => (settle = resolve));
    const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: floodingEngine(() => engineAborted()), stallTimeoutMs: 200, keepAliveIntervalMs: 0, onRequestSettled: settle });
    const { server, port } = await listen(handler);
    const serverSocketClosed = new Promise<void>((resolve) => server.once('connection', (socket: Socket) => socket.once('close', () => resolve())));

    // A client that sends its request and never reads a byte of the answer.
    const client = connect(port, '127.0.0.1');
    sockets.push(client);
    await once(client, 'connect');
    client.pause();
    client.write(rawRequest(JSON.stringify({ model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'flood' }] })));

    await Promise.all([serverSocketClosed, aborted]);
    const record = await settled;
    expect(record).toMatchObject({ status: 200, interrupted: true });
    expect(record.completionTokens).toBeGreaterThan(0);
  }, 20_000);

  it('should stop the engine when the client leaves mid-stream', async () => {
    let engineAborted!: () => void;
    const aborted = new Promise<void>((resolve) => (engineAborted = resolve));
    let settle!: (record: ChatRequestRecord) => void;
    const settled = new Promise<ChatRequestRecord>((resolve) => (settle = resolve));
    const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: floodingEngine(() => engineAborted()), stallTimeoutMs: 0, onRequestSettled: settle });
    const { port } = await listen(handler);
    const client = connect(port, '127.0.0.1');
    sockets.push(client);
    await once(client, 'connect');
    client.write(rawRequest(JSON.stringify({ model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'flood' }] })));
    await once(client, 'data');
    client.destroy();
    await aborted;
    expect(await settled).toMatchObject({ interrupted: true });
  });

  it("should read the body under the handler's limit, whatever it is", async () => {
    const engine: ChatEngine = {
      async *generate() {
        yield { type: 'content', text: 'ok' };
        yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
      },
    };
    const body = JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'y'.repeat(2 * 1024 * 1024) }] });
    const large = await listen(createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine, maxBodyBytes: 10 * 1024 * 1024 }));
    const small = await listen(createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine, maxBodyBytes: 1024 }));
    const post = (port: number) =>
      fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect((await post(large.port)).status).toBe(200);
    const refused = await post(small.port);
    expect(refused.status).toBe(413);
    expect((await refused.json()).error.message).toBe('The request body is larger than 1024 bytes.');
  });
});
