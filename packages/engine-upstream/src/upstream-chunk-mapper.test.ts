import type { SseEvent } from '@quantum-chat/core/sse';
import { describe, expect, it } from 'vitest';
import { countApproximateTokens } from './approximate-tokens.js';
import { createUpstreamChunkMapper } from './upstream-chunk-mapper.js';

const create = (showReasoning = true) => createUpstreamChunkMapper({ showReasoning, countTokens: countApproximateTokens, countPromptTokens: () => 5, maxTokens: 4096 });
const data = (value: unknown): SseEvent => ({ event: undefined, data: JSON.stringify(value), id: undefined });

describe('createUpstreamChunkMapper', () => {
  it('should take reasoning once when a runtime sends both fields, and keep it beside an empty reasoning_content', () => {
    const mapper = create();
    expect(mapper.read(data({ choices: [{ delta: { reasoning_content: 'Hmm', reasoning: 'Hmm' } }] }))).toEqual([{ type: 'reasoning', text: 'Hmm' }]);
    expect(mapper.read(data({ choices: [{ delta: { reasoning_content: '', reasoning: ' ok' } }] }))).toEqual([{ type: 'reasoning', text: ' ok' }]);
  });

  it('should not count role-only chunks or keep-alive deltas as started', () => {
    const mapper = create();
    mapper.read(data({ choices: [{ delta: { role: 'assistant', content: '', reasoning_content: null } }] }));
    expect(mapper.started()).toBe(false);
    mapper.read(data({ choices: [{ delta: { content: 'a' } }] }));
    expect(mapper.started()).toBe(true);
  });

  it('should split think tags out of the content and hide reasoning when asked', () => {
    const mapper = create(false);
    expect([...mapper.read(data({ choices: [{ delta: { content: '<think>x</think>Hi' } }] })), ...mapper.end()]).toEqual([
      { type: 'content', text: 'Hi' },
      { type: 'finish', reason: 'stop', usage: { promptTokens: 5, completionTokens: 2, reasoningTokens: 1 } },
    ]);
  });

  it('should keep the last usage and complete what the upstream left out', () => {
    const mapper = create();
    mapper.read(data({ choices: [{ delta: { reasoning: 'abcdefgh' } }], usage: { prompt_tokens: 1, completion_tokens: 1 } }));
    mapper.read(data({ choices: [{ delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 10, completion_tokens: 20 } }));
    expect(mapper.finished()).toBe(true);
    expect(mapper.end().at(-1)).toEqual({ type: 'finish', reason: 'length', usage: { promptTokens: 10, completionTokens: 20, reasoningTokens: 2 } });
  });

  it('should make finish reasons agree with the tool calls seen', () => {
    const withCalls = create();
    withCalls.read(data({ choices: [{ delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'stop' }] }));
    expect(withCalls.end().at(-1)).toMatchObject({ reason: 'tool_calls' });
    const withoutCalls = create();
    withoutCalls.read(data({ choices: [{ delta: { content: 'x' }, finish_reason: 'tool_calls' }] }));
    expect(withoutCalls.end().at(-1)).toMatchObject({ reason: 'stop' });
  });

  it('should put the name on the first event of a call, holding arguments that came before it', () => {
    const mapper = create();
    expect(mapper.read(data({ choices: [{ delta: { tool_calls: [{ index: 0, id: 'call_a', function: { arguments: '{"city":' } }] } }] }))).toEqual([]);
    expect(mapper.read(data({ choices: [{ delta: { tool_calls: [{ index: 0, function: { name: 'get_weather', arguments: '"Paris"}' } }] } }] }))).toEqual([
      { type: 'tool-call', index: 0, name: 'get_weather', argumentsDelta: '{"city":"Paris"}' },
    ]);
    expect(mapper.read(data({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: ' ' } }] } }] }))).toEqual([{ type: 'tool-call', index: 0, argumentsDelta: ' ' }]);
  });

  it('should still announce a call whose name never came', () => {
    const mapper = create();
    expect(mapper.read(data({ choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{}' } }] } }] }))).toEqual([]);
    expect(mapper.end().slice(0, 1)).toEqual([{ type: 'tool-call', index: 0, name: '', argumentsDelta: '{}' }]);
  });

  it('should read a whole completion message like a delta', () => {
    const mapper = create();
    expect(mapper.readWhole({ choices: [{ message: { content: 'Hello', reasoning_content: 'Think' }, finish_reason: 'stop' }] })).toEqual([
      { type: 'reasoning', text: 'Think' },
      { type: 'content', text: 'Hello' },
    ]);
  });

  it('should map an error payload that names an HTTP status like that status', () => {
    expect(() => create().read(data({ object: 'error', message: 'Too many requests', code: 429 }))).toThrow(expect.objectContaining({ code: 'engine_unavailable' }));
    expect(() => create().read(data({ error: { message: 'boom' } }))).toThrow(expect.objectContaining({ code: 'upstream_error', message: 'The model server failed during the answer: boom' }));
  });
});
