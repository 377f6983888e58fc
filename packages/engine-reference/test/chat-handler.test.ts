import { insecureAcceptAnyApiKey, createChatHandler, generateApiKey } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createReferenceEngine } from '../src/index.js';
import { weatherTool } from './request-fixtures.js';

const handler = createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine(), generateId: () => 'fixed0000000000000000000000', now: () => 1_700_000_000_000 });
const apiKey = generateApiKey('test');

function post(body: unknown): Promise<Response> {
  return handler.fetch(
    new Request('http://localhost/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

describe('reference engine behind the core handler', () => {
  it('should give the same content streamed and not streamed', async () => {
    const body = { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'What is 9 * 9?' }], max_tokens: 300 };
    const completion = (await (await post(body)).json()) as {
      choices: Array<{ message: { content: string; reasoning_content: string }; finish_reason: string }>;
      usage: { completion_tokens: number; completion_tokens_details: { reasoning_tokens: number } };
    };
    const [choice] = completion.choices;
    expect(choice?.message.content).toContain('81');
    expect(choice?.message.reasoning_content).toContain('9 * 9');

    const stream = await (await post({ ...body, stream: true })).text();
    const frames = stream.split('\n\n').filter((frame) => frame.startsWith('event: message') || frame.startsWith('event: thought_trace'));
    let content = '';
    let reasoning = '';
    for (const frame of frames) {
      const data = JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { choices: Array<{ delta: { content?: string; reasoning_content?: string } }> };
      content += data.choices[0]?.delta.content ?? '';
      reasoning += data.choices[0]?.delta.reasoning_content ?? '';
    }
    expect(content).toBe(choice?.message.content);
    expect(reasoning).toBe(choice?.message.reasoning_content);
    expect(stream.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('should return a tool call with JSON string arguments and finish_reason tool_calls', async () => {
    const response = await post({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Weather in Lisbon?' }], tools: [weatherTool] });
    const completion = (await response.json()) as {
      choices: Array<{ message: { content: null; tool_calls: Array<{ function: { name: string; arguments: string } }> }; finish_reason: string }>;
    };
    const [choice] = completion.choices;
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls[0]?.function).toEqual({ name: 'get_weather', arguments: '{"location":"Lisbon"}' });
  });

  describe('tool_choice "required" with a schema that refers to itself', () => {
    const required = (parameters: unknown) => ({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Build it.' }], tools: [{ type: 'function', function: { name: 'build', parameters } }], tool_choice: 'required' });

    it('should refuse a schema with no finite value: 400 invalid_tool_schema naming the parameters', async () => {
      for (const parameters of [
        { type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] },
        { type: 'object', properties: { left: { $ref: '#' }, right: { $ref: '#' } }, required: ['left', 'right'] },
        { type: 'object', properties: { parts: { type: 'array', minItems: 1, items: { $ref: '#' } } }, required: ['parts'] },
      ]) {
        const response = await post(required(parameters));
        expect(response.status).toBe(400);
        const { error } = (await response.json()) as { error: { type: string; code: string; param: string; message: string } };
        expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_tool_schema', param: 'tools[0].function.parameters' });
        expect(error.message).toContain('no finite value');
      }
    });

    it('should call the tool with the smallest valid arguments when recursion has a way out', async () => {
      const cases: [unknown, unknown][] = [
        [{ type: 'object', properties: { next: { anyOf: [{ $ref: '#' }, { type: 'null' }] }, value: { type: 'integer' } }, required: ['next', 'value'] }, { next: null, value: expect.any(Number) }],
        [{ type: 'object', properties: { child: { $ref: '#' } } }, { child: {} }],
        [{ type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } }, required: ['kids'] }, { kids: [{ kids: [] }] }],
      ];
      for (const [parameters, smallest] of cases) {
        const completion = (await (await post(required(parameters))).json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> }; finish_reason: string }> };
        expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
        expect(JSON.parse(completion.choices[0]!.message.tool_calls[0]!.function.arguments)).toEqual(smallest);
      }
    });
  });
});

