import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatHandler } from '@quantum-chat/core';
import { readChatRequest, writeChatResponse } from '@quantum-chat/core/node';
import { runServerConformance } from '../src/index.js';

// The reference Node host: `handler.handle` behind plain node:http through the core's bridge.
runServerConformance('node-http', async (options) => {
  const handler = createChatHandler(options);
  const server = createServer(async (req, res) => {
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const mounted = pathname.startsWith('/v1/');
    const path = mounted ? pathname.slice('/v1'.length) : pathname;
    const request = await readChatRequest(req, res, { path, basePath: mounted ? '/v1' : '' });
    await writeChatResponse(res, await handler.handle(request));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
});
