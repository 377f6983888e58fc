// CPU microbenchmarks, one group per process (so one group's type feedback never slows
// another's): SSE decoding, the client's stream iteration, long-event linearity, encoding.
// Each group alternates its candidates round by round and measures process CPU time.
import { createSseDecoder } from '@quantum-chat/core/sse';
import { createChatClient } from '@quantum-chat/client';
import { createStreamFrameEncoder } from '@quantum-chat/core/host';
import { createParser } from 'eventsource-parser';
import fastJsonStringify from 'fast-json-stringify';
import OpenAI from 'openai';
import { _iterSSEMessages } from 'openai/core/streaming';
import { serveParent } from '../lib/child.mjs';
import { createChatStream, createLongEvent, cutBytes, cutText } from '../lib/chat-stream.mjs';
import { median } from '../lib/stats.mjs';

const quick = process.argv.includes('--quick');
const streamBytes = quick ? 1024 * 1024 : 10 * 1024 * 1024;

function cpuSeconds(start) {
  const usage = process.cpuUsage(start);
  return (usage.user + usage.system) / 1e6;
}

/**
 * Runs every candidate `warmup` times, then `rounds` rounds in alternating order. Returns, per
 * candidate, the median CPU seconds of a run and the median per-round ratio of the baseline's
 * time to its own (its speed-up over the baseline).
 */
async function compare(candidates, { baseline, rounds, warmup = 2, check }) {
  const names = Object.keys(candidates);
  for (const name of names) for (let index = 0; index < warmup; index++) check?.(name, await candidates[name]());
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      // No forced gc() here: its concurrent sweeping runs on other threads and would be
      // billed to the next run's process CPU time (it doubled some figures).
      const start = process.cpuUsage();
      const result = await candidates[name]();
      times[name].push(cpuSeconds(start));
      check?.(name, result);
    }
  }
  return Object.fromEntries(
    names.map((name) => [
      name,
      {
        seconds: median(times[name]),
        speedup: median(times[name].map((time, round) => times[baseline][round] / time)),
      },
    ]),
  );
}

/** A flat (sequential) copy of a string, as a TextDecoder would produce it. */
function flatten(text) {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function expectCount(expected) {
  return (name, count) => {
    if (count !== expected) throw new Error(`${name} decoded ${count} events, expected ${expected}`);
  };
}

function coreDecode(pieces) {
  let count = 0;
  const decoder = createSseDecoder({ onEvent: () => count++ });
  for (const piece of pieces) decoder.feed(piece);
  decoder.end();
  return count;
}

function parserDecode(pieces) {
  let count = 0;
  const parser = createParser({ onEvent: () => count++ });
  for (const piece of pieces) parser.feed(piece);
  parser.reset();
  return count;
}

function parserDecodeBytes(pieces) {
  let count = 0;
  const parser = createParser({ onEvent: () => count++ });
  const textDecoder = new TextDecoder();
  for (const piece of pieces) parser.feed(textDecoder.decode(piece, { stream: true }));
  parser.reset();
  return count;
}

function bodyOf(pieces) {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index < pieces.length) controller.enqueue(pieces[index++]);
      else controller.close();
    },
  });
}

async function openaiDecode(pieces) {
  let count = 0;
  for await (const message of _iterSSEMessages({ body: bodyOf(pieces) }, new AbortController())) if (message) count++;
  return count;
}

