import type { SchemaContext } from './arbitrary-from-schema.js';

type Schema = Record<string, unknown>;
export type Path = (string | number)[];

/** A value made invalid in one place, and how. */
export interface Mutation {
  value: unknown;
  /** Where: `['body', 'messages', 0, 'role']`. */
  path: Path;
  /** Where, as a JavaScript-style path (`body.messages[0].role`), and what was done. */
  description: string;
  /**
   * Every place a refusal may name: `path`, and, when the changed value is still valid for its
   * field and breaks a rule across fields of the object holding it (an `anyOf`, `if`/`then`),
   * that object and each field the rule names. The same body then comes from breaking any of
   * them (`logprobs: null, top_logprobs: 7`), so none is the one at fault.
   */
  atFault: Path[];
}

/** A place in a valid value, with the schemas that govern it there. */
interface Place {
  path: Path;
  /** The schema the place was reached by (its property's, its items'), before branches are picked. */
  own: unknown;
  schemas: Schema[];
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function formatPath(path: Path): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`)).join('') || '(root)';
}

/** The schema itself, `$ref`s followed, and the branches of its `anyOf`/`oneOf`/`allOf` that the value matches. */
function governing(schema: unknown, value: unknown, context: SchemaContext, seen = 0): Schema[] {
  if (!isObject(schema) || seen > 16) return [];
  if (typeof schema.$ref === 'string') return [schema, ...governing(context.resolve(schema.$ref), value, context, seen + 1)];
  const found: Schema[] = [schema];
  for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (keyword === 'allOf' || context.accepts(branch, value)) {
        found.push(...governing(branch, value, context, seen + 1));
        if (keyword !== 'allOf') break;
      }
    }
  }
  return found;
}

/** Every place of a value that its schema governs: the value itself, each property, each item. */
function placesOf(schema: unknown, value: unknown, context: SchemaContext, path: Path = []): Place[] {
  const schemas = governing(schema, value, context);
  const places: Place[] = [{ path, own: schema, schemas }];
  if (Array.isArray(value)) {
    const items = schemas.map((candidate) => candidate.items).find((items) => items !== undefined);
    if (items !== undefined) value.forEach((item, index) => places.push(...placesOf(items, item, context, [...path, index])));
  } else if (isObject(value)) {
    for (const [name, inner] of Object.entries(value)) {
      const named = schemas.map((candidate) => (isObject(candidate.properties) ? candidate.properties[name] : undefined)).find((property) => property !== undefined);
      const extra = schemas.map((candidate) => candidate.additionalProperties).find((property) => isObject(property));
      const property = named ?? extra;
      if (property !== undefined) places.push(...placesOf(property, inner, context, [...path, name]));
    }
  }
  return places;
}

const jsonTypeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value);

/** Values of each JSON type, to put where another type is expected. */
const samplesByType: [string, unknown][] = [
  ['null', null],
  ['boolean', true],
  ['integer', 7],
  ['number', 2.5],
  ['string', 'text'],
  ['array', []],
  ['object', {}],
];

/** The ways a place can be broken, given the keywords that govern it; each makes the value put in its place. */
function violations(place: Place, current: unknown): { what: string; replace: () => unknown }[] {
  const found: { what: string; replace: () => unknown }[] = [];
  const keyword = <T>(name: string) => place.schemas.map((schema) => schema[name]).find((value) => value !== undefined) as T | undefined;
  const types = new Set(place.schemas.flatMap((schema) => (Array.isArray(schema.type) ? schema.type : typeof schema.type === 'string' ? [schema.type] : [])) as string[]);
  if (types.size > 0) {
    for (const [type, sample] of samplesByType) {
      const allowed = types.has(type) || (type === 'integer' && types.has('number'));
      if (!allowed) found.push({ what: `a ${type} instead of ${[...types].join(' or ')}`, replace: () => sample });
    }
  }
  const constant = keyword<unknown>('const');
  const options = keyword<unknown[]>('enum');
  if (constant !== undefined || options !== undefined) found.push({ what: 'a value outside its enum', replace: () => (typeof (constant ?? options?.[0]) === 'number' ? 987_654 : 'not-a-listed-value') });
  if (typeof current === 'number') {
    const maximum = keyword<number>('maximum');
    const minimum = keyword<number>('minimum');
    if (maximum !== undefined && maximum < Number.MAX_SAFE_INTEGER) found.push({ what: `above its maximum ${maximum}`, replace: () => maximum + 1 });
    if (minimum !== undefined && minimum > Number.MIN_SAFE_INTEGER) found.push({ what: `below its minimum ${minimum}`, replace: () => minimum - 1 });
    if (types.has('integer') && !types.has('number')) found.push({ what: 'a fraction where an integer is expected', replace: () => current + 0.5 });
  }
  if (typeof current === 'string') {
    const maxLength = keyword<number>('maxLength');
    const pattern = keyword<string>('pattern');
    if (maxLength !== undefined) found.push({ what: `longer than ${maxLength} characters`, replace: () => 'x'.repeat(maxLength + 1) });
    if (pattern !== undefined) found.push({ what: `not matching ${pattern}`, replace: () => ' no match! ' });
  }
  if (Array.isArray(current)) {
    const maxItems = keyword<number>('maxItems');
    const minItems = keyword<number>('minItems');
    if (maxItems !== undefined && current.length > 0 && maxItems <= 256) found.push({ what: `more than ${maxItems} items`, replace: () => Array.from({ length: maxItems + 1 }, () => structuredClone(current[0])) });
    if (minItems !== undefined && minItems > 0) found.push({ what: `fewer than ${minItems} items`, replace: () => [] });
  }
  if (isObject(current)) {
    const maxProperties = keyword<number>('maxProperties');
    if (maxProperties !== undefined && Object.keys(current).length > 0) {
      const sample = Object.values(current)[0];
      found.push({ what: `more than ${maxProperties} entries`, replace: () => ({ ...current, ...Object.fromEntries(Array.from({ length: maxProperties + 1 }, (_, index) => [`extra_${index}`, structuredClone(sample)])) }) });
    }
    const required = place.schemas.flatMap((schema) => (Array.isArray(schema.required) ? (schema.required as string[]) : []));
    for (const name of new Set(required)) {
      if (name in current) found.push({ what: `without its required ${name}`, replace: () => Object.fromEntries(Object.entries(current).filter(([key]) => key !== name)) });
    }
  }
  return found;
}

/** Keywords whose subschemas state rules across the properties of one object. */
const crossFieldKeywords = ['anyOf', 'oneOf', 'allOf', 'if', 'then', 'else', 'dependentSchemas'] as const;

/** The property names the rules across fields of an object's schemas mention (`required`, `properties`, `dependentRequired`). */
function crossFieldNames(schemas: Schema[]): Set<string>[] {
  const rules: Set<string>[] = [];
  for (const schema of schemas) {
    const names = new Set<string>();
    for (const keyword of crossFieldKeywords) {
      const value = schema[keyword];
      const branches = Array.isArray(value) ? value : keyword === 'dependentSchemas' && isObject(value) ? Object.values(value) : [value];
      for (const branch of branches) {
        if (!isObject(branch)) continue;
        if (Array.isArray(branch.required)) for (const name of branch.required) names.add(String(name));
        if (isObject(branch.properties)) for (const name of Object.keys(branch.properties)) names.add(name);
      }
      if (keyword === 'dependentSchemas' && isObject(value)) for (const name of Object.keys(value)) names.add(name);
    }
    if (isObject(schema.dependentRequired)) for (const [name, others] of Object.entries(schema.dependentRequired)) if (Array.isArray(others)) [name, ...others].forEach((other) => names.add(String(other)));
    if (names.size > 0) rules.push(names);
  }
  return rules;
}

/** `place` and, for a value still valid for its own field, the object holding it and the fields of each of its rules that names the field. */
function placesAtFault(place: Place, replacement: unknown, places: Place[], context: SchemaContext): Path[] {
  const name = place.path.at(-1);
  if (typeof name !== 'string' || !context.accepts(place.own, replacement)) return [place.path];
  const holderPath = place.path.slice(0, -1);
  const holder = places.find((candidate) => candidate.path.length === holderPath.length && candidate.path.every((part, index) => part === holderPath[index]));
  const fields = new Set<string>([name]);
  for (const rule of crossFieldNames(holder?.schemas ?? [])) if (rule.has(name)) rule.forEach((field) => fields.add(field));
  return [place.path, holderPath, ...[...fields].filter((field) => field !== name).map((field) => [...holderPath, field])];
}

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const part of path.slice(0, -1)) node = node[part] as Record<string | number, unknown>;
  node[path.at(-1)!] = value;
  return copy;
}

/**
 * A valid value made invalid in one place: every way to break it is listed (a wrong type, a
 * value outside its enum or bounds, a string too long or off its pattern, too many or too few
 * items or entries, a required field removed), and from the `pick`-th one on, the first that
 * the whole schema refuses is returned (some breaks are still valid: another branch of an
 * `anyOf` takes them). `keep` says which places may change (a header carries only strings).
 * `undefined` when nothing can be broken.
 *
 * @example
 * pickMutation(requestSchema, validRequest, context, 17); // { value, description: 'body.temperature: above its maximum 2 (was 0.7, a number)' }
 */
export function pickMutation(schema: unknown, value: unknown, context: SchemaContext, pick: number, keep: (path: Path, replacement: unknown) => boolean = () => true): Mutation | undefined {
  const candidates: { place: Place; current: unknown; what: string; replacement: unknown }[] = [];
  const places = placesOf(schema, value, context);
  for (const place of places) {
    let current: unknown = value;
    for (const part of place.path) current = (current as Record<string | number, unknown>)[part];
    for (const violation of violations(place, current)) {
      const replacement = violation.replace();
      if (keep(place.path, replacement)) candidates.push({ place, current, what: violation.what, replacement });
    }
  }
  // Checked lazily: validating every candidate against the whole schema costs more than the request.
  for (let offset = 0; offset < candidates.length; offset++) {
    const { place, current, what, replacement } = candidates[(pick + offset) % candidates.length]!;
    const mutated = setAt(value, place.path, replacement);
    if (context.accepts(schema, mutated)) continue;
    return {
      value: mutated,
      path: place.path,
      description: `${formatPath(place.path)}: ${what} (was ${JSON.stringify(current)?.slice(0, 60)}, a ${jsonTypeOf(current)})`,
      atFault: placesAtFault(place, replacement, places, context),
    };
  }
  return undefined;
}
