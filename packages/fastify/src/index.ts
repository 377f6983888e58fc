// @quantum-chat/fastify: the Quantum chat API as a Fastify plugin.
export { fastifyQuantumChat } from './fastify-quantum-chat.js';
export type { FastifyQuantumChatOptions } from './fastify-quantum-chat.js';
