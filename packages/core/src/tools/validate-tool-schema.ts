import { measureFiniteValueDepths } from '../json-schema/finite-value-depth.js';
import { compileLinearPattern } from '../json-schema/linear-pattern.js';
import { checkSchemaKeyword } from './check-schema-keyword.js';
import { measureUnfoldedSchema } from './measure-unfolded-schema.js';

/** Why a tool's `parameters` was refused, with the path inside the schema when known. */
export interface ToolSchemaProblem {
  message: string;
}

// Past these the schema is refused: checking it (and an engine using it) must never stall
// the event loop. Values count objects, arrays and primitives alike, so a 500,000-item `enum`
// is as refused as 10,000 nested objects.
const maxSchemaValues = 10_000;
// All enums together may hold this many values (nested ones counted), the cap OpenAI's
// structured outputs use too: an engine picks from them and a validator compares against them.
const maxEnumValues = 1000;
// Once its `$ref`s are expanded, a schema may hold at most this many subschemas, at most this
// many of them applying to one value, and take at most this many steps to find that out:
// validators and generators follow every one, so a few doubling definitions must not cost a
// million steps.
const maxUnfoldedSubschemas = 1_000_000;
const maxSameValueSubschemas = 5_000;
const maxUnfoldingSteps = 20_000;
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

/** Why a regex from the schema cannot be used, if it cannot. */
function patternProblem(source: string): string | undefined {
  return compileLinearPattern(source).problem;
}

/** Duplicates in `required` or `type`, found with a set (the meta-schema's pairwise check is not run). */
function findDuplicate(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const seen = new Set<unknown>();
  for (const item of list) {
    if (typeof item === 'string' && seen.has(item)) return item;
    seen.add(item);
  }
  return undefined;
}

/** Where a node is: its key and its parent's place; the path is only spelled out for a message. */
interface Place {
  key: string;
  parent: Place | undefined;
}

/** A JSON Pointer-ish path for messages: `/properties/code/pattern`. */
function pointer(place: Place | undefined): string {
  const segments: string[] = [];
  for (let at = place; at !== undefined; at = at.parent) segments.push(at.key.slice(0, 40));
  return segments.length === 0 ? '/' : `/${segments.reverse().join('/')}`;
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
  type Pending = { node: unknown; path: Place | undefined; role: 'schema' | 'names' | 'data'; inEnum: boolean };
  const pending: Pending[] = [{ node: schema, path: undefined, role: 'schema', inEnum: false }];
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
      for (let index = node.length - 1; index >= 0; index--) pending.push({ node: node[index], path: { key: String(index), parent: path }, role: itemRole, inEnum });
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      const at: Place = { key, parent: path };
      if (role === 'schema') {
        const invalid = checkSchemaKeyword(key, value);
        if (invalid !== undefined) return { message: `not a valid JSON Schema at ${pointer(at)}: ${invalid}`, values, enumValues };
        if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) {
          return { message: `remote $ref "${value.slice(0, 100)}" at ${pointer(path)} is not allowed; only local refs starting with "#" are`, values, enumValues };
        }
        const unsafe = key === 'pattern' && typeof value === 'string' ? patternProblem(value) : undefined;
        if (unsafe !== undefined) return { message: `the pattern at ${pointer(at)} ${unsafe}`, values, enumValues };
        const duplicate = key === 'required' || key === 'type' ? findDuplicate(value) : undefined;
        if (duplicate !== undefined) return { message: `"${duplicate.slice(0, 40)}" is listed twice at ${pointer(at)}`, values, enumValues };
        if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
          for (const source of Object.keys(value)) {
            const unsafeKey = patternProblem(source);
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
 * Checks that a tool's `parameters` is a valid JSON Schema object (the draft-07 meta-schema,
 * keyword by keyword, in one walk) with no remote `$ref`, at most 10,000 values (1,000
 * in enums), only regexes that the linear-time engine runs (see `compileLinearPattern`:
 * no backreferences or lookarounds), and a finite value (see `measureFiniteValueDepths`: a
 * schema that requires itself with no way out has none). Returns a problem or `undefined`. Nothing is fetched and
 * nothing is compiled but the patterns themselves, so the check takes milliseconds at worst.
 * Pass one `budget` to the checks of all tools of a request to cap their sum as well.
 *
 * @example
 * findToolSchemaProblem({ type: 'object', properties: { id: { type: 'string', pattern: '^(a)\\1$' } } });
 * // { message: 'the pattern at /properties/id/pattern uses a backreference, which a linear-time regex engine cannot run' }
 */
export function findToolSchemaProblem(parameters: Record<string, unknown>, budget?: ToolSchemaBudget): ToolSchemaProblem | undefined {
  const structural = findStructuralProblem(parameters, budget);
  if (structural !== undefined) return { message: structural };
  const unfolded = measureUnfoldedSchema(parameters, maxUnfoldingSteps);
  if (unfolded.walked >= maxUnfoldingSteps) return { message: 'the schema refers to itself in too many ways through its $refs' };
  if (unfolded.total > maxUnfoldedSubschemas || unfolded.sameValue > maxSameValueSubschemas) {
    return { message: `the schema expands to too many subschemas through its $refs (more than ${maxSameValueSubschemas} for one value or ${maxUnfoldedSubschemas} in all)` };
  }
  const { $schema, ...rest } = parameters;
  if ($schema !== undefined && (typeof $schema !== 'string' || !knownMetaSchemas.has($schema))) {
    return { message: 'unsupported $schema; use draft-07 or 2020-12, or leave it out' };
  }
  if (rest.type !== undefined && rest.type !== 'object') {
    return { message: 'the root of a function\'s parameters must be of type "object"' };
  }
  // No model could ever send valid arguments: refused rather than answered without a call.
  const depths = measureFiniteValueDepths(parameters);
  if (depths.rootDepth === Number.POSITIVE_INFINITY && depths.settled) {
    return { message: 'the schema has no finite value: it requires itself with no way out (a required property, or an item of a non-empty array, that refers back to it, with no optional or nullable branch to stop at)' };
  }
  return undefined;
}
