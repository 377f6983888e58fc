import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createThinkTagSplitter, type ThinkTagPiece } from './think-tag-splitter.js';

/** Feeds the chunks and returns the whole reasoning and content. */
function split(chunks: string[]): { reasoning: string; content: string; pieces: ThinkTagPiece[] } {
  const splitter = createThinkTagSplitter();
  const pieces = [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()];
  const join = (type: ThinkTagPiece['type']) => pieces.filter((piece) => piece.type === type).map((piece) => piece.text).join('');
  return { reasoning: join('reasoning'), content: join('content'), pieces };
}

/** Cuts `text` at the given positions. */
function cut(text: string, positions: number[]): string[] {
  const sorted = [...new Set(positions.map((position) => position % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let last = 0;
  for (const position of sorted) {
    chunks.push(text.slice(last, position));
    last = position;
  }
  chunks.push(text.slice(last));
  return chunks;
}

describe('createThinkTagSplitter', () => {
  it('should split a leading think block into reasoning and answer', () => {
    expect(split(['<think>\nI should greet.\n</think>\n\nHello!'])).toMatchObject({ reasoning: 'I should greet.', content: 'Hello!' });
  });

  it('should find tags cut across chunks', () => {
    const result = split(['<th', 'ink', '>Plan', ' a', ' reply', '.</', 'thi', 'nk>', '\n', '\nHi', ' there']);
    expect(result).toMatchObject({ reasoning: 'Plan a reply.', content: 'Hi there' });
  });

  it('should stream reasoning before the closing tag arrives', () => {
    const splitter = createThinkTagSplitter();
    expect(splitter.push('<think>one ')).toEqual([{ type: 'reasoning', text: 'one' }]);
    expect(splitter.push('two</')).toEqual([{ type: 'reasoning', text: ' two' }]);
    expect(splitter.push('think>Answer')).toEqual([{ type: 'content', text: 'Answer' }]);
  });

  it('should pass text without a leading block through unchanged', () => {
    expect(split(['\n\nSome ', 'text with <think>tags</think> inside.'])).toMatchObject({
      reasoning: '',
      content: '\n\nSome text with <think>tags</think> inside.',
      pieces: [
        { type: 'content', text: '\n\nSome ' },
        { type: 'content', text: 'text with <think>tags</think> inside.' },
      ],
    });
  });

  it('should not hold back text once it cannot start a tag', () => {
    const splitter = createThinkTagSplitter();
    expect(splitter.push('<b>')).toEqual([{ type: 'content', text: '<b>' }]);
    expect(splitter.push('bold')).toEqual([{ type: 'content', text: 'bold' }]);
  });

  it('should give back a cut opening tag as content at the end', () => {
    expect(split(['<thi'])).toMatchObject({ reasoning: '', content: '<thi' });
  });

  it('should keep the reasoning of a block cut short by the token limit', () => {
    expect(split(['<think>Still thinking </thi'])).toMatchObject({ reasoning: 'Still thinking </thi', content: '' });
  });

  it('should drop an empty block (a model with thinking switched off)', () => {
    expect(split(['<think>\n\n</think>\n\n', 'Hi'])).toMatchObject({ reasoning: '', content: 'Hi', pieces: [{ type: 'content', text: 'Hi' }] });
  });

  it('should give the same result however the stream is cut (property)', () => {
    const alphabet = fc.constantFrom('<think>', '</think>', '<', '>', '/', 't', 'h', 'i', 'n', 'k', ' ', '\n', 'a', 'é', '😀');
    const text = fc.array(alphabet, { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (whole, positions) => {
        const once = split([whole]);
        const cutUp = split(cut(whole, positions));
        expect({ reasoning: cutUp.reasoning, content: cutUp.content }).toEqual({ reasoning: once.reasoning, content: once.content });
      }),
      { numRuns: 2000 },
    );
  });

  it('should recover the parts of any well-formed block (property)', () => {
    const space = fc.constantFrom('', ' ', '\n', '\n\n');
    const reasoning = fc.string({ maxLength: 40 }).filter((value) => !value.includes('</think>'));
    const answer = fc.string({ maxLength: 40 }).filter((value) => value.trimStart() === value);
    fc.assert(
      fc.property(space, reasoning, space, answer, fc.array(fc.nat(), { maxLength: 8 }), (before, inner, after, content, positions) => {
        const whole = `${before}<think>${inner}</think>${after}${content}`;
        expect(split(cut(whole, positions))).toMatchObject({ reasoning: inner.trim(), content });
      }),
      { numRuns: 1000 },
    );
  });

  it('should pass any text that does not start with a tag through unchanged (property)', () => {
    const text = fc.string({ maxLength: 60 }).filter((value) => !value.trimStart().startsWith('<'));
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), (whole, positions) => {
        expect(split(cut(whole, positions))).toMatchObject({ reasoning: '', content: whole });
      }),
    );
  });

  it('should say when later pieces pass through unchanged', () => {
    const plain = createThinkTagSplitter();
    expect(plain.passesThrough()).toBe(false);
    plain.push('  ');
    expect(plain.passesThrough()).toBe(false);
    plain.push('Hi');
    expect(plain.passesThrough()).toBe(true);
    const thinking = createThinkTagSplitter();
    thinking.push('<think>plan');
    expect(thinking.passesThrough()).toBe(false);
    thinking.push('</think>\n');
    expect(thinking.passesThrough()).toBe(false);
    expect(thinking.push('\nAnswer')).toEqual([{ type: 'content', text: 'Answer' }]);
    expect(thinking.passesThrough()).toBe(true);
    expect(thinking.push('  more <think> text')).toEqual([{ type: 'content', text: '  more <think> text' }]);
  });
});
