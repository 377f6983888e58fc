import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QuantumChatApiError } from '../errors/api-error.js';
import { APIConnectionError, APIResponseValidationError, APIUserAbortError } from '../errors/connection-errors.js';
import { createAttemptController } from '../http/attempt-controller.js';
import { createChatCompletionStream } from './chat-completion-stream.js';
import type { ChatStreamEvent } from './chat-stream-event.js';

const encoder = new TextEncoder();

/** A stream over a response whose body arrives in the given byte pieces. */
function streamOf(pieces: Uint8Array[], contentType = 'text/event-stream') {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
  const headers = { 'content-type': contentType, 'x-request-id': 'req_test' };
  return createChatCompletionStream(async (signal) => ({ response: new Response(body, { headers }), headers, attempt: createAttemptController(signal, 0) }));
}

/** The bytes cut at the given (sorted, distinct, inner) positions. */
function cut(bytes: Uint8Array, positions: number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const position of positions) {
    pieces.push(bytes.slice(start, position));
    start = position;
  }
  pieces.push(bytes.slice(start));
  return pieces;
}

const frame = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const envelope = { id: 'chatcmpl-abc', object: 'chat.completion.chunk', created: 1, model: 'quantum-reasoner' };
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...envelope, choices: [{ index: 0, delta, finish_reason: null }], ...extra });
const usage = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };

/** Our quantum format for the reasoner, with the optional include_usage chunk. Multibyte text on purpose. */
const quantumReasoner =
  frame({ delta: 'Denke ', ...chunk({ role: 'assistant', reasoning_content: 'Denke ' }) }, 'thought_trace') +
  frame({ delta: 'nach… 🤔', ...chunk({ reasoning_content: 'nach… 🤔' }) }, 'thought_trace') +
  frame(chunk({ content: 'Grüße ' }), 'message') +
  ': keep-alive\n\n' +
  frame(chunk({ content: 'aus Zürich 🇨🇭' }), 'message') +
  frame({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }, 'message') +
  frame({ ...envelope, choices: [], usage }, 'message') +
  frame('[DONE]');

const quantumReasonerExpected = {
  id: 'chatcmpl-abc',
  model: 'quantum-reasoner',
  reasoning: 'Denke nach… 🤔',
  content: 'Grüße aus Zürich 🇨🇭',
  toolCalls: [],
  finishReason: 'stop',
  usage,
};

