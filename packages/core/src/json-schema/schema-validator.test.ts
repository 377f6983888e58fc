import { describe, expect, it } from 'vitest';
import { getSchemaValidator, validateWithSchema } from './cached-schema-validator.js';
import { compileLinearPattern } from './linear-pattern.js';
import { createSchemaValidator } from './schema-validator.js';

const weather = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 14 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['city'],
  additionalProperties: false,
};

describe('createSchemaValidator', () => {
  it('should accept a valid value and name where an invalid one fails', () => {
    expect(validateWithSchema(weather, { city: 'Paris', unit: 'celsius', days: 3, tags: ['a'] })).toEqual([]);
    expect(validateWithSchema(weather, { unit: 'celsius' })).toEqual([{ path: '', message: 'Instance does not have required property "city".' }]);
    expect(validateWithSchema(weather, { city: 'Oslo', tags: ['a', 2] })[0]?.path).toBe('/tags/1');
    expect(validateWithSchema(weather, { city: 'Oslo', extra: 1 })).toEqual([{ path: '/extra', message: 'Unknown property: the schema allows no other properties.' }]);
  });

  it('should follow local refs, recursion included, and 2020-12 keywords', () => {
    const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, required: ['name'] };
    expect(validateWithSchema(tree, { name: 'a', children: [{ name: 'b', children: [] }] })).toEqual([]);
    expect(validateWithSchema(tree, { name: 'a', children: [{ children: [] }] })[0]?.path).toBe('/children/0');
    const tuple = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] };
    expect(validateWithSchema(tuple, ['a', 1])).toEqual([]);
    expect(validateWithSchema(tuple, [1, 1])).toHaveLength(1);
  });

  it('should check patterns with the linear-time engine, where a backtracking engine freezes', () => {
    const schema = { type: 'string', pattern: '^[a-z]*[a-z]*[a-z]*[a-z]*!$' };
    expect(validateWithSchema(schema, 'a'.repeat(4000))).toEqual([{ path: '', message: 'String does not match the pattern /^[a-z]*[a-z]*[a-z]*[a-z]*!$/.' }]);
    expect(validateWithSchema({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(100_000)}!`)).toHaveLength(1);
    expect(validateWithSchema(schema, 'abc!')).toEqual([]);
  });

  it('should match patternProperties keys with the linear-time engine, additionalProperties still applying to the rest', () => {
    const schema = { type: 'object', patternProperties: { '^x-[a-z]*[a-z]*[a-z]*$': { type: 'number' } }, additionalProperties: false };
    expect(validateWithSchema(schema, { 'x-a': 1, 'x-bc': 2 })).toEqual([]);
    expect(validateWithSchema(schema, { 'x-a': 'one' })[0]?.path).toBe('/x-a');
    expect(validateWithSchema(schema, { [`x-${'a'.repeat(5000)}1`]: 1 })).toHaveLength(1);
    expect(validateWithSchema(schema, { 'a.b|c': 1 })).toHaveLength(1);
  });

  it('should treat format as an annotation and never compile code', () => {
    expect(validateWithSchema({ type: 'string', format: 'email' }, 'not an address')).toEqual([]);
    const validator = createSchemaValidator({ type: 'string', pattern: '^a' });
    expect(validator.validate('b')).toHaveLength(1);
    validator.dispose();
  });

  it('should report an unresolved $ref instead of throwing', () => {
    expect(validateWithSchema({ $ref: '#/definitions/missing' }, 1)[0]?.message).toMatch(/cannot be (used|checked)/u);
  });

  it('should reuse one validator per distinct schema text', () => {
    expect(getSchemaValidator({ type: 'string' })).toBe(getSchemaValidator({ type: 'string' }));
  });
});

describe('compileLinearPattern', () => {
  it.each([
    ['(a)\\1', 'backreference'],
    ['(?<n>a)\\k<n>', 'backreference'],
    ['(?=a)b', 'lookaround'],
    ['(?<!a)b', 'lookaround'],
    ['a{1001}', 'linear-time'],
    ['(', 'not a valid regular expression'],
    ['a'.repeat(600), 'longer than 512'],
  ])('should refuse %s', (source, reason) => {
    expect(compileLinearPattern(source).problem).toContain(reason);
  });

  it.each(['^[A-Z][a-z]+$', '\\u00e9', '^\\p{L}+$', '(?<year>\\d{4})-\\d{2}', '[\\(\\)]', '^(\\d{1,3}\\.){3}\\d{1,3}$', '[^]'])('should run %s', (source) => {
    expect(compileLinearPattern(source).pattern).toBeDefined();
  });
});
