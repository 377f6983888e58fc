import { describe, expect, it } from 'vitest';
import { createToolSchemaBudget, findToolSchemaProblem } from './validate-tool-schema.js';

const objectWith = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

describe('findToolSchemaProblem', () => {
  it('should accept an everyday schema, local refs and ref cycles without resolving them', () => {
    expect(findToolSchemaProblem(objectWith({ city: { type: 'string', pattern: '^[A-Z][a-z]+$' } }, { required: ['city'] }))).toBeUndefined();
    const cyclic = objectWith({ node: { $ref: '#/definitions/a' }, self: { $ref: '#' } }, {
      definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } },
    });
    expect(findToolSchemaProblem(cyclic)).toBeUndefined();
  });

  it.each([
    'https://example.com/schema.json',
    'http://169.254.169.254/latest/meta-data',
    'file:///etc/passwd',
    'other.json#/definitions/a',
    '//example.com/x',
  ])('should refuse the remote $ref %s without fetching it', (ref) => {
    expect(findToolSchemaProblem(objectWith({ a: { items: [{ $ref: ref }] } }))?.message).toContain('remote $ref');
  });

  it('should refuse a huge array without overflowing the stack', () => {
    const problem = findToolSchemaProblem(objectWith({ a: { type: 'array', examples: Array(300_000).fill(0) } }));
    expect(problem?.message).toContain('more than 10000 values');
  });

  it('should cap enum values, whose duplicate check is quadratic', () => {
    const manyObjects = objectWith({ a: { enum: Array.from({ length: 1200 }, (_, index) => ({ index })) } });
    expect(findToolSchemaProblem(manyObjects)?.message).toContain('enums hold more than 1000 values');
    expect(findToolSchemaProblem(objectWith({ a: { enum: Array.from({ length: 490 }, (_, index) => ({ index })) } }))).toBeUndefined();
  });

  it('should refuse patterns only a backtracking engine can run, wherever a schema can hold one', () => {
    expect(findToolSchemaProblem(objectWith({ a: { type: 'string', pattern: '^(a)\\1$' } }))?.message).toBe(
      'the pattern at /properties/a/pattern uses a backreference, which a linear-time regex engine cannot run',
    );
    expect(findToolSchemaProblem(objectWith({}, { patternProperties: { '^(?=x)': {} } }))?.message).toContain('patternProperties key');
    expect(findToolSchemaProblem(objectWith({}, { propertyNames: { pattern: '(?<!a)b' } }))?.message).toContain('lookaround');
    // A property named like a data keyword is still a schema.
    expect(findToolSchemaProblem(objectWith({ default: { type: 'string', pattern: '(a)\\1' } }))?.message).toContain('backreference');
    expect(findToolSchemaProblem(objectWith({ a: { anyOf: [{ pattern: '(' }] } }))?.message).toContain('not a valid regular expression');
  });

  it('should accept catastrophic-looking patterns, which the linear-time engine runs safely', () => {
    for (const pattern of ['^[a-z]*[a-z]*[a-z]*[a-z]*!$', '^(a+)+$', '^(a|a)*$', '^(\\w+\\s?)*$']) {
      expect(findToolSchemaProblem(objectWith({ a: { type: 'string', pattern, minLength: 4000 } })), pattern).toBeUndefined();
    }
  });

  it('should refuse duplicates in required and type without comparing every pair', () => {
    expect(findToolSchemaProblem(objectWith({}, { required: ['a', 'b', 'a'] }))?.message).toBe('"a" is listed twice at /required');
    const many = Array.from({ length: 9000 }, (_, index) => `p${index}`);
    expect(findToolSchemaProblem(objectWith({}, { required: many }))).toBeUndefined();
  });

  it('should not read data keywords as schemas', () => {
    expect(findToolSchemaProblem(objectWith({ a: { type: 'object', default: { pattern: '(a)\\1', $ref: 'https://x' } } }))).toBeUndefined();
  });

  it('should refuse what the meta-schema refuses, naming where', () => {
    expect(findToolSchemaProblem(objectWith({ a: { type: 'strin' } }))?.message).toContain('not a valid JSON Schema at /properties/a/type');
    expect(findToolSchemaProblem({ type: 'array' })?.message).toContain('must be of type "object"');
    expect(findToolSchemaProblem({ $schema: 'https://evil.example/schema' })?.message).toContain('unsupported $schema');
  });
});

describe('findToolSchemaProblem and $ref expansion', () => {
  it('should refuse definitions that double through allOf, and keep recursion', () => {
    const definitions: Record<string, unknown> = { d0: { type: 'string' } };
    for (let level = 1; level <= 22; level++) definitions[`d${level}`] = { allOf: [{ $ref: `#/definitions/d${level - 1}` }, { $ref: `#/definitions/d${level - 1}` }] };
    expect(findToolSchemaProblem(objectWith({ a: { $ref: '#/definitions/d22' } }, { definitions }))?.message).toBe(
      'the schema expands to too many subschemas through its $refs (more than 5000 for one value or 1000000 in all)',
    );
    const tree = objectWith({ children: { type: 'array', items: { $ref: '#' } }, next: { $ref: '#/definitions/node' } }, { definitions: { node: { properties: { next: { $ref: '#/definitions/node' } } } } });
    expect(findToolSchemaProblem(tree)).toBeUndefined();
    const shared = objectWith(Object.fromEntries(Array.from({ length: 3000 }, (_, index) => [`p${index}`, { $ref: '#/definitions/point' }])), {
      definitions: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } },
    });
    expect(findToolSchemaProblem(shared)).toBeUndefined();
  });

  it('should refuse definitions that all refer to each other', () => {
    const names = Array.from({ length: 12 }, (_, index) => `d${index}`);
    const definitions = Object.fromEntries(names.map((name) => [name, { type: 'object', properties: Object.fromEntries(names.map((other) => [other, { $ref: `#/definitions/${other}` }])) }]));
    expect(findToolSchemaProblem(objectWith({ a: { $ref: '#/definitions/d0' } }, { definitions }))?.message).toBe('the schema refers to itself in too many ways through its $refs');
  });
});

describe('findToolSchemaProblem with a request budget', () => {
  it('should cap what all the tools of a request hold together', () => {
    const budget = createToolSchemaBudget();
    const enumTool = objectWith({ a: { enum: Array.from({ length: 900 }, (_, index) => `v${index}`) } });
    expect(findToolSchemaProblem(enumTool, budget)).toBeUndefined();
    expect(findToolSchemaProblem(enumTool, budget)).toBeUndefined();
    expect(findToolSchemaProblem(enumTool, budget)?.message).toBe('the tools of this request hold more than 2000 enum values');
    const wide = objectWith(Object.fromEntries(Array.from({ length: 3000 }, (_, index) => [`p${index}`, { type: 'string' }])));
    const valuesBudget = createToolSchemaBudget();
    for (let tool = 0; tool < 3; tool++) expect(findToolSchemaProblem(wide, valuesBudget)).toBeUndefined();
    expect(findToolSchemaProblem(wide, valuesBudget)?.message).toBe('the tools of this request hold more than 20000 schema values');
  });
});
