import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { learnChunkTemplate, matchChunkTemplate } from './chunk-template.js';

const envelope = { id: 'chatcmpl-abc', object: 'chat.completion.chunk', created: 1, model: 'quantum-reasoner' };
const contentChunk = (content: string) => ({ ...envelope, choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const traceChunk = (text: string, again = text) => ({ delta: text, ...envelope, choices: [{ index: 0, delta: { reasoning_content: again }, finish_reason: null }] });

function learn(chunk: Record<string, unknown>) {
  const data = JSON.stringify(chunk);
  const template = learnChunkTemplate(data, JSON.parse(data) as Record<string, unknown>);
  if (template === undefined) throw new Error('not learned');
  return template;
}

/** Any text, with what JSON must escape (quotes, backslashes, control characters) and non-BMP characters. */
const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', '\t', '\u0000', '\u001f', 'é', '🙂', '\u2028', '/', 'u'), maxLength: 30 }));

describe('chunk templates', () => {
  it('should read every chunk of the same shape exactly as JSON.parse does', () => {
    fc.assert(
      fc.property(text, text, text, (first, second, third) => {
        const template = learn(traceChunk(first));
        const data = JSON.stringify(traceChunk(second, third));
        expect(matchChunkTemplate(template, data)).toBe(true);
        expect(template.chunk).toEqual(JSON.parse(data));
      }),
      { numRuns: 500 },
    );
  });

  it('should match only JSON that parses to the same shape, and otherwise leave the template as it was', () => {
    const template = learn(contentChunk('hello'));
    const before = structuredClone(template.chunk);
    const prefix = JSON.stringify(contentChunk('\u0001')).split('\\u0001')[0]!;
    const suffix = JSON.stringify(contentChunk('\u0001')).split('\\u0001')[1]!;
    for (const body of ['a\tb', 'a\u0000', 'bad \\x escape', 'bad \\u12 escape', 'lone \\', 'unescaped " quote', 'trailing \\\\\\']) {
      const data = prefix + body + suffix;
      expect(() => JSON.parse(data)).toThrow();
      expect(matchChunkTemplate(template, data)).toBe(false);
    }
    for (const data of [
      JSON.stringify({ ...contentChunk('x'), id: 'chatcmpl-other' }),
      JSON.stringify(contentChunk('x')).replace(',', ', '),
      JSON.stringify(contentChunk('x')) + ' ',
      JSON.stringify({ ...contentChunk('x'), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
      JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }),
      JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { content: null }, finish_reason: null }] }),
      JSON.stringify(contentChunk('x')).slice(0, -1),
    ]) {
      expect(matchChunkTemplate(template, data)).toBe(false);
    }
    expect(template.chunk).toEqual(before);
    // An escaped quote, and escaped backslashes before the closing quote, are read as JSON reads them.
    for (const body of ['say \\"hi\\"', 'ends with \\\\', '\\\\\\"', '\\u00e9\\n']) {
      const data = prefix + body + suffix;
      expect(matchChunkTemplate(template, data)).toBe(true);
      expect(template.chunk).toEqual(JSON.parse(data));
    }
  });

  it('should learn nothing from text that is not the chunk’s JSON.stringify, from usage chunks, or from chunks with nothing variable', () => {
    const spaced = '{ "id": "x", "choices": [{ "delta": { "content": "a" } }] }';
    expect(learnChunkTemplate(spaced, JSON.parse(spaced) as Record<string, unknown>)).toBeUndefined();
    const duplicate = '{"choices":[],"choices":[{"delta":{"content":"a"}}]}';
    expect(learnChunkTemplate(duplicate, JSON.parse(duplicate) as Record<string, unknown>)).toBeUndefined();
    const usage = JSON.stringify({ ...contentChunk('a'), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    expect(learnChunkTemplate(usage, JSON.parse(usage) as Record<string, unknown>)).toBeUndefined();
    const finish = JSON.stringify({ ...envelope, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    expect(learnChunkTemplate(finish, JSON.parse(finish) as Record<string, unknown>)).toBeUndefined();
    // `usage: null` on every chunk (OpenAI with include_usage) is part of the shape.
    expect(learnChunkTemplate(JSON.stringify({ ...contentChunk('a'), usage: null }), { ...contentChunk('a'), usage: null })).toBeDefined();
  });

  it('should cut exactly the chunk’s JSON.stringify text at its holes, whatever the shape', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (value) => {
        const data = JSON.stringify(value);
        const chunk = JSON.parse(data) as Record<string, unknown>;
        const template = learnChunkTemplate(data, chunk);
        if (template === undefined) return;
        const rebuilt = template.parts.map((part, hole) => (hole === 0 ? part : JSON.stringify(template.holders[hole - 1]![template.keys[hole - 1]!]).slice(1, -1) + part)).join('');
        expect(rebuilt).toBe(data);
      }),
      { numRuns: 500 },
    );
  });

  it('should read long strings (copied out of the text they were read from)', () => {
    const template = learn(contentChunk('a'));
    const long = 'a string long enough to be kept as a slice';
    expect(matchChunkTemplate(template, JSON.stringify(contentChunk(long)))).toBe(true);
    expect((template.chunk.choices as { delta: { content: string } }[])[0]!.delta.content).toBe(long);
  });
});
