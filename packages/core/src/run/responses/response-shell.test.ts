import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
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

describe('shell.body', () => {
  const anyText = fc.string({ unit: 'binary', maxLength: 12 });
  const tool = fc.record(
    { type: fc.constant('function'), name: fc.stringMatching(/^[a-z_]{1,8}$/), description: fc.option(anyText), parameters: fc.constantFrom({ type: 'object' }, { type: 'object', properties: { a: { type: 'string' } } }), strict: fc.option(fc.boolean()) },
    { requiredKeys: ['type', 'name'] },
  );
  const format = fc.oneof(
    fc.constant({ type: 'text' }),
    fc.constant({ type: 'json_object' }),
    fc.record({ type: fc.constant('json_schema'), name: fc.stringMatching(/^[a-z]{1,8}$/), schema: fc.constant({ type: 'object' }), strict: fc.option(fc.boolean()), description: anyText }, { requiredKeys: ['type', 'name', 'schema'] }),
  );
  const request = fc.record(
    {
      model: anyText,
      instructions: anyText,
      tools: fc.uniqueArray(tool, { maxLength: 2, selector: (entry) => entry.name }),
      parallel_tool_calls: fc.boolean(),
      text: fc.record({ format, verbosity: fc.constantFrom('low', 'medium', 'high') }, { requiredKeys: [] }),
      reasoning: fc.record({ effort: fc.constantFrom('low', 'medium', 'high', null), summary: fc.constantFrom('auto', 'concise', 'detailed', null) }, { requiredKeys: [] }),
      max_output_tokens: fc.integer({ min: 1, max: 8192 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      top_p: fc.double({ min: 0, max: 1, noNaN: true }),
      include: fc.constant(['message.output_text.logprobs']),
      top_logprobs: fc.integer({ min: 0, max: 20 }),
      store: fc.boolean(),
      previous_response_id: fc.string({ minLength: 1, maxLength: 8 }),
      metadata: fc.dictionary(fc.string({ maxLength: 6 }), anyText, { maxKeys: 3 }),
      user: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: ['model'] },
  ).map((body) => ({ ...body, input: 'Hi' }));
  const status = fc.constantFrom('in_progress' as const, 'completed' as const, 'incomplete' as const);
  const logprob = fc.record({ token: anyText, logprob: fc.double({ noNaN: true, max: 0 }), bytes: fc.option(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 })) });
  const item = fc.oneof(
    fc.record({
      type: fc.constant('message' as const),
      id: anyText,
      status,
      role: fc.constant('assistant' as const),
      content: fc.array(
        fc.record({ type: fc.constant('output_text' as const), text: anyText, annotations: fc.array(fc.constant<unknown>({ type: 'url_citation', url: 'https://example.com' }), { maxLength: 1 }), logprobs: fc.array(logprob.map((entry) => ({ ...entry, top_logprobs: [entry] })), { maxLength: 2 }) }),
        { maxLength: 2 },
      ),
    }),
    fc.record({ type: fc.constant('reasoning' as const), id: anyText, summary: fc.array(fc.record({ type: fc.constant('summary_text' as const), text: anyText }), { maxLength: 2 }), status }, { requiredKeys: ['type', 'id', 'summary'] }),
    fc.record({ type: fc.constant('function_call' as const), id: anyText, call_id: anyText, name: anyText, arguments: anyText, status }),
  );
  const count = fc.oneof(fc.nat(), fc.constantFrom(Number.NaN, 2 ** 60));
  const state = fc.record(
    {
      status: fc.constantFrom('completed' as const, 'incomplete' as const, 'in_progress' as const, 'queued' as const, 'cancelled' as const, 'failed' as const),
      output: fc.array(item, { maxLength: 3 }),
      usage: fc.option(
        fc.record({ input_tokens: count, input_tokens_details: fc.record({ cached_tokens: count }), output_tokens: count, output_tokens_details: fc.record({ reasoning_tokens: count }), total_tokens: count }),
      ),
      completedAt: fc.option(fc.nat()),
      incompleteReason: fc.constantFrom('max_output_tokens' as const, 'content_filter' as const),
      error: fc.record({ code: anyText, message: anyText }),
    },
    { requiredKeys: ['status', 'output', 'usage'] },
  );

  it('is JSON.stringify of the built response, byte for byte, for any request and state', () => {
    fc.assert(
      fc.property(request, anyText, state, (body, id, responseState) => {
        let validated: ReturnType<typeof validateCreateResponse>;
        try {
          validated = validateCreateResponse(body);
        } catch {
          return fc.pre(false);
        }
        const shell = createResponseShell(validated, { id, createdAt: 1_700_000_000, model: validated.model });
        expect(shell.body(responseState)).toBe(JSON.stringify(shell.build(responseState)));
      }),
      { numRuns: 2000 },
    );
  });
});
