import { GenerationBudgetExceeded, type GenerationBudget } from './generation-budget.js';

/** A JSON Schema object as the generator reads it. @internal */
export type JsonSchema = Record<string, unknown>;

/** Whether `value` is a plain JSON object (not null, not an array). @internal */
export function isJsonObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolvePointer(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined; // remote refs are refused upstream (decisions §2)
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/gu, '/').replace(/~0/gu, '~');
    if (!isJsonObject(current) && !Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return isJsonObject(current) ? current : undefined;
}

function mergeSchemas(base: JsonSchema, extra: JsonSchema): JsonSchema {
  const properties = { ...(isJsonObject(base.properties) ? base.properties : {}), ...(isJsonObject(extra.properties) ? extra.properties : {}) };
  const required = [...(Array.isArray(base.required) ? base.required : []), ...(Array.isArray(extra.required) ? extra.required : [])];
  const merged: JsonSchema = { ...base, ...extra };
  if (base.type !== undefined && extra.type === undefined) merged.type = base.type;
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.length > 0) merged.required = [...new Set(required)];
  return merged;
}

/** Whether an `anyOf`/`oneOf` branch only allows `null`. @internal */
export const isNullBranch = (branch: unknown): boolean => isJsonObject(branch) && branch.type === 'null';

/** The first branch that is not just `{type:"null"}`, so nullable fields get a value. @internal */
export function firstValuedBranch(branches: unknown[]): unknown {
  return branches.find((candidate) => isJsonObject(candidate) && !isNullBranch(candidate)) ?? branches[0];
}

function spendStep(budget: Pick<GenerationBudget, 'resolveSteps'> | undefined): void {
  if (budget !== undefined && --budget.resolveSteps < 0) throw new GenerationBudgetExceeded();
}

/**
 * Flattens the combinators the generator does not walk itself: a local `$ref` is replaced by
 * its target (sibling keywords win), `allOf` parts are merged, and `anyOf`/`oneOf` take the
 * branch `chooseBranch` picks (by default the first that is not just `{type:"null"}`, so
 * nullable fields get a value).
 * Each `$ref` followed and each `allOf` part takes a step from `budget`: definitions that
 * `allOf` each other twice would otherwise double the work at every level.
 *
 * @example
 * resolveSchema({ anyOf: [{ type: 'null' }, { type: 'string' }] }, root); // { type: 'string' }
 * @internal
 */
export function resolveSchema(
  schema: JsonSchema,
  root: JsonSchema,
  budget?: Pick<GenerationBudget, 'resolveSteps'>,
  chooseBranch: (branches: unknown[]) => unknown = firstValuedBranch,
): JsonSchema {
  let current = schema;
  // Bounded: a schema that refers to itself through $ref alone must not loop.
  for (let step = 0; step < 32; step++) {
    if (typeof current.$ref === 'string') {
      spendStep(budget);
      const { $ref, ...rest } = current;
      const target = resolvePointer(root, $ref as string);
      current = target ? mergeSchemas(target, rest) : rest;
      continue;
    }
    if (Array.isArray(current.allOf)) {
      spendStep(budget);
      const { allOf, ...rest } = current;
      current = (allOf as unknown[]).filter(isJsonObject).map((part) => resolveSchema(part, root, budget, chooseBranch)).reduce(mergeSchemas, rest);
      continue;
    }
    const branches = current.anyOf ?? current.oneOf;
    if (Array.isArray(branches) && branches.length > 0) {
      const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = current;
      const branch = chooseBranch(branches);
      current = isJsonObject(branch) ? mergeSchemas(rest, branch) : rest;
      continue;
    }
    return current;
  }
  return current;
}
