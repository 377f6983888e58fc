// @quantum-chat/client iterating a 10 MiB stream from a stub fetch, 4 rounds (ROUNDS=n for more).
// taskset -c 0 node --cpu-prof --cpu-prof-dir=/tmp/prof apps/bench/profile/client-iteration.mjs
import { createChatClient } from '@quantum-chat/client';
import { createStreamFrameEncoder } from '@quantum-chat/core/host';
import { createChatStream, cutBytes } from '../src/lib/chat-stream.mjs';
const { text, events } = createChatStream(createStreamFrameEncoder, 10 * 1024 * 1024);
const pieces = cutBytes(new TextEncoder().encode(text), 16 * 1024);
function bodyOf(pieces) { let i = 0; return new ReadableStream({ pull(c) { if (i < pieces.length) c.enqueue(pieces[i++]); else c.close(); } }); }
const fetchStream = async () => new Response(bodyOf(pieces), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
const ours = createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'qc_test_bench', fetch: fetchStream, maxRetries: 0 });
const rounds = Number(process.env.ROUNDS ?? 4);
for (let r = 0; r < rounds; r++) {
  const s = process.cpuUsage(); let n = 0;
  for await (const _event of ours.chat.completions.stream({ model: 'quantum-reasoner', messages: [{ role: 'user', content: 'hi' }] })) n++;
  const u = process.cpuUsage(s); console.log(n, events, ((u.user + u.system) / 1e6).toFixed(3), 's');
}
