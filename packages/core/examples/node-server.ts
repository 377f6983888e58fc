import { createServer } from 'node:http';
import { createChatHandler } from '@quantum-chat/core';
import { readChatRequest, writeChatResponse } from '@quantum-chat/core/node';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

const handler = createChatHandler({ engine: createReferenceEngine() });

// Plain node:http: the bridge hands the body to the core unread (read under the handler's limit),
// makes the response the client connection, and writes JSON or Server-Sent Events with backpressure.
const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const request = await readChatRequest(req, res, { path: url.pathname.replace(/^\/v1(?=\/|$)/, '') || '/' });
  await writeChatResponse(res, await handler.handle(request));
});
server.listen(8080, '127.0.0.1');
