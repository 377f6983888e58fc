import { describe, expect, it } from 'vitest';
import { validateJsonSchema } from './validate-json-schema.js';

const weather = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    at: { $ref: '#/$defs/point' },
  },
  required: ['city'],
  additionalProperties: false,
  $defs: { point: { type: 'object', properties: { lat: { type: 'number' } }, required: ['lat'] } },
};

describe('validateJsonSchema', () => {
  it('should accept a value that fits', () => {
    expect(validateJsonSchema(weather, { city: 'Paris', unit: 'celsius', days: 3, tags: ['a'], at: { lat: 1.5 } })).toEqual([]);
  });

  it('should report each problem with its path', () => {
    expect(validateJsonSchema(weather, { unit: 'kelvin', days: 1.5, tags: ['a', 2, 'c'], at: {}, extra: true })).toEqual([
      '(root): missing required property "city"',
      'unit: must be one of "celsius", "fahrenheit"',
      'days: must be integer, got number',
      'tags: must have at most 2 items',
      'tags[1]: must be string, got integer',
      'at: missing required property "lat"',
      '(root): unknown property "extra"',
    ]);
  });

  it('should read type lists, nullable, const, anyOf, oneOf, not and patterns', () => {
    expect(validateJsonSchema({ type: ['string', 'null'] }, null)).toEqual([]);
    expect(validateJsonSchema({ type: 'string', nullable: true }, null)).toEqual([]);
    expect(validateJsonSchema({ const: 'x' }, 'y')).toEqual(['(root): must be "x"']);
    expect(validateJsonSchema({ anyOf: [{ type: 'string' }, { type: 'number' }] }, true)).toHaveLength(1);
    expect(validateJsonSchema({ oneOf: [{ type: 'number' }, { type: 'integer' }] }, 1)).toHaveLength(1);
    expect(validateJsonSchema({ not: { type: 'string' } }, 'x')).toHaveLength(1);
    expect(validateJsonSchema({ type: 'string', pattern: '^[A-Z]{3}$' }, 'EUR')).toEqual([]);
    expect(validateJsonSchema({ type: 'string', pattern: '^[A-Z]{3}$' }, 'eur')).toHaveLength(1);
  });

  it('should not treat inherited names as present properties', () => {
    expect(validateJsonSchema({ type: 'object', required: ['toString'] }, {})).toEqual(['(root): missing required property "toString"']);
  });

  it('should stop on a self-referencing schema', () => {
    expect(validateJsonSchema({ $ref: '#' }, 1)).toEqual([]);
  });
});
