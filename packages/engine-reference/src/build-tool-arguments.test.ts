import Ajv from 'ajv';
import { describe, expect, it, vi } from 'vitest';
import { calculatorTool, calendarTool, noParametersTool, searchTool, weatherTool } from '../test/request-fixtures.js';
import { buildToolArguments } from './build-tool-arguments.js';
import type { GenerationBudget } from './generation-budget.js';
import { toWellFormed } from './tokenizer.js';
import type { ToolDefinition } from './select-tools.js';

const ajv = new Ajv({ strict: false, logger: false });

// Every generation's budget, kept to see how much work a schema cost (what is left of it).
const { budgets } = vi.hoisted(() => ({ budgets: [] as GenerationBudget[] }));
vi.mock('./generation-budget.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./generation-budget.js')>();
  return {
    ...actual,
    createGenerationBudget: () => {
      const budget = actual.createGenerationBudget();
      budgets.push(budget);
      return budget;
    },
  };
});

function tool(name: string, parameters: Record<string, unknown>): ToolDefinition {
  return { type: 'function', function: { name, parameters } };
}

function argumentsFor(definition: ToolDefinition, text: string): Record<string, unknown> {
  const json = buildToolArguments(definition, text);
  expect(json).toBeDefined();
  const parsed = JSON.parse(json ?? '') as Record<string, unknown>;
  const parameters = definition.function.parameters;
  if (parameters) expect(ajv.validate(parameters, parsed), JSON.stringify(ajv.errors)).toBe(true);
  return parsed;
}

