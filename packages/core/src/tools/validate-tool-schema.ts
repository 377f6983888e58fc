import Ajv from 'ajv';
import { findUnsafePattern } from './find-unsafe-pattern.js';

/** Why a tool's `parameters` was refused, with the path inside the schema when known. */
export interface ToolSchemaProblem {
  message: string;
}

// Past these the schema is refused: checking it (and an engine using it) must never stall
// the event loop. Values count objects, arrays and primitives alike, so a 500,000-item `enum`
// is as refused as 10,000 nested objects.
const maxSchemaValues = 10_000;
// Ajv's meta-schema checks that an `enum` has no duplicates by comparing every pair deeply, so
// its cost grows with the square of the enum: all enums together may hold this many values
// (nested ones counted), the cap OpenAI's structured outputs use too.
const maxEnumValues = 1000;
const knownMetaSchemas = new Set([
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-07/schema',
  'https://json-schema.org/draft/2020-12/schema',
  'http://json-schema.org/schema#',
]);
// Keywords whose values are data, not schemas: a `pattern` key inside them is not a regex.
const dataKeywords = new Set(['enum', 'const', 'default', 'examples']);
// Keywords whose values map names to schemas: a property may well be called `default`.
const namedSchemaKeywords = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas']);

/**
 * What all the tools of one request may still hold, shared across their checks: a request has
 * up to 128 tools, and checking each at its own cap would add up to a second of work.
 */
export interface ToolSchemaBudget {
  values: number;
  enumValues: number;
}

/** The budget of one request's tools: 20,000 values, 2,000 of them in enums. @internal */
export function createToolSchemaBudget(): ToolSchemaBudget {
  return { values: 20_000, enumValues: 2_000 };
}

let metaValidator: Ajv | undefined;

/** A JSON Pointer-ish path for messages: `/properties/code/pattern`. */
function pointer(path: readonly string[]): string {
  return path.length === 0 ? '/' : `/${path.map((segment) => segment.slice(0, 40)).join('/')}`;
}

/**
 * Walks the schema once, without recursion: counts values, finds `$ref`s that point outside
 * the document, and checks every regex (`pattern`, `patternProperties` keys) before any engine
 * or validator compiles one.
 */
function findStructuralProblem(schema: unknown, budget: ToolSchemaBudget | undefined): string | undefined {
  const valueCap = Math.min(maxSchemaValues, budget?.values ?? maxSchemaValues);
  const enumCap = Math.min(maxEnumValues, budget?.enumValues ?? maxEnumValues);
  const walked = walkSchema(schema, valueCap, enumCap);
  if (budget !== undefined) {
    budget.values -= walked.values;
    budget.enumValues -= walked.enumValues;
  }
  const initial = createToolSchemaBudget();
  switch (walked.capped) {
    case 'values':
      return valueCap < maxSchemaValues
        ? `the tools of this request hold more than ${initial.values} schema values`
        : `the schema has more than ${maxSchemaValues} values`;
    case 'enum-values':
      return enumCap < maxEnumValues
        ? `the tools of this request hold more than ${initial.enumValues} enum values`
        : `the schema's enums hold more than ${maxEnumValues} values`;
    default:
      return walked.message;
  }
}

interface WalkResult {
  message?: string;
  /** Which cap was reached, if one was. */
  capped?: 'values' | 'enum-values';
  values: number;
  enumValues: number;
}

