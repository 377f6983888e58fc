import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatHandler, ChatHandlerOptions } from '@quantum-chat/core';
import { createExpressRouter, quantumChatErrorHandler } from '@quantum-chat/express';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import express from 'express';
import Fastify from 'fastify';

type HostName = 'express' | 'fastify';

/** A host listening on 127.0.0.1, serving the API below `/v1`. */
export interface Host {
  name: HostName;
  port: number;
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** The Node server, for connection counts and shutdown. */
  server: Server;
  close(): Promise<void>;
}

export interface ExpressHostOptions {
  /** Mount a global `express.json()` in front of the router, as many apps do. */
  globalJson?: boolean;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Express 5 with `createExpressRouter` at `/v1` (and optionally a global JSON parser in front). */
export async function startExpressHost(handler: ChatHandlerOptions | ChatHandler, options: ExpressHostOptions = {}): Promise<Host> {
  const app = express();
  if (options.globalJson) app.use(express.json({ limit: '2mb' }));
  app.use('/v1', createExpressRouter('handle' in handler ? { handler } : handler));
  app.use('/v1', quantumChatErrorHandler);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return { name: 'express', port, baseUrl: `http://127.0.0.1:${port}/v1`, server, close: () => closeServer(server) };
}

/** Fastify 5 with `fastifyQuantumChat` registered at `/v1`. */
export async function startFastifyHost(handler: ChatHandlerOptions | ChatHandler): Promise<Host> {
  const app = Fastify();
  const pluginOptions = 'handle' in handler ? { handler } : handler;
  await app.register(fastifyQuantumChat, { prefix: '/v1', ...pluginOptions });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const server = app.server;
  const port = (server.address() as AddressInfo).port;
  return {
    name: 'fastify',
    port,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    server,
    close: async () => {
      server.closeAllConnections();
      await app.close();
    },
  };
}