describe('buildToolArguments', () => {
  it('should put the place from the message into a weather location', () => {
    expect(argumentsFor(weatherTool, 'What is the weather in New York today?')).toEqual({ location: 'New York' });
  });

  it('should pick the enum value the message mentions and include that optional property', () => {
    expect(argumentsFor(weatherTool, 'Weather in Paris in fahrenheit please')).toEqual({ location: 'Paris', unit: 'fahrenheit' });
  });

  it('should put the search phrase into a query and respect integer bounds and defaults', () => {
    const args = argumentsFor(searchTool, 'Search the web for TypeScript tutorials');
    expect(args).toEqual({ query: 'TypeScript tutorials', max_results: 5 });
  });

  it('should take numbers from the message when they fit the bounds', () => {
    expect(argumentsFor(searchTool, 'Find me 3 articles about rust')).toMatchObject({ max_results: 3 });
    expect(argumentsFor(searchTool, 'Find me 300 articles about rust')).toMatchObject({ max_results: 5 });
  });

  it('should stop a search phrase at the next request in the same message', () => {
    expect(argumentsFor(searchTool, 'Search for vitest docs and tell me the weather in Oslo')).toMatchObject({ query: 'vitest docs' });
  });

  it('should fill nested objects, arrays with minItems, const, formats, multipleOf and nullable types', () => {
    const args = argumentsFor(calendarTool, 'Schedule a high priority meeting about the budget review on 2025-03-14');
    expect(args).toMatchObject({ date: '2025-03-14', priority: 'high', reminder: { minutes_before: 5, channel: 'email' } });
    expect(args.attendees).toHaveLength(2);
    expect((args.tags as string[]).length).toBeGreaterThan(0);
  });

  it('should put the arithmetic into an expression property', () => {
    expect(argumentsFor(calculatorTool, 'What is (3 + 4) * 12?')).toEqual({ expression: '(3 + 4) * 12' });
  });

  it('should give {} to a tool without parameters', () => {
    expect(buildToolArguments(noParametersTool, 'What time is it?')).toBe('{}');
  });

  it('should resolve local $ref, allOf, anyOf and oneOf', () => {
    const schema = {
      type: 'object',
      $defs: { place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      properties: {
        origin: { $ref: '#/$defs/place' },
        destination: { allOf: [{ $ref: '#/$defs/place' }, { properties: { nights: { type: 'integer', minimum: 1 } }, required: ['nights'] }] },
        budget: { anyOf: [{ type: 'null' }, { type: 'number', exclusiveMinimum: 0 }] },
        mode: { oneOf: [{ const: 'train' }, { const: 'plane' }] },
      },
      required: ['origin', 'destination', 'budget', 'mode'],
    };
    const args = argumentsFor(tool('plan_trip', schema), 'Plan a trip to Rome');
    expect(args).toMatchObject({ origin: { city: 'Rome' }, destination: { city: 'Rome', nights: 1 }, mode: 'train' });
    expect(args.budget).toBeGreaterThan(0);
  });

  it('should fill every property when the schema has no required list', () => {
    const args = argumentsFor(tool('lookup', { type: 'object', properties: { topic: { type: 'string' }, verbose: { type: 'boolean' } } }), 'history of jazz');
    expect(args).toEqual({ topic: 'history jazz', verbose: false });
  });

  it('should respect minLength and maxLength', () => {
    const schema = { type: 'object', properties: { code: { type: 'string', minLength: 5, maxLength: 6 } }, required: ['code'] };
    expect((argumentsFor(tool('redeem', schema), 'hi') as { code: string }).code).toHaveLength(5);
    expect((argumentsFor(tool('redeem', schema), 'supercalifragilistic') as { code: string }).code).toHaveLength(6);
  });

  it('should use the pattern-valid default when the generated string does not match', () => {
    const schema = { type: 'object', properties: { zip: { type: 'string', pattern: '^[0-9]{5}$', default: '10001' } }, required: ['zip'] };
    expect(argumentsFor(tool('zip_lookup', schema), 'Find the zip of Springfield')).toEqual({ zip: '10001' });
  });

  it('should fall back to the minimal object when the generated one does not validate', () => {
    // The generated `label` ("widget") breaks `not`; the minimal object omits it.
    const schema = {
      type: 'object',
      properties: { id: { type: 'integer', minimum: 7 }, label: { type: 'string', not: { minLength: 1 } } },
      required: ['id'],
    };
    expect(argumentsFor(tool('get_widget', schema), 'widget')).toEqual({ id: 7 });
  });

  it('should never let a property named __proto__ reach the prototype', () => {
    const schema = { type: 'object', properties: { ['__proto__']: { type: 'string' } }, required: ['__proto__'] };
    const json = buildToolArguments(tool('odd', schema), 'polluted');
    expect(json).toBe('{"__proto__":"polluted"}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('should accept schemas that name another draft in $schema', () => {
    const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(JSON.parse(buildToolArguments(tool('weather', schema), 'weather in Lima') ?? '')).toEqual({ city: 'Lima' });
  });

  it('should give up (undefined) on schemas that do not fit the generation budget, within the budget', () => {
    const started = performance.now();
    /** Gives up on the schema; returns what each generation it tried had left of its budget. */
    const leftAfterGivingUp = (name: string, parameters: Record<string, unknown>) => {
      budgets.length = 0;
      expect(buildToolArguments(tool(name, parameters), 'grow'), name).toBeUndefined();
      expect(budgets.length, name).toBeGreaterThan(0);
      return [...budgets];
    };
    const items = (inner: unknown) => ({ type: 'array', minItems: 64, items: inner });
    const schemas: Record<string, Record<string, unknown>> = {
      tree: { type: 'object', properties: { left: { $ref: '#' }, right: { $ref: '#' } }, required: ['left', 'right'] },
      chain: { type: 'object', properties: { next: { $ref: '#' } }, required: ['next'] },
      // 262,144 strings: it stops once its 2,000 values are made.
      grid: { type: 'object', properties: { grid: items(items(items({ type: 'string' }))) }, required: ['grid'] },
      code: { type: 'object', properties: { code: { type: 'string', minLength: 20_000 } }, required: ['code'] },
      huge: { type: 'object', properties: { code: { type: 'string', minLength: 1e9 } }, required: ['code'] },
    };
    for (const [name, schema] of Object.entries(schemas)) {
      for (const left of leftAfterGivingUp(name, schema)) {
        // The work done stays within the budget: only the step that ran it out (one value here) goes past.
        expect(Math.min(left.values, left.characters, left.resolveSteps, left.matchedCharacters), name).toBeGreaterThanOrEqual(-1);
      }
    }
    // A string longer than any we make is refused before a character of it is made.
    for (const name of ['code', 'huge']) for (const left of leftAfterGivingUp(name, schemas[name]!)) expect(left.characters, name).toBe(16_384);
    console.info(`five schemas over the budget given up in ${(performance.now() - started).toFixed(0)} ms`);
  });

  it('should still fill schemas within the budget: optional self-references, 64 items, 4,000 characters', () => {
    const tree = { type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } }, required: ['name'] };
    expect(argumentsFor(tool('tree', tree), 'name it')).toHaveProperty('name');
    const list = { type: 'object', properties: { rows: { type: 'array', minItems: 64, items: { type: 'array', minItems: 8, items: { type: 'integer' } } } }, required: ['rows'] };
    expect(argumentsFor(tool('rows', list), 'rows please').rows).toHaveLength(64);
    const long = { type: 'object', properties: { code: { type: 'string', minLength: 4000 } }, required: ['code'] };
    expect((argumentsFor(tool('code', long), 'write').code as string).length).toBeGreaterThanOrEqual(4000);
  });

  it('should cut a long message used as a text value to the string cap, never inside a surrogate pair', () => {
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    const value = argumentsFor(tool('echo', schema), `${'😀'.repeat(5000)}`).text as string;
    expect(value.length).toBeLessThanOrEqual(4096);
    expect(value).toBe(toWellFormed(value));
  });
});

