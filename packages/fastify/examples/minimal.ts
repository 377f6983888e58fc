import Fastify from 'fastify';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

const app = Fastify({ logger: true });
await app.register(fastifyQuantumChat, { prefix: '/v1', engine: createReferenceEngine() });
await app.listen({ port: 8080, host: '127.0.0.1' });
