import express from 'express';
import { applyRequestTimeout, createExpressRouter, staticApiKeys } from '@quantum-chat/express';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

const requestTimeoutMs = 30_000;
const accessControl = staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]);
const app = express();
app.use('/v1', createExpressRouter({ engine: createReferenceEngine(), accessControl, requestTimeoutMs }));
const server = app.listen(8080, '127.0.0.1');
// A client that trickles its headers or body gets 408 request_timeout in the error envelope,
// and its connection is closed.
applyRequestTimeout(server, { requestTimeoutMs });
