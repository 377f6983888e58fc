import { describe, expect, it } from 'vitest';
import { countApproximateTokens } from './approximate-tokens.js';
import { createUpstreamChunkMapper } from './upstream-chunk-mapper.js';

const create = (showReasoning = true) => createUpstreamChunkMapper({ showReasoning, countTokens: countApproximateTokens, countPromptTokens: () => 5 });

describe('createUpstreamChunkMapper', () => {
  it('should take reasoning once when a runtime sends both fields', () => {
    const mapper = create();
    expect(mapper.push({ choices: [{ delta: { reasoning_content: 'Hmm', reasoning: 'Hmm' } }] })).toEqual([{ type: 'reasoning', text: 'Hmm' }]);
    expect(mapper.push({ choices: [{ delta: { reasoning_content: null, reasoning: ' ok' } }] })).toEqual([{ type: 'reasoning', text: ' ok' }]);
  });

  it('should not count role-only chunks or keep-alive deltas as started', () => {
    const mapper = create();
    mapper.push({ choices: [{ delta: { content: '', reasoning_content: null } }] });
    expect(mapper.started).toBe(false);
    mapper.push({ choices: [{ delta: { content: 'a' } }] });
    expect(mapper.started).toBe(true);
  });

  it('should split think tags out of the content and hide reasoning when asked', () => {
    const mapper = create(false);
    expect([...mapper.push({ choices: [{ delta: { content: '<think>x</think>Hi' } }] }), ...mapper.end()]).toEqual([
      { type: 'content', text: 'Hi' },
      { type: 'finish', reason: 'stop', usage: { promptTokens: 5, completionTokens: 2, reasoningTokens: 1 } },
    ]);
  });

  it('should keep the last usage and complete what the upstream left out', () => {
    const mapper = create();
    mapper.push({ choices: [{ delta: { reasoning: 'abcdefgh' } }], usage: { prompt_tokens: 1, completion_tokens: 1 } });
    mapper.push({ choices: [{ delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 10, completion_tokens: 20 } });
    expect(mapper.finished).toBe(true);
    expect(mapper.end().at(-1)).toEqual({ type: 'finish', reason: 'length', usage: { promptTokens: 10, completionTokens: 20, reasoningTokens: 2 } });
  });

  it('should make finish reasons agree with the tool calls seen', () => {
    const withCalls = create();
    withCalls.push({ choices: [{ delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'stop' }] });
    expect(withCalls.end().at(-1)).toMatchObject({ reason: 'tool_calls' });
    const withoutCalls = create();
    withoutCalls.push({ choices: [{ delta: { content: 'x' }, finish_reason: 'tool_calls' }] });
    expect(withoutCalls.end().at(-1)).toMatchObject({ reason: 'stop' });
  });

  it('should read a whole completion message like a delta', () => {
    const mapper = create();
    expect(mapper.push({ choices: [{ message: { content: 'Hello', reasoning_content: 'Think' }, finish_reason: 'stop' }] })).toEqual([
      { type: 'reasoning', text: 'Think' },
      { type: 'content', text: 'Hello' },
    ]);
  });
});
