import { describe, expect, it } from 'vitest';
import type { SseEvent } from '../sse/create-sse-decoder.js';
import { createDialectReader, type DialectReaderOptions, type DialectSink } from './create-dialect-reader.js';
import type { WireError } from './read-error-payload.js';

type Read =
  | { type: 'reasoning'; text: string }
  | { type: 'content'; text: string }
  | { type: 'tool-call'; index: number; id?: string; name?: string; argumentsDelta: string }
  | { type: 'usage'; usage: unknown }
  | { type: 'finish'; reason: string };

class ErrorRead extends Error {
  constructor(readonly wire: WireError) {
    super(wire.message);
  }
}
class MalformedRead extends Error {}

function createRecorder(options?: DialectReaderOptions) {
  const out: Read[] = [];
  const sink: DialectSink = {
    reasoning: (text) => void out.push({ type: 'reasoning', text }),
    content: (text) => void out.push({ type: 'content', text }),
    toolCall(call, argumentsDelta, id, name) {
      out.push({ type: 'tool-call', index: call.index, ...(id !== undefined ? { id } : {}), ...(name !== undefined ? { name } : {}), argumentsDelta });
    },
    usage: (usage) => void out.push({ type: 'usage', usage }),
    finish: (reason) => void out.push({ type: 'finish', reason }),
    error(error) {
      throw new ErrorRead(error);
    },
    malformed(problem) {
      throw new MalformedRead(problem);
    },
  };
  const reader = createDialectReader(sink, options);
  return { reader, out };
}

const event = (data: unknown, name?: string): SseEvent => ({ event: name, data: typeof data === 'string' ? data : JSON.stringify(data), id: undefined });
const chunk = (delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finishReason }],
  ...extra,
});

/** Reads the events and returns what the sink saw. */
function readAll(events: SseEvent[], options?: DialectReaderOptions) {
  const { reader, out } = createRecorder(options);
  for (const item of events) reader.read(item);
  reader.end();
  return { reader, out };
}

function text(out: Read[], type: 'reasoning' | 'content'): string {
  return out
    .filter((item): item is Extract<Read, { type: typeof type }> => item.type === type)
    .map((item) => item.text)
    .join('');
}

