// @quantum-chat/web: the playground and the API reference page of the ready server, as a
// Fastify plugin that serves this package's own built files (no CDN: they work offline).

/** The plugin and its options. */
export { quantumChatWeb } from './quantum-chat-web.js';
export type { QuantumChatWebOptions } from './quantum-chat-web.js';