async function eventsOf(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('createChatCompletionStream', () => {
  it('should read the quantum format without counting thought-trace text twice', async () => {
    const stream = streamOf([encoder.encode(quantumReasoner)]);
    const events = await eventsOf(stream);
    expect(events.filter((event) => event.type === 'reasoning')).toEqual([
      { type: 'reasoning', text: 'Denke ' },
      { type: 'reasoning', text: 'nach… 🤔' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'usage', usage });
    expect(await stream.collect()).toEqual(quantumReasonerExpected);
    expect(stream.requestId).toBe('req_test');
  });

  it('should rebuild the same message wherever the bytes are cut (every single cut)', async () => {
    const bytes = encoder.encode(quantumReasoner);
    for (let position = 1; position < bytes.length; position++) {
      expect(await streamOf(cut(bytes, [position])).collect()).toEqual(quantumReasonerExpected);
    }
  });

  it('should rebuild the same message wherever the bytes are cut (random cuts)', async () => {
    const bytes = encoder.encode(quantumReasoner);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), async (positions) => {
        const pieces = cut(bytes, [...positions].sort((left, right) => left - right));
        expect(await streamOf(pieces).collect()).toEqual(quantumReasonerExpected);
      }),
      { numRuns: 200 },
    );
  });

  it('should read the openai format with reasoning_content, CRLF line ends and one byte at a time', async () => {
    const text = (
      frame(chunk({ role: 'assistant', reasoning_content: 'Hmm' })) +
      frame(chunk({ reasoning_content: '.' })) +
      frame(chunk({ content: 'Yes' })) +
      frame({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage }) +
      frame('[DONE]')
    ).replace(/\n/gu, '\r\n');
    const bytes = encoder.encode(text);
    const pieces = [...bytes].map((byte) => Uint8Array.of(byte));
    const collected = await streamOf(pieces).collect();
    expect(collected).toMatchObject({ reasoning: 'Hmm.', content: 'Yes', finishReason: 'length', usage });
  });

  it('should read reasoning sent as `reasoning` (Ollama, OpenRouter) and take one field when a server sends both', async () => {
    const text =
      frame(chunk({ reasoning: 'a' })) +
      frame(chunk({ reasoning: 'b', reasoning_content: 'b' })) +
      frame(chunk({ content: 'c', reasoning: null })) +
      frame({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }) +
      frame('[DONE]');
    expect(await streamOf([encoder.encode(text)]).collect()).toMatchObject({ reasoning: 'ab', content: 'c', usage: null });
  });

  it('should read a spec-only thought trace that has nothing but `delta`', async () => {
    const text = frame({ delta: 'think' }, 'thought_trace') + frame({ id: 'chatcmpl-x', choices: [{ delta: { content: 'ok' }, finish_reason: 'stop' }] }, 'message') + frame('[DONE]');
    expect(await streamOf([encoder.encode(text)]).collect()).toMatchObject({ reasoning: 'think', content: 'ok', finishReason: 'stop' });
  });

  it('should rebuild tool calls whose id and name are repeated on every fragment', async () => {
    const call = (index: number, id: string, argumentsDelta: string) => ({ index, id, type: 'function', function: { name: `tool_${index}`, arguments: argumentsDelta } });
    const text =
      frame(chunk({ tool_calls: [call(0, 'call_a', '{"ci'), call(1, 'call_b', '{}')] })) +
      frame(chunk({ tool_calls: [call(0, 'call_a', 'ty":"Paris"}')] })) +
      frame({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }) +
      frame('[DONE]');
    const collected = await streamOf([encoder.encode(text)]).collect();
    expect(collected.toolCalls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'tool_0', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'tool_1', arguments: '{}' } },
    ]);
    expect(collected.finishReason).toBe('tool_calls');
  });

  it('should read whole calls in one delta, calls without index, all-index-0 parallel calls and object arguments', async () => {
    const text =
      frame(chunk({ tool_calls: [{ id: 'call_1', function: { name: 'first', arguments: '{"a":1}' } }] })) +
      frame(chunk({ tool_calls: [{ index: 0, id: 'call_2', function: { name: 'second', arguments: '{"b"' } }] })) +
      frame(chunk({ tool_calls: [{ index: 0, function: { arguments: ':2}' } }] })) +
      frame(chunk({ tool_calls: [{ function: { name: 'third', arguments: { c: 3 } } }] })) +
      frame({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }) +
      frame('[DONE]');
    const collected = await streamOf([encoder.encode(text)]).collect();
    expect(collected.toolCalls.map((call) => [call.function.name, call.function.arguments])).toEqual([
      ['first', '{"a":1}'],
      ['second', '{"b":2}'],
      ['third', '{"c":3}'],
    ]);
    // The third call came without an id: it gets a generated one, distinct from the others.
    expect(collected.toolCalls.map((call) => call.id)).toEqual(['call_1', 'call_2', expect.stringMatching(/^call_[0-9A-Za-z]{24}$/)]);
  });

  it('should ignore comments, unknown events and anything after [DONE]', async () => {
    const text = ': hello\n\nevent: ping\ndata: {}\n\n' + frame(chunk({ content: 'x' })) + frame('[DONE]') + frame(chunk({ content: 'late' }));
    expect((await streamOf([encoder.encode(text)]).collect()).content).toBe('x');
  });

  it('should throw the error of an `event: error` frame, after the events before it', async () => {
    const text =
      frame(chunk({ content: 'partial' }), 'message') +
      frame({ error: { message: 'The engine failed.', type: 'server_error', param: null, code: 'internal_error' } }, 'error');
    const stream = streamOf([encoder.encode(text)]);
    const seen: ChatStreamEvent[] = [];
    const failure = await (async () => {
      for await (const event of stream) seen.push(event);
    })().catch((error: unknown) => error);
    expect(seen).toEqual([{ type: 'content', text: 'partial' }]);
    expect(QuantumChatApiError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ status: undefined, code: 'internal_error', type: 'server_error', message: 'The engine failed.' });
    await expect(stream.collect()).rejects.toBe(failure);
  });

  it('should throw the error of an unnamed `data: {"error": …}` payload', async () => {
    const text = frame(chunk({ content: 'x' })) + frame({ error: { message: 'Overloaded', code: 503 } });
    await expect(streamOf([encoder.encode(text)]).collect()).rejects.toMatchObject({ message: 'Overloaded', code: '503' });
  });

  it('should surface the message of an `{"object":"error"}` data line as an API error, not as a cut stream', async () => {
    const text = frame(chunk({ content: 'x' })) + frame({ object: 'error', message: 'The model is overloaded.', type: 'ServiceUnavailableError', param: null, code: 503 });
    const failure = await streamOf([encoder.encode(text)]).collect().catch((error: unknown) => error);
    expect(QuantumChatApiError.isInstance(failure)).toBe(true);
    expect(APIConnectionError.isInstance(failure)).toBe(false);
    expect(failure).toMatchObject({ message: 'The model is overloaded.', type: 'ServiceUnavailableError', code: '503' });
  });

  it('should keep the reasoning of `{"reasoning_content":"","reasoning":"…"}`', async () => {
    const text = frame(chunk({ reasoning_content: '', reasoning: 'Think' })) + frame(chunk({ reasoning_content: '', reasoning: ' twice' })) + frame(chunk({ content: 'ok' })) + frame('[DONE]');
    expect(await streamOf([encoder.encode(text)]).collect()).toMatchObject({ reasoning: 'Think twice', content: 'ok' });
  });

  it('should make two calls of two named tool-call fragments that have neither id nor index', async () => {
    const text =
      frame(chunk({ tool_calls: [{ function: { name: 'get_time', arguments: '{"city":"Tokyo"}' } }] })) +
      frame(chunk({ tool_calls: [{ function: { name: 'get_time', arguments: '{"city":"Oslo"}' } }] })) +
      frame('[DONE]');
    const stream = streamOf([encoder.encode(text)]);
    const events = await eventsOf(stream);
    expect(events.map((event) => (event.type === 'tool-call-delta' ? event.index : -1))).toEqual([0, 1]);
    expect((await stream.collect()).toolCalls.map((call) => call.function)).toEqual([
      { name: 'get_time', arguments: '{"city":"Tokyo"}' },
      { name: 'get_time', arguments: '{"city":"Oslo"}' },
    ]);
  });

  it('should throw when the stream ends without [DONE], even after a finish reason', async () => {
    const text = frame(chunk({ content: 'x' })) + frame({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    const failure = await streamOf([encoder.encode(text)]).collect().catch((error: unknown) => error);
    expect(APIConnectionError.isInstance(failure)).toBe(true);
  });

  it('should throw when [DONE] is not followed by the blank line that dispatches it', async () => {
    const text = frame(chunk({ content: 'x' })) + 'data: [DONE]\n';
    await expect(streamOf([encoder.encode(text)]).collect()).rejects.toSatisfy(APIConnectionError.isInstance);
  });

  it('should throw a validation error for data that is not JSON', async () => {
    const text = frame(chunk({ content: 'x' })) + 'data: {"oops\n\n' + frame('[DONE]');
    await expect(streamOf([encoder.encode(text)]).collect()).rejects.toSatisfy(APIResponseValidationError.isInstance);
  });

  it('should turn a JSON completion into events when a server ignores stream: true', async () => {
    const completion = {
      id: 'chatcmpl-x',
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', reasoning: 'r', content: 'c' }, finish_reason: 'stop' }],
      usage,
    };
    const stream = streamOf([encoder.encode(JSON.stringify(completion))], 'application/json');
    expect(await stream.collect()).toEqual({ id: 'chatcmpl-x', model: 'm', reasoning: 'r', content: 'c', toolCalls: [], finishReason: 'stop', usage });
  });

  it('should read long streams of same-shaped chunks (read through templates) exactly, however cut', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '\n', 'é', '🙂', '\u2028'), maxLength: 20 })), { minLength: 1, maxLength: 60 }),
        fc.uniqueArray(fc.nat(), { maxLength: 20 }),
        async (pieces, cuts) => {
          const text =
            pieces.map(([isTrace, piece]) => (isTrace ? frame({ delta: piece, ...chunk({ reasoning_content: piece }) }, 'thought_trace') : frame(chunk({ content: piece }), 'message'))).join('') +
            frame({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage }) +
            frame('[DONE]');
          const bytes = encoder.encode(text);
          const positions = [...new Set(cuts.map((cut) => 1 + (cut % (bytes.length - 1))))].sort((left, right) => left - right);
          const stream = streamOf(cut(bytes, positions));
          const events = await eventsOf(stream);
          const expected: ChatStreamEvent[] = pieces.filter(([, piece]) => piece !== '').map(([isTrace, piece]) => ({ type: isTrace ? 'reasoning' : 'content', text: piece }));
          expect(events).toEqual([...expected, { type: 'usage', usage }, { type: 'finish', finishReason: 'stop' }]);
          const collected = await stream.collect();
          expect(collected.reasoning).toBe(pieces.filter(([isTrace]) => isTrace).map(([, piece]) => piece).join(''));
          expect(collected.content).toBe(pieces.filter(([isTrace]) => !isTrace).map(([, piece]) => piece).join(''));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('should still reject a malformed chunk whose shape was learned, after the events before it', async () => {
    const good = frame(chunk({ content: 'a' })) + frame(chunk({ content: 'b' })) + frame(chunk({ content: 'c' }));
    // A raw tab inside a string, and an invalid escape: JSON.parse rejects both.
    for (const bad of [JSON.stringify(chunk({ content: 'x' })).replace('"x"', '"x\tq"'), JSON.stringify(chunk({ content: 'x' })).replace('"x"', '"bad \\q"')]) {
      expect(() => JSON.parse(bad)).toThrow();
      const raw = `${good}data: ${bad}\n\n${frame('[DONE]')}`;
      const stream = streamOf([encoder.encode(raw)]);
      const seen: ChatStreamEvent[] = [];
      const failure = await (async () => {
        for await (const event of stream) seen.push(event);
      })().catch((error: unknown) => error);
      expect(seen.map((event) => (event.type === 'content' ? event.text : event.type))).toEqual(['a', 'b', 'c']);
      expect(APIResponseValidationError.isInstance(failure)).toBe(true);
    }
  });

  it('should behave as an async generator: queued next() calls, return() before the start, done after the end', async () => {
    const text = frame(chunk({ content: 'a' })) + frame(chunk({ content: 'b' })) + frame('[DONE]');
    const iterator = streamOf([encoder.encode(text)])[Symbol.asyncIterator]();
    expect((iterator as AsyncIterableIterator<ChatStreamEvent>)[Symbol.asyncIterator]()).toBe(iterator);
    const results = await Promise.all([iterator.next(), iterator.next(), iterator.next(), iterator.next()]);
    expect(results).toEqual([
      { value: { type: 'content', text: 'a' }, done: false },
      { value: { type: 'content', text: 'b' }, done: false },
      { value: undefined, done: true },
      { value: undefined, done: true },
    ]);
    expect(await iterator.return!()).toEqual({ value: undefined, done: true });

    let opened = false;
    const unopened = createChatCompletionStream(async () => {
      opened = true;
      throw new Error('never called');
    });
    expect(await unopened[Symbol.asyncIterator]().return!()).toEqual({ value: undefined, done: true });
    expect(await unopened[Symbol.asyncIterator]().next()).toEqual({ value: undefined, done: true });
    expect(opened).toBe(false);
  });

  it('should reject collect() with APIUserAbortError after a break, and cancel the body', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(frame(chunk({ content: 'a' })) + frame(chunk({ content: 'b' }))));
      },
      cancel() {
        cancelled = true;
      },
    });
    const headers = { 'content-type': 'text/event-stream' };
    const stream = createChatCompletionStream(async (signal) => ({ response: new Response(body, { headers }), headers, attempt: createAttemptController(signal, 0) }));
    for await (const event of stream) {
      expect(event).toEqual({ type: 'content', text: 'a' });
      break;
    }
    expect(cancelled).toBe(true);
    await expect(stream.collect()).rejects.toSatisfy(APIUserAbortError.isInstance);
  });

  it('should reject a pending read with APIUserAbortError on abort()', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(frame(chunk({ content: 'a' }))));
      },
    });
    const headers = { 'content-type': 'text/event-stream' };
    // A real fetch errors its body when its signal aborts; this stand-in does the same.
    const stream = createChatCompletionStream(async (signal) => {
      const attempt = createAttemptController(signal, 0);
      const reader = body.getReader();
      const wrapped = new ReadableStream<Uint8Array>({
        async pull(controller) {
          // Also when the signal aborted before this pull started (how soon the stream pulls again is up to the runtime).
          const aborted = new Promise<never>((_, reject) => {
            if (attempt.signal.aborted) reject(new DOMException('aborted', 'AbortError'));
            else attempt.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
          });
          const result = await Promise.race([reader.read(), aborted]);
          if (result.done) controller.close();
          else controller.enqueue(result.value);
        },
      });
      return { response: new Response(wrapped, { headers }), headers, attempt };
    });
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: 'content', text: 'a' });
    const pending = iterator.next();
    stream.abort();
    await expect(pending).rejects.toSatisfy(APIUserAbortError.isInstance);
  });
});