const groups = {
  /**
   * The decoder's synchronous feed() on text pieces, against eventsource-parser 3 (which only
   * takes strings). The pieces are flat strings, as a TextDecoder hands them over, not slices
   * of one big string (V8 keeps those as sliced strings, slower to read for both parsers).
   */
  async decodingStrings({ rounds }) {
    const { text, events } = createChatStream(createStreamFrameEncoder, streamBytes);
    const results = [];
    for (const size of [1024, 16 * 1024, 'random']) {
      const pieces = cutText(text, size).map(flatten);
      const candidates = {
        'eventsource-parser': () => parserDecode(pieces),
        core: () => coreDecode(pieces),
      };
      const figures = await compare(candidates, { baseline: 'eventsource-parser', rounds, check: expectCount(events) });
      results.push({ pieceSize: size, pieces: pieces.length, figures });
    }
    return { bytes: Buffer.byteLength(text), events, results };
  },

  /** Bytes in, events out: the core decoder (bytes), eventsource-parser behind a TextDecoder, openai's decoder. */
  async decodingBytes({ rounds }) {
    const { text, events } = createChatStream(createStreamFrameEncoder, streamBytes);
    const bytes = new TextEncoder().encode(text);
    const results = [];
    for (const size of [1024, 16 * 1024, 'random']) {
      const pieces = cutBytes(bytes, size);
      const candidates = {
        'eventsource-parser + TextDecoder': () => parserDecodeBytes(pieces),
        core: () => coreDecode(pieces),
        'openai _iterSSEMessages': () => openaiDecode(pieces),
      };
      const figures = await compare(candidates, { baseline: 'eventsource-parser + TextDecoder', rounds, check: expectCount(events) });
      results.push({ pieceSize: size, pieces: pieces.length, figures });
    }
    return { bytes: bytes.length, events, results };
  },

  /** The client's whole stream iteration (bytes → typed events) against the openai package's. */
  async client({ rounds }) {
    const { text, events } = createChatStream(createStreamFrameEncoder, streamBytes);
    const pieces = cutBytes(new TextEncoder().encode(text), 16 * 1024);
    const fetchStream = async () => new Response(bodyOf(pieces), { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
    const ours = createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'qc_test_bench', fetch: fetchStream, maxRetries: 0 });
    const theirs = new OpenAI({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'bench', fetch: fetchStream, maxRetries: 0 });
    const request = { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'hi' }] };
    let typedEvents = 0;
    const candidates = {
      'openai chat.completions.create({ stream: true })': async () => {
        let count = 0;
        for await (const chunk of await theirs.chat.completions.create({ ...request, stream: true })) if (chunk) count++;
        return count;
      },
      '@quantum-chat/client chat.completions.stream()': async () => {
        let count = 0;
        for await (const event of ours.chat.completions.stream(request)) if (event) count++;
        typedEvents = count;
        return count;
      },
    };
    const figures = await compare(candidates, {
      baseline: 'openai chat.completions.create({ stream: true })',
      rounds,
      check: (name, count) => {
        // openai yields every chunk; ours yields typed events (reasoning, content, usage, finish).
        if (name.startsWith('openai') && count !== events - 1) throw new Error(`openai yielded ${count} chunks, expected ${events - 1}`);
        if (!name.startsWith('openai') && count < events - 1) throw new Error(`client yielded ${count} events, expected at least ${events - 1}`);
      },
    });
    return { bytes: text.length, events, typedEvents, pieceSize: 16 * 1024, figures };
  },

  /** One long event fed in 1 KiB pieces: 1 MiB vs 4 MiB (linear ≈ 4×, quadratic ≈ 16×). */
  async linearity({ rounds }) {
    const sizes = quick ? [256 * 1024, 1024 * 1024] : [1024 * 1024, 4 * 1024 * 1024];
    const results = [];
    for (const [name, decode, pieceSize] of [
      ['core (strings)', (pieces) => coreDecode(pieces), 1024],
      ['eventsource-parser (strings)', (pieces) => parserDecode(pieces), 1024],
      ['openai _iterSSEMessages (bytes)', (pieces) => openaiDecode(pieces), 16 * 1024],
    ]) {
      const seconds = [];
      for (const size of sizes) {
        const event = createLongEvent(size);
        const pieces = name.endsWith('(bytes)') ? cutBytes(new TextEncoder().encode(event), pieceSize) : cutText(event, pieceSize).map(flatten);
        const figures = await compare({ [name]: () => decode(pieces) }, { baseline: name, rounds: name.startsWith('openai') ? Math.min(rounds, 3) : rounds, warmup: 1, check: expectCount(1) });
        seconds.push(figures[name].seconds);
      }
      results.push({ decoder: name, pieceSize, sizes, seconds, growth: seconds[1] / seconds[0] });
    }
    return { results, sizeRatio: sizes[1] / sizes[0] };
  },

  /** Chunk serialisation per event: JSON.stringify vs fast-json-stringify vs the frame encoder. */
  async encoding({ rounds }) {
    const events = quick ? 100_000 : 1_000_000;
    const envelope = { id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT', created: 1_767_225_600, model: 'quantum-flash' };
    const texts = cutText('Server-sent events are plain HTTP: one long response, café, 東京 and "quotes". '.repeat(40), 4);
    const chunkSchema = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        object: { type: 'string' },
        created: { type: 'integer' },
        model: { type: 'string' },
        choices: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              index: { type: 'integer' },
              delta: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } } },
              finish_reason: { type: ['string', 'null'] },
            },
          },
        },
      },
    };
    const stringifyChunk = fastJsonStringify(chunkSchema);
    const chunkOf = (text, first) => ({
      id: envelope.id,
      object: 'chat.completion.chunk',
      created: envelope.created,
      model: envelope.model,
      choices: [{ index: 0, delta: first ? { role: 'assistant', content: text } : { content: text }, finish_reason: null }],
    });
    // Each encoder writes one stream of `events` frames; the output length is the check.
    const encoders = {
      'JSON.stringify per chunk': () => {
        let length = 0;
        for (let index = 0; index < events; index++) length += `event: message\ndata: ${JSON.stringify(chunkOf(texts[index % texts.length], index === 0))}\n\n`.length;
        return length;
      },
      'fast-json-stringify per chunk': () => {
        let length = 0;
        for (let index = 0; index < events; index++) length += `event: message\ndata: ${stringifyChunk(chunkOf(texts[index % texts.length], index === 0))}\n\n`.length;
        return length;
      },
      'core frame encoder': () => {
        const encoder = createStreamFrameEncoder('quantum', envelope);
        let length = 0;
        for (let index = 0; index < events; index++) length += encoder.content(texts[index % texts.length]).length;
        return length;
      },
    };
    // The three must write the same bytes.
    const sample = (name) => {
      if (name === 'core frame encoder') {
        const encoder = createStreamFrameEncoder('quantum', envelope);
        return [encoder.content(texts[0]), encoder.content(texts[1])].join('');
      }
      const serialise = name.startsWith('JSON') ? JSON.stringify : stringifyChunk;
      return [0, 1].map((index) => `event: message\ndata: ${serialise(chunkOf(texts[index], index === 0))}\n\n`).join('');
    };
    const reference = sample('core frame encoder');
    for (const name of Object.keys(encoders)) if (sample(name) !== reference) throw new Error(`${name} writes other bytes:\n${sample(name)}\n${reference}`);
    let expected;
    const figures = await compare(encoders, {
      baseline: 'JSON.stringify per chunk',
      rounds,
      check: (name, length) => {
        expected ??= length;
        if (length !== expected) throw new Error(`${name} wrote ${length} characters, expected ${expected}`);
      },
    });
    return { events, figures };
  },
};

serveParent({
  run: ({ group, rounds }) => groups[group]({ rounds }),
});
