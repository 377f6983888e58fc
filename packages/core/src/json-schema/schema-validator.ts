import { dereference, format as formatChecks, validate, type OutputUnit, type Schema, type SchemaDraft } from '@cfworker/json-schema';
import { compileLinearPattern } from './linear-pattern.js';

/** One reason a value does not match a schema. */
export interface SchemaProblem {
  /** Where in the value, as a JSON Pointer (`/items/0/name`; `` for the value itself). */
  path: string;
  message: string;
  /** Set when the schema itself cannot be used (an unresolved `$ref`, endless recursion): the value was not checked. */
  schemaError?: true;
}

/** A JSON Schema, ready to check values against. */
export interface SchemaValidator {
  /**
   * The problems of `value`: by default checking stops at the first failing keyword (the
   * problems then say where and why); with `all`, every problem is listed.
   */
  validate(value: unknown, options?: { all?: boolean }): SchemaProblem[];
  /** Forgets the pattern checks this validator registered. */
  dispose(): void;
}

// Keywords whose values are data, not schemas.
const dataKeywords = new Set(['enum', 'const', 'default', 'examples']);
// Keywords whose values map names to schemas.
const namedSchemaKeywords = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas']);
// Keywords that only say "a subschema failed"; the subschema's own error says why.
const wrapperKeywords = new Set([
  '$ref', '$recursiveRef', 'properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'propertyNames',
  'dependencies', 'dependentSchemas', 'items', 'prefixItems', 'additionalItems', 'unevaluatedItems', 'contains', 'allOf', 'if', 'then', 'else',
]);
/** Deeper than this a schema is not walked further (a JSON body is at most 64 deep anyway). */
const maxSchemaDepth = 256;

let nextHookId = 0;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}


interface Copying {
  /** Pattern checks registered for this schema: their names in the validator's `format` table, and their sources. */
  hooks: Map<string, string>;
  /** Filled while copying: whether the schema has `patternProperties`. */
  hasPatternProperties: boolean;
  /** Filled while copying: whether the schema refers anywhere (without, the validator needs no lookup table). */
  refers: boolean;
  /** The hook of each pattern source, so a pattern used a thousand times is one check. */
  hookOf: Map<string, string>;
  /** When set, `patternProperties` become `properties` for those of these names that they match. */
  propertyNames?: ReadonlySet<string>;
}

/**
 * A copy of the schema that the validator can run without compiling any regex from the
 * request: each `pattern` becomes a check by the linear-time engine (registered as a `format`,
 * the validator's one extension point), each `format` an annotation (as JSON Schema 2019+
 * reads it, and as Ajv did without ajv-formats), and, given the names of the value's
 * properties, `patternProperties` the `properties` of those names that its keys match.
 */
function copySchema(node: unknown, copying: Copying, role: 'schema' | 'names' | 'data', depth: number): unknown {
  if (typeof node !== 'object' || node === null || depth > maxSchemaDepth) return node;
  if (Array.isArray(node)) return node.map((item) => copySchema(item, copying, role === 'data' ? 'data' : 'schema', depth + 1));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(node)) {
    const value = (node as Record<string, unknown>)[key];
    if (role === 'schema' && key === 'format') continue;
    // OpenAPI's `nullable: true` (common in tool schemas): null is one more allowed type.
    if (role === 'schema' && key === 'type' && (node as Record<string, unknown>).nullable === true && value !== undefined) {
      const types = Array.isArray(value) ? value : [value];
      copy.type = types.includes('null') ? types : [...types, 'null'];
      continue;
    }
    if (role === 'schema' && key === 'pattern' && typeof value === 'string') {
      const { pattern } = compileLinearPattern(value);
      // A pattern the engine cannot run is not checked (the handler refuses those in requests).
      if (pattern === undefined) continue;
      let hook = copying.hookOf.get(value);
      if (hook === undefined) {
        hook = `quantum-chat:pattern:${nextHookId++}`;
        formatChecks[hook] = (text) => pattern.test(text);
        copying.hooks.set(hook, value);
        copying.hookOf.set(value, hook);
      }
      copy.format = hook;
      continue;
    }
    if (role === 'schema' && (key === '$ref' || key === '$recursiveRef' || key === '$id' || key === 'id')) copying.refers = true;
    if (role === 'schema' && key === 'patternProperties' && isObject(value)) {
      copying.hasPatternProperties = true;
      // Applied after the loop, once `properties` is copied.
      if (copying.propertyNames === undefined) defineData(copy, key, copySchema(value, copying, 'names', depth + 1));
      continue;
    }
    const childRole = role === 'data' || (role === 'schema' && dataKeywords.has(key)) ? 'data' : role === 'schema' && namedSchemaKeywords.has(key) ? 'names' : 'schema';
    defineData(copy, key, copySchema(value, copying, childRole, depth + 1));
  }
  const patternProperties = (node as Record<string, unknown>).patternProperties;
  if (role === 'schema' && copying.propertyNames !== undefined && isObject(patternProperties)) patternPropertiesAsProperties(copy, patternProperties, copying, depth);
  return copy;
}

function defineData(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * `patternProperties` for one value: each property name of the value that a key's pattern
 * matches (by RE2) gets that key's schema under `properties` (with `allOf` where several
 * apply), which the validator reads the same way (they are then not additional properties),
 * with no regex left for it to compile.
 */
