// @quantum-chat/express: mount the Quantum chat API in an Express app.
export { createExpressRouter, quantumChatErrorHandler } from './create-express-router.js';
export type { ExpressRouterOptions } from './create-express-router.js';
/** The options every host takes (Express and Fastify alike). */
export type { HostOptions } from '@quantum-chat/core/node';
// Who may call the API, re-exported so an app needs no direct import of the core.
export { insecureAcceptAnyApiKey, staticApiKeys } from '@quantum-chat/core';
/** Gives the server `app.listen()` returned the handler's request timeout (headers too): 408 in the envelope. */
export { applyRequestTimeout } from '@quantum-chat/core/node';
