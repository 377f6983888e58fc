// `pnpm --filter @quantum-chat/example-fastify-app start`: PORT (default 3000) and HOST
// (default 127.0.0.1); one demo user, DEMO_USER / DEMO_PASSWORD (default demo / demo).
import { createApp } from './create-app.js';

const app = await createApp({ users: { [process.env.DEMO_USER ?? 'demo']: process.env.DEMO_PASSWORD ?? 'demo' } });
const address = await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
console.log(`Acme projects (Fastify) listening on ${address}; the chat API is at /v1`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
