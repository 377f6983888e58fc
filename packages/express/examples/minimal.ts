import express from 'express';
import { createExpressRouter, quantumChatErrorHandler, staticApiKeys } from '@quantum-chat/express';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

// Who may call the API: only the keys you list (here one, from the environment; make one with
// `npx @quantum-chat/server keys create`, or generateApiKey('live') from @quantum-chat/core).
// Without `accessControl` the router refuses to start: there is no open default.
const accessControl = staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]);

const app = express();
app.use('/v1', createExpressRouter({ engine: createReferenceEngine(), accessControl }));
// Only needed when a global express.json() runs before the router: turns its errors into our envelope.
app.use('/v1', quantumChatErrorHandler);
app.listen(8080, '127.0.0.1');
