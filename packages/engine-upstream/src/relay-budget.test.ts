import type { SseEvent } from '@quantum-chat/core/sse';
import { describe, expect, it } from 'vitest';
import { countApproximateTokens } from './approximate-tokens.js';
import { checkUpstreamUsage } from './check-upstream-usage.js';
import { relayBudgetCharacters } from './relay-budget.js';
import { createUpstreamChunkMapper } from './upstream-chunk-mapper.js';
import { resolveUpstreamLimits } from './upstream-limits.js';

const data = (value: unknown): SseEvent => ({ event: undefined, data: JSON.stringify(value), id: undefined });
const mapperWith = (relayBudget: number, maxToolArgumentsLength?: number) =>
  createUpstreamChunkMapper({ showReasoning: true, countTokens: countApproximateTokens, countPromptTokens: () => 5, maxTokens: 10, relayBudget, ...(maxToolArgumentsLength !== undefined ? { maxToolArgumentsLength } : {}) });

describe('the relay budget of an upstream answer', () => {
  it('should be four of our tokens per max_tokens and 64 more, in characters', () => {
    expect(relayBudgetCharacters(100)).toBe((400 + 64) * 4);
    expect(relayBudgetCharacters(1)).toBe(272);
  });

  it('should relay reasoning and content up to the budget, clip the piece that crosses it, then nothing, and finish "length"', () => {
    const mapper = mapperWith(10);
    expect(mapper.read(data({ choices: [{ delta: { reasoning_content: 'abcd' } }] }))).toEqual([{ type: 'reasoning', text: 'abcd' }]);
    expect(mapper.cut()).toBe(false);
    expect(mapper.read(data({ choices: [{ delta: { content: 'efghijklmn' } }] }))).toEqual([{ type: 'content', text: 'efghij' }]);
    expect(mapper.cut()).toBe(true);
    expect(mapper.read(data({ choices: [{ delta: { content: 'more' } }] }))).toEqual([]);
    expect(mapper.end()).toEqual([{ type: 'finish', reason: 'length', usage: { promptTokens: 5, completionTokens: 3, reasoningTokens: 1 } }]);
  });

  it('should never clip between the halves of a surrogate pair', () => {
    const mapper = mapperWith(3);
    expect(mapper.read(data({ choices: [{ delta: { content: 'ab😀c' } }] }))).toEqual([{ type: 'content', text: 'ab' }]);
  });

  it('should charge each tool call its markers, and refuse arguments past the cap as an upstream fault', () => {
    const mapper = mapperWith(40);
    const call = (args: string) => data({ choices: [{ delta: { tool_calls: [{ index: 0, id: 'c', function: { name: 'f', arguments: args } }] } }] });
    expect(mapper.read(call('12345678'))).toEqual([{ type: 'tool-call', index: 0, name: 'f', argumentsDelta: '1234567' }]);
    expect(mapper.end()[0]).toMatchObject({ type: 'finish', reason: 'length' });
    const capped = mapperWith(1000, 5);
    expect(() => capped.read(call('123456'))).toThrow(expect.objectContaining({ code: 'upstream_error', status: 502, message: 'The model server sent a tool call whose arguments are longer than 5 characters.' }) as Error);
  });
});

describe('checkUpstreamUsage against a count far below ours', () => {
  const own = { promptTokens: 9, completionTokens: 1000, reasoningTokens: 0 };
  it('should replace a completion count below a quarter of ours (less the allowance), and keep one at it', () => {
    expect(checkUpstreamUsage({ prompt_tokens: 9, completion_tokens: 1 }, own, { maxTokens: 4096, toolCalls: 0 })).toEqual({
      usage: { promptTokens: 9, completionTokens: 1000, reasoningTokens: 0 },
      reasons: ['completion_tokens (1) is below what the relayed text holds (234)'],
    });
    expect(checkUpstreamUsage({ prompt_tokens: 9, completion_tokens: 234 }, own, { maxTokens: 4096, toolCalls: 0 }).reasons).toEqual([]);
  });
});

describe('resolveUpstreamLimits', () => {
  it('should fill in the defaults and refuse a limit that is not a positive number', () => {
    expect(resolveUpstreamLimits({ maxEventLength: 10 })).toEqual({ maxResponseBytes: 33_554_432, maxErrorBodyBytes: 65_536, maxEventLength: 10, maxToolArgumentsLength: 4_194_304 });
    expect(() => resolveUpstreamLimits({ maxResponseBytes: 0 })).toThrow('`limits.maxResponseBytes` must be a positive number');
  });
});
