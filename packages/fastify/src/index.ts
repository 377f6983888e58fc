// @quantum-chat/fastify: the Quantum chat API as a Fastify plugin.
export { fastifyQuantumChat } from './fastify-quantum-chat.js';
export type { FastifyQuantumChatOptions } from './fastify-quantum-chat.js';
// Who may call the API, re-exported so an app needs no direct import of the core.
export { insecureAcceptAnyApiKey, staticApiKeys } from '@quantum-chat/core';
