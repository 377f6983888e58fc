import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { runHostBridgeConformance } from '@quantum-chat/conformance';
import express from 'express';
import { createExpressRouter } from '../src/index.js';

runHostBridgeConformance('express', async (options) => {
  const app = express();
  app.use('/v1', createExpressRouter(options));
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
});
