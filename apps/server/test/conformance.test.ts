// The ready server replays the shared server conformance cases, over real HTTP on 127.0.0.1:
// its own Fastify instance (hooks, request ids, both mounts, its error handlers), with each
// case's replay engine, ids, clock and keys wired in as handler options. Cases that ask for
// the OpenAI stream format go to `/compat/v1`, the server's way of choosing it.
import { createModelRegistry } from '@quantum-chat/core';
import { runServerConformance } from '@quantum-chat/conformance';
import { resolveConfig } from '../src/config.js';
import { createQuantumServer } from '../src/create-server.js';

runServerConformance('server', async ({ streamFormat, ...handlerOptions }) => {
  const engine = handlerOptions.engine!;
  const app = await createQuantumServer(resolveConfig({ logLevel: 'silent', metrics: false, overload: false }), {
    accessControl: handlerOptions.accessControl!,
    handlerOptions: { ...handlerOptions, registry: createModelRegistry({ engine }), testEngine: engine },
  });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl: `${origin}${streamFormat === 'openai' ? '/compat/v1' : '/v1'}`,
    close: () => app.close(),
  };
});
