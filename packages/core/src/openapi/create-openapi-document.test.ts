import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from './create-openapi-document.js';

type Schema = { properties?: Record<string, unknown>; required?: string[]; oneOf?: unknown[] };
type Document = { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, Schema> } };

describe('createOpenApiDocument', () => {
  it('should describe both endpoints with the schemas the handler validates with', () => {
    const document = createOpenApiDocument() as Document;
    expect(document.openapi).toBe('3.2.0');
    expect(Object.keys(document.paths)).toEqual(['/chat/completions', '/chat/completions/{id}/stream', '/chat/completions/{id}', '/chat/completions/{id}/cancel', '/responses', '/responses/{response_id}', '/responses/{response_id}/cancel', '/responses/{response_id}/input_items', '/models', '/models/{model}', '/openapi.json']);
    expect(Object.keys(document.components.schemas.ChatCompletionRequest!.properties!)).toContain('tool_choice');
  });

  it('should let optional request fields be null, as the handler reads null as absent, and give their defaults', () => {
    const request = createOpenApiDocument().components as Document['components'];
    const properties = request.schemas.ChatCompletionRequest!.properties!;
    expect(properties.temperature).toMatchObject({ anyOf: [{ type: 'number', minimum: 0, maximum: 2 }, { type: 'null' }], default: 0.7 });
    expect(properties.max_tokens).toMatchObject({ default: 4096 });
    expect(properties.model).toMatchObject({ type: 'string' });
    expect(properties.model).not.toHaveProperty('anyOf');
  });

  it('should describe one stream event per name, an unnamed event as a message, and data as JSON text or [DONE]', () => {
    const event = (createOpenApiDocument() as Document).components.schemas.ChatStreamEvent!;
    expect(event).toMatchObject({ type: 'object', required: ['data'], properties: { event: { type: 'string' }, data: { type: 'string' }, id: { type: 'string' }, retry: { type: 'integer', minimum: 0 } } });
    const variants = event.oneOf as Schema[];
    expect(variants.map((variant) => [(variant.properties!.event as { const?: string }).const, variant.required ?? []])).toEqual([
      ['thought_trace', ['event']],
      ['error', ['event']],
      ['message', []],
    ]);
    expect(variants[0]!.properties!.data).toEqual({ type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/ThoughtTraceChunk' } });
    expect((variants[2]!.properties!.data as { anyOf: unknown[] }).anyOf[0]).toEqual({ const: '[DONE]' });
  });
});
