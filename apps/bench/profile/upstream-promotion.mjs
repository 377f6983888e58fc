// The upstream engine alone, in memory: `createUpstreamEngine` with a `fetch` that answers from
// memory (no sockets, no timers of ours to wait on), one request at a time, each with its own
// AbortController as the server gives it. Runs itself in a child under `--trace-gc-nvp` and
// prints, over the measured requests, scavenges, their median pause, and KB allocated, kept
// (survived in the young generation) and promoted to the old generation per request.
// Build first (`pnpm build`), then from apps/bench:
//   node profile/upstream-promotion.mjs [requests=60000] [json|stream] [extra node flags…]
// e.g. `node profile/upstream-promotion.mjs 60000 stream --max-semi-space-size=64`.
// BENCH_PROMOTION_CHUNKS=20: content chunks of a streamed answer (default 20).
// BENCH_PROMOTION_BODY=readable: the body read as the engine reads undici's (a Node `Readable`'s
// async iterator); =response: a WHATWG `Response`, as `fetch` gives it; default a plain reader.
// BENCH_PROMOTION_TRANSPORT=undici: no `fetch`, the engine's own transport (undici's `request`,
// as the server relays) on a dispatcher that answers from memory (default BENCH_PROMOTION_BODY's fetch).
// BENCH_PROMOTION_SEQUENCE=1: also each collection in order (kind, KB promoted), to see when retention starts.
// BENCH_PROMOTION_SIGNAL=shared: one never-aborted signal for all requests, to tell the
// per-request AbortSignals' share apart.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { gcFigure, majorGcLines, scavengeLines } from '../src/lib/gc-trace.mjs';

const requests = Number(process.argv[2] ?? 60_000);
const mode = process.argv[3] ?? 'json';
const chunks = Number(process.env.BENCH_PROMOTION_CHUNKS ?? 20);

