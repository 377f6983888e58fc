// The workload every HTTP suite shares: a typical 300-byte chat request, a ~600-byte answer,
// and a tiny fixed engine that yields the same content events every time.
import { generateApiKey } from '@quantum-chat/core';

/** A well-formed live key: the handler's format-only access control accepts it (decisions §6). */
const apiKey = generateApiKey('live');

/** A typical non-streaming chat request of about 300 bytes. */
export const requestObject = {
  model: 'quantum-flash',
  messages: [
    { role: 'system', content: 'You are a concise support assistant.' },
    { role: 'user', content: 'Summarise the trade-offs between server-sent events and WebSockets for streaming chat answers, briefly.' },
  ],
  temperature: 0.7,
  max_tokens: 256,
  user: 'bench-user-0042',
  stream: false,
};
export const jsonRequestBody = JSON.stringify(requestObject);
/**
 * The streaming request. The engine request carries no `stream` flag, so streaming requests
 * are marked by their `user` field: one engine then serves the JSON and the stream workloads.
 */
const streamUser = 'bench-user-9999';
export const streamRequestBody = JSON.stringify({ ...requestObject, user: streamUser, stream: true });

/** The answer: split into token-sized pieces, as an engine yields it. */
const answerText =
  'Server-sent events are plain HTTP: one long response, text frames, automatic reconnection and ' +
  'easy proxying, but only server to client. WebSockets are bidirectional and binary-capable, yet ' +
  'need an upgrade, their own framing, heartbeats and sticky routing. For chat answers that only ' +
  'flow one way, SSE is simpler to run and to debug.';
export const answerPieces = answerText.match(/\s*\S+/g);

/** Token-sized pieces of a streamed answer: `count` of them, cycling through the answer. */
function streamPieces(count) {
  const pieces = [];
  for (let index = 0; index < count; index++) pieces.push(answerPieces[index % answerPieces.length]);
  return pieces;
}

export const streamChunkCount = 200;
export const usage = { promptTokens: 52, completionTokens: 64, reasoningTokens: 0 };
/** The fixed engine's prompt measure: counted, so the bound is the count. */
const measuredPrompt = { bound: usage.promptTokens };

/** Resolves on the next event-loop turn (after I/O), not just after the microtask queue. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A tiny engine that yields fixed content: the handler still does all its own work (body
 * rules, validation, auth, admission, framing). `mode` is `back-to-back` (no waits),
 * `paced` (one event per event-loop turn) or `idle` (waits for the client to leave before
 * any token). `live` counts generations in progress, for the idle-stream suite.
 */
export function createFixedEngine({ mode = 'back-to-back', live = { count: 0 } } = {}) {
  return {
    async *generate(request, context) {
      live.count++;
      try {
        if (mode === 'idle') {
          await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
          return;
        }
        // A JSON request gets the answer whole (one content event, as from an upstream that
        // answered whole), so the JSON path measures the toolkit, not async-iteration of tokens.
        const pieces = request.user === streamUser ? streamPieces(streamChunkCount) : [answerText];
        for (const text of pieces) {
          if (mode === 'paced') await nextTurn();
          yield { type: 'content', text };
        }
        yield { type: 'finish', reason: 'stop', usage };
      } finally {
        live.count--;
      }
    },
    measurePrompt: () => measuredPrompt,
    countTokens: (text) => Math.ceil(text.length / 4),
  };
}

/** The request headers of every HTTP workload. */
export const requestHeaders = {
  'content-type': 'application/json',
  authorization: `Bearer ${apiKey}`,
};
