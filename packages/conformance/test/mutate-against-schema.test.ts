/**
 * `pickMutation` against the served chat document: where a break keeps the field valid on its
 * own and breaks a rule across fields (`top_logprobs` needs `logprobs: true`; an assistant
 * message needs content or tool calls), the same body comes from breaking either field, so a
 * refusal may name any field of the rule (or the object holding them), not only the one changed.
 */
import { createOpenApiDocument } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createOpenApiChecker, pickMutation, type Mutation, type OpenApiDocument } from '../src/index.js';

const checker = createOpenApiChecker(createOpenApiDocument() as unknown as OpenApiDocument);
const requestSchema = checker.findOperation('POST', '/chat/completions')!.operation.requestBody!.content['application/json']!.schema;
const user = { role: 'user', content: 'hi' };

/** The first break, from pick 0 on, whose description starts so; deterministic. */
function mutationOf(body: Record<string, unknown>, described: string): Mutation {
  for (let pick = 0; pick < 500; pick++) {
    const mutation = pickMutation(requestSchema, body, checker, pick);
    if (mutation?.description.startsWith(described) === true) return mutation;
  }
  throw new Error(`no mutation described '${described}'`);
}

describe('pickMutation: a break of a rule across fields', () => {
  it('should let a refusal name either field of top_logprobs needs logprobs, for the FUZZ_SEED=851186356 counterexample', () => {
    // As the fuzz openapi-properties test sent it before breaking `logprobs` (true) to null.
    const sent = {
      ' ': {}, model: 'quantum-lite', messages: [{ role: 'system', content: [], name: null }], stream: null, temperature: null, max_tokens: null, max_completion_tokens: null, top_p: null, seed: 0, user: '', n: 1, parallel_tool_calls: null,
      stream_options: { include_usage: false },
      tools: [
        { type: 'function', function: { name: 'a', description: null, parameters: null, strict: false } },
        { type: 'function', function: { name: '_', description: '', parameters: {}, strict: false } },
        { type: 'function', function: { ' ': {}, name: '0', parameters: { type: 'object' } } },
      ],
      tool_choice: { type: 'function', function: { name: 'a' } }, response_format: { type: 'json_object' }, logprobs: true, top_logprobs: 0, presence_penalty: null, logit_bias: null, reasoning_effort: 'low',
    };
    expect(checker.validate(requestSchema, sent)).toEqual([]);
    const broken = mutationOf(sent, 'logprobs: a null');
    expect(broken.path).toEqual(['logprobs']);
    expect(broken.atFault).toEqual(expect.arrayContaining([['logprobs'], ['top_logprobs']]));
  });

  it('should reach one body from either field, so no single field is the one at fault', () => {
    const fromLogprobs = mutationOf({ model: 'quantum-lite', messages: [user], logprobs: true, top_logprobs: 7 }, 'logprobs: a null');
    const fromTopLogprobs = mutationOf({ model: 'quantum-lite', messages: [user], logprobs: null, top_logprobs: null }, 'top_logprobs: a integer');
    expect(fromLogprobs.value).toEqual(fromTopLogprobs.value);
    for (const mutation of [fromLogprobs, fromTopLogprobs]) expect(mutation.atFault).toEqual(expect.arrayContaining([['logprobs'], ['top_logprobs']]));
  });

  it('should let a refusal name the message or either field of content or tool calls', () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const fromToolCalls = mutationOf({ model: 'quantum-lite', messages: [user, { role: 'assistant', content: null, tool_calls: [call] }] }, 'messages[1].tool_calls: a null');
    expect(fromToolCalls.atFault).toEqual(expect.arrayContaining([['messages', 1], ['messages', 1, 'content'], ['messages', 1, 'tool_calls']]));
  });

  it('should name only the place itself when the break is of the field on its own', () => {
    const mutation = mutationOf({ model: 'quantum-lite', messages: [user], temperature: 1 }, 'temperature: above');
    expect(mutation.atFault).toEqual([['temperature']]);
  });
});
