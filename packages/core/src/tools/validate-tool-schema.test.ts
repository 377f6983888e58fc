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
    const started = performance.now();
    expect(findToolSchemaProblem(objectWith({ a: { enum: Array.from({ length: 490 }, (_, index) => ({ index })) } }))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('should refuse catastrophic patterns wherever a schema can hold one', () => {
    expect(findToolSchemaProblem(objectWith({ a: { type: 'string', pattern: '(a+)+$' } }))?.message).toMatch(
      /^the pattern at \/properties\/a\/pattern repeats a group that itself repeats/u,
    );
    expect(findToolSchemaProblem(objectWith({}, { patternProperties: { '^(a|a)*$': {} } }))?.message).toContain('patternProperties key');
    expect(findToolSchemaProblem(objectWith({}, { propertyNames: { pattern: '(x*)*' } }))?.message).toContain('itself repeats');
    // A property named like a data keyword is still a schema.
    expect(findToolSchemaProblem(objectWith({ default: { type: 'string', pattern: '(a+)+' } }))?.message).toContain('itself repeats');
    expect(findToolSchemaProblem(objectWith({ a: { anyOf: [{ pattern: '(' }] } }))?.message).toContain('not a valid regular expression');
  });

  it('should not read data keywords as schemas', () => {
    expect(findToolSchemaProblem(objectWith({ a: { type: 'object', default: { pattern: '(a+)+', $ref: 'https://x' } } }))).toBeUndefined();
  });

  it('should refuse what the meta-schema refuses, naming where', () => {
    expect(findToolSchemaProblem(objectWith({ a: { type: 'strin' } }))?.message).toContain('not a valid JSON Schema at /properties/a/type');
    expect(findToolSchemaProblem({ type: 'array' })?.message).toContain('must be of type "object"');
    expect(findToolSchemaProblem({ $schema: 'https://evil.example/schema' })?.message).toContain('unsupported $schema');
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
