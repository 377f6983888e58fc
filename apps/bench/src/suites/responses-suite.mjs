// A Responses request against the same chat completion (target: at most 20 % more server
// CPU), through the ready server (apps/server: auth, limits, the daily quota in the store, the
// usage ledger, logs) around the JSON suite's fixed engine on SQLite, JSON and stream: one
// server answers both paths, so the only difference is the API. The Responses requests say
// `store: false`, so they do the chat completion's work (nothing kept); the stored path is
// the response store's cost, not the API's.
import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.mjs';
import { requestObject, streamRequestBody } from '../lib/fixtures.mjs';
import { runPaired } from '../lib/paired.mjs';
import { withServerCpu } from '../lib/servers.mjs';

const script = fileURLToPath(new URL('../servers/ready-server.mjs', import.meta.url));
/** The fixed engine streams for this user: the stream workload's. */
const streamUser = JSON.parse(streamRequestBody).user;

/** The chat request of the JSON or stream workload, and the same request on the Responses API. */
function requestsOf(stream) {
  const chat = { ...requestObject, ...(stream ? { user: streamUser, stream: true } : {}) };
  const responses = {
    model: chat.model,
    input: chat.messages.map((message) => ({ role: message.role, content: message.content })),
    temperature: chat.temperature,
    max_output_tokens: chat.max_tokens,
    user: chat.user,
    stream,
    store: false,
  };
  return { chat: { path: '/v1/chat/completions', body: JSON.stringify(chat) }, responses: { path: '/v1/responses', body: JSON.stringify(responses) } };
}

const headersFor = (server) => ({ 'content-type': 'application/json', authorization: `Bearer ${server.key}` });

/** One request of each kind must answer 200 with the fixed engine's text before anything is measured. */
async function check(server, { path, body }, stream) {
  const response = await fetch(server.url + path, { method: 'POST', headers: headersFor(server), body });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`);
  const ends = path === '/v1/responses' ? (stream ? 'event: response.completed' : '"status":"completed"') : stream ? 'data: [DONE]' : '"finish_reason":"stop"';
  if (!text.includes(ends)) throw new Error(`${path}: the answer does not end as expected: ${text.slice(-300)}`);
  return text.length;
}

async function measureRun({ load, server, request, seconds }) {
  const { result, cpuSeconds } = await withServerCpu(server, () =>
    load.call('autocannon', { url: server.url + request.path, body: request.body, headers: headersFor(server), connections: 50, seconds }),
  );
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${request.path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    reqPerSec: result.requests / result.seconds,
    reqPerCpuSec: result.requests / cpuSeconds,
    cpuUsPerReq: (cpuSeconds * 1e6) / result.requests,
    serverBusy: cpuSeconds / result.seconds,
  };
}

/** The rows: Responses vs chat completions, JSON and stream, on one ready server. */
export async function runResponsesSuite({ load, protocol, log }) {
  // stdout on /dev/null: the ready server's logs, written by its own destination as in production.
  const child = await startChild(script, { role: 'server', args: ['ready', 'fixed', 'sqlite'], stdout: 'ignore' });
  const server = { ...child, url: `http://127.0.0.1:${child.ready.port}`, key: child.ready.key };
  const results = [];
  try {
    for (const stream of [false, true]) {
      const requests = requestsOf(stream);
      const bytes = [await check(server, requests.chat, stream), await check(server, requests.responses, stream)];
      const comparison = {
        id: `responses-${stream ? 'stream' : 'json'}`,
        title: `Ready server: a Responses request vs the same chat completion (${stream ? 'stream' : 'JSON'}, SQLite store, fixed engine)`,
        /** Target: a Responses request costs at most 20 % more server CPU. */
        maxCpuRatio: 1.2,
        answerBytes: { chat: bytes[0], responses: bytes[1] },
      };
      log(comparison.title);
      const summary = await runPaired({
        label: comparison.id,
        protocol,
        log,
        measure: (side, seconds) => measureRun({ load, server, request: side === 'baseline' ? requests.chat : requests.responses, seconds }),
      });
      results.push({ ...comparison, summary });
    }
  } finally {
    await server.stop();
  }
  return { results };
}
