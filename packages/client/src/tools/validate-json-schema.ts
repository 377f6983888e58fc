type Schema = Record<string, unknown> | boolean;

/** Keeps a hostile or cyclic schema from recursing without end. */
const maxDepth = 64;

/**
 * Checks `value` against the common subset of JSON Schema that tool parameters use: `type`
 * (also as a list, and OpenAPI's `nullable`), `enum`, `const`, `properties`, `required`,
 * `additionalProperties`, `items`/`prefixItems`, length, size and range bounds, `pattern`,
 * `multipleOf`, `anyOf`/`oneOf`/`allOf`/`not` and local `$ref`s. Other keywords (`format`,
 * `if`…) are not checked. Returns the problems found, each prefixed by the path (`items[0].name`).
 *
 * Written small instead of using ajv: ajv compiles with `new Function`, which strict CSPs
 * forbid, and it would triple the size of this browser-safe entry.
 *
 * @example
 * validateJsonSchema({ type: 'object', required: ['city'] }, {}); // ['(root): missing required property "city"']
 * @internal
 */
export function validateJsonSchema(schema: unknown, value: unknown): string[] {
  const problems: string[] = [];
  check(asSchema(schema), value, '', problems, asSchema(schema), 0);
  return problems;
}

function asSchema(schema: unknown): Schema {
  return typeof schema === 'boolean' ? schema : typeof schema === 'object' && schema !== null ? (schema as Record<string, unknown>) : true;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function deepEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  const leftKeys = Object.keys(left);
  if (leftKeys.length !== Object.keys(right).length) return false;
  return leftKeys.every((key) => deepEqual((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]));
}

function resolveRef(root: Schema, ref: string): Schema {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return true; // Remote refs are not followed (the server refuses them anyway).
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    const key = decodeURIComponent(part).replace(/~1/gu, '/').replace(/~0/gu, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return asSchema(node);
}

function at(path: string): string {
  return path === '' ? '(root)' : path;
}

function check(schema: Schema, value: unknown, path: string, problems: string[], root: Schema, depth: number): void {
  if (schema === true) return;
  if (schema === false) {
    problems.push(`${at(path)}: no value is allowed here`);
    return;
  }
  if (depth > maxDepth) return;
  const next = (child: unknown, childValue: unknown, childPath: string) => check(asSchema(child), childValue, childPath, problems, root, depth + 1);
  if (typeof schema.$ref === 'string') next(resolveRef(root, schema.$ref), value, path);

  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : undefined;
  if (types !== undefined && !(value === null && schema.nullable === true) && !types.some((type) => matchesType(value, type))) {
    problems.push(`${at(path)}: must be ${types.join(' or ')}, got ${typeOf(value)}`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) {
    problems.push(`${at(path)}: must be one of ${schema.enum.map((option) => JSON.stringify(option)).join(', ')}`);
  }
  if ('const' in schema && !deepEqual(schema.const, value)) problems.push(`${at(path)}: must be ${JSON.stringify(schema.const)}`);

  if (typeOf(value) === 'object') checkObject(schema, value as Record<string, unknown>, path, problems, next);
  if (Array.isArray(value)) checkArray(schema, value, path, problems, next);
  if (typeof value === 'string') checkString(schema, value, path, problems);
  if (typeof value === 'number') checkNumber(schema, value, path, problems);

  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) next(part, value, path);
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some((part) => validateJsonSchemaAt(part, value, root, depth))) {
    problems.push(`${at(path)}: matches none of the allowed shapes (anyOf)`);
  }
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter((part) => validateJsonSchemaAt(part, value, root, depth)).length !== 1) {
    problems.push(`${at(path)}: must match exactly one allowed shape (oneOf)`);
  }
  if (schema.not !== undefined && validateJsonSchemaAt(schema.not, value, root, depth)) problems.push(`${at(path)}: matches a forbidden shape (not)`);
}

function validateJsonSchemaAt(schema: unknown, value: unknown, root: Schema, depth: number): boolean {
  const problems: string[] = [];
  check(asSchema(schema), value, '', problems, root, depth + 1);
  return problems.length === 0;
}

type Next = (child: unknown, value: unknown, path: string) => void;

function checkObject(schema: Record<string, unknown>, value: Record<string, unknown>, path: string, problems: string[], next: Next): void {
  const properties = (typeof schema.properties === 'object' && schema.properties !== null ? schema.properties : {}) as Record<string, unknown>;
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) {
      if (typeof name === 'string' && !Object.prototype.hasOwnProperty.call(value, name)) problems.push(`${at(path)}: missing required property "${name}"`);
    }
  }
  for (const [name, propertyValue] of Object.entries(value)) {
    const propertyPath = path === '' ? name : `${path}.${name}`;
    if (Object.prototype.hasOwnProperty.call(properties, name)) next(properties[name], propertyValue, propertyPath);
    else if (schema.additionalProperties === false) problems.push(`${at(path)}: unknown property "${name}"`);
    else if (typeof schema.additionalProperties === 'object') next(schema.additionalProperties, propertyValue, propertyPath);
  }
}

function checkArray(schema: Record<string, unknown>, value: unknown[], path: string, problems: string[], next: Next): void {
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) problems.push(`${at(path)}: must have at least ${schema.minItems} items`);
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) problems.push(`${at(path)}: must have at most ${schema.maxItems} items`);
  const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
  value.forEach((item, index) => {
    const itemSchema = index < tuple.length ? tuple[index] : Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    if (itemSchema !== undefined) next(itemSchema, item, `${path}[${index}]`);
  });
}

function checkString(schema: Record<string, unknown>, value: string, path: string, problems: string[]): void {
  const length = [...value].length;
  if (typeof schema.minLength === 'number' && length < schema.minLength) problems.push(`${at(path)}: must be at least ${schema.minLength} characters`);
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) problems.push(`${at(path)}: must be at most ${schema.maxLength} characters`);
  if (typeof schema.pattern === 'string') {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      pattern = undefined; // A pattern this engine cannot compile is not checked.
    }
    if (pattern !== undefined && !pattern.test(value)) problems.push(`${at(path)}: must match /${schema.pattern}/`);
  }
}

function checkNumber(schema: Record<string, unknown>, value: number, path: string, problems: string[]): void {
  if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${at(path)}: must be ≥ ${schema.minimum}`);
  if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${at(path)}: must be ≤ ${schema.maximum}`);
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) problems.push(`${at(path)}: must be > ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) problems.push(`${at(path)}: must be < ${schema.exclusiveMaximum}`);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
    const quotient = value / schema.multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) problems.push(`${at(path)}: must be a multiple of ${schema.multipleOf}`);
  }
}
