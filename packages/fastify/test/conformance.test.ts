import { runServerConformance } from '@quantum-chat/conformance';
import Fastify from 'fastify';
import { fastifyQuantumChat } from '../src/index.js';

runServerConformance('fastify', async (handlerOptions) => {
  const app = Fastify();
  await app.register(fastifyQuantumChat, { prefix: '/v1', ...handlerOptions });
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  return { baseUrl: `${baseUrl}/v1`, close: () => app.close() };
});
