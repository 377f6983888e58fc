import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatHandler, generateApiKey, type ChatHandlerOptions } from '@quantum-chat/core';
import { createExpressRouter } from '@quantum-chat/express';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import express from 'express';
import Fastify from 'fastify';

export type HostKind = 'fastify' | 'express';

export interface Host {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  close(): Promise<void>;
}

const apiKey = generateApiKey('live');

/** Our handler behind a real adapter on 127.0.0.1:0, mounted at `/v1`. */
export async function startHost(kind: HostKind, options: ChatHandlerOptions): Promise<Host> {
  const handler = createChatHandler(options);
  if (kind === 'fastify') {
    const app = Fastify();
    await app.register(fastifyQuantumChat, { prefix: '/v1', handler });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    return {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      close: async () => {
        app.server.closeAllConnections();
        await app.close();
      },
    };
  }
  const app = express();
  app.use('/v1', createExpressRouter(handler));
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Posts a chat request. */
export function postChat(baseUrl: string, body: Record<string, unknown>, init: { signal?: AbortSignal } = {}): Promise<Response> {
  return fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}
