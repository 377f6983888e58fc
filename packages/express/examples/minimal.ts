import express from 'express';
import { createExpressRouter, quantumChatErrorHandler } from '@quantum-chat/express';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

const app = express();
app.use('/v1', createExpressRouter({ engine: createReferenceEngine() }));
// Only needed when a global express.json() runs before the router: turns its errors into our envelope.
app.use('/v1', quantumChatErrorHandler);
app.listen(8080, '127.0.0.1');
