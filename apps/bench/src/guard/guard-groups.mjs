// The CPU guard's groups: each measures a hot path (of the core, or access-control's limiter
// and usage ledger) against a plain reference implementation of the same work, in the same
// process, interleaved round by round, and reports the reference's CPU time over the core's
// (higher is faster). Run one group per process (`node guard-groups.mjs <group>` prints one
// JSON line), so no group's type feedback slows another's.
import { openSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { chatCompletionRequestSchema } from '@quantum-chat/core/schemas';
import { createChatHandler, createMemoryStreamStore, insecureAcceptAnyApiKey, parseApiKey } from '@quantum-chat/core';
import { createSseDecoder } from '@quantum-chat/core/sse';
import { createStreamFrameEncoder } from '@quantum-chat/core/host';
import { writeFrames } from '@quantum-chat/core/node';
import { createResponseEventEncoder, createResponseShell, generateRandomResponseId, validateCreateResponse } from '@quantum-chat/core/responses';
import { countPromptTokens, createReferenceEngine } from '@quantum-chat/engine-reference';
import { createUpstreamEngine, createUtf8Reads } from '@quantum-chat/engine-upstream';
import { createAccessControl, createLimiter, createMemoryStore, issueApiKey } from '@quantum-chat/access-control';
import { createParser } from 'eventsource-parser';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { MockAgent } from 'undici';
import pino from 'pino';
import { createLogDestination } from '@quantum-chat/server';
import { createChatStream, cutText } from '../lib/chat-stream.mjs';
import { createFixedEngine, jsonRequestBody, streamRequestBody } from '../lib/fixtures.mjs';
import { InProcessRequest } from '../lib/in-process-request.mjs';
import { median } from '../lib/stats.mjs';

const rounds = Number(process.env.GUARD_ROUNDS ?? 9);

function cpuMicros(start) {
  const usage = process.cpuUsage(start);
  return usage.user + usage.system;
}

/**
 * Warms both candidates up, then runs them `rounds` times in alternating order (ABBA...), each
 * run `work` repetitions. Returns the median per-round ratio reference/core and the median
 * µs per repetition of each.
 */
async function compare({ core, reference, work, check }) {
  const candidates = { core, reference };
  for (const name of ['core', 'reference', 'core', 'reference']) check(name, await candidates[name]());
  const times = { core: [], reference: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 === 0 ? ['core', 'reference'] : ['reference', 'core']) {
      const start = process.cpuUsage();
      check(name, await candidates[name]());
      times[name].push(cpuMicros(start));
    }
  }
  const ratios = times.core.map((time, round) => times.reference[round] / time);
  return {
    ratio: median(ratios),
    range: [Math.min(...ratios), Math.max(...ratios)],
    microsPerRepetition: { core: median(times.core) / work, reference: median(times.reference) / work },
  };
}

/** Both sides must give the same value, whichever gives it first. */
function expectSame() {
  let expected;
  return (name, value) => {
    expected ??= value;
    if (value !== expected) throw new Error(`${name} gave ${value}, expected ${expected}`);
  };
}

function expectEqual(expected) {
  return (name, value) => {
    if (value !== expected) throw new Error(`${name} gave ${value}, expected ${expected}`);
  };
}

const textDecoder = new TextDecoder();
const completionHeaders = { 'content-type': 'application/json; charset=utf-8' };

/** The plain way to do a request's protocol work: parse, validate with zod, run the engine. */
function plainEngineRequest(bytes) {
  const body = chatCompletionRequestSchema.parse(JSON.parse(textDecoder.decode(bytes)));
  return {
    body,
    request: {
      model: body.model,
      messages: body.messages,
      tools: [],
      toolChoice: 'none',
      parallelToolCalls: true,
      temperature: body.temperature ?? 0.7,
      maxTokens: body.max_tokens ?? 4096,
      user: body.user,
      reasoning: false,
    },
  };
}

