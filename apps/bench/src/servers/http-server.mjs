// One HTTP server process of the JSON, streaming and idle suites, pinned by the orchestrator.
// argv: <variant> <mode>. Variants: fastify-adapter, fastify-adapter-stub, fastify-bare, fastify-bare-schema,
// express-adapter, express-bare, node-bridge, node-bare. Modes (the engine's pacing):
// back-to-back, paced, idle. The parent asks for CPU time, memory and live streams over IPC.
import { once } from 'node:events';
import http from 'node:http';
import { createChatHandler, insecureAcceptAnyApiKey } from '@quantum-chat/core';
import { connectionFromSignal, readChatRequest, writeChatResponse } from '@quantum-chat/core/node';
import { createExpressRouter } from '@quantum-chat/express';
import { fastifyQuantumChat } from '@quantum-chat/fastify';
import express from 'express';
import Fastify from 'fastify';
import { serveParent } from '../lib/child.mjs';
import { createFixedEngine, jsonRequestBody, requestHeaders } from '../lib/fixtures.mjs';
import { completionSchema, createBareFrames, sseHeaders } from './bare-responses.mjs';

const [variant, mode = 'back-to-back'] = process.argv.slice(2);
const live = { count: 0 };
const engine = createFixedEngine({ mode, live });
const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() });

// The bytes the bare routes answer with: the handler's own answer to the same request (from
// an unpaced engine: the idle one never answers).
const sample = await createChatHandler({ engine: createFixedEngine(), accessControl: insecureAcceptAnyApiKey() }).handle({
  method: 'POST',
  path: '/chat/completions',
  headers: requestHeaders,
  body: { kind: 'text', text: jsonRequestBody },
  connection: connectionFromSignal(new AbortController().signal, () => undefined),
});
if (sample.status !== 200 || !('body' in sample)) throw new Error(`the handler answered ${sample.status}: ${JSON.stringify(sample)}`);
const jsonBytes = sample.body;
const jsonContentType = sample.headers['content-type'];
const bareFrames = createBareFrames();

/**
 * A hand-written SSE route: the same engine events (the same engine, the same pacing), the
 * same frames built the cheap way, written with `res.write` and backpressure. No validation,
 * no auth, no admission, no keep-alive: what the adapter is measured against.
 */
async function writeBareStream(res, body) {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  const events = engine.generate({ user: body.user }, { signal: controller.signal, requestId: 'bare' })[Symbol.asyncIterator]();
  // Like the handler, the headers wait for the first event (in idle mode: for ever).
  let step = await events.next();
  if (controller.signal.aborted) return;
  res.writeHead(200, sseHeaders);
  const frames = bareFrames.start();
  for (; !step.done; step = await events.next()) {
    if (step.value.type === 'content' && !res.write(frames.content(step.value.text))) await once(res, 'drain');
  }
  res.write(frames.finish());
  res.end(frames.done());
}

async function readNodeBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function createFastifyApp() {
  return Fastify({ logger: false });
}

let server;
switch (variant) {
  case 'fastify-adapter': {
    const app = createFastifyApp();
    await app.register(fastifyQuantumChat, { prefix: '/v1', handler });
    await app.listen({ host: '127.0.0.1', port: 0 });
    server = app.server;
    break;
  }
  case 'fastify-adapter-stub': {
    // Informational: the adapter around a handler that answers the precomputed bytes at once,
    // to tell the adapter's own cost from the core handler's.
    const app = createFastifyApp();
    const stub = { handle: async () => ({ status: 200, headers: { 'content-type': jsonContentType }, body: jsonBytes }), fetch: handler.fetch };
    await app.register(fastifyQuantumChat, { prefix: '/v1', handler: stub });
    await app.listen({ host: '127.0.0.1', port: 0 });
    server = app.server;
    break;
  }
  case 'fastify-bare': {
    const app = createFastifyApp();
    app.post('/v1/chat/completions', async (request, reply) => {
      if (request.body.stream === true) {
        reply.hijack();
        await writeBareStream(reply.raw, request.body);
        return reply;
      }
      return reply.type(jsonContentType).send(jsonBytes);
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    server = app.server;
    break;
  }
  case 'fastify-bare-schema': {
    // Informational: the same answer built as an object and serialised by a response schema.
    const app = createFastifyApp();
    const answer = JSON.parse(jsonBytes);
    app.post('/v1/chat/completions', { schema: { response: { 200: completionSchema } } }, async (request) => ({
      ...answer,
      created: Math.floor(Date.now() / 1000),
      model: request.body.model,
    }));
    await app.listen({ host: '127.0.0.1', port: 0 });
    server = app.server;
    break;
  }
  case 'express-adapter': {
    const app = express();
    app.use('/v1', createExpressRouter(handler));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    break;
  }
  case 'express-bare': {
    const app = express();
    app.post('/v1/chat/completions', express.json(), (req, res, next) => {
      if (req.body.stream === true) writeBareStream(res, req.body).catch(next);
      else res.type(jsonContentType).send(jsonBytes);
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    break;
  }
  case 'node-bridge': {
    // The core's Node bridge on plain node:http: what the adapters share.
    server = http.createServer(async (req, res) => {
      const path = req.url.startsWith('/v1/') ? req.url.slice(3).split('?', 1)[0] : '/';
      const request = await readChatRequest(req, res, { path });
      await writeChatResponse(res, await handler.handle(request));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    break;
  }
  case 'node-bare': {
    server = http.createServer(async (req, res) => {
      const body = await readNodeBody(req);
      if (body.stream === true) return writeBareStream(res, body);
      res.writeHead(200, { 'content-type': jsonContentType, 'content-length': Buffer.byteLength(jsonBytes) });
      res.end(jsonBytes);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    break;
  }
  default:
    throw new Error(`unknown variant ${variant}`);
}
// Idle streams: 10,000 sockets must not be cut by the default timeouts.
server.requestTimeout = 0;
server.headersTimeout = 0;
server.keepAliveTimeout = 60_000;
server.maxConnections = 100_000;

serveParent(
  {
    cpu: () => process.cpuUsage(),
    memory: () => {
      globalThis.gc?.();
      globalThis.gc?.();
      return process.memoryUsage();
    },
    live: () => live.count,
  },
  { port: server.address().port, jsonBytes: Buffer.byteLength(jsonBytes) },
);
// A clean exit on SIGTERM, so that `--cpu-prof` writes its profile.
process.on('SIGTERM', () => process.exit(0));