function walkSchema(schema: unknown, valueCap: number, enumCap: number): WalkResult {
  // `schema`: keys are keywords; `names`: keys are names and values schemas; `data`: plain JSON.
  type Pending = { node: unknown; path: string[]; role: 'schema' | 'names' | 'data'; inEnum: boolean };
  const pending: Pending[] = [{ node: schema, path: [], role: 'schema', inEnum: false }];
  let values = 0;
  let enumValues = 0;
  while (pending.length > 0) {
    const { node, path, role, inEnum } = pending.pop()!;
    if (++values > valueCap) return { capped: 'values', values, enumValues };
    if (inEnum && ++enumValues > enumCap) return { capped: 'enum-values', values, enumValues };
    if (typeof node !== 'object' || node === null) continue;
    // Everything pending is counted when popped: refuse a long array or object before queueing it.
    const size = Array.isArray(node) ? node.length : Object.keys(node).length;
    if (values + pending.length + size > valueCap) return { capped: 'values', values, enumValues };
    if (Array.isArray(node)) {
      // One at a time: `push(...node)` overflows the stack for a long array. Items of a schema
      // array (`allOf`, `items` as a tuple) are schemas.
      const itemRole = role === 'data' ? 'data' : 'schema';
      for (let index = node.length - 1; index >= 0; index--) pending.push({ node: node[index], path: [...path, String(index)], role: itemRole, inEnum });
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      const at = [...path, key];
      if (role === 'schema') {
        if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) {
          return { message: `remote $ref "${value.slice(0, 100)}" at ${pointer(path)} is not allowed; only local refs starting with "#" are`, values, enumValues };
        }
        const unsafe = key === 'pattern' && typeof value === 'string' ? findUnsafePattern(value) : undefined;
        if (unsafe !== undefined) return { message: `the pattern at ${pointer(at)} ${unsafe}`, values, enumValues };
        if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
          for (const source of Object.keys(value)) {
            const unsafeKey = findUnsafePattern(source);
            if (unsafeKey !== undefined) return { message: `the patternProperties key "${source.slice(0, 40)}" at ${pointer(at)} ${unsafeKey}`, values, enumValues };
          }
        }
      }
      const childRole = role === 'data' || (role === 'schema' && dataKeywords.has(key)) ? 'data' : role === 'schema' && namedSchemaKeywords.has(key) ? 'names' : 'schema';
      pending.push({ node: value, path: at, role: childRole, inEnum: inEnum || (role === 'schema' && key === 'enum') });
    }
  }
  return { values, enumValues };
}

/**
 * Checks that a tool's `parameters` is a valid JSON Schema object (draft-07 meta-schema, via
 * ajv) with no remote `$ref`, at most 10,000 values (1,000 in enums), and only regexes that compile and cannot
 * backtrack exponentially. Returns a problem or `undefined`. Nothing is fetched and nothing is
 * compiled but the patterns themselves, so the check takes milliseconds at worst. Pass one
 * `budget` to the checks of all tools of a request to cap their sum as well.
 *
 * @example
 * findToolSchemaProblem({ type: 'object', properties: { id: { type: 'string', pattern: '^(a+)+$' } } });
 * // { message: 'the pattern at /properties/id/pattern repeats a group that itself repeats ...' }
 */
export function findToolSchemaProblem(parameters: Record<string, unknown>, budget?: ToolSchemaBudget): ToolSchemaProblem | undefined {
  const structural = findStructuralProblem(parameters, budget);
  if (structural !== undefined) return { message: structural };
  const { $schema, ...rest } = parameters;
  if ($schema !== undefined && (typeof $schema !== 'string' || !knownMetaSchemas.has($schema))) {
    return { message: 'unsupported $schema; use draft-07 or 2020-12, or leave it out' };
  }
  if (rest.type !== undefined && rest.type !== 'object') {
    return { message: 'the root of a function\'s parameters must be of type "object"' };
  }
  metaValidator ??= new Ajv({ strict: false, validateFormats: false });
  let valid: boolean;
  try {
    valid = metaValidator.validateSchema(rest) as boolean;
  } catch (error) {
    return { message: `the schema could not be checked: ${(error as Error).message}` };
  }
  if (valid) return undefined;
  const first = metaValidator.errors?.[0];
  const where = first?.instancePath ? ` at ${first.instancePath}` : '';
  return { message: `not a valid JSON Schema${where}: ${first?.message ?? 'invalid'}` };
}
