import { createServer } from 'node:http';
import { createChatHandler, staticApiKeys } from '@quantum-chat/core';
import { readChatRequest, writeChatResponse } from '@quantum-chat/core/node';
import { createReferenceEngine } from '@quantum-chat/engine-reference';

// Who may call the API: the keys you list (one, from the environment). There is no open default.
const handler = createChatHandler({ engine: createReferenceEngine(), accessControl: staticApiKeys([process.env.QUANTUM_CHAT_API_KEY!]) });

// Plain node:http: the bridge hands the body to the core unread (read under the handler's limit),
// makes the response the client connection, and writes JSON or Server-Sent Events with backpressure.
const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const mounted = /^\/v1(?=\/|$)/.test(url.pathname);
  const path = mounted ? url.pathname.slice('/v1'.length) || '/' : url.pathname;
  const request = await readChatRequest(req, res, { path, basePath: mounted ? '/v1' : '' });
  await writeChatResponse(res, await handler.handle(request));
});
server.listen(8080, '127.0.0.1');
