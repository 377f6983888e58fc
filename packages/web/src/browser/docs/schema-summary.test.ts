import { describe, expect, it } from 'vitest';
import { constraintsOf, nestedObjectsOf, refName, typeSummary } from './schema-summary.js';

describe('typeSummary', () => {
  it('should name refs, constants, enums, unions, arrays and maps the way a reader scans them', () => {
    expect(typeSummary({ $ref: '#/components/schemas/ChatCompletion' })).toBe('ChatCompletion');
    expect(typeSummary({ type: 'string', const: 'list' })).toBe('"list"');
    expect(typeSummary({ type: 'string', enum: ['quantum', 'openai'] })).toBe('"quantum" | "openai"');
    expect(typeSummary({ anyOf: [{ type: 'number' }, { type: 'null' }] })).toBe('number | null');
    expect(typeSummary({ type: ['string', 'null'] })).toBe('string | null');
    expect(typeSummary({ type: 'array', items: { $ref: '#/components/schemas/Model' } })).toBe('array of Model');
    expect(typeSummary({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } })).toBe('array of (string | integer)');
    expect(typeSummary({ type: 'object', additionalProperties: { type: 'string' } })).toBe('map of string');
    expect(typeSummary({ type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/ChatCompletionChunk' } })).toBe('JSON ChatCompletionChunk');
    expect(typeSummary({ anyOf: [{ const: '[DONE]' }, { type: 'string', contentMediaType: 'application/json', contentSchema: { anyOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }] } }] })).toBe('"[DONE]" | JSON (A | B)');
    expect(typeSummary({ allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }, { properties: { error: { properties: { code: { enum: ['x'] } } } } }] })).toBe('ErrorEnvelope');
    expect(typeSummary({})).toBe('any');
    expect(typeSummary(true)).toBe('any');
  });
});

describe('constraintsOf', () => {
  it('should put bounds, sizes, patterns and defaults in words, also through a nullable union', () => {
    expect(constraintsOf({ type: 'integer', minimum: 1, maximum: 8192 })).toEqual(['≥ 1', '≤ 8192']);
    expect(constraintsOf({ anyOf: [{ type: 'number', minimum: 0, maximum: 2 }, { type: 'null' }], default: 0.7 })).toEqual(['≥ 0', '≤ 2', 'default 0.7']);
    expect(constraintsOf({ type: 'array', minItems: 1, maxItems: 4 })).toEqual(['at least 1 item', 'at most 4 items']);
    expect(constraintsOf({ type: 'string', pattern: '^call_' })).toEqual(['pattern ^call_']);
  });

  it("should leave out zod's safe-integer bounds, which are no real limit", () => {
    expect(constraintsOf({ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 })).toEqual([]);
  });
});

describe('nestedObjectsOf', () => {
  it('should find the objects a reader can unfold: direct, in arrays, in unions', () => {
    const object = { type: 'object', properties: { a: { type: 'string' } } };
    expect(nestedObjectsOf(object)).toEqual([object]);
    expect(nestedObjectsOf({ type: 'array', items: object })).toEqual([object]);
    expect(nestedObjectsOf({ anyOf: [object, { type: 'null' }] })).toEqual([object]);
    expect(nestedObjectsOf({ type: 'string' })).toEqual([]);
  });
});

describe('refName', () => {
  it('should shorten component refs only', () => {
    expect(refName('#/components/schemas/Usage')).toBe('Usage');
    expect(refName('https://example.com/schema.json')).toBe('https://example.com/schema.json');
  });
});
