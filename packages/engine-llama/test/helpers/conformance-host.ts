import type { AddressInfo } from 'node:net';
import type { ChatHandlerOptions } from '@quantum-chat/core';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import Fastify from 'fastify';

/** A Fastify app with the handler options at `/v1`, as the conformance runner wants it. */
export async function createFastifyHost(options: ChatHandlerOptions): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const app = Fastify();
  await app.register(fastifyQuantumChat, { prefix: '/v1', ...options });
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
