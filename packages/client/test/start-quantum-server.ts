import { insecureAcceptAnyApiKey } from '@quantum-chat/core';
import type { AddressInfo } from 'node:net';
import type { ChatHandlerOptions } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import Fastify from 'fastify';

/** A real Fastify server with the Quantum plugin on 127.0.0.1, and how to close it. */
export interface QuantumServer {
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Starts Fastify with `fastifyQuantumChat` at `/v1` over the reference engine (or the given
 * handler options), listening on an ephemeral port of 127.0.0.1.
 */
export async function startQuantumServer(options: Partial<ChatHandlerOptions> = {}): Promise<QuantumServer> {
  // forceCloseConnections: after a fetch is aborted mid-stream, undici opens a spare
  // connection that never carries a request (nodejs/undici#5845); `close()` must not wait for it.
  const app = Fastify({ forceCloseConnections: true });
  await app.register(fastifyQuantumChat, { prefix: '/v1', accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine(), keepAliveIntervalMs: 0, ...options });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, close: () => app.close() };
}
