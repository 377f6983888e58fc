import { createChatHandler } from '@quantum-chat/core';
import { runServerConformance } from '../src/index.js';

// The reference fetch host: `handler.fetch` called in process, no socket. The base URL is
// never resolved; requests go straight to the handler as web `Request`s.
runServerConformance('fetch-face', async (options) => {
  const handler = createChatHandler(options);
  return {
    baseUrl: 'http://conformance.invalid/v1',
    fetch: (url, init) => handler.fetch(new Request(url, init)),
    close: async () => {},
  };
});
