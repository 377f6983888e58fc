import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCompletionBody, type CompletionBodyParts } from './completion-body.js';

/** The body as the object it stands for, serialised the plain way. */
function viaStringify(parts: CompletionBodyParts): string {
  const message = {
    role: 'assistant',
    ...(parts.reasoning !== undefined ? { reasoning_content: parts.reasoning } : {}),
    content: parts.content,
    ...(parts.toolCalls.length > 0 ? { tool_calls: parts.toolCalls } : {}),
    refusal: null,
  };
  return JSON.stringify({
    id: parts.id,
    object: 'chat.completion',
    created: parts.created,
    model: parts.model,
    choices: [{ index: 0, message, finish_reason: parts.finishReason, logprobs: parts.logprobs === undefined ? null : { content: parts.logprobs, refusal: null } }],
    usage: parts.usage,
    ...(parts.systemFingerprint !== undefined ? { system_fingerprint: parts.systemFingerprint } : {}),
  });
}

const text = fc.string({ unit: 'binary', maxLength: 40 });
const toolCall = fc.record({
  id: text,
  type: fc.constant('function' as const),
  function: fc.record({ name: text, arguments: text }),
});
const parts = fc.record({
  id: text,
  created: fc.integer({ min: 0, max: 2 ** 40 }),
  model: text,
  reasoning: fc.option(text, { nil: undefined }),
  content: fc.option(text, { nil: null }),
  toolCalls: fc.array(toolCall, { maxLength: 3 }),
  finishReason: fc.constantFrom('stop', 'length', 'tool_calls'),
  logprobs: fc.option(
    fc.array(
      fc.record({
        token: text,
        logprob: fc.double({ min: -100, max: 0, noNaN: true }),
        bytes: fc.option(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 4 }), { nil: null }),
        top_logprobs: fc.array(fc.record({ token: text, logprob: fc.double({ min: -100, max: 0, noNaN: true }), bytes: fc.constant(null) }), { maxLength: 2 }),
      }),
      { maxLength: 3 },
    ),
    { nil: undefined },
  ),
  usage: fc.record(
    {
      prompt_tokens: fc.nat(),
      completion_tokens: fc.nat(),
      total_tokens: fc.nat(),
      prompt_tokens_details: fc.record({ cached_tokens: fc.nat() }),
      completion_tokens_details: fc.record({ reasoning_tokens: fc.nat(), accepted_prediction_tokens: fc.nat() }, { requiredKeys: ['reasoning_tokens'] }),
    },
    { requiredKeys: ['prompt_tokens', 'completion_tokens', 'total_tokens', 'completion_tokens_details'] },
  ),
  systemFingerprint: fc.option(text, { nil: undefined }),
});

describe('encodeCompletionBody', () => {
  it('writes the same bytes as JSON.stringify of the body object', () => {
    fc.assert(fc.property(parts, (value) => {
        expect(encodeCompletionBody(value)).toBe(viaStringify(value));
      }), { numRuns: 2000 });
  });
});
