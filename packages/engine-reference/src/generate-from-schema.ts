import type { ArgumentHints } from './argument-hints.js';
import { generateStringValue, hasHintFor, maxGeneratedStringLength } from './generate-string-value.js';
import { generateNumberValue } from './generate-number-value.js';
import { createGenerationBudget, GenerationBudgetExceeded, type GenerationBudget } from './generation-budget.js';
import { measureFiniteValueDepths, type FiniteValueDepths } from '@quantum-chat/core/json-schema';
import { firstValuedBranch, isJsonObject, isNullBranch, resolveSchema, type JsonSchema } from './resolve-schema.js';

interface GenerateState {
  root: JsonSchema;
  /** `undefined` for the minimal fallback: schema only, required properties only. */
  hints: ArgumentHints | undefined;
  /** How many of `hints.numbers` have been used. */
  numberCursor: { used: number };
  /** What is left of the generation budget; running out aborts the generation. */
  budget: GenerationBudget;
  /** How deep the shallowest value of each subschema is (recursion's ways out). */
  depths: FiniteValueDepths;
  /** The `$ref`s being expanded on the way to the current value (`#` is the root). */
  refsOnPath: Set<string>;
  /** Set once the schema recurses: from there on, the smallest value (the shortest way out). */
  smallest: boolean;
}

/** Deeper than this, objects get only required properties and arrays only `minItems`. */
const shallowDepth = 4;
/** Deeper than this (recursion through `$ref` included), the schema is too large to generate. */
const maxDepth = 16;

type SchemaType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

function typeOf(schema: JsonSchema): SchemaType {
  const declared = Array.isArray(schema.type) ? (schema.type.find((type) => type !== 'null') ?? schema.type[0]) : schema.type;
  if (typeof declared === 'string') return declared as SchemaType;
  if (isJsonObject(schema.properties) || schema.required !== undefined) return 'object';
  if (schema.items !== undefined || schema.prefixItems !== undefined) return 'array';
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some((key) => key in schema)) return 'number';
  return 'string';
}

function pickEnum(values: unknown[], schema: JsonSchema, hints: ArgumentHints | undefined): unknown {
  const mentioned = hints ? values.find((value) => typeof value === 'string' && hints.words.has(value.toLowerCase())) : undefined;
  if (mentioned !== undefined) return mentioned;
  if (schema.default !== undefined && values.some((value) => JSON.stringify(value) === JSON.stringify(schema.default))) return schema.default;
  return values[0];
}

/** Whether a branch refers back to a schema being expanded (taking it would recurse). */
function leadsBack(branch: unknown, state: GenerateState): boolean {
  return isJsonObject(branch) && typeof branch.$ref === 'string' && state.refsOnPath.has(branch.$ref);
}

/**
 * The `anyOf`/`oneOf` branch to generate: the first one with a value (nullable fields get
 * one), unless it would recurse or the schema already does; then the one with the shallowest
 * value (the first such that is not just `null`).
 */
function chooseBranch(branches: unknown[], state: GenerateState): unknown {
  const preferred = firstValuedBranch(branches);
  if (!state.smallest && !leadsBack(preferred, state) && state.depths.depthOf(preferred) <= maxDepth) return preferred;
  let chosen: unknown = preferred;
  let shallowest = Number.POSITIVE_INFINITY;
  for (const branch of branches) {
    const depth = state.depths.depthOf(branch);
    if (depth < shallowest || (depth === shallowest && isNullBranch(chosen) && !isNullBranch(branch))) {
      chosen = branch;
      shallowest = depth;
    }
  }
  return chosen;
}

const scalarTypes = new Set<SchemaType>(['string', 'number', 'integer', 'boolean', 'null']);

/**
 * Past a recursion, an object or array that cannot be empty gives way to a scalar its schema
 * also allows (`type: ["object", "null"]`, or no `type` at all): the smallest value.
 */
function smallestKind(schema: JsonSchema, kind: SchemaType, state: GenerateState): SchemaType {
  if ((kind !== 'object' && kind !== 'array') || state.depths.depthAs(schema, kind) === 0) return kind;
  if (schema.type === undefined) return 'string';
  const declared = (Array.isArray(schema.type) ? schema.type : [schema.type]) as SchemaType[];
  return declared.includes('null') ? 'null' : (declared.find((type) => scalarTypes.has(type)) ?? kind);
}

function resolveFor(input: JsonSchema, state: GenerateState): JsonSchema {
  return resolveSchema(input, state.root, state.budget, (branches) => chooseBranch(branches, state));
}

function mentionsEnum(schema: unknown, state: GenerateState): boolean {
  if (!isJsonObject(schema) || !state.hints) return false;
  const resolved = resolveFor(schema, state);
  const hints = state.hints;
  return Array.isArray(resolved.enum) && resolved.enum.some((value) => typeof value === 'string' && hints.words.has(value.toLowerCase()));
}

function setProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, so a property named "__proto__" stays data and never touches the prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function generateObject(schema: JsonSchema, state: GenerateState, depth: number): Record<string, unknown> {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === 'string') : undefined;
  const names = Object.keys(properties);
  const optionalWanted = (name: string): boolean => {
    const property = properties[name];
    if (!state.hints || depth > shallowDepth || state.smallest) return false;
    if (required === undefined) return true; // no `required` list: fill everything, as a model would
    return mentionsEnum(property, state) || (isJsonObject(property) && hasHintFor(name, property.format, state.hints));
  };
  const include = names.filter((name) => required?.includes(name) || optionalWanted(name));
  for (const name of required ?? []) if (!include.includes(name)) include.push(name);
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  for (const name of names) if (include.length < minProperties && !include.includes(name)) include.push(name);
  const result: Record<string, unknown> = {};
  const extraSchema = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : {};
  for (const name of include) setProperty(result, name, generateValue(properties[name] ?? extraSchema, name, state, depth + 1, 0));
  return result;
}