const groups = {
  /** `handler.handle()` of a non-streaming request against parse + zod + engine + JSON.stringify. */
  async handleJson() {
    const engine = createFixedEngine();
    const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() });
    const bytes = new TextEncoder().encode(jsonRequestBody);
    const work = 8000;
    let sequence = 0;
    const reference = async (requestBytes) => {
      const { body, request } = plainEngineRequest(requestBytes);
      let content = '';
      let finish;
      for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: 'guard' })) {
        if (event.type === 'content') content += event.text;
        else if (event.type === 'finish') finish = event;
      }
      const completion = {
        id: `chatcmpl-${String(++sequence).padStart(24, '0')}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish.reason, logprobs: null }],
        usage: {
          prompt_tokens: finish.usage.promptTokens,
          completion_tokens: finish.usage.completionTokens,
          total_tokens: finish.usage.promptTokens + finish.usage.completionTokens,
          completion_tokens_details: { reasoning_tokens: finish.usage.reasoningTokens },
        },
      };
      return { status: 200, headers: { ...completionHeaders }, body: JSON.stringify(completion) };
    };
    const run = (answer) => async () => {
      let length = 0;
      for (let index = 0; index < work; index++) {
        const response = await answer(bytes);
        if (response.status !== 200) throw new Error(response.body);
        length += response.body.length;
      }
      return length / work > 500;
    };
    return compare({ core: run((requestBytes) => handler.handle(new InProcessRequest(requestBytes))), reference: run(reference), work, check: expectEqual(true) });
  },

  /** A streamed answer (200 chunks), every frame pulled: `handler.handle()` against an async generator with JSON.stringify per chunk. */
  async handleStream() {
    const engine = createFixedEngine();
    const handler = createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() });
    const bytes = new TextEncoder().encode(streamRequestBody);
    const work = 300;
    async function* plainFrames(requestBytes) {
      const { body, request } = plainEngineRequest(requestBytes);
      const envelope = { id: 'chatcmpl-000000000000000000000001', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
      let first = true;
      for await (const event of engine.generate(request, { signal: new AbortController().signal, requestId: 'guard' })) {
        if (event.type === 'content') {
          const delta = first ? { role: 'assistant', content: event.text } : { content: event.text };
          first = false;
          yield `event: message\ndata: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
        } else if (event.type === 'finish') {
          yield `event: message\ndata: ${JSON.stringify({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: event.reason }] })}\n\n`;
          yield 'data: [DONE]\n\n';
        }
      }
    }
    const countFrames = async (frames) => {
      let count = 0;
      for await (const frame of frames) if (frame.length > 0) count++;
      return count;
    };
    const core = async () => {
      let frames = 0;
      for (let index = 0; index < work; index++) {
        const response = await handler.handle(new InProcessRequest(bytes));
        if (!('events' in response)) throw new Error(response.body);
        frames += await countFrames(response.events);
      }
      return frames / work;
    };
    const reference = async () => {
      let frames = 0;
      for (let index = 0; index < work; index++) frames += await countFrames(plainFrames(bytes));
      return frames / work;
    };
    // The core's last frame holds finish, usage and [DONE] together: one frame fewer.
    return compare({ core, reference, work, check: (name, frames) => expectEqual(name === 'core' ? 201 : 202)(name, frames) });
  },

  /** The SSE decoder's `feed()` over a 1 MiB reasoner stream in 1 KiB pieces, against eventsource-parser 3. */
  async decoder() {
    const { text, events } = createChatStream(createStreamFrameEncoder, 1024 * 1024);
    const pieces = cutText(text, 1024).map((piece) => Buffer.from(piece, 'utf8').toString('utf8'));
    const work = 60;
    const core = () => {
      let count = 0;
      for (let index = 0; index < work; index++) {
        const decoder = createSseDecoder({ onEvent: () => count++ });
        for (const piece of pieces) decoder.feed(piece);
        decoder.end();
      }
      return count / work;
    };
    const reference = () => {
      let count = 0;
      for (let index = 0; index < work; index++) {
        const parser = createParser({ onEvent: () => count++ });
        for (const piece of pieces) parser.feed(piece);
        parser.reset();
      }
      return count / work;
    };
    return compare({ core, reference, work, check: expectEqual(events) });
  },

  /** The stream frame encoder per content chunk, against a template around JSON.stringify. */
  async encoder() {
    const envelope = { id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', created: 1_767_225_600, model: 'quantum-flash' };
    const texts = cutText('Server-sent events are plain HTTP: one long response, café, 東京 and "quotes". '.repeat(40), 4);
    const work = 400_000;
    const core = () => {
      const encoder = createStreamFrameEncoder('quantum', envelope);
      let length = 0;
      for (let index = 0; index < work; index++) length += encoder.content(texts[index % texts.length]).length;
      return length;
    };
    const reference = () => {
      let length = 0;
      for (let index = 0; index < work; index++) {
        const chunk = {
          id: envelope.id,
          object: 'chat.completion.chunk',
          created: envelope.created,
          model: envelope.model,
          choices: [{ index: 0, delta: index === 0 ? { role: 'assistant', content: texts[0] } : { content: texts[index % texts.length] }, finish_reason: null }],
        };
        length += `event: message\ndata: ${JSON.stringify(chunk)}\n\n`.length;
      }
      return length;
    };
    let expected;
    return compare({
      core,
      reference,
      work,
      check: (name, length) => {
        expected ??= length;
        if (length !== expected) throw new Error(`${name} wrote ${length} characters, expected ${expected}`);
      },
    });
  },
};

