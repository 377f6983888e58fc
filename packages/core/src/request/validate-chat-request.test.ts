import { describe, expect, it } from 'vitest';
import { validateChatRequest } from './validate-chat-request.js';

const base = { model: 'quantum-flash', messages: [{ role: 'user', content: 'hi' }] };

describe('validateChatRequest', () => {
  it('should report unknown fields as sent, in body order', () => {
    const body = { ...base, frobnicate: 1, 'naïve': 2, 'a\r\nb': 3, model: 'quantum-lite' };
    expect(validateChatRequest(body).ignoredParams).toEqual(['frobnicate', 'naïve', 'a\r\nb']);
  });

  it('should read plain text messages exactly as the schema path does', () => {
    const messages = [
      { role: 'developer', content: 'be brief', name: 'ops' },
      { role: 'user', content: 'hi', name: null, extra: true },
      { role: 'assistant', content: 'hello', name: '' },
      { role: 'user', content: 'again' },
    ];
    expect(validateChatRequest({ ...base, messages }).engineRequest.messages).toEqual([
      { role: 'system', content: 'be brief', name: 'ops' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'again' },
    ]);
    expect(() => validateChatRequest({ ...base, messages: [{ role: 'user', content: 'x', name: 5 }] })).toThrow(expect.objectContaining({ param: 'messages[0].name' }));
  });
});

describe('validateChatRequest: an assistant message with neither content nor tool calls', () => {
  // The request FUZZ_SEED=8599 of the ready server's OpenAPI properties sent (the shrunk
  // counterexample, as sent): its valid `tool_calls` was broken to null, so the message breaks
  // the rule "content (not null) or at least one tool call". The same body comes from breaking
  // `content` of `{content: "x", tool_calls: null}`: neither field alone is at fault, the
  // message is, as the document's `anyOf` on the message says.
  const counterexample = {
    model: 'quantum-lite',
    messages: [
      { ' ': {}, role: 'assistant', content: null, tool_calls: null, reasoning_content: '', reasoning: null, name: '' },
      { role: 'tool', content: '', tool_call_id: '' },
    ],
    stream: false,
    max_completion_tokens: 1,
    top_p: null,
    stop: '',
    seed: null,
    user: null,
    metadata: null,
    n: null,
    parallel_tool_calls: null,
    stream_options: {},
    tools: [
      { type: 'function', function: { name: '0', description: null, parameters: { type: 'object' }, strict: false } },
      { type: 'function', function: { name: '0_1', parameters: { type: 'object' }, strict: false } },
    ],
    tool_choice: null,
    response_format: { ' ': {}, type: 'json_schema', json_schema: { name: 'a', description: '', schema: { type: 'object' }, strict: null } },
    top_logprobs: null,
    presence_penalty: null,
    frequency_penalty: null,
    logit_bias: { '0': -100 },
    reasoning_effort: 'low',
  };

  it('should name the message, which holds both fields of the rule, for the FUZZ_SEED=8599 counterexample', () => {
    expect(() => validateChatRequest(counterexample)).toThrow(expect.objectContaining({ status: 400, code: 'missing_required_parameter', param: 'messages[0]' }));
  });

  it.each([
    ['no content and no tool_calls', { role: 'assistant' }],
    ['content null and tool_calls null', { role: 'assistant', content: null, tool_calls: null }],
    ['content null and tool_calls empty', { role: 'assistant', content: null, tool_calls: [] }],
    ['no content and tool_calls empty', { role: 'assistant', tool_calls: [] }],
  ])('should name the message for %s, saying which fields the rule takes', (_what, message) => {
    expect(() => validateChatRequest({ ...base, messages: [...base.messages, message] })).toThrow(
      expect.objectContaining({ code: 'missing_required_parameter', param: 'messages[1]', message: expect.stringMatching(/'messages\[1\]\.content'.*'messages\[1\]\.tool_calls'/u) }),
    );
  });

  it('should still name a tool call that is itself invalid, content null or not', () => {
    const broken = { id: 'call_1', type: 'function', function: { name: 'f' } };
    expect(() => validateChatRequest({ ...base, messages: [...base.messages, { role: 'assistant', content: null, tool_calls: [broken] }] })).toThrow(
      expect.objectContaining({ param: 'messages[1].tool_calls[0].function.arguments' }),
    );
    expect(() => validateChatRequest({ ...base, messages: [...base.messages, { role: 'assistant', tool_calls: 'call_1' }] })).toThrow(expect.objectContaining({ param: 'messages[1].tool_calls' }));
  });
});

