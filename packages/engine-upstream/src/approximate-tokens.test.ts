import type { ChatEngineRequest } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { countApproximatePromptTokens, countApproximateTokens } from './approximate-tokens.js';

describe('countApproximateTokens', () => {
  it('should count one token per four characters, rounded up', () => {
    expect([countApproximateTokens(''), countApproximateTokens('abc'), countApproximateTokens('abcd'), countApproximateTokens('Hello, world!')]).toEqual([0, 1, 1, 4]);
  });
});

describe('countApproximatePromptTokens', () => {
  const base: ChatEngineRequest = { model: 'm', messages: [], tools: [], toolChoice: 'none', parallelToolCalls: true, temperature: 0.7, maxTokens: 10, reasoning: false };

  it('should add message framing, tool calls and tool definitions', () => {
    expect(countApproximatePromptTokens({ ...base, messages: [{ role: 'user', content: 'Hello' }] })).toBe(3 + 4 + 2);
    const withTools: ChatEngineRequest = {
      ...base,
      messages: [{ role: 'assistant', content: null, toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }],
      tools: [{ type: 'function', function: { name: 'f' } }],
    };
    expect(countApproximatePromptTokens(withTools)).toBe(3 + 4 + 1 + Math.ceil(JSON.stringify(withTools.tools).length / 4));
  });
});