/**
 * The deltas of one long stream for both encoders (each side gets what an engine made: the chat
 * encoder the event's text, the Responses one the event) and the Responses side's run over them,
 * which gives its frame count and its encoder (whose items hold the text it kept).
 */
function longStreamDeltas() {
  const envelope = { id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', created: 1_767_225_600, model: 'quantum-flash' };
  const texts = cutText('Server-sent events are plain HTTP: one long response, café, 東京 and "quotes". '.repeat(40), 4);
  const events = texts.map((text) => ({ type: 'content', text }));
  const work = 200_000;
  const request = validateCreateResponse({ model: 'quantum-flash', input: 'Hi', stream: true });
  const responses = () => {
    const shell = createResponseShell(request, { id: generateRandomResponseId('response'), createdAt: 1_767_225_600, model: request.model });
    const encoder = createResponseEventEncoder(shell, { generateId: generateRandomResponseId, showReasoning: false, showLogprobs: false });
    let frames = 0;
    for (let index = 0; index < work; index++) if (encoder.encode(events[index % events.length]).length > 0) frames++;
    return { frames, encoder };
  };
  return { envelope, events, work, responses };
}

groups.responsesDelta = async function responsesDeltaGroup() {
  // The Responses event encoder per text delta against the chat frame encoder per content chunk
  // (target: within 1.5×), in the steady state of a long stream, as the `encoder` group: what
  // a stream opens and closes with is in `responsesStream`.
  const { envelope, events, work, responses } = longStreamDeltas();
  const reference = () => {
    const encoder = createStreamFrameEncoder('quantum', envelope);
    let frames = 0;
    for (let index = 0; index < work; index++) if (encoder.content(events[index % events.length].text).length > 0) frames++;
    return frames;
  };
  return compare({ core: () => responses().frames, reference, work, check: expectEqual(work) });
};

groups.responsesDeltaSameWork = async function responsesDeltaSameWorkGroup() {
  // The same deltas against the same work on the chat side: a chat stream keeps its text too
  // (the run's progress appends each delta, to settle usage if the stream stops early), while
  // the Responses encoder keeps it for its `.done` events and the settlement both. The chat
  // side appends as `RunProgress.observe` does.
  const { envelope, events, work, responses } = longStreamDeltas();
  const core = () => {
    const { frames, encoder } = responses();
    return frames + encoder.items()[0].content[0].text.length;
  };
  const reference = () => {
    const encoder = createStreamFrameEncoder('quantum', envelope);
    let frames = 0;
    let kept = '';
    for (let index = 0; index < work; index++) {
      const { text } = events[index % events.length];
      kept += text;
      if (encoder.content(text).length > 0) frames++;
    }
    return frames + kept.length;
  };
  return compare({ core, reference, work, check: expectSame() });
};

groups.responsesStream = async function responsesStreamGroup() {
  // The Responses event encoder against the chat frame encoder over whole streams of 200 text
  // deltas each (as handleStream's), opened and finished: a Responses stream also carries the
  // whole response at its start and repeats its text at its end, as the protocol asks. Both
  // keep the text they streamed, as their runs do (see `responsesDeltaSameWork`).
  const envelope = { id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', created: 1_767_225_600, model: 'quantum-flash' };
  const texts = cutText('Server-sent events are plain HTTP: one long response, café, 東京 and "quotes". '.repeat(40), 4);
  // Both sides get what an engine made: the chat encoder takes the event's text, this one the event.
  const events = texts.map((text) => ({ type: 'content', text }));
  const deltas = 200;
  const streams = 1000;
  const work = deltas * streams;
  const usage = { promptTokens: 9, completionTokens: deltas, reasoningTokens: 0 };
  const finish = { type: 'finish', reason: 'stop', usage };
  const request = validateCreateResponse({ model: 'quantum-flash', input: 'Hi', stream: true });
  const core = () => {
    let frames = 0;
    let kept = 0;
    for (let stream = 0; stream < streams; stream++) {
      const shell = createResponseShell(request, { id: generateRandomResponseId('response'), createdAt: 1_767_225_600, model: request.model });
      const encoder = createResponseEventEncoder(shell, { generateId: generateRandomResponseId, showReasoning: false, showLogprobs: false });
      if (encoder.start().length > 0) frames++;
      for (let index = 0; index < deltas; index++) if (encoder.encode(events[(stream + index) % events.length]).length > 0) frames++;
      if (encoder.encode(finish).length > 0) frames++;
      kept += encoder.items()[0].content[0].text.length;
    }
    return frames + kept;
  };
  const wireUsage = { prompt_tokens: 9, completion_tokens: deltas, total_tokens: 9 + deltas };
  const reference = () => {
    let frames = 0;
    let kept = 0;
    for (let stream = 0; stream < streams; stream++) {
      const encoder = createStreamFrameEncoder('quantum', envelope);
      frames++;
      let text = '';
      for (let index = 0; index < deltas; index++) {
        const piece = events[(stream + index) % events.length].text;
        text += piece;
        if (encoder.content(piece).length > 0) frames++;
      }
      if (encoder.finish('stop', wireUsage).length > 0) frames++;
      kept += text.length;
    }
    return frames + kept;
  };
  return compare({ core, reference, work, check: expectSame() });
};

groups.memoryLimits = async function memoryLimitsGroup() {
  // The limiter without Redis, per request: count it and reserve its tokens for the minute, then
  // settle to the tokens it used. The reference does the same on rate-limiter-flexible's
  // RateLimiterMemory (consume, then reward what was not used), as the limiter did before its
  // own fixed windows (access-control's MemoryWindows).
  const limits = { requestsPerMinute: 1e12, tokensPerMinute: 1e15, tokensPerDay: null };
  const buckets = Array.from({ length: 64 }, (_, index) => `organisation-${index}:live`);
  const [reserved, used] = [4_216, 120];
  const work = 100_000;
  const core = async () => {
    const limiter = createLimiter();
    let admitted = 0;
    for (let index = 0; index < work; index++) {
      const decision = limiter.reserveNow(buckets[index % buckets.length], limits, reserved);
      if (!decision.admitted) continue;
      admitted++;
      await decision.settle(used);
    }
    await limiter.close();
    return admitted;
  };
  const reference = async () => {
    const requests = new RateLimiterMemory({ points: limits.requestsPerMinute, duration: 60 });
    const tokens = new RateLimiterMemory({ points: limits.tokensPerMinute, duration: 60 });
    let admitted = 0;
    for (let index = 0; index < work; index++) {
      const bucket = buckets[index % buckets.length];
      await requests.consume(bucket, 1);
      await tokens.consume(bucket, reserved);
      admitted++;
      await tokens.reward(bucket, reserved - used);
    }
    return admitted;
  };
  return compare({ core, reference, work, check: expectEqual(work) });
};

groups.durableSettles = async function durableSettlesGroup() {
  // The store-backed access control with its durable usage ledger, per request (admitted, then
  // settled, 25 at a time, each settle waiting for its group's write to a store in memory),
  // against the least that path must do: the limiter's reservation and settle, and the usage
  // row kept in an array written per group. What lies between is the ledger's own bookkeeping,
  // whose collections are renewed after each write (`renewedMap`): 2.6 µs a row without.
  const demand = { requestId: 'req_guard', model: 'quantum-lite', promptTokens: 20, maxTokens: 100 };
  const outcome = { promptTokens: 20, completionTokens: 80, status: 200, interrupted: false };
  const limits = { requestsPerMinute: 1e12, tokensPerMinute: 1e15, tokensPerDay: null };
  const work = 50_000;
  const groupsOf = (settleOne) => async () => {
    let settled = 0;
    for (let group = 0; group < work / 25; group++) {
      const settles = [];
      for (let index = 0; index < 25; index++) settles.push(settleOne(index));
      for (const done of await Promise.all(settles)) settled += done;
    }
    return settled;
  };
  const store = createMemoryStore();
  await store.createOrganisation({ name: 'acme', plan: 'free', limits });
  const { key } = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
  const accessControl = createAccessControl({ store, limiter: createLimiter(), usage: { durable: true } });
  const principal = await accessControl.authenticate(parseApiKey(key));
  const core = groupsOf(async () => {
    await (await accessControl.admit(principal, demand)).settle(outcome);
    return 1;
  });
  const limiter = createLimiter();
  let rows = [];
  let written = Promise.resolve();
  const reference = groupsOf(async (index) => {
    const decision = limiter.reserveNow('acme:live', limits, demand.promptTokens + demand.maxTokens);
    await decision.settle(outcome.promptTokens + outcome.completionTokens);
    rows.push({ requestId: demand.requestId, ...outcome });
    if (index === 24) {
      const group = rows;
      rows = [];
      written = store.writeUsage([]).then(() => group.length);
    }
    await written;
    return 1;
  });
  return compare({ core, reference, work, check: expectEqual(work) });
};

/** An engine context that tells the engine its client streams, whatever the client does. */
class StreamedContext {
  constructor(context) {
    this.context = context;
    this.requestId = context.requestId;
  }
  get stream() {
    return true;
  }
  get signal() {
    return this.context.signal;
  }
}

/** `work` JSON requests through `handler.handle`, one after another: their completion tokens, summed. */
function jsonRequestsThrough(handler, work) {
  const bytes = Buffer.from(jsonRequestBody);
  return async () => {
    let tokens = 0;
    for (let index = 0; index < work; index++) {
      const response = await handler.handle(new InProcessRequest(bytes));
      if (response.status !== 200) throw new Error(`the handler answered ${response.status}: ${response.body}`);
      tokens += JSON.parse(response.body).usage.completion_tokens;
    }
    return tokens;
  };
}

groups.retainedFrames = async function retainedFramesGroup() {
  // A resumable stream's frames through the memory stream store (no reader: each batch goes to
  // the store's log as it comes), kept once it ends, against the plain way: the frames kept as
  // strings, then joined and encoded once. Both keep the last 2,000 streams, so both pay the
  // collections of what they retain. The store encodes each batch alone, into one buffer for
  // the whole stream (`sealScratch`): a log grown by doubling and trimmed at the end cost about
  // 1.7 times as much.
  const frames = Array.from({ length: 258 }, (_, index) => `id: ${index + 1}\ndata: {"id":"chatcmpl-guard","object":"chat.completion.chunk","created":1,"model":"quantum-reasoner","choices":[{"index":0,"delta":{"content":" word ${index}${index === 99 ? '…' : ''}"}}]}\n\n`);
  const streamChars = frames.join('').length;
  const batches = [];
  for (let at = 0; at < frames.length; at += 16) batches.push(frames.slice(at, at + 16).map((frame, offset) => ({ seq: at + offset + 1, frame })));
  const kept = 2000;
  // Rounds long enough that a full collection landing in one of them moves its ratio little.
  const work = 5000;
  const store = createMemoryStreamStore({ maxRetainedChars: kept * streamChars });
  const meta = { owner: 'acme:live', kind: 'chat:quantum', createdAt: 0 };
  let streams = 0;
  const core = async () => {
    for (let index = 0; index < work; index++) {
      const id = `s${streams++}`;
      store.create(id, meta);
      for (const batch of batches) store.append(id, batch);
      store.end(id);
    }
    return store.size().streams;
  };
  const encoder = new TextEncoder();
  const retained = [];
  const reference = async () => {
    for (let index = 0; index < work; index++) {
      const written = [];
      for (const batch of batches) for (const { frame } of batch) written.push(frame);
      retained[streams++ % kept] = encoder.encode(written.join(''));
    }
    return Math.min(streams, kept);
  };
  return compare({ core, reference, work, check: expectEqual(kept) });
};

groups.referenceWhole = async function referenceWholeGroup() {
  // handle() of a JSON request around the reference engine, against the same engine told that
  // its client streams: a piece per token (an encode, a decode token by token, an event each),
  // collected into the same answer. The engine gives a waiting client its texts whole.
  const engine = createReferenceEngine();
  const pieced = { ...engine, generate: (request, context) => engine.generate(request, new StreamedContext(context)) };
  const handlers = {
    core: createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() }),
    reference: createChatHandler({ engine: pieced, accessControl: insecureAcceptAnyApiKey() }),
  };
  const work = 3000;
  return compare({ core: jsonRequestsThrough(handlers.core, work), reference: jsonRequestsThrough(handlers.reference, work), work, check: expectSame() });
};

