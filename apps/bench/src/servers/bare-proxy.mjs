// The bare proxy, the baseline of the ready server's relay (the gateway-cost baseline): one Fastify route that
// forwards the body of `POST /v1/chat/completions` to the upstream with undici over kept-alive
// connections, and returns its answer (JSON, read whole) or pipes its stream. Nothing else: no
// key check, limits, ledger, access log or metrics. `node bare-proxy.mjs <upstream port>`.
import Fastify from 'fastify';
import { Agent, request } from 'undici';
import { serveParent } from '../lib/child.mjs';

const upstream = `http://127.0.0.1:${process.argv[2]}/v1/chat/completions`;
// Kept-alive upstream connections, as many as the load's concurrency can use (BARE_PROXY_CONNECTIONS=0: no cap,
// for the scale suites' thousands of held streams).
const connections = Number(process.env.BARE_PROXY_CONNECTIONS ?? 256);
const dispatcher = new Agent({ keepAliveTimeout: 60_000, connections: connections > 0 ? connections : null });
const app = Fastify({ logger: false });
// The body stays the bytes the client sent: a proxy has no need to parse it.
app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

app.post('/v1/chat/completions', async (req, reply) => {
  const answer = await request(upstream, {
    method: 'POST',
    body: req.body,
    headers: { 'content-type': 'application/json', authorization: 'Bearer upstream' },
    dispatcher,
  });
  const contentType = answer.headers['content-type'];
  reply.code(answer.statusCode).header('content-type', contentType);
  if (String(contentType).startsWith('text/event-stream')) return reply.header('cache-control', 'no-cache').send(answer.body);
  return reply.send(Buffer.from(await answer.body.arrayBuffer()));
});

await app.listen({ host: '127.0.0.1', port: 0 });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
serveParent({ cpu: () => process.cpuUsage() }, { port: app.server.address().port });
