/**
 * The served document is as strict as the handler: for each rule the handler enforces that
 * JSON Schema can say, a body the handler refuses is refused by the document's request schema,
 * and a body it accepts is accepted; every answer matches the document's response for its status.
 */
import { builtinModels, createChatHandler, createModelRegistry, generateApiKey, insecureAcceptAnyApiKey, type ChatEngine } from '@quantum-chat/core';
import { describe, expect, it } from 'vitest';
import { createOpenApiChecker, type OpenApiDocument } from '../src/index.js';

const engine: ChatEngine = {
  async *generate() {
    yield { type: 'content', text: 'Hi' };
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
  },
};
const registry = createModelRegistry({ engine, models: [...builtinModels, { id: 'llama-3.1-8b', requiresPlan: null, reasoning: false, ownedBy: 'meta' }] });
const handler = createChatHandler({ registry, accessControl: insecureAcceptAnyApiKey() });
const key = generateApiKey('live');

const user = { role: 'user', content: 'Hi' };
const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } };
const tool = (name: string, parameters?: unknown) => ({ type: 'function', function: { name, ...(parameters === undefined ? {} : { parameters }) } });
const entries = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'v']));

/** Bodies on both sides of each rule: [what, body, accepted by the handler]. */
const rules: [string, Record<string, unknown>, boolean][] = [
  ['n = 1', { n: 1 }, true],
  ['n = null (absent)', { n: null }, true],
  ['n = 2', { n: 2 }, false],
  ['an assistant message with content', { messages: [user, { role: 'assistant', content: 'Hello' }, user] }, true],
  ['an assistant message with tool calls and content null', { messages: [user, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '{}' }] }, true],
  ['an assistant message with neither content nor tool calls', { messages: [user, { role: 'assistant' }, user] }, false],
  ['an assistant message with content null and no tool calls', { messages: [user, { role: 'assistant', content: null, tool_calls: [] }, user] }, false],
  ['an assistant message with content null and tool calls null', { messages: [user, { role: 'assistant', content: null, tool_calls: null }, user] }, false],
  ['metadata with 16 entries', { metadata: entries(16) }, true],
  ['metadata with 17 entries', { metadata: entries(17) }, false],
  ['tool parameters of type object', { tools: [tool('get_weather', { type: 'object', properties: {} })] }, true],
  ['tool parameters without a type', { tools: [tool('get_weather', { properties: {} })] }, true],
  ['tool parameters of type string', { tools: [tool('get_weather', { type: 'string' })] }, false],
  ['tool parameters of types [object]', { tools: [tool('get_weather', { type: ['object'] })] }, false],
  ['a json_schema response format of type object', { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' } } } }, true],
  ['a json_schema response format of type array', { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'array' } } } }, false],
  ['top_logprobs with logprobs', { logprobs: true, top_logprobs: 2 }, true],
  ['top_logprobs null without logprobs', { top_logprobs: null }, true],
  ['top_logprobs without logprobs', { top_logprobs: 2 }, false],
  ['top_logprobs with logprobs false', { logprobs: false, top_logprobs: 0 }, false],
  ['logit_bias with 1024 entries', { logit_bias: Object.fromEntries(Array.from({ length: 1024 }, (_, index) => [String(index), 1])) }, true],
  ['logit_bias with 1025 entries', { logit_bias: Object.fromEntries(Array.from({ length: 1025 }, (_, index) => [String(index), 1])) }, false],
  ['a model the server added', { model: 'llama-3.1-8b' }, true],
  ['an unknown model', { model: 'quantum-ultra' }, false],
];

async function fetchDocument(path: string): Promise<OpenApiDocument> {
  return (await (await handler.fetch(new Request(`http://127.0.0.1${path}`))).json()) as OpenApiDocument;
}