groups.referenceCounts = async function referenceCountsGroup() {
  // The reference engine's prompt count of a conversation resent as it is (its texts' counts
  // remembered), against the same conversation with every text new (each tokenized): what the
  // engine's memory of recent counts saves on every resent turn.
  const turns = Array.from({ length: 6 }, (_, index) => [
    { role: 'user', content: `Question ${index}: what is the weather like in Paris today, and should I take an umbrella?` },
    { role: 'assistant', content: `Answer ${index}: it is mild and dry this afternoon, so you can leave the umbrella at home.` },
  ]).flat();
  const conversation = (fresh) => ({ messages: [{ role: 'system', content: 'You are a brief and helpful assistant.' }, ...turns.map((message) => ({ ...message, content: fresh === undefined ? message.content : `${message.content} #${fresh}` }))], tools: [] });
  const work = 2000;
  const counts = (fresh) => async () => {
    let tokens = 0;
    // A new request object each time: the count per request object is not what is measured.
    for (let index = 0; index < work; index++) tokens += countPromptTokens(conversation(fresh ? index : undefined));
    return tokens;
  };
  return compare({ core: counts(false), reference: counts(true), work, check: () => undefined });
};

/** A 20-chunk chat completion stream as an upstream sends it, and a `fetch` that answers it from memory. */
function upstreamStreamFromMemory() {
  const chunk = (delta, finish) => `data: ${JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'up', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const text =
    Array.from({ length: 20 }, (_, index) => chunk({ content: `word${index} ` }, null)).join('') +
    chunk({}, 'stop') +
    `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 20, total_tokens: 32 } })}\n\ndata: [DONE]\n\n`;
  const bytes = new TextEncoder().encode(text);
  const fetchFromMemory = async () => ({
    ok: true,
    status: 200,
    headers: { get: (name) => (name === 'content-type' ? 'text/event-stream' : null) },
    body: {
      getReader() {
        let read = false;
        return { read: async () => (read ? { done: true, value: undefined } : ((read = true), { done: false, value: bytes })), cancel: async () => undefined };
      },
    },
  });
  return { bytes, fetchFromMemory };
}

/** The least a relay does with such a stream: decode, split events, parse each, yield its content. */
async function* plainUpstreamEvents(bytes, signal) {
  for (const block of textDecoder.decode(bytes).split('\n\n')) {
    signal.throwIfAborted();
    const data = block.startsWith('data: ') ? block.slice(6) : '';
    if (data === '' || data === '[DONE]') continue;
    const content = JSON.parse(data).choices[0]?.delta?.content;
    if (content !== undefined) yield { type: 'content', text: content };
  }
  yield { type: 'finish', reason: 'stop' };
}

groups.upstreamStream = async function upstreamStreamGroup() {
  // The upstream engine relaying 20-chunk streams one after another, in memory, against a plain
  // generator doing the least of that work. Both make their request's signal; the ratio falls
  // when each request outlives a scavenge (the attempt's abort listener as an arrow kept every
  // request until promoted: 40 µs a stream instead of 28 here).
  const { bytes, fetchFromMemory } = upstreamStreamFromMemory();
  const engine = createUpstreamEngine({ baseUrl: 'http://upstream.invalid/v1', model: 'up', fetch: fetchFromMemory });
  const request = { model: 'quantum-flash', messages: [{ role: 'user', content: 'Hello there, how are you?' }], tools: [], toolChoice: 'auto', parallelToolCalls: true, temperature: 0.7, maxTokens: 62, reasoning: false };
  const work = 4000;
  const streams = (open) => async () => {
    let events = 0;
    for (let index = 0; index < work; index++) {
      for await (const _event of open(new AbortController().signal, index)) events++;
    }
    return events;
  };
  const core = streams((signal, index) => engine.generate(request, { signal, requestId: `req_${index}`, stream: true }));
  const reference = streams((signal) => plainUpstreamEvents(bytes, signal));
  return compare({ core, reference, work, check: expectSame() });
};

/** An engine's events through an async generator, one asynchronous step each (as the upstream engine relayed them before its batches). */
async function* oneAtATime(events) {
  for await (const event of events) yield event;
}

/**
 * handle() of `requestBody`'s stream around `engine`, every frame written to a sink, against the
 * same engine's events passed through an async generator: each event then costs a generator
 * step and a pull of the frame stream, where the engine's `takeReady` hands a burst over at once.
 */
function burstsAgainstSteps(engine, requestBody, work) {
  const stepwise = { ...engine, generate: (request, context) => oneAtATime(engine.generate(request, context)) };
  const bytes = new TextEncoder().encode(JSON.stringify(requestBody));
  const sink = { destroyed: false, characters: 0, write(text) { this.characters += text.length; return true; }, once() {}, off() {} };
  const streams = (handler) => async () => {
    sink.characters = 0;
    for (let index = 0; index < work; index++) {
      const response = await handler.handle(new InProcessRequest(bytes));
      if (!('events' in response)) throw new Error(response.body);
      await writeFrames(sink, response.events[Symbol.asyncIterator]());
    }
    return sink.characters / work;
  };
  const core = streams(createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() }));
  const reference = streams(createChatHandler({ engine: stepwise, accessControl: insecureAcceptAnyApiKey() }));
  return compare({ core, reference, work, check: expectSame() });
}

groups.relayedBursts = async function relayedBurstsGroup() {
  // The upstream engine relaying a 20-chunk stream that comes in one upstream read, in memory.
  const { fetchFromMemory } = upstreamStreamFromMemory();
  const engine = createUpstreamEngine({ baseUrl: 'http://upstream.invalid/v1', model: 'up', fetch: fetchFromMemory });
  return burstsAgainstSteps(engine, { model: 'quantum-flash', stream: true, messages: [{ role: 'user', content: 'Hello there, how are you?' }] }, 3000);
};

groups.referenceBursts = async function referenceBurstsGroup() {
  // The reference engine unpaced, streaming about 100 pieces of a token each: all planned at once.
  const request = { model: 'quantum-flash', stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'Tell me about the weather in Paris and what to wear for a long walk today?' }] };
  return burstsAgainstSteps(createReferenceEngine(), request, 1500);
};

/** An engine context with only `signal` (and the request id and stream flag): what a hand-made context gives an engine. */
class SignalOnlyContext {
  constructor(context) {
    this.context = context;
    this.requestId = context.requestId;
    this.stream = context.stream;
  }
  get signal() {
    return this.context.signal;
  }
}

groups.relayAbort = async function relayAbortGroup() {
  // handle() of a JSON request relayed by the upstream engine through undici (a MockAgent, in
  // memory), against the same engine given a context with only `signal`: the core then makes
  // the run's AbortController, and the engine listens on it, as every relayed request did before
  // `onAbort`. The engine's own abort is an EventEmitter either way.
  const agent = new MockAgent();
  agent.disableNetConnect();
  const answer = JSON.stringify({ id: 'chatcmpl-up', object: 'chat.completion', created: 1, model: 'up', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there, all is well.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 } });
  agent.get('http://upstream.invalid').intercept({ path: '/v1/chat/completions', method: 'POST' }).reply(200, answer, { headers: { 'content-type': 'application/json' } }).persist();
  const engine = createUpstreamEngine({ baseUrl: 'http://upstream.invalid/v1', model: 'up', dispatcher: agent });
  const signalOnly = { ...engine, generate: (request, context) => engine.generate(request, new SignalOnlyContext(context)) };
  const handlers = {
    core: createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey() }),
    reference: createChatHandler({ engine: signalOnly, accessControl: insecureAcceptAnyApiKey() }),
  };
  const work = 3000;
  return compare({ core: jsonRequestsThrough(handlers.core, work), reference: jsonRequestsThrough(handlers.reference, work), work, check: expectSame() });
};

groups.utf8Reads = async function utf8ReadsGroup() {
  // A relayed 20-chunk stream's body as undici hands it over (ASCII, as the envelope always is),
  // cut into reads of 1 KiB, decoded by the engine's reads vs one streaming TextDecoder.
  const chunk = (index) => `data: {"id":"chatcmpl-up","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{"content":"piece ${index} of the answer, "},"finish_reason":null}]}\n\n`;
  const body = Buffer.from(Array.from({ length: 20 }, (_, index) => chunk(index)).join('') + 'data: [DONE]\n\n');
  const reads = Array.from({ length: Math.ceil(body.length / 1024) }, (_, index) => body.subarray(index * 1024, (index + 1) * 1024));
  const work = 100_000;
  const core = () => {
    let length = 0;
    for (let index = 0; index < work; index++) {
      const text = createUtf8Reads();
      for (const read of reads) length += text.decode(read).length;
      length += text.end().length;
    }
    return length;
  };
  const reference = () => {
    let length = 0;
    for (let index = 0; index < work; index++) {
      const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
      for (const read of reads) length += decoder.decode(read, { stream: true }).length;
      length += decoder.decode().length;
    }
    return length;
  };
  return compare({ core, reference, work, check: expectSame() });
};

