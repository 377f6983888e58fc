/** A JSON Schema (2020-12) as the document holds it: read loosely, rendered as found. */
export type Schema = { [keyword: string]: unknown };

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `#/components/schemas/ChatCompletion` → `ChatCompletion`; other refs stay whole. */
export function refName(ref: string): string {
  return ref.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : ref;
}

/** The variants of a schema that is a union (`anyOf` or `oneOf`), or undefined. */
export function variantsOf(schema: Schema): Schema[] | undefined {
  const variants = schema.oneOf ?? schema.anyOf;
  return Array.isArray(variants) ? variants.filter(isSchema) : undefined;
}

/** The `$ref` a schema narrows with `allOf: [{ $ref }, more rules]`, if it does. */
export function narrowedRef(schema: Schema): string | undefined {
  const first = Array.isArray(schema.allOf) ? (schema.allOf[0] as Schema | undefined) : undefined;
  return typeof first?.$ref === 'string' ? first.$ref : undefined;
}

const wrap = (text: string) => (text.includes(' | ') ? `(${text})` : text);

/**
 * A one-line type of a schema, as a reader scans it: `string`, `integer`, `"system" | "user"`,
 * `array of Message`, `string | null`, `map of string`.
 *
 * @example
 * typeSummary({ anyOf: [{ type: 'number' }, { type: 'null' }] }); // 'number | null'
 */
export function typeSummary(schema: unknown): string {
  if (!isSchema(schema)) return schema === false ? 'never' : 'any';
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  // A schema narrowed by more rules (an error status's codes): named after what it narrows.
  const narrowed = narrowedRef(schema);
  if (narrowed !== undefined) return refName(narrowed);
  // A string holding JSON (an event's `data`): what the JSON is.
  if (schema.contentMediaType === 'application/json' && schema.contentSchema !== undefined) return `JSON ${wrap(typeSummary(schema.contentSchema))}`;
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
  const variants = variantsOf(schema);
  if (variants) return [...new Set(variants.map(typeSummary))].join(' | ');
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeSummary({ ...schema, type })).join(' | ');
  if (schema.type === 'array') return `array of ${wrap(typeSummary(schema.items))}`;
  if (schema.type === 'object' && schema.properties === undefined && isSchema(schema.additionalProperties)) return `map of ${wrap(typeSummary(schema.additionalProperties))}`;
  return typeof schema.type === 'string' ? schema.type : 'any';
}

/**
 * The constraints of a schema in words: `≥ 0`, `≤ 8192`, `at most 4 items`, `default 0.7`.
 *
 * @example
 * constraintsOf({ type: 'integer', minimum: 1, maximum: 8192 }); // ['≥ 1', '≤ 8192']
 */
export function constraintsOf(schema: unknown): string[] {
  if (!isSchema(schema)) return [];
  // `T | null`: the constraints are T's (the default sits on the union itself).
  const variants = variantsOf(schema)?.filter((variant) => variant.type !== 'null');
  if (variants?.length === 1) return [...constraintsOf(variants[0]), ...constraintsOf({ default: schema.default })];
  const words: string[] = [];
  const add = (keyword: string, describe: (value: never) => string) => {
    if (schema[keyword] !== undefined) words.push(describe(schema[keyword] as never));
  };
  add('minimum', (value: number) => `≥ ${value}`);
  add('exclusiveMinimum', (value: number) => `> ${value}`);
  add('maximum', (value: number) => `≤ ${value}`);
  add('exclusiveMaximum', (value: number) => `< ${value}`);
  add('minLength', (value: number) => `at least ${value} characters`);
  add('maxLength', (value: number) => `at most ${value} characters`);
  add('minItems', (value: number) => `at least ${value} item${value === 1 ? '' : 's'}`);
  add('maxItems', (value: number) => `at most ${value} items`);
  add('maxProperties', (value: number) => `at most ${value} entries`);
  add('pattern', (value: string) => `pattern ${value}`);
  add('format', (value: string) => `format ${value}`);
  add('default', (value: unknown) => `default ${JSON.stringify(value)}`);
  // Numbers at the edge of JavaScript's safe integers are the zod default, not a real limit.
  return words.filter((word) => !/9007199254740991/u.test(word));
}

/** The object schema whose fields a reader can unfold below a property, if any: an object, an array of objects, or a union with objects. */
export function nestedObjectsOf(schema: unknown): Schema[] {
  if (!isSchema(schema)) return [];
  if (schema.type === 'object' && isSchema(schema.properties)) return [schema];
  if (schema.type === 'array') return nestedObjectsOf(schema.items);
  return (variantsOf(schema) ?? []).flatMap(nestedObjectsOf);
}
