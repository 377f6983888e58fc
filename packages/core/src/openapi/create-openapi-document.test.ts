import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from './create-openapi-document.js';

describe('createOpenApiDocument', () => {
  it('should describe both endpoints with the schemas the handler validates with', () => {
    const document = createOpenApiDocument() as { openapi: string; paths: Record<string, unknown>; components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(['/chat/completions', '/models', '/models/{model}']);
    expect(Object.keys(document.components.schemas.ChatCompletionRequest!.properties!)).toContain('tool_choice');
  });
});
