import { describe, expect, it } from 'vitest';
import { toResponsesRequest } from './to-responses-request.js';

describe('toResponsesRequest', () => {
  it('should send the conversation as input items, tool calls and results included, with flat tools and store: false', () => {
    const request = toResponsesRequest({
      model: 'quantum-flash',
      temperature: 0.5,
      max_tokens: 200,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":18}' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
    });
    expect(request).toEqual({
      model: 'quantum-flash',
      store: false,
      temperature: 0.5,
      max_output_tokens: 200,
      input: [
        { type: 'message', role: 'system', content: 'Be brief.' },
        { type: 'message', role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"location":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temperature":18}' },
      ],
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }],
      tool_choice: 'auto',
    });
  });
});