function patternPropertiesAsProperties(copy: Record<string, unknown>, map: Record<string, unknown>, copying: Copying, depth: number): void {
  const properties: Record<string, unknown> = {};
  const existing = isObject(copy.properties) ? copy.properties : {};
  for (const name of Object.keys(existing)) defineData(properties, name, existing[name]);
  for (const source of Object.keys(map)) {
    const subschema = copySchema(map[source], copying, 'schema', depth + 1);
    const { pattern } = compileLinearPattern(source);
    if (pattern === undefined) continue;
    for (const name of copying.propertyNames!) {
      if (!pattern.test(name)) continue;
      const current = Object.hasOwn(properties, name) ? properties[name] : undefined;
      defineData(properties, name, current === undefined ? subschema : { allOf: [current, subschema] });
    }
  }
  copy.properties = properties;
}

/** Every property name in a value, at any depth. */
function collectPropertyNames(value: unknown): Set<string> {
  const names = new Set<string>();
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    for (const key of Object.keys(node)) {
      names.add(key);
      pending.push((node as Record<string, unknown>)[key]);
    }
  }
  return names;
}

function draftOf(schema: unknown): SchemaDraft {
  const declared = isObject(schema) ? schema.$schema : undefined;
  return typeof declared === 'string' && /draft\/(2019-09|2020-12)\//u.test(declared) ? '2020-12' : '7';
}

// Keywords whose failure is the whole story: the failures of their branches are not listed.
const branchingKeywords = new Set(['anyOf', 'oneOf', 'not']);

function describe(errors: readonly OutputUnit[], hooks: ReadonlyMap<string, string>): SchemaProblem[] {
  const branches = errors.filter((error) => branchingKeywords.has(error.keyword)).map((error) => `${error.keywordLocation}/`);
  const leaves = errors.filter((error) => !wrapperKeywords.has(error.keyword) && !branches.some((branch) => error.keywordLocation.startsWith(branch)));
  const closedObjects = new Set(errors.filter((error) => error.keyword === 'additionalProperties').map((error) => error.instanceLocation));
  return (leaves.length > 0 ? leaves : errors).map((error) => {
    const path = error.instanceLocation.replace(/^#/u, '');
    // A `false` schema: the value should not be there at all (most often `additionalProperties: false`).
    if (error.keyword === 'false') {
      const parent = error.instanceLocation.slice(0, error.instanceLocation.lastIndexOf('/'));
      return { path, message: closedObjects.has(parent) ? 'Unknown property: the schema allows no other properties.' : 'No value is allowed here.' };
    }
    if (error.keyword !== 'format') return { path, message: error.error };
    const source = hooks.get(/"(quantum-chat:pattern:\d+)"/u.exec(error.error)?.[1] ?? '');
    return { path, message: source === undefined ? error.error : `String does not match the pattern /${source.slice(0, 100)}/.` };
  });
}

/**
 * A validator for a JSON Schema (draft-07 by default; 2020-12 when `$schema` names it or
 * 2019-09), built on `@cfworker/json-schema`: it interprets the schema, never compiling code
 * with `new Function` (so it runs where `eval` is forbidden), and it keeps nothing once
 * disposed. Its regexes run on RE2 (see `compileLinearPattern`), so no value can make a
 * check take more than linear time. `format` is an annotation, not checked.
 *
 * @example
 * const validator = createSchemaValidator({ type: 'object', required: ['city'] });
 * validator.validate({}); // [{ path: '', message: 'Instance does not have required property "city".' }]
 */
export function createSchemaValidator(schema: unknown): SchemaValidator {
  const copying: Copying = { hooks: new Map(), hasPatternProperties: false, refers: false, hookOf: new Map() };
  const copy = copySchema(schema, copying, 'schema', 0) as Schema | boolean;
  const draft = draftOf(schema);
  let lookup: ReturnType<typeof dereference> | undefined;
  let broken: string | undefined;
  try {
    // The lookup table maps every subschema's URI (a URL per node): only `$ref`s read it.
    lookup = copying.refers ? dereference(copy) : Object.create(null);
  } catch (error) {
    broken = (error as Error).message;
  }

  const unusable = (reason: string): SchemaProblem[] => [{ path: '', message: `The schema cannot be used: ${reason.split('\n', 1)[0]}`, schemaError: true }];

  function run(value: unknown, options?: { all?: boolean }): SchemaProblem[] {
    const shortCircuit = options?.all !== true;
    if (broken !== undefined) return unusable(broken);
    if (copying.hasPatternProperties) {
      // Property names are matched by RE2 here, then handed to the validator as literals.
      const perValue: Copying = { hooks: new Map(), hasPatternProperties: false, refers: false, hookOf: new Map(), propertyNames: collectPropertyNames(value) };
      const target = copySchema(schema, perValue, 'schema', 0) as Schema | boolean;
      try {
        const targetLookup = perValue.refers ? dereference(target) : Object.create(null);
        return describe(validate(value, target, draft, targetLookup, shortCircuit).errors, perValue.hooks);
      } catch (error) {
        return unusable((error as Error).message);
      } finally {
        for (const hook of perValue.hooks.keys()) delete formatChecks[hook];
      }
    }
    try {
      return describe(validate(value, copy, draft, lookup, shortCircuit).errors, copying.hooks);
    } catch (error) {
      // An unresolved `$ref`, recursion without end (`{"$ref": "#"}`), a value that is not JSON.
      return unusable((error as Error).message);
    }
  }

  return {
    validate: run,
    dispose() {
      for (const hook of copying.hooks.keys()) delete formatChecks[hook];
      copying.hooks.clear();
    },
  };
}
