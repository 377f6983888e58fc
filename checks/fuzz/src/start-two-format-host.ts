import type { AddressInfo } from 'node:net';
import type { ChatHandlerOptions } from '@quantum-chat/core';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import Fastify from 'fastify';

/** A Fastify host serving the API in both stream formats, as the ready server does. */
export interface TwoFormatHost {
  /** `http://127.0.0.1:<port>`: the API is below `/v1` (Quantum format) and `/compat/v1` (OpenAI format). */
  origin: string;
  close(): Promise<void>;
}

/**
 * Fastify on 127.0.0.1 and a free port, with `fastifyQuantumChat` at `/v1` and, in the OpenAI
 * stream format, at `/compat/v1`, both from the same handler options.
 *
 * @example
 * const host = await startTwoFormatHost({ engine: createReferenceEngine(), accessControl: staticApiKeys([key]) });
 * await fetch(`${host.origin}/compat/v1/models`);
 */
export async function startTwoFormatHost(options: ChatHandlerOptions): Promise<TwoFormatHost> {
  const app = Fastify();
  await app.register(fastifyQuantumChat, { prefix: '/v1', ...options, streamFormat: 'quantum' });
  await app.register(fastifyQuantumChat, { prefix: '/compat/v1', ...options, streamFormat: 'openai' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
