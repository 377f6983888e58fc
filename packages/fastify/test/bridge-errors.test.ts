import { runHostBridgeConformance } from '@quantum-chat/conformance';
import Fastify from 'fastify';
import { fastifyQuantumChat } from '../src/index.js';

runHostBridgeConformance('fastify', async (options) => {
  // Closes the connections of clients that left, as the Express host does with closeAllConnections().
  const app = Fastify({ forceCloseConnections: true });
  await app.register(fastifyQuantumChat, { prefix: '/v1', ...options });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return { baseUrl: `${baseUrl}/v1`, close: () => app.close() };
});
