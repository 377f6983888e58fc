import { describe, expect, it } from 'vitest';
import { validateCreateResponse } from '../../request/responses/validate-create-response.js';
import { createResponseShell } from './response-shell.js';

const identity = { id: 'resp_1', createdAt: 10, model: 'quantum-flash' };

describe('createResponseShell', () => {
  it('echoes absent settings as null and applied defaults as applied', () => {
    const response = createResponseShell(validateCreateResponse({ model: 'quantum-flash', input: 'Hi' }), identity).build({ status: 'in_progress', output: [], usage: null });
    expect(response).toEqual({
      id: 'resp_1',
      object: 'response',
      created_at: 10,
      status: 'in_progress',
      background: false,
      completed_at: null,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      model: 'quantum-flash',
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: { effort: null, summary: null },
      store: true,
      temperature: 0.7,
      text: { format: { type: 'text' } },
      tool_choice: 'none',
      tools: [],
      top_p: 1,
      truncation: 'disabled',
      usage: null,
      user: null,
      metadata: {},
      output: [],
    });
  });

  it('echoes what the client set, tools with every field', () => {
    const request = validateCreateResponse({
      model: 'quantum-flash',
      input: 'Hi',
      instructions: 'Be brief.',
      tools: [{ type: 'function', name: 'f' }],
      max_output_tokens: 50,
      store: false,
      previous_response_id: 'resp_0',
      metadata: { k: 'v' },
      user: 'u',
      reasoning: { effort: 'high' },
      text: { verbosity: 'low' },
      include: ['message.output_text.logprobs'],
      top_logprobs: 2,
    });
    const response = createResponseShell(request, identity).build({ status: 'completed', output: [], usage: null, completedAt: 11 });
    expect(response).toMatchObject({
      instructions: 'Be brief.',
      tools: [{ type: 'function', name: 'f', description: null, parameters: null, strict: null }],
      tool_choice: 'auto',
      max_output_tokens: 50,
      store: false,
      previous_response_id: 'resp_0',
      metadata: { k: 'v' },
      user: 'u',
      reasoning: { effort: 'high', summary: null },
      text: { format: { type: 'text' }, verbosity: 'low' },
      top_logprobs: 2,
      completed_at: 11,
    });
    expect(Object.keys(response).at(-1)).toBe('output');
  });
});

describe('shell.json', () => {
  const output = [
    { type: 'function_call' as const, id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '{"output":[]}', status: 'completed' as const },
    { type: 'function_call' as const, id: 'fc_2', call_id: 'call_2', name: 'g', arguments: '{}', status: 'incomplete' as const },
  ];
  const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 3 };
  const shells = [
    createResponseShell(validateCreateResponse({ model: 'm', input: 'Hi', metadata: { output: '[]' } }), identity),
    createResponseShell(validateCreateResponse({ model: 'm', input: 'Hi', include: ['message.output_text.logprobs'], top_logprobs: 1, tools: [{ type: 'function', name: 'f' }] }), identity),
  ];
  it.each([
    ['in progress', { status: 'in_progress' as const, output: [], usage: null }],
    ['incomplete', { status: 'incomplete' as const, output, usage, completedAt: 5, incompleteReason: 'max_output_tokens' as const }],
    ['failed', { status: 'failed' as const, output, usage: null, completedAt: 5, error: { code: 'upstream_error', message: 'a "quoted" failure' } }],
  ])('is the JSON of the built response (%s), items given as JSON', (_name, state) => {
    for (const shell of shells) {
      expect(shell.json(state, state.output.map((item) => JSON.stringify(item)))).toBe(JSON.stringify(shell.build(state)));
    }
  });
});