function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  return name.endsWith('s') && !name.endsWith('ss') ? name.slice(0, -1) : name;
}

function generateArray(schema: JsonSchema, name: string, state: GenerateState, depth: number): unknown[] {
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : undefined;
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  const wanted = state.hints && depth <= shallowDepth && !state.smallest ? Math.max(minItems, tuple ? tuple.length : 1) : minItems;
  const count = Math.min(wanted, maxItems, 64);
  const itemSchema = tuple ? undefined : isJsonObject(schema.items) ? resolveFor(schema.items, state) : {};
  if (itemSchema && Array.isArray(itemSchema.enum) && schema.uniqueItems === true) {
    const hints = state.hints;
    const mentioned = itemSchema.enum.filter((value) => typeof value === 'string' && hints?.words.has(value.toLowerCase()));
    return [...new Set([...mentioned, ...itemSchema.enum])].slice(0, Math.max(count, Math.min(mentioned.length, maxItems)));
  }
  const items: unknown[] = [];
  for (let index = 0; index < count; index++) {
    // The item schema as written (its `$ref` included, so a way back into an ancestor is seen).
    const schemaAt = tuple ? (tuple[index] ?? (isJsonObject(schema.items) ? schema.items : {})) : isJsonObject(schema.items) ? schema.items : itemSchema;
    items.push(generateValue(schemaAt, singular(name), state, depth + 1, index));
  }
  return items;
}

function spendCharacters(value: string, state: GenerateState): string {
  if (value.length > maxGeneratedStringLength) throw new GenerationBudgetExceeded();
  state.budget.characters -= value.length;
  if (state.budget.characters < 0) throw new GenerationBudgetExceeded();
  return value;
}

function generateString(schema: JsonSchema, name: string, state: GenerateState, index: number): string {
  // Checked before generating: padding to a huge minLength is itself the expensive part.
  if (typeof schema.minLength === 'number' && schema.minLength > maxGeneratedStringLength) throw new GenerationBudgetExceeded();
  return spendCharacters(generateStringValue(schema, name, state.hints, index, state.budget), state);
}

function generateValue(input: unknown, name: string, state: GenerateState, depth: number, index: number): unknown {
  if (depth > maxDepth || --state.budget.values < 0) throw new GenerationBudgetExceeded();
  if (input === true || input === undefined) return generateString({}, name, state, index);
  if (!isJsonObject(input)) return null; // `false` accepts nothing; the validator will say so
  const ref = typeof input.$ref === 'string' ? input.$ref : undefined;
  if (ref === undefined) return generateResolved(input, name, state, depth, index);
  // A `$ref` back into a schema being expanded: from here on, the shortest way out.
  const recursing = state.refsOnPath.has(ref);
  const wasSmallest = state.smallest;
  state.smallest ||= recursing;
  if (!recursing) state.refsOnPath.add(ref);
  try {
    return generateResolved(input, name, state, depth, index);
  } finally {
    state.smallest = wasSmallest;
    if (!recursing) state.refsOnPath.delete(ref);
  }
}

function generateResolved(input: JsonSchema, name: string, state: GenerateState, depth: number, index: number): unknown {
  const schema = resolveFor(input, state);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return pickEnum(schema.enum, schema, state.hints);
  const kind = typeOf(schema);
  switch (state.smallest ? smallestKind(schema, kind, state) : kind) {
    case 'object':
      return generateObject(schema, state, depth);
    case 'array':
      return generateArray(schema, name, state, depth);
    case 'number':
      return generateNumberValue(schema, false, state.hints, state.numberCursor);
    case 'integer':
      return generateNumberValue(schema, true, state.hints, state.numberCursor);
    case 'boolean':
      return typeof schema.default === 'boolean' ? schema.default : false;
    case 'null':
      return null;
    default:
      return generateString(schema, name, state, index);
  }
}

/**
 * A value for a tool's `parameters` schema, or `undefined` when the schema cannot be
 * satisfied within the budget (`createGenerationBudget`: a bounded count of values and of
 * characters of strings, strings of at most `maxGeneratedStringLength`, nesting, `$ref`
 * recursion included, at most 16 deep), so that no request costs more than a bounded amount
 * of synchronous work. With `hints` it fills values from the user's
 * message where the property names suggest it (see `generateStringValue`), numbers from the
 * message in order, enum values the message mentions; without hints it builds the minimal
 * object (required properties, defaults, lower bounds) used as the fallback. The root is
 * always an object, since function arguments are one.
 *
 * @example
 * generateFromSchema({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, hints);
 * // { value: { city: 'Paris' } }
 * @internal
 */
export function generateFromSchema(parameters: JsonSchema, hints: ArgumentHints | undefined): { value: unknown } | undefined {
  const state: GenerateState = {
    root: parameters,
    hints,
    numberCursor: { used: 0 },
    budget: createGenerationBudget(),
    depths: measureFiniteValueDepths(parameters),
    refsOnPath: new Set(['#']),
    smallest: false,
  };
  try {
    const root = resolveFor(parameters, state);
    if (typeOf(root) !== 'object' || 'const' in root || Array.isArray(root.enum)) return { value: generateValue(root, '', state, 0, 0) };
    return { value: generateObject(root, state, 0) };
  } catch (error) {
    if (error instanceof GenerationBudgetExceeded) return undefined;
    throw error;
  }
}
