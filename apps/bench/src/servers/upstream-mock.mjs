// A stand-in OpenAI-compatible upstream: answers every chat request with a stream of
// `max_tokens` content chunks (written back to back), a finish chunk, a usage chunk and [DONE];
// a request with `stream: false`, as runtimes do, with one chat completion of the same text.
// Its usage has the details OpenAI reports with every answer (cached and audio tokens, zero).
import http from 'node:http';
import { once } from 'node:events';
import { serveParent } from '../lib/child.mjs';
import { answerPieces } from '../lib/fixtures.mjs';

// `--hold`: every stream answers its headers, then waits for its first token until the parent
// sends `release` (the scale suite's idle relayed streams).
const holding = process.argv.includes('--hold');
const held = new Set();

/** Usage as OpenAI reports it: the details come with every answer, most of them zero. */
const usageOf = (count) => ({
  prompt_tokens: 52,
  completion_tokens: count,
  total_tokens: 52 + count,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
});

let counter = 0;
const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const count = Math.min(Math.max(Number(body.max_tokens) || 20, 1), 10_000);
  if (body.stream === false) {
    const content = Array.from({ length: count }, (_, index) => answerPieces[index % answerPieces.length]).join('');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `chatcmpl-mock${++counter}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        system_fingerprint: 'fp_mock',
        choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
        usage: usageOf(count),
      }),
    );
    return;
  }
  const head = `data: {"id":"chatcmpl-mock${++counter}","object":"chat.completion.chunk","created":${Math.floor(Date.now() / 1000)},"model":"${body.model}","system_fingerprint":"fp_mock","choices":[`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (holding) {
    res.flushHeaders();
    const released = new Promise((resolve) => held.add(resolve));
    await released;
    if (res.destroyed) return;
  }
  res.write(`${head}{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n`);
  for (let index = 0; index < count; index++) {
    const text = JSON.stringify(answerPieces[index % answerPieces.length]);
    if (!res.write(`${head}{"index":0,"delta":{"content":${text}},"logprobs":null,"finish_reason":null}]}\n\n`)) await once(res, 'drain');
  }
  res.write(`${head}{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n`);
  res.write(`${head}],"usage":${JSON.stringify(usageOf(count))}}\n\n`);
  res.end('data: [DONE]\n\n');
});
server.keepAliveTimeout = 60_000;
// The TCP connections accepted, so a suite can see whether its client reuses them.
let connections = 0;
let open = 0;
server.on('connection', (socket) => {
  connections++;
  open++;
  socket.once('close', () => open--);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
process.on('SIGTERM', () => process.exit(0));
serveParent(
  {
    cpu: () => process.cpuUsage(),
    connections: () => connections,
    /** The TCP connections open now. */
    open: () => open,
    held: () => held.size,
    /** Closes the kept-alive connections no request is using: what the upstream's keep-alive timeout would do. */
    closeIdle: () => {
      server.closeIdleConnections();
      return true;
    },
    /** Lets every held stream go on to its chunks and end; answers how many there were. */
    release: () => {
      const count = held.size;
      for (const resolve of held) resolve();
      held.clear();
      return count;
    },
  },
  { port: server.address().port },
);
