import fc from 'fast-check';

type Schema = Record<string, unknown>;

/** How a schema is turned into values: `$ref`s resolved, and each value checked where a rule spans keywords. */
export interface SchemaContext {
  /** A `$ref` (`#/components/schemas/X`) → its schema. */
  resolve(ref: string): unknown;
  /** Whether a value is valid against a schema of the document. */
  accepts(schema: unknown, value: unknown): boolean;
}

// Small values: a request is about what the server does with each field, not about size.
const maxArrayItems = 3;
const maxStringLength = 24;
const maxEntries = 3;
/** Below this depth a schema with a choice takes its simplest branch, so values stay finite. */
const maxDepth = 8;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords that combine several rules; a value made from one of them is checked against the whole. */
const spanningKeywords = ['anyOf', 'oneOf', 'allOf', 'not', 'if'];

/** Printable text, mostly ASCII, sometimes any Unicode: what chat messages are made of. */
function text(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
  );
}

function numberIn(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + (integer ? 1 : 1e-9) : -1e6;
  const max = typeof schema.maximum === 'number' ? schema.maximum : typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - (integer ? 1 : 1e-9) : 1e6;
  const low = Math.max(min, Number.MIN_SAFE_INTEGER);
  const high = Math.min(max, Number.MAX_SAFE_INTEGER);
  const edges = fc.constantFrom(low, high, ...(low <= 0 && high >= 0 ? [0] : []), ...(low <= 1 && high >= 1 ? [1] : []));
  if (integer) return fc.oneof(edges.map(Math.ceil), fc.integer({ min: Math.ceil(low), max: Math.floor(high) }));
  return fc.oneof(edges, fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true }).map((value) => (Object.is(value, -0) ? 0 : value)));
}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : maxStringLength, Math.max(minLength, maxStringLength));
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern)).filter((value) => value.length >= minLength && value.length <= (typeof schema.maxLength === 'number' ? schema.maxLength : Infinity));
  }
  // The formats servers check (RFC 3339), though a validator reads `format` as a note only.
  const moment = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2999-12-31T23:59:59Z'), noInvalidDate: true });
  if (schema.format === 'date') return moment.map((date) => date.toISOString().slice(0, 10));
  if (schema.format === 'date-time') return moment.map((date) => date.toISOString());
  return text(minLength, maxLength);
}

/**
 * Keys a body may not hold at all (decisions §2: `__proto__`, and `constructor` holding
 * `prototype`, are refused as `invalid_json` before any schema is looked at): left out.
 */
const refusedKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** Any JSON value, small, without refused keys. */
function anyJson(): fc.Arbitrary<unknown> {
  const clean = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(clean);
    if (!isSchema(value)) return Object.is(value, -0) ? 0 : value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => !refusedKeys.has(key)).map(([key, inner]) => [key, clean(inner)]));
  };
  return fc.jsonValue({ maxDepth: 2 }).map(clean);
}

function objectFor(schema: Schema, context: SchemaContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const named = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryFromSchema(property, context, depth + 1)])),
    { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) },
  );
  const extra = schema.additionalProperties;
  if (extra === undefined && !isSchema(schema.propertyNames)) {
    // JSON Schema allows fields it does not name: now and then one, so the server's handling
    // of them (ignored, listed in a header) is checked too.
    const unlisted = text(1, 12).filter((key) => !refusedKeys.has(key) && !Object.hasOwn(properties, key));
    const added = fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.tuple(unlisted, anyJson()) });
    return fc.tuple(named, added).map(([fields, field]) => (field === undefined ? fields : { [field[0]]: field[1], ...fields }));
  }
  if (!isSchema(extra) && extra !== true) return named;
  const keys = (isSchema(schema.propertyNames) ? (arbitraryFromSchema(schema.propertyNames, context, depth + 1) as fc.Arbitrary<string>) : text(1, 12)).filter((key) => !refusedKeys.has(key));
  const maxKeys = Math.min(typeof schema.maxProperties === 'number' ? schema.maxProperties : maxEntries, maxEntries);
  const entries = fc.dictionary(keys, arbitraryFromSchema(extra === true ? {} : extra, context, depth + 1), { maxKeys, noNullPrototype: true });
  // Named properties win over a generated key of the same name.
  return fc.tuple(entries, named).map(([dictionary, fields]) => ({ ...dictionary, ...fields }));
}

function typedValue(type: string, schema: Schema, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberIn(schema, true);
    case 'number':
      return numberIn(schema, false);
    case 'string':
      return stringFor(schema);
    case 'array': {
      const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const maxLength = Math.max(minLength, Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : maxArrayItems, maxArrayItems));
      return fc.array(arbitraryFromSchema(schema.items ?? {}, context, depth + 1), { minLength, maxLength: depth >= maxDepth ? minLength : maxLength });
    }
    case 'object':
      return objectFor(schema, context, depth);
    default:
      throw new TypeError(`Unknown JSON Schema type ${type}`);
  }
}

/**
 * Values valid against a JSON Schema (2020-12, the subset OpenAPI documents generated from zod
 * use): `$ref`, `const`, `enum`, `type` (one or several), bounds, lengths, `pattern`,
 * `format` (`date`, `date-time`), `properties`/`required`, `additionalProperties`/`propertyNames`/`maxProperties`, `items`
 * with `minItems`/`maxItems`, and `anyOf`/`oneOf`/`allOf`/`not` (a branch is built, then the
 * value is kept only if the whole schema accepts it), and `examples` now and then. Small by design; Schemathesis-style.
 *
 * @example
 * fc.sample(arbitraryFromSchema({ type: 'integer', minimum: 1, maximum: 8192 }, context), 3); // [1, 8192, 517]
 */
export function arbitraryFromSchema(schema: unknown, context: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || (isSchema(schema) && Object.keys(schema).every((key) => key === 'description' || key === 'default'))) return anyJson();
  if (!isSchema(schema)) throw new TypeError('Not a schema');
  if (typeof schema.$ref === 'string') return arbitraryFromSchema(context.resolve(schema.$ref), context, depth);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));

  let base: fc.Arbitrary<unknown> | undefined;
  const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length > 0) {
    base = fc.oneof(...types.map((type) => typedValue(type, schema, context, depth)));
  } else if (Array.isArray(branches)) {
    // Deep down, the first branch (zod writes the simple one first); else any branch.
    const choices = (depth >= maxDepth ? branches.slice(0, 1) : branches).map((branch) => arbitraryFromSchema(branch, context, depth + 1));
    base = fc.oneof(...choices);
  } else if (Array.isArray(schema.allOf)) {
    base = arbitraryFromSchema(schema.allOf[0], context, depth + 1);
  } else if (isSchema(schema.properties)) {
    base = objectFor(schema, context, depth);
  } else {
    base = anyJson();
  }
  // Examples the document gives are values someone meant: sometimes one of them.
  if (Array.isArray(schema.examples) && schema.examples.length > 0) base = fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...(schema.examples as unknown[])) }, { weight: 2, arbitrary: base });
  // A rule that spans keywords (an object's `anyOf` of required fields, `oneOf` exclusivity):
  // keep only values the whole schema accepts.
  const spans = spanningKeywords.some((keyword) => keyword in schema) && (types.length > 0 || isSchema(schema.properties) || schema.oneOf !== undefined || schema.allOf !== undefined);
  return spans ? base.filter((value) => context.accepts(schema, value)) : base;
}
