import express from 'express';
import { applyRequestTimeout, createExpressRouter } from '@quantum-chat/express';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

const requestTimeoutMs = 30_000;
const app = express();
app.use('/v1', createExpressRouter({ engine: createReferenceEngine(), requestTimeoutMs }));
const server = app.listen(8080, '127.0.0.1');
// A client that trickles its headers or body gets 408 request_timeout in the error envelope,
// and its connection is closed.
applyRequestTimeout(server, { requestTimeoutMs });
