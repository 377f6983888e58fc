// `pnpm --filter @quantum-chat/example-express-app start`: PORT (default 3000) and HOST
// (default 127.0.0.1); one demo user, DEMO_USER / DEMO_PASSWORD (default demo / demo).
import type { AddressInfo } from 'node:net';
import { createApp } from './create-app.js';

const { app } = createApp({ users: { [process.env.DEMO_USER ?? 'demo']: process.env.DEMO_PASSWORD ?? 'demo' } });
const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address() as AddressInfo;
  console.log(`Acme notes (Express) listening on http://${address}:${port}; the chat API is at /v1`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