/**
 * Lines joined into one string and handed to pino's sonic-boom as text, 16 KiB at a time: how
 * the ready server's log destination worked before it held bytes.
 */
function joinedTextDestination(fd) {
  const stream = pino.destination({ dest: fd, sync: false });
  let held = '';
  const flush = () => {
    if (held === '') return;
    stream.write(held);
    held = '';
  };
  return {
    write(line) {
      held += line;
      if (held.length >= 16_384) flush();
    },
    flush,
  };
}

groups.logLines = async function logLinesGroup() {
  // A chat request's two info lines through pino, to /dev/null: the settled line (its key's
  // display has `…`, beyond Latin-1) and the access line. Only the destination differs.
  const fd = openSync('/dev/null', 'w');
  const destinations = { core: createLogDestination({ fd }), reference: joinedTextDestination(fd) };
  const settled = { reqId: 'req_0zXKgT61MaxkylqlPr4iaVmT', model: 'quantum-flash', status: 200, stream: false, promptTokens: 52, completionTokens: 62, totalTokens: 114, interrupted: false, durationMs: 3, key: 'qc_live_…JD3h', keyKind: 'live', organisation: 'bench' };
  const access = { req: { method: 'POST', url: '/v1/chat/completions', host: '127.0.0.1:36975', remoteAddress: '127.0.0.1', remotePort: 40822 }, res: { statusCode: 200 } };
  const work = 60_000;
  const linesThrough = (name) => {
    const log = pino({ level: 'info' }, destinations[name]);
    return async () => {
      for (let index = 0; index < work; index++) {
        log.info(settled, 'chat completion settled');
        log.info({ ...access, responseTime: 3.5 + index }, 'request completed');
        // A server's lines come over many turns of its event loop, and its writes complete between them.
        if (index % 32 === 31) await new Promise((resolve) => setImmediate(resolve));
      }
      destinations[name].flush();
      // The last asynchronous write's thread-pool work is counted in its own round.
      await sleep(20);
      return work;
    };
  };
  return compare({ core: linesThrough('core'), reference: linesThrough('reference'), work, check: expectSame() });
};

const name = process.argv[2];
if (!(name in groups)) throw new Error(`unknown group ${name}; one of ${Object.keys(groups).join(', ')}`);
console.log(JSON.stringify(await groups[name]()));
