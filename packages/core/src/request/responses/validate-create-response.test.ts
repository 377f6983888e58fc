import { describe, expect, it } from 'vitest';
import { QuantumChatError } from '../../errors/quantum-chat-error.js';
import { validateCreateResponse } from './validate-create-response.js';

const base = { model: 'quantum-flash', input: 'Hello' };
const weather = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

function failure(body: unknown): { code: string; param: string | null; message: string } {
  try {
    validateCreateResponse(body);
  } catch (error) {
    if (!QuantumChatError.isInstance(error)) throw error;
    return { code: error.code, param: error.param, message: error.message };
  }
  throw new Error('expected the request to be refused');
}

describe('validateCreateResponse', () => {
  it.each([
    ['not an object', [], 'invalid_type', null],
    ['no model', { input: 'Hi' }, 'missing_required_parameter', 'model'],
    ['neither input nor previous_response_id', { model: 'quantum-flash' }, 'missing_required_parameter', 'input'],
    ['input a number', { ...base, input: 3 }, 'invalid_type', 'input'],
    ['an item not an object', { ...base, input: ['hi'] }, 'invalid_type', 'input[0]'],
    ['a typeless item with neither role nor id', { ...base, input: [{ content: 'hi' }] }, 'missing_required_parameter', 'input[0].type'],
    ['an unknown role', { ...base, input: [{ role: 'tool', content: 'x' }] }, 'invalid_value', 'input[0].role'],
    ['a hosted-tool item', { ...base, input: [{ type: 'web_search_call', id: 'ws_1' }] }, 'unsupported_value', 'input[0].type'],
    ['an image part', { ...base, input: [{ role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_image', image_url: 'x' }] }] }, 'unsupported_value', 'input[0].content[1].type'],
    ['a message without content', { ...base, input: [{ type: 'message', role: 'user' }] }, 'missing_required_parameter', 'input[0].content'],
    ['a function_call without call_id', { ...base, input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'missing_required_parameter', 'input[0].call_id'],
    ['function_call arguments not a string', { ...base, input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }] }, 'invalid_type', 'input[0].arguments'],
    ['a function_call_output with an image', { ...base, input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image' }] }] }, 'unsupported_value', 'input[0].output[0].type'],
    ['a reasoning item without summary', { ...base, input: [{ type: 'reasoning', id: 'rs_1' }] }, 'missing_required_parameter', 'input[0].summary'],
    ['an empty item_reference id', { ...base, input: [{ type: 'item_reference', id: '' }] }, 'invalid_value', 'input[0].id'],
    ['a web search tool', { ...base, tools: [{ type: 'web_search_preview' }] }, 'unsupported_value', 'tools[0].type'],
    ['a remote MCP tool', { ...base, tools: [weather, { type: 'mcp', server_url: 'https://example.com' }] }, 'unsupported_value', 'tools[1].type'],
    ['a file search tool', { ...base, tools: [{ type: 'file_search', vector_store_ids: [] }] }, 'unsupported_value', 'tools[0].type'],
    ['computer use', { ...base, tools: [{ type: 'computer_use_preview' }] }, 'unsupported_value', 'tools[0].type'],
    ['a bad tool name', { ...base, tools: [{ type: 'function', name: 'no spaces' }] }, 'invalid_value', 'tools[0].name'],
    ['a tool name used twice', { ...base, tools: [weather, weather] }, 'invalid_value', 'tools[1].name'],
    ['tool parameters with a backreference', { ...base, tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } } }] }, 'invalid_tool_schema', 'tools[0].parameters'],
    ['129 tools', { ...base, tools: Array.from({ length: 129 }, (_, index) => ({ type: 'function', name: `f${index}` })) }, 'invalid_value', 'tools'],
    ['tool_choice naming no tool', { ...base, tools: [weather], tool_choice: { type: 'function', name: 'nope' } }, 'invalid_value', 'tool_choice'],
    ['tool_choice required without tools', { ...base, tool_choice: 'required' }, 'invalid_value', 'tool_choice'],
    ['tool_choice of a hosted tool', { ...base, tool_choice: { type: 'file_search' } }, 'unsupported_value', 'tool_choice.type'],
    ['tool_choice a number', { ...base, tool_choice: 3 }, 'invalid_value', 'tool_choice'],
    ['an unknown text format', { ...base, text: { format: { type: 'xml' } } }, 'invalid_type', 'text.format.type'],
    ['json_schema without a schema', { ...base, text: { format: { type: 'json_schema', name: 'out' } } }, 'missing_required_parameter', 'text.format.schema'],
    ['json_schema with a lookahead', { ...base, text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object', properties: { a: { type: 'string', pattern: '(?=a)' } } } } } }, 'invalid_value', 'text.format.schema'],
    ['an unknown reasoning effort', { ...base, reasoning: { effort: 'extreme' } }, 'invalid_value', 'reasoning.effort'],
    ['max_output_tokens 0', { ...base, max_output_tokens: 0 }, 'invalid_value', 'max_output_tokens'],
    ['max_output_tokens past the ceiling', { ...base, max_output_tokens: 8193 }, 'invalid_value', 'max_output_tokens'],
    ['temperature 3', { ...base, temperature: 3 }, 'invalid_value', 'temperature'],
    ['top_p a string', { ...base, top_p: '1' }, 'invalid_type', 'top_p'],
    ['store a string', { ...base, store: 'yes' }, 'invalid_type', 'store'],
    ['background without store', { ...base, background: true, store: false }, 'invalid_value', 'background'],
    ['17 metadata entries', { ...base, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`k${index}`, 'v'])) }, 'invalid_value', 'metadata'],
    ['a metadata value not a string', { ...base, metadata: { a: 1 } }, 'invalid_type', 'metadata.a'],
    ['a long user', { ...base, user: 'u'.repeat(257) }, 'invalid_value', 'user'],
    ['top_logprobs without the include', { ...base, top_logprobs: 2 }, 'invalid_value', 'top_logprobs'],
    ['an empty previous_response_id', { ...base, previous_response_id: '' }, 'invalid_value', 'previous_response_id'],
  ])('refuses %s', (_name, body, code, param) => {
    expect(failure(body)).toMatchObject({ code, param });
  });

  it('names the refused tool type in its message', () => {
    expect(failure({ ...base, tools: [{ type: 'web_search_preview' }] }).message).toContain("'web_search_preview'");
    expect(failure({ ...base, input: [{ type: 'computer_call_output', call_id: 'c' }] }).message).toContain("'computer_call_output'");
  });

  it('reads a string input as one user message and applies the defaults', () => {
    const request = validateCreateResponse(base);
    expect(request).toMatchObject({
      model: 'quantum-flash',
      input: [{ type: 'message', role: 'user', content: 'Hello' }],
      tools: [],
      toolChoice: 'none',
      parallelToolCalls: true,
      textFormat: { type: 'text' },
      temperature: 0.7,
      maxOutputTokens: undefined,
      stream: false,
      store: true,
      background: false,
      metadata: {},
      logprobs: undefined,
      ignoredParams: [],
      unknownFields: undefined,
    });
  });

  it('ignores unknown top-level fields and names them, reading null as absent', () => {
    const request = validateCreateResponse({ ...base, truncation: 'auto', service_tier: 'priority', temperature: null, instructions: null });
    expect(request.ignoredParams).toEqual(['truncation', 'service_tier']);
    expect(request.unknownFields).toEqual({ truncation: 'auto', service_tier: 'priority' });
    expect(request.temperature).toBe(0.7);
    expect(request.instructions).toBeUndefined();
  });

  it('accepts every item kind the API sends back', () => {
    const request = validateCreateResponse({
      model: 'quantum-reasoner',
      input: [
        { role: 'developer', content: 'Be brief.' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need the tool.' }], encrypted_content: null },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
        { type: 'function_call_output', call_id: 'call_1', output: '18 C' },
        { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'It is 18 C.', annotations: [] }] },
        { type: 'item_reference', id: 'msg_0' },
        { id: 'rs_0' },
      ],
      tools: [weather],
      tool_choice: { type: 'function', name: 'get_weather' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['message.output_text.logprobs'],
      top_logprobs: 3,
    });
    expect(request.input.map((item) => item.type)).toEqual(['message', 'message', 'reasoning', 'function_call', 'function_call_output', 'message', 'item_reference', 'item_reference']);
    expect(request.toolChoice).toEqual({ type: 'function', name: 'get_weather' });
    expect(request.textFormat).toEqual({ type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true });
    expect(request).toMatchObject({ verbosity: 'low', reasoningEffort: 'high', reasoningSummary: 'auto', logprobs: { topLogprobs: 3 } });
  });

  it('needs no input when previous_response_id carries the conversation', () => {
    expect(validateCreateResponse({ model: 'quantum-flash', previous_response_id: 'resp_1' }).input).toEqual([]);
  });
});
