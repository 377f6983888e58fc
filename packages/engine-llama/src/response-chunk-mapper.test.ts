import type { LlamaChatResponseChunk } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { createResponseChunkMapper } from './response-chunk-mapper.js';

const thought = (text: string, tokens: number): LlamaChatResponseChunk => ({ type: 'segment', segmentType: 'thought', text, tokens: Array.from({ length: tokens }, (_, index) => index) as never });
const text = (value: string): LlamaChatResponseChunk => ({ type: undefined, segmentType: undefined, text: value, tokens: [1] as never });

describe('createResponseChunkMapper', () => {
  it('turns a thinking model\'s thought segments into reasoning, then its text into content', () => {
    const mapper = createResponseChunkMapper({ showReasoning: true, forced: { kind: 'text' } });
    const events = [thought('Let me', 2), thought(' think.', 2), text('Four.')].flatMap((chunk) => mapper.read(chunk));
    expect(events).toEqual([
      { type: 'reasoning', text: 'Let me' },
      { type: 'reasoning', text: ' think.' },
      { type: 'content', text: 'Four.' },
    ]);
    expect(mapper.reasoningTokens).toBe(4);
  });

  it('hides thoughts from a model that does not show reasoning, and still counts them', () => {
    const mapper = createResponseChunkMapper({ showReasoning: false, forced: { kind: 'text' } });
    expect([thought('hmm', 3), text('Hi')].flatMap((chunk) => mapper.read(chunk))).toEqual([{ type: 'content', text: 'Hi' }]);
    expect(mapper.reasoningTokens).toBe(3);
  });

  it('ignores comment segments and empty chunks', () => {
    const mapper = createResponseChunkMapper({ showReasoning: true, forced: { kind: 'text' } });
    const comment: LlamaChatResponseChunk = { type: 'segment', segmentType: 'comment', text: 'note', tokens: [1] as never };
    expect([comment, text(''), thought('', 0)].flatMap((chunk) => mapper.read(chunk))).toEqual([]);
  });

  it('streams a named call\'s arguments, naming the tool once', () => {
    const mapper = createResponseChunkMapper({ showReasoning: false, forced: { kind: 'named-call', name: 'get_weather' } });
    expect([text('{"city":'), text('"Oslo"}')].flatMap((chunk) => mapper.read(chunk))).toEqual([
      { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":' },
      { type: 'tool-call', index: 0, argumentsDelta: '"Oslo"}' },
    ]);
    expect(mapper.end()).toEqual([]);
  });

  it('reads a "required" answer whole, as the call it names; none when it was cut short', () => {
    const whole = createResponseChunkMapper({ showReasoning: false, forced: { kind: 'any-call' } });
    expect(whole.read(text('{"name":"get_time","arguments":{"zone":"UTC"}}'))).toEqual([]);
    expect(whole.end()).toEqual([{ type: 'tool-call', index: 0, name: 'get_time', argumentsDelta: '{"zone":"UTC"}' }]);
    const cut = createResponseChunkMapper({ showReasoning: false, forced: { kind: 'any-call' } });
    cut.read(text('{"name":"get_ti'));
    expect(cut.end()).toEqual([]);
  });

  it('keys the calls the model starts on its own by their index', () => {
    const mapper = createResponseChunkMapper({ showReasoning: false, forced: { kind: 'text' } });
    const events = [
      { callIndex: 0, functionName: 'a', paramsChunk: '{"x":', done: false },
      { callIndex: 0, functionName: 'a', paramsChunk: '1}', done: true },
      { callIndex: 1, functionName: 'b', paramsChunk: '', done: false },
      { callIndex: 1, functionName: 'b', paramsChunk: '', done: false },
    ].flatMap((chunk) => mapper.readCallParams(chunk));
    expect(events).toEqual([
      { type: 'tool-call', index: 0, name: 'a', argumentsDelta: '{"x":' },
      { type: 'tool-call', index: 0, argumentsDelta: '1}' },
      { type: 'tool-call', index: 1, name: 'b', argumentsDelta: '' },
    ]);
  });
});