if (process.env.BENCH_PROMOTION_CHILD !== '1') {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, ['--trace-gc-nvp', ...process.argv.slice(4), script, ...process.argv.slice(2, 4)], {
    env: { ...process.env, BENCH_PROMOTION_CHILD: '1' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (child.status !== 0) throw new Error(`the measured child failed:\n${child.stderr}`);
  const lines = child.stdout.split('\n');
  const start = lines.findIndex((line) => line === 'measure:start');
  const end = lines.findIndex((line) => line === 'measure:end');
  const window = lines.slice(start + 1, end);
  const scavenges = scavengeLines(window);
  const majors = majorGcLines(window).length;
  const sum = (values) => values.reduce((total, value) => total + value, 0);
  const pauses = scavenges.map((line) => gcFigure(line, 'pause')).sort((a, b) => a - b);
  const kb = (bytes) => (bytes / 1024 / requests).toFixed(2);
  if (process.env.BENCH_PROMOTION_SEQUENCE === '1') {
    console.log(window.filter((line) => / gc=/.test(line)).map((line) => `${/ gc=(\w+)/.exec(line)[1]} ${Math.round(gcFigure(line, 'promoted') / 1024)}K`).join(' | '));
  }
  console.log(
    `${mode}${mode === 'stream' ? ` (${chunks} chunks)` : ''}, ${process.env.BENCH_PROMOTION_TRANSPORT === 'undici' ? 'undici' : `${process.env.BENCH_PROMOTION_BODY ?? 'plain'} fetch`} body, ${process.env.BENCH_PROMOTION_SIGNAL ?? 'own'} signal, ${requests} requests: ${scavenges.length} scavenges (${majors} full), ` +
      `median pause ${(pauses[Math.floor(pauses.length / 2)] ?? 0).toFixed(2)} ms; per request KB allocated ${kb(sum(scavenges.map((line) => gcFigure(line, 'allocated'))))}, ` +
      `kept ${kb(sum(scavenges.map((line) => gcFigure(line, 'new_space_survived'))))}, promoted ${kb(sum(scavenges.map((line) => gcFigure(line, 'promoted'))))}; ${lines.find((line) => line.startsWith('elapsed'))}`,
  );
} else {
  const { createUpstreamEngine } = await import('../../../packages/engine-upstream/dist/index.js');
  const encoder = new TextEncoder();
  const completion = encoder.encode(
    JSON.stringify({
      id: 'chatcmpl-up',
      object: 'chat.completion',
      created: 1,
      model: 'up',
      choices: [{ index: 0, message: { role: 'assistant', content: 'A short answer of a few words from memory.' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 10, total_tokens: 22 },
    }),
  );
  const chunk = (delta, finish) => `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const stream = encoder.encode(
    Array.from({ length: chunks }, (_, index) => chunk({ content: `word${index} ` }, null)).join('') +
      chunk({}, 'stop') +
      `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: chunks, total_tokens: 12 + chunks } })}\n\ndata: [DONE]\n\n`,
  );
  /** A response as `fetch` gives one, reduced to what the engine reads; its body one read long. */
  const { Readable } = await import('node:stream');
  const body = process.env.BENCH_PROMOTION_BODY ?? 'plain';
  /** The body's bytes in a Node stream, read through its async iterator as the engine reads undici's. */
  const readableBody = (bytes) => ({
    getReader() {
      const stream = new Readable({ read() {} });
      stream.push(bytes);
      stream.push(null);
      const iterator = stream[Symbol.asyncIterator]();
      return { read: () => iterator.next(), cancel: async () => void stream.destroy() };
    },
  });
  const fromMemory = (contentType, bytes) =>
    body === 'response'
      ? new Response(bytes, { headers: { 'content-type': contentType } })
      : body === 'readable'
        ? { ok: true, status: 200, headers: { get: (name) => (name === 'content-type' ? contentType : null) }, body: readableBody(bytes) }
        : plainResponse(contentType, bytes);
  const plainResponse = (contentType, bytes) => ({
    ok: true,
    status: 200,
    headers: { get: (name) => (name === 'content-type' ? contentType : null) },
    body: {
      getReader() {
        let read = false;
        return {
          read: async () => (read ? { done: true, value: undefined } : ((read = true), { done: false, value: bytes })),
          cancel: async () => undefined,
        };
      },
    },
  });
  const { createRequire } = await import('node:module');
  const { Dispatcher } = createRequire(new URL('../../../packages/engine-upstream/package.json', import.meta.url))('undici');
  const rawHeaders = (contentType, bytes) => [Buffer.from('content-type'), Buffer.from(contentType), Buffer.from('content-length'), Buffer.from(String(bytes.byteLength))];
  /** Answers each request from memory through undici's handler calls, a tick later as a socket would. */
  class MemoryDispatcher extends Dispatcher {
    dispatch(options, handler) {
      const streamed = JSON.parse(Buffer.from(options.body).toString()).stream;
      const [contentType, bytes] = streamed ? ['text/event-stream', stream] : ['application/json', completion];
      handler.onConnect(() => undefined, null);
      setImmediate(() => {
        handler.onHeaders(200, rawHeaders(contentType, bytes), () => undefined, 'OK');
        handler.onData(Buffer.from(bytes));
        handler.onComplete([]);
      });
      return true;
    }
  }
  const fetchFromMemory = async (_url, init) => (JSON.parse(init.body).stream ? fromMemory('text/event-stream', stream) : fromMemory('application/json', completion));
  const engine = createUpstreamEngine({
    baseUrl: 'http://upstream.invalid/v1',
    model: 'up',
    ...(process.env.BENCH_PROMOTION_TRANSPORT === 'undici' ? { dispatcher: new MemoryDispatcher() } : { fetch: fetchFromMemory }),
  });
  const request = { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hello there, how are you?' }], tools: [], toolChoice: 'auto', parallelToolCalls: true, temperature: 0.7, maxTokens: 62, reasoning: false };
  const sharedSignal = new AbortController().signal;
  const stream_ = mode === 'stream';
  async function once(index) {
    const signal = process.env.BENCH_PROMOTION_SIGNAL === 'shared' ? sharedSignal : new AbortController().signal;
    let events = 0;
    for await (const _event of engine.generate(request, { signal, requestId: `req_${index}`, stream: stream_ })) events++;
    if (events === 0) throw new Error('no events');
  }
  for (let index = 0; index < 5_000; index++) await once(index); // warm-up
  globalThis.gc?.();
  console.log('measure:start');
  const started = performance.now();
  for (let index = 0; index < requests; index++) await once(index);
  const elapsed = performance.now() - started;
  console.log('measure:end');
  console.log(`elapsed ${elapsed.toFixed(0)} ms, ${((elapsed * 1000) / requests).toFixed(1)} µs a request`);
}
