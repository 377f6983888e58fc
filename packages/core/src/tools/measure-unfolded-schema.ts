import { resolveLocalRef } from '../json-schema/resolve-local-ref.js';

/** Keywords whose values are data, not schemas. */
const dataKeywords = new Set(['enum', 'const', 'default', 'examples']);
/** Keywords whose values map names to schemas. */
const namedSchemaKeywords = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas']);
/** Keywords that hold other schemas' definitions, not schemas applied here. */
const definitionKeywords = new Set(['definitions', '$defs']);
/** Keywords whose schemas apply to the same value as the schema holding them (the others to its parts). */
const sameValueKeywords = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies']);

/** What following a schema's `$ref`s costs. */
export interface UnfoldedSchemaSize {
  /** Subschemas once every local `$ref` is expanded in place (a `$ref` back into itself counts once). */
  total: number;
  /** The most subschemas that apply to one and the same value (through `$ref`, `allOf`, `anyOf`, ...). */
  sameValue: number;
  /** Schema nodes walked to find out (shared definitions are walked once, recursive ones per use). */
  walked: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Visit {
  total: number;
  sameValue: number;
  /** A `$ref` back into a schema being walked was cut here: the figures hold for this path only. */
  cut: boolean;
}

/**
 * What a schema costs any validator or generator that follows its local `$ref`s: twenty
 * definitions that each `allOf` the previous one twice are a hundred values of JSON but a
 * million subschemas applied to one value. Shared definitions are measured once (remembered),
 * so the measure itself stays cheap; it gives up once `walkCap` nodes were walked (recursive
 * definitions are walked per use) and reports the cap then.
 *
 * @example
 * measureUnfoldedSchema({ properties: { a: { $ref: '#/definitions/x' } }, definitions: { x: {} } }, 10_000);
 * // { total: 3, sameValue: 1, walked: 3 }
 */
export function measureUnfoldedSchema(root: unknown, walkCap: number): UnfoldedSchemaSize {
  let walked = 0;
  let sameValueMax = 0;
  const remembered = new Map<object, Visit>();
  const refTargets = new Map<string, unknown>();
  const inside = new Set<unknown>([root]);
  const visit = (node: unknown): Visit => {
    if (!isObject(node)) return { total: 1, sameValue: 1, cut: false };
    const known = remembered.get(node);
    if (known !== undefined) return known;
    if (++walked > walkCap) return { total: 1, sameValue: 1, cut: true };
    const result: Visit = { total: 1, sameValue: 1, cut: false };
    const add = (child: Visit, sameValue: boolean) => {
      result.total += child.total;
      if (sameValue) result.sameValue += child.sameValue;
      result.cut ||= child.cut;
    };
    if (typeof node.$ref === 'string') {
      if (!refTargets.has(node.$ref)) refTargets.set(node.$ref, resolveLocalRef(root, node.$ref));
      const target = refTargets.get(node.$ref);
      if (inside.has(target)) result.cut = true;
      else if (isObject(target)) {
        inside.add(target);
        add(visit(target), true);
        inside.delete(target);
      }
    }
    for (const key in node) {
      if (dataKeywords.has(key) || definitionKeywords.has(key) || key === '$ref' || walked > walkCap) continue;
      const value = node[key];
      const sameValue = sameValueKeywords.has(key);
      if (namedSchemaKeywords.has(key) && isObject(value)) {
        for (const name in value) add(visit(value[name]), sameValue);
      } else if (Array.isArray(value)) {
        for (const item of value) add(visit(item), sameValue);
      } else if (isObject(value)) {
        add(visit(value), sameValue);
      }
    }
    sameValueMax = Math.max(sameValueMax, result.sameValue);
    if (!result.cut) remembered.set(node, result);
    return result;
  };
  const rootVisit = visit(root);
  return { total: rootVisit.total, sameValue: sameValueMax, walked: Math.min(walked, walkCap) };
}
