import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { TokenLogprob } from '../schemas/logprobs.js';
import { createDialectReader, type DialectSink } from './create-dialect-reader.js';
import { readTokenLogprobs } from './read-token-logprobs.js';

setFlagsFromString('--allow-natives-syntax');
/** V8's own check that two objects share one hidden class (its `%HaveSameMap`). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is reachable only through code compiled at run time.
const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const entry = (token: string, logprob: number): TokenLogprob => ({ token, logprob, bytes: [...new TextEncoder().encode(token)], top_logprobs: [{ token, logprob, bytes: null }] });

function record() {
  const out: unknown[] = [];
  const sink: DialectSink = {
    reasoning: (text) => void out.push(['reasoning', text]),
    content: (text) => void out.push(['content', text]),
    toolCall: () => undefined,
    usage: () => undefined,
    finish: (reason) => void out.push(['finish', reason]),
    logprobs: (entries) => void out.push(['logprobs', entries]),
    error(): never {
      throw new Error('error');
    },
    malformed(problem): never {
      throw new Error(problem);
    },
  };
  return { reader: createDialectReader(sink), out };
}

const chunk = (content: string, logprobs: unknown) => JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, logprobs, finish_reason: null }] });

describe('readTokenLogprobs', () => {
  it('should copy the wire fields of each entry and leave out what is not an entry', () => {
    const read = readTokenLogprobs({
      content: [
        { token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105], extra: 1 }, { token: 7 }], extra: true },
        { token: 'x' },
        'junk',
        { token: '!', logprob: -1, bytes: 'no' },
      ],
      refusal: null,
    });
    expect(read).toEqual([
      { token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105] }] },
      { token: '!', logprob: -1, bytes: null, top_logprobs: [] },
    ]);
    expect(readTokenLogprobs(null)).toBeUndefined();
    expect(readTokenLogprobs({ content: null })).toBeUndefined();
  });
});

describe('createDialectReader: logprobs', () => {
  it('should hand each chunk\'s logprobs to the sink after its content, in streams and whole completions', () => {
    const { reader, out } = record();
    reader.read({ event: undefined, data: chunk('Hi', { content: [entry('Hi', -0.1)], refusal: null }), id: undefined });
    reader.read({ event: undefined, data: chunk('!', { content: [entry('!', -0.2)] }), id: undefined });
    reader.read({ event: undefined, data: chunk(' ok', null), id: undefined });
    expect(out).toEqual([['content', 'Hi'], ['logprobs', [entry('Hi', -0.1)]], ['content', '!'], ['logprobs', [entry('!', -0.2)]], ['content', ' ok']]);

    const whole = record();
    whole.reader.readChunk({ choices: [{ index: 0, message: { role: 'assistant', content: 'Yes' }, logprobs: { content: [entry('Yes', -0.3)] }, finish_reason: 'stop' }] });
    expect(whole.out).toEqual([['content', 'Yes'], ['logprobs', [entry('Yes', -0.3)]], ['finish', 'stop']]);
  });

  it('should read every chunk\'s own figures when chunks repeat one shape (no template reuse of old numbers or shared objects)', () => {
    const { reader, out } = record();
    const handed: TokenLogprob[][] = [];
    for (let index = 0; index < 30; index++) {
      reader.read({ event: undefined, data: chunk(`t${index}`, { content: [entry(`t${index}`, -(index + 1) / 10)] }), id: undefined });
    }
    for (const item of out) if ((item as unknown[])[0] === 'logprobs') handed.push((item as [string, TokenLogprob[]])[1]);
    expect(handed.map((entries) => entries[0]!.logprob)).toEqual(Array.from({ length: 30 }, (_, index) => -(index + 1) / 10));
    expect(new Set(handed.map((entries) => entries[0])).size).toBe(30);
  });

  it('should not read logprobs for a sink that does not want them', () => {
    const out: string[] = [];
    const reader = createDialectReader({
      reasoning: () => undefined,
      content: (text) => void out.push(text),
      toolCall: () => undefined,
      usage: () => undefined,
      finish: () => undefined,
      error(): never {
        throw new Error('error');
      },
      malformed(problem): never {
        throw new Error(problem);
      },
    });
    reader.read({ event: undefined, data: chunk('Hi', { content: 'not a list' }), id: undefined });
    expect(out).toEqual(['Hi']);
  });

  it('should give every entry read one hidden class, not one each (a relayed stream reads one a token)', () => {
    // Past the first few, V8 builds such objects through its fast paths, where the shape goes wrong.
    const entries = readTokenLogprobs({ content: Array.from({ length: 40 }, (_, index) => entry(`t${index}`, -index / 10)) })!;
    expect(entries.slice(-30).filter((read) => !sameHiddenClass(read, entries.at(-1)!))).toHaveLength(0);
  });
});
