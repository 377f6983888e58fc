import Fastify from 'fastify';
import { fastifyQuantumChat, staticApiKeys } from '@quantum-chat/fastify';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

// Who may call the API: only the keys you list (here one, from the environment; make one with
// `npx @quantum-chat/server keys create`, or generateApiKey('live') from @quantum-chat/core).
// Without `accessControl` the plugin refuses to register: there is no open default.
const accessControl = staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]);

const app = Fastify({ logger: true });
await app.register(fastifyQuantumChat, { prefix: '/v1', engine: createReferenceEngine(), accessControl });
await app.listen({ port: 8080, host: '127.0.0.1' });
