import { describe, expect, it } from 'vitest';
import { measureFiniteValueDepths } from './finite-value-depth.js';

const rootDepth = (schema: Record<string, unknown>) => measureFiniteValueDepths(schema).rootDepth;

describe('measureFiniteValueDepths', () => {
  it('should find no finite value where every way through the schema requires itself again', () => {
    expect(rootDepth({ type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] })).toBe(Infinity);
    expect(rootDepth({ type: 'object', properties: { items: { type: 'array', minItems: 1, items: { $ref: '#' } } }, required: ['items'] })).toBe(Infinity);
    // Two definitions that require each other.
    const mutual = { type: 'object', $defs: { a: { type: 'object', properties: { b: { $ref: '#/$defs/b' } }, required: ['b'] }, b: { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, required: ['a'] } }, properties: { start: { $ref: '#/$defs/a' } }, required: ['start'] };
    expect(rootDepth(mutual)).toBe(Infinity);
    expect(rootDepth({ type: 'object', properties: { x: { oneOf: [{ $ref: '#' }, { allOf: [{ $ref: '#' }] }] } }, required: ['x'] })).toBe(Infinity);
    expect(rootDepth({ type: 'object', properties: { x: { enum: [] } }, required: ['x'] })).toBe(Infinity);
    expect(rootDepth({ type: 'object', properties: { x: false }, required: ['x'] })).toBe(Infinity);
    expect(rootDepth({ type: 'object', additionalProperties: false, required: ['x'] })).toBe(Infinity);
    expect(measureFiniteValueDepths({ type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] }).settled).toBe(true);
  });

  it('should measure the shallowest value where recursion has a way out', () => {
    // Optional recursion: {}.
    expect(rootDepth({ type: 'object', properties: { child: { $ref: '#' } } })).toBe(0);
    // A nullable branch: { next: null, value: '' }.
    expect(rootDepth({ type: 'object', properties: { next: { anyOf: [{ $ref: '#' }, { type: 'null' }] }, value: { type: 'string' } }, required: ['next', 'value'] })).toBe(1);
    const nullableList = { type: 'object', $defs: { node: { type: ['object', 'null'], properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } }, properties: { list: { $ref: '#/$defs/node' } }, required: ['list'] };
    expect(rootDepth(nullableList)).toBe(1);
    // An empty array ends a tree: { root: { kids: [], v: 0 } }.
    const tree = { type: 'object', $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } }, v: { type: 'integer' } }, required: ['kids', 'v'] } }, properties: { root: { $ref: '#/$defs/node' } }, required: ['root'] };
    expect(rootDepth(tree)).toBe(2);
    // Without `type`, a nested value may be a scalar: { child: '' }.
    expect(rootDepth({ properties: { child: { $ref: '#' } }, required: ['child'] })).toBe(1);
    // A long chain of definitions settles in one pass.
    const defs: Record<string, unknown> = { d99: { type: 'string' } };
    for (let index = 0; index < 99; index++) defs[`d${index}`] = { type: 'object', properties: { next: { $ref: `#/$defs/d${index + 1}` } }, required: ['next'] };
    const chain = measureFiniteValueDepths({ type: 'object', $defs: defs, properties: { start: { $ref: '#/$defs/d0' } }, required: ['start'] });
    expect(chain).toMatchObject({ rootDepth: 100, settled: true });
  });

  it('should take what it does not read as allowing a value (never claiming too much)', () => {
    expect(rootDepth({ type: 'object', properties: { x: { $ref: '#/nowhere' } }, required: ['x'] })).toBe(1);
    expect(rootDepth({ type: 'object', patternProperties: { '^x$': { $ref: '#' } }, required: ['x'] })).toBe(1);
    expect(rootDepth({ type: 'object', properties: { x: { type: 'string', not: { type: 'string' } } }, required: ['x'] })).toBe(1);
    // `$ref`s that only point at each other (no validator gets to a value) end too.
    expect(rootDepth({ type: 'object', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, properties: { x: { $ref: '#/$defs/a' } }, required: ['x'] })).toBe(Infinity);
    expect(rootDepth({ type: 'object', properties: { x: { $ref: '#/default' } }, default: { $ref: '#/default' }, required: ['x'] })).toBe(Infinity);
  });
});