describe('validateChatRequest: output controls', () => {
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

  it('should give the engine every output control it accepts', () => {
    const { engineRequest, ignoredParams, unknownFields } = validateChatRequest({
      ...base,
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true, description: null } },
      logprobs: true,
      top_logprobs: 5,
      presence_penalty: -1.5,
      frequency_penalty: 2,
      logit_bias: { '50256': -100, '0': 3.5 },
      reasoning_effort: 'high',
    });
    expect(engineRequest).toMatchObject({
      responseFormat: { type: 'json_schema', json_schema: { name: 'place', schema, strict: true } },
      logprobs: { topLogprobs: 5 },
      presencePenalty: -1.5,
      frequencyPenalty: 2,
      logitBias: { '50256': -100, '0': 3.5 },
      reasoningEffort: 'high',
    });
    expect(ignoredParams).toEqual([]);
    expect(unknownFields).toBeUndefined();
  });

  it('should leave plain text and absent logprobs out of the engine request', () => {
    const { engineRequest } = validateChatRequest({ ...base, response_format: { type: 'text' }, logprobs: false, presence_penalty: null });
    expect(engineRequest).not.toHaveProperty('responseFormat');
    expect(engineRequest).not.toHaveProperty('logprobs');
    expect(engineRequest).not.toHaveProperty('presencePenalty');
    expect(validateChatRequest({ ...base, response_format: { type: 'json_object' } }).engineRequest.responseFormat).toEqual({ type: 'json_object' });
    expect(validateChatRequest({ ...base, logprobs: true }).engineRequest.logprobs).toEqual({ topLogprobs: 0 });
  });

  it.each([
    [{ response_format: { type: 'xml' } }, 'response_format.type'],
    [{ response_format: { type: 'json_schema' } }, 'response_format.json_schema'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'bad name', schema } } }, 'response_format.json_schema.name'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 42 } } } }, 'response_format.json_schema.schema'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { $ref: 'https://example.com/s.json' } } } }, 'response_format.json_schema.schema'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'string', pattern: '(a+)+$' } } } }, 'response_format.json_schema.schema'],
    [{ logprobs: 'yes' }, 'logprobs'],
    [{ logprobs: true, top_logprobs: 21 }, 'top_logprobs'],
    [{ logprobs: true, top_logprobs: 1.5 }, 'top_logprobs'],
    [{ top_logprobs: 2 }, 'top_logprobs'],
    [{ logprobs: false, top_logprobs: 2 }, 'top_logprobs'],
    [{ presence_penalty: 2.5 }, 'presence_penalty'],
    [{ frequency_penalty: -2.01 }, 'frequency_penalty'],
    [{ logit_bias: { '50256': 101 } }, 'logit_bias.50256'],
    [{ logit_bias: { hello: 1 } }, 'logit_bias.hello'],
    [{ logit_bias: [1] }, 'logit_bias'],
    [{ reasoning_effort: 'extreme' }, 'reasoning_effort'],
  ])('should refuse %j naming %s', (fields, param) => {
    expect(() => validateChatRequest({ ...base, ...fields })).toThrow(expect.objectContaining({ status: 400, param }));
  });

  it('should bound the logit_bias map', () => {
    const logitBias = Object.fromEntries(Array.from({ length: 1025 }, (_, index) => [String(index), 1]));
    expect(() => validateChatRequest({ ...base, logit_bias: logitBias })).toThrow(expect.objectContaining({ param: 'logit_bias' }));
  });

  it('should share one schema budget between tools and the response format', () => {
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 4500 }, (_, index) => [`p${index}`, { type: 'string' }])) };
    const tools = Array.from({ length: 3 }, (_, index) => ({ type: 'function', function: { name: `t${index}`, parameters: wide } }));
    expect(() => validateChatRequest({ ...base, tools: tools.slice(0, 2) })).not.toThrow();
    expect(() => validateChatRequest({ ...base, tools: tools.slice(0, 2), response_format: { type: 'json_schema', json_schema: { name: 'x', schema: wide } } })).toThrow(
      expect.objectContaining({ param: 'response_format.json_schema.schema' }),
    );
  });

  it('should keep unknown fields with their values for an engine that passes them through', () => {
    const { ignoredParams, unknownFields } = validateChatRequest({ ...base, top_k: 40, chat_template_kwargs: { enable_thinking: false }, 'naïve': null });
    expect(ignoredParams).toEqual(['top_k', 'chat_template_kwargs', 'naïve']);
    expect(unknownFields).toEqual({ top_k: 40, chat_template_kwargs: { enable_thinking: false }, 'naïve': null });
  });
});

describe('validateChatRequest: a schema with no finite value', () => {
  const selfRequired = { type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] };
  const tool = (parameters: unknown) => ({ type: 'function', function: { name: 'nest', parameters } });

  it('should refuse it with 400 invalid_tool_schema naming the parameters, whatever the tool choice', () => {
    for (const toolChoice of ['required', 'auto', { type: 'function', function: { name: 'nest' } }]) {
      expect(() => validateChatRequest({ ...base, tools: [{ type: 'function', function: { name: 'other' } }, tool(selfRequired)], tool_choice: toolChoice })).toThrow(
        expect.objectContaining({ code: 'invalid_tool_schema', status: 400, param: 'tools[1].function.parameters', message: expect.stringContaining('no finite value') }),
      );
    }
    const nonEmptyArrays = { type: 'object', properties: { items: { type: 'array', minItems: 1, items: { $ref: '#' } } }, required: ['items'] };
    expect(() => validateChatRequest({ ...base, tools: [tool(nonEmptyArrays)], tool_choice: 'required' })).toThrow(expect.objectContaining({ code: 'invalid_tool_schema' }));
    expect(() => validateChatRequest({ ...base, response_format: { type: 'json_schema', json_schema: { name: 'nest', schema: selfRequired } } })).toThrow(
      expect.objectContaining({ param: 'response_format.json_schema.schema' }),
    );
  });

  it('should accept recursion that has a way out', () => {
    const list = { type: 'object', properties: { next: { anyOf: [{ $ref: '#' }, { type: 'null' }] }, value: { type: 'string' } }, required: ['next', 'value'] };
    expect(validateChatRequest({ ...base, tools: [tool(list)], tool_choice: 'required' }).engineRequest.tools).toHaveLength(1);
    expect(validateChatRequest({ ...base, tools: [tool({ type: 'object', properties: { child: { $ref: '#' } } })], tool_choice: 'required' }).engineRequest.tools).toHaveLength(1);
  });
});
