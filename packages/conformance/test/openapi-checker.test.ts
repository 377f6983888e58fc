import { describe, expect, it } from 'vitest';
import { createOpenApiChecker, parseEventStream, type OpenApiDocument } from '../src/index.js';

describe('parseEventStream', () => {
  it('should parse as the HTML standard does: comments dropped, data joined, fields typed, unfinished events dropped', () => {
    const text = ': keep-alive\n\nevent: message\ndata: {"a":\ndata:1}\n\nid: 7\nretry: 100\ndata:x\r\n\r\nretry: soon\nunknown: field\ndata\n\nevent: lost\n\nevent: cut\ndata: never ended\n';
    expect(parseEventStream(text)).toEqual([{ event: 'message', data: '{"a":\n1}' }, { id: '7', retry: 100, data: 'x' }, { data: '' }]);
    expect(parseEventStream('\uFEFFdata: [DONE]\r\rdata: y\n\n')).toEqual([{ data: '[DONE]' }, { data: 'y' }]);
  });
});

const document: OpenApiDocument = {
  openapi: '3.2.0',
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': {
            headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' }, 'retry-after': { schema: { type: 'integer', minimum: 1 } } },
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
              'text/event-stream': {
                itemSchema: {
                  type: 'object',
                  required: ['data'],
                  properties: { event: { type: 'string' }, data: { type: 'string' } },
                  oneOf: [
                    { required: ['event'], properties: { event: { const: 'thing' }, data: { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/Thing' } } } },
                    { properties: { event: { const: 'message' }, data: { const: '[DONE]' } } },
                  ],
                },
              },
            },
          },
        },
      },
    },
  },
  components: {
    headers: { RequestId: { required: true, schema: { type: 'string' } } },
    schemas: { Thing: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
  },
};

describe('createOpenApiChecker', () => {
  const checker = createOpenApiChecker(document);
  const found = checker.findOperation('GET', '/things/12')!;
  const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r1' };
  const sse = { 'content-type': 'text/event-stream; charset=utf-8', 'X-Request-Id': 'r1' };

  it('should find operations by path template and method', () => {
    expect(found.template).toBe('/things/{id}');
    expect(checker.findOperation('POST', '/things/12')).toBeUndefined();
    expect(checker.findOperation('GET', '/things/12/more')).toBeUndefined();
  });

  it('should accept what the document describes', () => {
    expect(checker.checkResponse(found, { status: 200, headers: json, body: '{"id":1}' })).toEqual([]);
    expect(checker.checkResponse(found, { status: 200, headers: { ...sse, 'retry-after': '3' }, body: 'event: thing\ndata: {"id":1}\n\n: ping\n\ndata: [DONE]\n\n' })).toEqual([]);
  });

  it('should report statuses, content types and headers the document does not describe', () => {
    expect(checker.checkResponse(found, { status: 404, headers: json, body: '{}' })).toEqual([expect.stringContaining('status 404 is not documented')]);
    expect(checker.checkResponse(found, { status: 200, headers: { ...json, 'content-type': 'text/plain' }, body: 'x' })).toEqual([expect.stringContaining('content type text/plain is not documented')]);
    expect(checker.checkResponse(found, { status: 200, headers: { 'content-type': 'application/json' }, body: '{"id":1}' })).toEqual([expect.stringContaining('required header x-request-id is missing')]);
    expect(checker.checkResponse(found, { status: 200, headers: { ...json, 'retry-after': '0' }, body: '{"id":1}' })).toEqual([expect.stringContaining('header retry-after')]);
    expect(checker.checkResponse(found, { status: 200, headers: json, body: '{"id":"1"}' })).toEqual([expect.stringContaining('body /id')]);
  });

  it('should check the JSON inside each event against its contentSchema', () => {
    const problems = (body: string) => checker.checkResponse(found, { status: 200, headers: sse, body });
    expect(problems('event: thing\ndata: {"id":"one"}\n\n')).toEqual([expect.stringContaining('event 0')]);
    expect(problems('event: thing\ndata: {"id":\n\n')).not.toEqual([]);
    expect(problems('event: thing\ndata: [DONE]\n\n')).not.toEqual([]);
    expect(problems('data: "[DONE]"\n\n')).not.toEqual([]);
    expect(problems('event: other\ndata: [DONE]\n\n')).not.toEqual([]);
    expect(problems(': only a comment\n\n')).toEqual([expect.stringContaining('holds no event')]);
  });
});