async function post(body: unknown): Promise<{ status: number; headers: Headers; body: string }> {
  const response = await handler.fetch(
    new Request('http://127.0.0.1/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  );
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe('the OpenAPI document is as strict as the handler', async () => {
  const document = await fetchDocument('/v1/openapi.json');
  const checker = createOpenApiChecker(document);
  const chat = checker.findOperation('POST', '/chat/completions')!;
  const requestSchema = chat.operation.requestBody!.content['application/json']!.schema;

  it.each(rules)('should agree with the handler on %s', async (_what, fields, accepted) => {
    const body = { model: 'quantum-lite', messages: [user], ...fields };
    const response = await post(body);
    expect(response.status < 400, response.body).toBe(accepted);
    expect(checker.validate(requestSchema, body).length === 0, checker.validate(requestSchema, body).join('\n')).toBe(accepted);
    expect(checker.checkResponse(chat, response)).toEqual([]);
  });

  // The rule is the message's (an `anyOf` on it): the document refuses the message, and the handler names it.
  it.each([
    ['neither field', { role: 'assistant' }],
    ['content null and tool calls null', { role: 'assistant', content: null, tool_calls: null }],
    ['content null and no tool calls', { role: 'assistant', content: null, tool_calls: [] }],
  ])('should name the message an assistant message with %s is refused at', async (_what, message) => {
    const body = { model: 'quantum-lite', messages: [user, message, user] };
    expect(checker.validate(requestSchema, body).some((problem) => problem.startsWith('/messages/1:'))).toBe(true);
    expect(JSON.parse((await post(body)).body)).toMatchObject({ error: { code: 'missing_required_parameter', param: 'messages[1]' } });
  });

  it('should list the known model ids, the added one too, in the request and the model path', () => {
    const ids = [...builtinModels.map((model) => model.id), 'llama-3.1-8b'];
    expect(checker.deref<{ properties: { model: unknown } }>(requestSchema).properties.model).toMatchObject({ type: 'string', enum: ids });
    const retrieve = checker.findOperation('GET', '/models/quantum-lite')!.operation;
    expect(retrieve.parameters!.find((parameter) => parameter.name === 'model')!.schema).toMatchObject({ enum: ids });
  });

  it('should say that tool names are unique and that the handler refuses a repeated one', async () => {
    const tools = checker.deref<{ properties: { tools: { description: string } } }>(requestSchema).properties.tools;
    expect(tools.description).toMatch(/unique/u);
    const response = await post({ model: 'quantum-lite', messages: [user], tools: [tool('get_weather'), tool('get_time'), tool('get_weather')] });
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'invalid_value', param: 'tools[2].function.name' } });
  });

  // Only `openai` chooses a format (decisions §4); the handler reads no other value, so the document refuses none.
  it.each(['openai', 'quantum', 'OpenAI', 'ndjson'])('should agree with the handler on x-stream-format: %s', async (value) => {
    const parameter = chat.operation.parameters!.find((candidate) => candidate.name === 'x-stream-format')!;
    const response = await handler.fetch(
      new Request('http://127.0.0.1/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-stream-format': value },
        body: JSON.stringify({ model: 'quantum-lite', messages: [user], stream: true }),
      }),
    );
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text.includes('event: message'), text).toBe(value !== 'openai');
    expect(checker.validate(parameter.schema, value)).toEqual([]);
    expect(checker.checkResponse(chat, { status: response.status, headers: response.headers, body: text })).toEqual([]);
  });

  it('should make the error code a string from the codes of that status', () => {
    const envelope = { $ref: '#/components/schemas/ErrorEnvelope' };
    expect(checker.validate(envelope, { error: { message: 'x', type: 'invalid_request_error', param: null, code: null } })).not.toEqual([]);
    const refusal = (status: string) => chat.operation.responses[status]!.content!['application/json']!.schema;
    expect(checker.validate(refusal('400'), { error: { message: 'x', type: 'invalid_request_error', param: 'n', code: 'unsupported_value' } })).toEqual([]);
    expect(checker.validate(refusal('400'), { error: { message: 'x', type: 'invalid_request_error', param: 'n', code: 'model_not_found' } })).not.toEqual([]);
    expect(checker.validate(refusal('429'), { error: { message: 'x', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } })).toEqual([]);
    expect(checker.validate(refusal('429'), { error: { message: 'x', type: 'rate_limit_error', param: null, code: 'insufficient_quota' } })).not.toEqual([]);
  });

  it('should name its own mount as the server, per mount', async () => {
    expect(document).toMatchObject({ servers: [{ url: '/v1' }] });
    expect(await fetchDocument('/compat/v1/openapi.json')).toMatchObject({ servers: [{ url: '/compat/v1' }] });
  });
});
