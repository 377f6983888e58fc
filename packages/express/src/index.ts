// @quantum-chat/express: mount the Quantum chat API in an Express app.
export { createExpressRouter, quantumChatErrorHandler } from './create-express-router.js';
export type { ExpressRouterOptions } from './create-express-router.js';
