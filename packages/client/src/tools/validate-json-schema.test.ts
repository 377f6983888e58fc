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
  it('should accept a value that fits', async () => {
    expect(await validateJsonSchema(weather, { city: 'Paris', unit: 'celsius', days: 3, tags: ['a'], at: { lat: 1.5 } })).toEqual([]);
  });

  it('should report each problem with its path', async () => {
    expect(await validateJsonSchema(weather, { unit: 'kelvin', days: 1.5, tags: ['a', 2, 'c'], at: {}, extra: true })).toEqual([
      '(root): Instance does not have required property "city"',
      'unit: Instance does not match any of ["celsius","fahrenheit"]',
      'days: Instance type "number" is invalid. Expected "integer"',
      'tags: Array has too many items (3 > 2)',
      'tags[1]: Instance type "number" is invalid. Expected "string"',
      'at: Instance does not have required property "lat"',
      'extra: Unknown property: the schema allows no other properties',
    ]);
  });

  it('should read type lists, nullable, const, anyOf, oneOf, not and patterns', async () => {
    expect(await validateJsonSchema({ type: ['string', 'null'] }, null)).toEqual([]);
    expect(await validateJsonSchema({ type: 'string', nullable: true }, null)).toEqual([]);
    expect(await validateJsonSchema({ const: 'x' }, 'y')).toEqual(['(root): Instance does not match "x"']);
    expect(await validateJsonSchema({ anyOf: [{ type: 'string' }, { type: 'number' }] }, true)).toHaveLength(1);
    expect(await validateJsonSchema({ oneOf: [{ type: 'number' }, { type: 'integer' }] }, 1)).toHaveLength(1);
    expect(await validateJsonSchema({ not: { type: 'string' } }, 'x')).toHaveLength(1);
    expect(await validateJsonSchema({ type: 'string', pattern: '^[A-Z]{3}$' }, 'EUR')).toEqual([]);
    expect(await validateJsonSchema({ type: 'string', pattern: '^[A-Z]{3}$' }, 'eur')).toHaveLength(1);
  });

  it('should not treat inherited names as present properties', async () => {
    expect(await validateJsonSchema({ type: 'object', required: ['toString'] }, {})).toEqual(['(root): Instance does not have required property "toString"']);
  });

  it('should check nothing against a schema that cannot be used (endless self-reference)', async () => {
    expect(await validateJsonSchema({ $ref: '#' }, 1)).toEqual([]);
  });
});

describe('validateJsonSchema patterns', () => {
  it('should run patterns in linear time, where a backtracking engine freezes', async () => {
    expect(await validateJsonSchema({ type: 'string', pattern: '^[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*!$' }, 'a'.repeat(20_000))).toEqual([
      '(root): String does not match the pattern /^[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*!$/',
    ]);
    expect(await validateJsonSchema({ type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } } }, { [`${'a'.repeat(50_000)}`]: 'x' })).toHaveLength(1);
  });
});
