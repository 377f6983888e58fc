import { createOpenApiChecker, loadCases, type ConformanceCase, type OpenApiDocument } from '@quantum-chat/conformance';
import { insecureAcceptAnyApiKey, createChatHandler, type ChatEngine } from '@quantum-chat/core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSchemaValidator } from './openapi-schemas.js';

type Json = Record<string, unknown>;
interface Operation {
  parameters?: { name: string; in: string; schema: unknown }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown; itemSchema?: unknown }> }>;
}

// The document is only read here: no request reaches the engine.
const engine: ChatEngine = {
  // eslint-disable-next-line require-yield -- never called: only the document is read
  async *generate() {
    throw new Error('not called');
  },
};

/** The document exactly as a host serves it: `GET /v1/openapi.json` through the handler's fetch face. */
async function fetchServedDocument(): Promise<Json> {
  const response = await createChatHandler({ accessControl: insecureAcceptAnyApiKey(), engine }).fetch(new Request('http://127.0.0.1/v1/openapi.json'));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/u);
  return (await response.json()) as Json;
}

/** The document's operation for a case's request, if it documents that path and method. */
function operationOf(document: Json, method: string, path: string): Operation | undefined {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const [template, item] of Object.entries(paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/gu, '[^/]+')}$`, 'u');
    if (pattern.test(path)) return item[method.toLowerCase()];
  }
  return undefined;
}

const mediaType = (contentType: string | null | undefined) => (contentType ?? '').split(';', 1)[0]!.trim();

describe('the served OpenAPI document', () => {
  let document: Json;
  let schemas: ReturnType<typeof createSchemaValidator>;
  let checker: ReturnType<typeof createOpenApiChecker>;
  beforeAll(async () => {
    document = await fetchServedDocument();
    schemas = createSchemaValidator(document);
    checker = createOpenApiChecker(document as unknown as OpenApiDocument);
  });

  it('should be a valid OpenAPI 3.2 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.2');
  });

  it('should need 3.2 for its stream: the same document as 3.1 is invalid (itemSchema is not a 3.1 field)', async () => {
    const result = await new Validator().validate({ ...structuredClone(document), openapi: '3.1.1' });
    expect(result.valid).toBe(false);
    expect(JSON.stringify(result.errors)).toContain('itemSchema');
  });

  it('should hold JSON Schema 2020-12 schemas that compile in strict mode', () => {
    expect(() => schemas.compileAll()).not.toThrow();
  });

  it('should describe bearer auth, the x-stream-format header and the stream events', () => {
    const components = document.components as { securitySchemes: Json; schemas: Json };
    expect(components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const chat = operationOf(document, 'POST', '/chat/completions')!;
    expect(chat.parameters?.find((parameter) => parameter.name === 'x-stream-format')?.schema).toEqual({ type: 'string', examples: ['openai'] });
    expect(chat.responses['200']!.content!['text/event-stream']).toEqual({ itemSchema: { $ref: '#/components/schemas/ChatStreamEvent' } });
    for (const status of ['400', '401', '403', '404', '408', '413', '415', '429', '500', '503']) {
      expect(chat.responses[status]?.content?.['application/json']?.schema, status).toMatchObject({ allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, {}] });
    }
  });

  it('should refuse what the server never sends, so the checks below are not vacuous', () => {
    const chunk = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'quantum-lite', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] };
    const event = { $ref: '#/components/schemas/ChatStreamEvent' };
    expect(checker.validateEvent(event, { event: 'message', data: JSON.stringify(chunk) })).toEqual([]);
    expect(checker.validateEvent(event, { data: JSON.stringify(chunk) })).toEqual([]);
    expect(checker.validateEvent(event, { data: '[DONE]' })).toEqual([]);
    expect(checker.validateEvent(event, { event: 'thought_trace', data: JSON.stringify(chunk) })).not.toEqual([]);
    expect(checker.validateEvent(event, { event: 'message', data: JSON.stringify({ ...chunk, choices: 'none' }) })).not.toEqual([]);
    expect(checker.validateEvent(event, { event: 'done', data: '[DONE]' })).not.toEqual([]);
    expect(schemas.validate({ $ref: '#/components/schemas/ErrorEnvelope' }, { error: { message: 'x', type: 'x', param: null, code: 429 } })).toBeDefined();
    expect(schemas.validate({ $ref: '#/components/schemas/ChatCompletionRequest' }, { model: 'quantum-lite', messages: [] })).toBeDefined();
    expect(schemas.validate({ $ref: '#/components/schemas/ChatCompletionRequest' }, { model: 'quantum-lite', messages: [{ role: 'user', content: 'Hi' }], temperature: 3 })).toBeDefined();
  });

  describe.each(loadCases().map((testCase) => [testCase.id, testCase] as const))('conformance case %s', (_id, testCase: ConformanceCase) => {
    const accepted = testCase.expect.status < 400;

    // Bodies of refused requests are often invalid on purpose: only accepted ones must match.
    if (accepted && testCase.request.body !== undefined) {
      it('should have a request body the document accepts', () => {
        const operation = operationOf(document, testCase.request.method, testCase.request.path);
        const schema = operation?.requestBody?.content[mediaType(testCase.request.headers['content-type'])]?.schema;
        expect(schema, 'documented request body').toBeDefined();
        const body = JSON.parse(new TextDecoder().decode(testCase.request.body)) as unknown;
        expect(schemas.validate(schema, body)).toBeUndefined();
      });
    }

    it('should have request headers the document accepts', () => {
      const parameters = operationOf(document, testCase.request.method, testCase.request.path)?.parameters ?? [];
      for (const parameter of parameters.filter((candidate) => candidate.in === 'header')) {
        const value = testCase.request.headers[parameter.name.toLowerCase()];
        if (value !== undefined && accepted) expect(schemas.validate(parameter.schema, value), parameter.name).toBeUndefined();
      }
    });

    it('should have a response the document describes', () => {
      const operation = checker.findOperation(testCase.request.method, testCase.request.path);
      const text = testCase.response.kind === 'json' ? JSON.stringify(testCase.response.value) : new TextDecoder().decode(testCase.response.bytes);
      // Unknown paths and methods have no operation: their body is still the error envelope.
      if (operation === undefined) {
        expect(schemas.validate({ $ref: '#/components/schemas/ErrorEnvelope' }, JSON.parse(text))).toBeUndefined();
        return;
      }
      // Headers as the case lists them (`null` means absent); every event of a stream checked.
      const headers = Object.fromEntries(Object.entries(testCase.expect.headers).filter((entry): entry is [string, string] => entry[1] !== null));
      expect(checker.checkResponse(operation, { status: testCase.expect.status, headers, body: text })).toEqual([]);
    });
  });
});