function catchRead(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('createDialectReader', () => {
  describe('text and reasoning', () => {
    it('should read OpenAI content chunks, the finish reason, usage and [DONE]', () => {
      const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
      const { reader, out } = readAll([
        event(chunk({ role: 'assistant', content: '' })),
        event(chunk({ content: 'Hel' })),
        event(chunk({ content: 'lo' })),
        event(chunk({}, 'stop', { usage })),
        event('[DONE]'),
      ]);
      expect(out).toEqual([
        { type: 'content', text: 'Hel' },
        { type: 'content', text: 'lo' },
        { type: 'usage', usage },
        { type: 'finish', reason: 'stop' },
      ]);
      expect(reader.done()).toBe(true);
      expect(reader.id()).toBe('chatcmpl-1');
      expect(reader.model()).toBe('m');
      expect(reader.systemFingerprint()).toBeUndefined();
    });

    it('should keep the first system_fingerprint, unless it is too long to be one', () => {
      const fingerprinted = (content: string, fingerprint: unknown) => event({ ...chunk({ content }), system_fingerprint: fingerprint });
      expect(readAll([fingerprinted('a', null), fingerprinted('b', 'fp_1'), fingerprinted('c', 'fp_2'), event('[DONE]')]).reader.systemFingerprint()).toBe('fp_1');
      expect(readAll([fingerprinted('a', 'x'.repeat(257)), event('[DONE]')]).reader.systemFingerprint()).toBeUndefined();
    });

    it('should read our thought traces once, though they carry the text twice', () => {
      const trace = (piece: string) => event({ delta: piece, ...chunk({ reasoning_content: piece }) }, 'thought_trace');
      const { out } = readAll([trace('Think'), trace(' hard'), event(chunk({ content: 'Done' }), 'message'), event('[DONE]')]);
      expect(out).toEqual([
        { type: 'reasoning', text: 'Think' },
        { type: 'reasoning', text: ' hard' },
        { type: 'content', text: 'Done' },
      ]);
    });

    it('should read a spec-only thought trace (a bare `delta` string)', () => {
      expect(readAll([event({ delta: 'Hmm' }, 'thought_trace')]).out).toEqual([{ type: 'reasoning', text: 'Hmm' }]);
    });

    it('should read DeepSeek reasoning_content and vLLM/Ollama reasoning', () => {
      expect(readAll([event(chunk({ content: null, reasoning_content: 'a' })), event(chunk({ reasoning: 'b' }))]).out).toEqual([
        { type: 'reasoning', text: 'a' },
        { type: 'reasoning', text: 'b' },
      ]);
    });

    it('should keep the reasoning of an empty reasoning_content beside a reasoning field', () => {
      expect(readAll([event(chunk({ reasoning_content: '', reasoning: 'kept' }))]).out).toEqual([{ type: 'reasoning', text: 'kept' }]);
    });

    it('should take reasoning once when both fields carry the same text', () => {
      expect(readAll([event(chunk({ reasoning_content: 'Hmm', reasoning: 'Hmm' }))]).out).toEqual([{ type: 'reasoning', text: 'Hmm' }]);
    });

    it('should read a whole completion message like a delta', () => {
      const { reader, out } = createRecorder();
      reader.readChunk({ choices: [{ index: 0, message: { role: 'assistant', reasoning: 'Think', content: 'Hello' }, finish_reason: 'stop' }] });
      expect(out).toEqual([
        { type: 'reasoning', text: 'Think' },
        { type: 'content', text: 'Hello' },
        { type: 'finish', reason: 'stop' },
      ]);
    });

    it('should read only the first choice', () => {
      const twoChoices = { choices: [{ index: 1, delta: { content: 'other' } }, { index: 0, delta: { content: 'mine' } }] };
      expect(readAll([event(twoChoices)]).out).toEqual([{ type: 'content', text: 'mine' }]);
    });

    it('should ignore comments-only and other event names, and everything after [DONE]', () => {
      expect(readAll([event('{}', 'ping'), event(chunk({ content: 'a' })), event('[DONE]'), event(chunk({ content: 'late' }))]).out).toEqual([
        { type: 'content', text: 'a' },
      ]);
    });

    it('should know when the upstream started producing, and not count role-only or empty deltas', () => {
      const { reader } = createRecorder();
      reader.read(event(chunk({ role: 'assistant', content: '', reasoning_content: null })));
      expect(reader.started()).toBe(false);
      reader.read(event(chunk({ content: 'a' })));
      expect(reader.started()).toBe(true);
    });
  });

  describe('think tags', () => {
    it('should split a leading <think> block, however its tags are cut, when asked', () => {
      const pieces = ['<thi', 'nk>pl', 'an</th', 'ink>\n\nHi'];
      const { out } = readAll(
        pieces.map((piece) => event(chunk({ content: piece }))),
        { thinkTags: true },
      );
      expect(text(out, 'reasoning')).toBe('plan');
      expect(text(out, 'content')).toBe('Hi');
    });

    it('should leave <think> in the content by default', () => {
      expect(text(readAll([event(chunk({ content: '<think>x</think>Hi' }))]).out, 'content')).toBe('<think>x</think>Hi');
    });

    it('should give back held text at the end', () => {
      const { out } = readAll([event(chunk({ content: '  ' }))], { thinkTags: true });
      expect(out).toEqual([{ type: 'content', text: '  ' }]);
    });
  });

  describe('tool calls', () => {
    const calls = (deltas: unknown[][]) => readAll(deltas.map((toolCalls) => event(chunk({ tool_calls: toolCalls })))).out;

    it('should read OpenAI fragments by index', () => {
      expect(
        calls([
          [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }],
          [{ index: 0, function: { arguments: '{"a":1}' } }],
          [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }],
        ]),
      ).toEqual([
        { type: 'tool-call', index: 0, id: 'call_a', name: 'f', argumentsDelta: '' },
        { type: 'tool-call', index: 0, argumentsDelta: '{"a":1}' },
        { type: 'tool-call', index: 1, id: 'call_b', name: 'g', argumentsDelta: '{}' },
      ]);
    });

    it('should make two calls of two named fragments with neither id nor index', () => {
      expect(
        calls([[{ function: { name: 'get_time', arguments: '{"city":"Tokyo"}' } }], [{ function: { name: 'get_time', arguments: '{"city":"Oslo"}' } }]]),
      ).toEqual([
        { type: 'tool-call', index: 0, name: 'get_time', argumentsDelta: '{"city":"Tokyo"}' },
        { type: 'tool-call', index: 1, name: 'get_time', argumentsDelta: '{"city":"Oslo"}' },
      ]);
    });

    it('should tell calls apart by id when they come without index, or all at index 0', () => {
      expect(calls([[{ id: 'x', function: { name: 'a', arguments: '{' } }], [{ id: 'y', function: { name: 'b', arguments: '{}' } }], [{ id: 'x', function: { arguments: '}' } }]]).map((item) => (item as { index: number }).index)).toEqual([0, 1, 0]);
      expect(calls([[{ index: 0, id: 'x', function: { name: 'a', arguments: '{}' } }], [{ index: 0, id: 'y', function: { name: 'b', arguments: '{}' } }]]).map((item) => (item as { index: number }).index)).toEqual([0, 1]);
    });

    it('should read whole calls in one chunk, with object arguments', () => {
      expect(
        calls([
          [
            { id: 'call_a', index: 0, function: { name: 'a', arguments: { city: 'Paris' } } },
            { id: 'call_b', index: 1, function: { name: 'b', arguments: '{}' } },
          ],
        ]),
      ).toEqual([
        { type: 'tool-call', index: 0, id: 'call_a', name: 'a', argumentsDelta: '{"city":"Paris"}' },
        { type: 'tool-call', index: 1, id: 'call_b', name: 'b', argumentsDelta: '{}' },
      ]);
    });

    it('should merge ids repeated on every fragment, and drop a resend of the whole arguments', () => {
      const piece = (args: string) => [{ index: 0, id: 'call_a', type: 'function', function: { name: 'a', arguments: args } }];
      const { out, reader } = readAll([piece('{"x"'), piece(':1}'), piece('{"x":1}')].map((toolCalls) => event(chunk({ tool_calls: toolCalls }))));
      expect(out.map((item) => (item as { argumentsDelta: string }).argumentsDelta)).toEqual(['{"x"', ':1}', '']);
      expect(reader.toolCalls.calls()).toMatchObject([{ index: 0, id: 'call_a', name: 'a', arguments: '{"x":1}' }]);
    });
  });

  describe('errors', () => {
    it('should recognise an `{"object":"error"}` data line and keep its message', () => {
      const error = catchRead(() => readAll([event(chunk({ content: 'a' })), event({ object: 'error', message: 'Model overloaded', type: 'ServiceUnavailableError', param: null, code: 503 })]));
      expect(error).toBeInstanceOf(ErrorRead);
      expect((error as ErrorRead).wire).toEqual({ message: 'Model overloaded', type: 'ServiceUnavailableError', param: null, code: '503', status: 503 });
    });

    it('should recognise an `{"error":…}` data line', () => {
      const error = catchRead(() => readAll([event({ error: { message: 'Overloaded', type: 'server_error', param: null, code: 'server_overloaded' } }), event('[DONE]')]));
      expect((error as ErrorRead).wire).toEqual({ message: 'Overloaded', type: 'server_error', param: null, code: 'server_overloaded', status: undefined });
    });

    it('should read an error event, JSON or not', () => {
      expect((catchRead(() => readAll([event('out of memory', 'error')])) as ErrorRead).wire.message).toBe('out of memory');
      expect((catchRead(() => readAll([event({ error: { message: 'boom', type: 'server_error', code: 'internal_error', param: null } }, 'error')])) as ErrorRead).wire).toMatchObject({
        message: 'boom',
        code: 'internal_error',
      });
    });

    it.each([
      ['data that is not JSON', '{"choices":'],
      ['a chunk that is not an object', '[1,2]'],
      ['content that is not a string', JSON.stringify(chunk({ content: 5 }))],
      ['choices that are not an array', JSON.stringify({ choices: {} })],
      ['a tool-call index that is not a whole number', JSON.stringify(chunk({ tool_calls: [{ index: -1 }] }))],
      ['arguments of the wrong type', JSON.stringify(chunk({ tool_calls: [{ index: 0, function: { arguments: 3 } }] }))],
      ['usage with a count that is not a number', JSON.stringify({ choices: [], usage: { prompt_tokens: 'many' } })],
    ])('should refuse %s', (_name, data) => {
      expect(catchRead(() => readAll([event(data)]))).toBeInstanceOf(MalformedRead);
    });
  });

  describe('repeated chunk shapes', () => {
    it('should read chunks that repeat a shape exactly as it would parse them', () => {
      const pieces = ['a', 'b "quoted"', 'back\\slash', 'line\nbreak', '東京 🙂', '', 'z'.repeat(40)];
      const events = [...pieces, ...pieces].map((piece) => event(chunk({ content: piece })));
      expect(text(readAll(events).out, 'content')).toBe([...pieces, ...pieces].join(''));
    });
  });
});

describe('createDialectReader with maxToolArgumentsLength', () => {
  const call = (args: string): SseEvent => ({ event: undefined, id: undefined, data: JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: args } }] } }] }) });

  it('should take arguments up to the limit, across fragments, and call one past it malformed', () => {
    const { reader, out } = createRecorder({ maxToolArgumentsLength: 8 });
    reader.read(call('{"a":'));
    reader.read(call('12}'));
    expect(out.map((read) => (read.type === 'tool-call' ? read.argumentsDelta : ''))).toEqual(['{"a":', '12}']);
    expect(() => reader.read(call('3'))).toThrow(new MalformedRead('a tool call whose arguments are longer than 8 characters'));
  });

  it('should leave arguments unlimited by default', () => {
    const { reader, out } = createRecorder();
    reader.read(call('x'.repeat(100_000)));
    expect(out).toHaveLength(1);
  });
});
