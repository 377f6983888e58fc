// @quantum-chat/fastify: the Quantum chat API as a Fastify plugin.
export { fastifyQuantumChat } from './fastify-quantum-chat.js';
export type { FastifyQuantumChatOptions } from './fastify-quantum-chat.js';
/** The options every host takes (Express and Fastify alike). */
export type { HostOptions } from '@quantum-chat/core/node';
// Who may call the API, re-exported so an app needs no direct import of the core.
export { insecureAcceptAnyApiKey, staticApiKeys } from '@quantum-chat/core';