describe('buildToolArguments on schemas that would stall a backtracking engine or an unbounded generator', () => {
  it('should test a catastrophic pattern against a 4,000-character string with the linear-time engine', () => {
    const freezing = tool('freeze', { type: 'object', properties: { code: { type: 'string', pattern: '^[a-z]*[a-z]*[a-z]*[a-z]*!$', minLength: 4000 } }, required: ['code'] });
    const json = buildToolArguments(freezing, 'Run it');
    expect(JSON.parse(json ?? '{}').code).toHaveLength(4000);
  });

  it('should stop resolving definitions that double through allOf at its budget', () => {
    const definitions: Record<string, unknown> = { d0: { type: 'string' } };
    for (let level = 1; level <= 30; level++) definitions[`d${level}`] = { allOf: [{ $ref: `#/definitions/d${level - 1}` }, { $ref: `#/definitions/d${level - 1}` }] };
    expect(buildToolArguments(tool('doubling', { type: 'object', definitions, properties: { a: { $ref: '#/definitions/d30' } }, required: ['a'] }), 'hi')).toBeUndefined();
  });

  it('should try a bounded number of examples against a pattern', () => {
    const examples = Array.from({ length: 5000 }, () => 'b'.repeat(200));
    const json = buildToolArguments(tool('examples', { type: 'object', properties: { a: { type: 'string', pattern: '^a+$', examples } }, required: ['a'] }), 'hi');
    expect(json).toBeDefined();
  });
});

describe('buildToolArguments: schemas that refer to themselves', () => {
  it('should build the smallest valid arguments where recursion has a way out', () => {
    const list = tool('append', { type: 'object', properties: { next: { anyOf: [{ $ref: '#' }, { type: 'null' }] }, value: { type: 'string' } }, required: ['next', 'value'] });
    expect(argumentsFor(list, 'Append it.')).toMatchObject({ next: null });
    const nullable = tool('walk', {
      type: 'object',
      $defs: { node: { type: ['object', 'null'], properties: { next: { $ref: '#/$defs/node' } }, required: ['next'] } },
      properties: { list: { $ref: '#/$defs/node' } },
      required: ['list'],
    });
    // The first way back into the node stops at its `null`.
    expect(argumentsFor(nullable, 'Walk it.')).toEqual({ list: { next: null } });
    const oneOf = tool('expr', {
      type: 'object',
      $defs: { expr: { oneOf: [{ type: 'object', properties: { op: { type: 'string' }, left: { $ref: '#/$defs/expr' }, right: { $ref: '#/$defs/expr' } }, required: ['op', 'left', 'right'] }, { type: 'number' }] } },
      properties: { expression: { $ref: '#/$defs/expr' } },
      required: ['expression'],
    });
    const { expression } = argumentsFor(oneOf, 'Compute it.') as { expression: { left: unknown; right: unknown } };
    expect([typeof expression.left, typeof expression.right]).toEqual(['number', 'number']);
    // Without a type, a nested value may be a plain string.
    const untyped = tool('loose', { properties: { child: { $ref: '#' } }, required: ['child'] });
    expect(typeof argumentsFor(untyped, 'Loosen it.').child).toBe('string');
  });
});
