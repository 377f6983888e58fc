import { resolveLocalRef } from './resolve-local-ref.js';

/** How deep the shallowest value of each subschema of one schema is; see `measureFiniteValueDepths`. */
export interface FiniteValueDepths {
  /**
   * The nesting depth of the shallowest value `node` admits: 0 for a scalar or an empty
   * object or array, 1 for an object whose required properties are scalars, and so on;
   * `Infinity` when it admits no finite value. `node` is a subschema of the measured schema
   * (or an object built from its parts).
   */
  depthOf(node: unknown): number;
  /** The same, counting only objects (`kind: 'object'`) or only arrays as values of `node`. */
  depthAs(node: unknown, kind: 'object' | 'array'): number;
  /** For the measured schema's own value, which is an object (a function's arguments). */
  readonly rootDepth: number;
  /**
   * False when the measure stopped before it was done (a very long chain of `$ref`s): an
   * `Infinity` may then only mean "deeper than measured", not "no finite value".
   */
  readonly settled: boolean;
}

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const scalarTypes = new Set(['string', 'number', 'integer', 'boolean', 'null']);

/** Keywords whose values are data, not schemas: never walked. */
const dataKeywords = new Set(['enum', 'const', 'default', 'examples']);

/** Passes over all subschemas before giving up: each pass settles one more step of a `$ref` chain. */
const maxPasses = 64;

/**
 * Measures, for a schema and every subschema in it, how deeply nested its shallowest value is,
 * and so whether it has a finite value at all: `{type: "object", properties: {child: {$ref:
 * "#"}}, required: ["child"]}` has none (every value must contain another one), while
 * `{... child: {anyOf: [{$ref: "#"}, {type: "null"}]} ...}` has `{"child": null}`.
 *
 * Conservative where it must be: only the keywords that force a part to exist (`required`
 * properties, `minItems` items, `$ref`, `allOf`; `anyOf`, `oneOf` and `type` lists as choices)
 * can make a value deeper or impossible, everything else is taken to allow one (a pattern, a
 * `not`, a bound), so "no finite value" is only said of schemas that truly have none. A
 * fixed-point over the subschemas (recursion through `$ref` needs several passes), at most 64
 * passes of linear work.
 *
 * @example
 * measureFiniteValueDepths({ type: 'object', properties: { child: { $ref: '#' } }, required: ['child'] }).rootDepth; // Infinity
 */
