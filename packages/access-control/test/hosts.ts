import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { ChatHandlerOptions } from '@quantum-chat/core';
import { createExpressRouter } from '@quantum-chat/express';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import express from 'express';
import Fastify from 'fastify';

/** A host serving the chat API at `${baseUrl}` (which ends in `/v1`) on 127.0.0.1. */
export interface RunningHost {
  baseUrl: string;
  close(): Promise<void>;
}

export type HostName = 'express' | 'fastify';

/** Starts the handler behind a real adapter on 127.0.0.1:0. */
export const startHost: Record<HostName, (options: ChatHandlerOptions) => Promise<RunningHost>> = {
  async express(options) {
    const app = express();
    app.use('/v1', createExpressRouter(options));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    return {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  },
  async fastify(options) {
    // undici may open a spare connection that never carries a request; only a forced close ends it.
    const app = Fastify({ forceCloseConnections: true });
    await app.register(fastifyQuantumChat, { prefix: '/v1', ...options });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    return { baseUrl: `http://127.0.0.1:${port}/v1`, close: () => app.close() };
  },
};

export const hostNames: HostName[] = ['express', 'fastify'];
