import type { SseEvent } from '@quantum-chat/core/sse';
import { describe, expect, it } from 'vitest';
import { countApproximateTokens } from './approximate-tokens.js';
import { createUpstreamResponsesMapper } from './upstream-responses-mapper.js';

const create = (showReasoning = true) => createUpstreamResponsesMapper({ showReasoning, countTokens: countApproximateTokens, countPromptTokens: () => 5, maxTokens: 4096 });
const event = (value: Record<string, unknown>): SseEvent => ({ event: value.type as string, data: JSON.stringify(value), id: undefined });
const completed = (usage: Record<string, unknown> | null = null) => event({ type: 'response.completed', response: { status: 'completed', usage } });

describe('createUpstreamResponsesMapper', () => {
  it('should read a runtime that sends only .done events, text and arguments whole, and relay nothing twice', () => {
    const mapper = create();
    const events = [
      ...mapper.read(event({ type: 'response.created', response: { status: 'in_progress' } })),
      ...mapper.read(event({ type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'm', content: [] } })),
      ...mapper.read(event({ type: 'response.output_text.done', output_index: 0, content_index: 0, text: 'Hello' })),
      ...mapper.read(event({ type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: 'm', content: [{ type: 'output_text', text: 'Hello' }] } })),
      ...mapper.read(event({ type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', id: 'fc', call_id: 'c', name: 'f', arguments: '' } })),
      ...mapper.read(event({ type: 'response.function_call_arguments.done', output_index: 1, arguments: '{"a":1}' })),
      ...mapper.read(event({ type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc', call_id: 'c', name: 'f', arguments: '{"a":1}' } })),
      ...mapper.read(completed()),
    ];
    expect(mapper.started()).toBe(true);
    expect(mapper.done()).toBe(true);
    expect([...events, ...mapper.end()]).toEqual([
      { type: 'content', text: 'Hello' },
      { type: 'tool-call', index: 0, name: 'f', argumentsDelta: '' },
      { type: 'tool-call', index: 0, argumentsDelta: '{"a":1}' },
      { type: 'finish', reason: 'tool_calls', usage: { promptTokens: 5, completionTokens: 4, reasoningTokens: 0 } },
    ]);
  });

  it('should not count created and in_progress as a first token, and read reasoning text as reasoning', () => {
    const mapper = create();
    mapper.read(event({ type: 'response.in_progress', response: { status: 'in_progress' } }));
    expect(mapper.started()).toBe(false);
    expect(mapper.read(event({ type: 'response.reasoning_text.delta', output_index: 0, content_index: 0, delta: 'Hmm' }))).toEqual([{ type: 'reasoning', text: 'Hmm' }]);
    expect(mapper.started()).toBe(true);
  });

  it('should take usage with its cached and reasoning tokens, and incomplete for max_output_tokens as length', () => {
    const mapper = create(false);
    mapper.read(event({ type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, delta: 'abcdefgh' }));
    mapper.read(event({ type: 'response.output_text.delta', output_index: 1, content_index: 0, delta: 'Hi' }));
    mapper.read(
      event({
        type: 'response.incomplete',
        response: { incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 9, input_tokens_details: { cached_tokens: 8 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 2 } } },
      }),
    );
    expect(mapper.end()).toEqual([{ type: 'finish', reason: 'length', usage: { promptTokens: 9, completionTokens: 4, reasoningTokens: 2, cachedPromptTokens: 8 } }]);
  });

  it('should relay a refusal as the answer, and log probabilities with their text', () => {
    const mapper = create();
    expect(mapper.read(event({ type: 'response.refusal.delta', output_index: 0, content_index: 0, delta: 'No.' }))).toEqual([{ type: 'content', text: 'No.' }]);
    const logprobs = [{ token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.5, bytes: null }] }, { oops: true }];
    expect(mapper.read(event({ type: 'response.output_text.delta', output_index: 1, content_index: 0, delta: 'Hi', logprobs }))).toEqual([
      { type: 'content', text: 'Hi', logprobs: [logprobs[0]] },
    ]);
  });

  it('should make an error event or a failed response the fault its code means, and an event that is not one an upstream fault', () => {
    expect(() => create().read(event({ type: 'error', code: 'rate_limit_exceeded', message: 'slow down', param: null }))).toThrow(
      expect.objectContaining({ code: 'engine_unavailable', status: 503 }) as Error,
    );
    expect(() => create().read(event({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'boom' } } }))).toThrow(
      expect.objectContaining({ code: 'upstream_error', message: expect.stringContaining('boom') as string }) as Error,
    );
    expect(() => create().read({ event: undefined, data: 'not json', id: undefined })).toThrow(expect.objectContaining({ code: 'upstream_error' }) as Error);
    expect(() => create().read({ event: undefined, data: '{"no":"type"}', id: undefined })).toThrow(expect.objectContaining({ code: 'upstream_error' }) as Error);
  });

  it('should announce with an empty name a call whose name never came', () => {
    const mapper = create();
    expect(mapper.read(event({ type: 'response.function_call_arguments.delta', output_index: 0, delta: '{}' }))).toEqual([]);
    mapper.read(completed());
    expect(mapper.end().slice(0, 1)).toEqual([{ type: 'tool-call', index: 0, name: '', argumentsDelta: '{}' }]);
  });
});