export function measureFiniteValueDepths(root: Schema): FiniteValueDepths {
  // Every subschema, children before their parents, so one pass settles all but recursion.
  const nodes: Schema[] = [];
  const indexOf = new Map<Schema, number>();
  const refTargets = new Map<string, unknown>();
  const target = (ref: string): unknown => {
    if (!refTargets.has(ref)) refTargets.set(ref, resolveLocalRef(root, ref));
    return refTargets.get(ref);
  };
  const stack: { node: Schema; expanded: boolean }[] = [{ node: root, expanded: false }];
  const seen = new Set<Schema>([root]);
  const push = (value: unknown) => {
    if (isSchema(value) && !seen.has(value)) {
      seen.add(value);
      stack.push({ node: value, expanded: false });
    }
  };
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.expanded) {
      stack.pop();
      indexOf.set(top.node, nodes.length);
      nodes.push(top.node);
      continue;
    }
    top.expanded = true;
    const node = top.node;
    if (typeof node.$ref === 'string') push(target(node.$ref));
    // Every object under a keyword that is not data: schemas, and maps of them (`properties`).
    for (const keyword in node) {
      if (dataKeywords.has(keyword)) continue;
      const value = node[keyword];
      if (Array.isArray(value)) for (const item of value) push(item);
      else if (isSchema(value)) {
        push(value);
        if (keyword === 'properties' || keyword === 'patternProperties' || keyword === '$defs' || keyword === 'definitions' || keyword === 'dependentSchemas') {
          for (const name in value) push(value[name]);
        }
      }
    }
  }

  const depths = new Float64Array(nodes.length).fill(Number.POSITIVE_INFINITY);
  /** Objects measured on the spot (built from parts, or data a `$ref` points into), to stop a loop among them. */
  const onTheSpot = new Set<Schema>();
  const depthOfKnown = (value: unknown): number => {
    if (value === false) return Number.POSITIVE_INFINITY;
    if (!isSchema(value)) return 0;
    const index = indexOf.get(value);
    if (index !== undefined) return depths[index]!;
    if (onTheSpot.has(value)) return 0;
    onTheSpot.add(value);
    try {
      return evaluate(value, undefined);
    } finally {
      onTheSpot.delete(value);
    }
  };
  /** Nodes being measured as one kind through `$ref`s (a `$ref` back to one is measured as any value). */
  const asKind = new Set<Schema>();

  /** What a required property named `name` must be. */
  const propertyDepth = (node: Schema, name: string): number => {
    const properties = isSchema(node.properties) ? node.properties : undefined;
    if (properties !== undefined && Object.prototype.hasOwnProperty.call(properties, name)) return depthOfKnown(properties[name]);
    // A pattern may match the name: then `additionalProperties` does not apply (left open).
    if (node.patternProperties !== undefined) return 0;
    return depthOfKnown(node.additionalProperties);
  };

  const objectDepth = (node: Schema): number => {
    const required = Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === 'string') : [];
    let deepest = -1;
    for (const name of required) deepest = Math.max(deepest, propertyDepth(node, name));
    return deepest < 0 ? 0 : deepest + 1;
  };

  const arrayDepth = (node: Schema): number => {
    const minItems = typeof node.minItems === 'number' && node.minItems > 0 ? Math.ceil(node.minItems) : 0;
    if (minItems === 0) return 0;
    const tuple = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
    const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
    let deepest = -1;
    for (let index = 0; index < Math.min(minItems, tuple.length); index++) deepest = Math.max(deepest, depthOfKnown(tuple[index]));
    if (minItems > tuple.length) deepest = Math.max(deepest, depthOfKnown(rest));
    return deepest + 1;
  };

  /** The node's own keywords: `const`/`enum`, then the cheapest type it allows. */
  const ownDepth = (node: Schema, only: 'object' | 'array' | undefined): number => {
    if (only === undefined && 'const' in node) return 0;
    if (Array.isArray(node.enum)) return node.enum.length === 0 ? Number.POSITIVE_INFINITY : only === undefined ? 0 : Number.POSITIVE_INFINITY;
    const declared = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type : undefined;
    if (only !== undefined) return declared === undefined || declared.includes(only) ? (only === 'object' ? objectDepth(node) : arrayDepth(node)) : Number.POSITIVE_INFINITY;
    // No `type`: any JSON value, a scalar among them.
    if (declared === undefined || declared.some((type) => typeof type === 'string' && scalarTypes.has(type))) return 0;
    let depth = Number.POSITIVE_INFINITY;
    if (declared.includes('object')) depth = Math.min(depth, objectDepth(node));
    if (declared.includes('array')) depth = Math.min(depth, arrayDepth(node));
    return depth;
  };

  /** A node's depth from the current depths of its parts. */
  function evaluate(node: Schema, only: 'object' | 'array' | undefined): number {
    let depth = ownDepth(node, only);
    if (typeof node.$ref === 'string') {
      const referred = target(node.$ref);
      // Unresolvable refs are not followed: they allow anything here.
      if (referred !== undefined) depth = Math.max(depth, only !== undefined && isSchema(referred) && !asKind.has(referred) ? evaluateAs(referred, only) : depthOfKnown(referred));
    }
    if (Array.isArray(node.allOf)) for (const part of node.allOf) depth = Math.max(depth, depthOfKnown(part));
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = node[keyword];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      let shallowest = Number.POSITIVE_INFINITY;
      for (const branch of branches) shallowest = Math.min(shallowest, depthOfKnown(branch));
      depth = Math.max(depth, shallowest);
    }
    return depth;
  }

  function evaluateAs(node: Schema, only: 'object' | 'array'): number {
    asKind.add(node);
    try {
      return evaluate(node, only);
    } finally {
      asKind.delete(node);
    }
  }

  let settled = false;
  for (let pass = 0; pass < maxPasses && !settled; pass++) {
    settled = true;
    for (let index = 0; index < nodes.length; index++) {
      const depth = evaluate(nodes[index]!, undefined);
      if (depth < depths[index]!) {
        depths[index] = depth;
        settled = false;
      }
    }
  }
  return {
    depthOf: depthOfKnown,
    depthAs: (node, kind) => (isSchema(node) ? evaluateAs(node, kind) : node === false ? Number.POSITIVE_INFINITY : 0),
    rootDepth: evaluateAs(root, 'object'),
    settled,
  };
}
