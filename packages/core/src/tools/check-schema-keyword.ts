const simpleTypes = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

const isSchema = (value: unknown) => typeof value === 'boolean' || (typeof value === 'object' && value !== null && !Array.isArray(value));
const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;

/** What each draft-07 keyword's value must be (the draft-07 meta-schema, keyword by keyword). */
const rules: Record<string, [check: (value: unknown) => boolean, expected: string]> = {
  $id: [(value) => typeof value === 'string', 'a string'],
  $ref: [(value) => typeof value === 'string', 'a string'],
  $comment: [(value) => typeof value === 'string', 'a string'],
  title: [(value) => typeof value === 'string', 'a string'],
  description: [(value) => typeof value === 'string', 'a string'],
  pattern: [(value) => typeof value === 'string', 'a string'],
  format: [(value) => typeof value === 'string', 'a string'],
  contentMediaType: [(value) => typeof value === 'string', 'a string'],
  contentEncoding: [(value) => typeof value === 'string', 'a string'],
  readOnly: [(value) => typeof value === 'boolean', 'a boolean'],
  writeOnly: [(value) => typeof value === 'boolean', 'a boolean'],
  uniqueItems: [(value) => typeof value === 'boolean', 'a boolean'],
  examples: [Array.isArray, 'an array'],
  enum: [Array.isArray, 'an array'],
  multipleOf: [(value) => typeof value === 'number' && value > 0, 'a number greater than 0'],
  maximum: [(value) => typeof value === 'number', 'a number'],
  exclusiveMaximum: [(value) => typeof value === 'number', 'a number'],
  minimum: [(value) => typeof value === 'number', 'a number'],
  exclusiveMinimum: [(value) => typeof value === 'number', 'a number'],
  maxLength: [isCount, 'a non-negative integer'],
  minLength: [isCount, 'a non-negative integer'],
  maxItems: [isCount, 'a non-negative integer'],
  minItems: [isCount, 'a non-negative integer'],
  maxProperties: [isCount, 'a non-negative integer'],
  minProperties: [isCount, 'a non-negative integer'],
  required: [(value) => Array.isArray(value) && value.every((item) => typeof item === 'string'), 'an array of strings'],
  type: [
    (value) => (typeof value === 'string' && simpleTypes.has(value)) || (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string' && simpleTypes.has(item))),
    `one of ${[...simpleTypes].join(', ')}, or a non-empty array of them`,
  ],
  additionalItems: [isSchema, 'a schema'],
  additionalProperties: [isSchema, 'a schema'],
  contains: [isSchema, 'a schema'],
  propertyNames: [isSchema, 'a schema'],
  not: [isSchema, 'a schema'],
  if: [isSchema, 'a schema'],
  then: [isSchema, 'a schema'],
  else: [isSchema, 'a schema'],
  items: [(value) => isSchema(value) || (Array.isArray(value) && value.every(isSchema)), 'a schema or an array of schemas'],
  allOf: [(value) => Array.isArray(value) && value.length > 0 && value.every(isSchema), 'a non-empty array of schemas'],
  anyOf: [(value) => Array.isArray(value) && value.length > 0 && value.every(isSchema), 'a non-empty array of schemas'],
  oneOf: [(value) => Array.isArray(value) && value.length > 0 && value.every(isSchema), 'a non-empty array of schemas'],
  properties: [(value) => isObject(value) && Object.values(value as object).every(isSchema), 'an object of schemas'],
  patternProperties: [(value) => isObject(value) && Object.values(value as object).every(isSchema), 'an object of schemas'],
  definitions: [(value) => isObject(value) && Object.values(value as object).every(isSchema), 'an object of schemas'],
  dependencies: [
    (value) => isObject(value) && Object.values(value as object).every((item) => isSchema(item) || (Array.isArray(item) && item.every((name) => typeof name === 'string'))),
    'an object of schemas or arrays of strings',
  ],
};

/**
 * Why a keyword's value breaks the draft-07 meta-schema, or `undefined` (also for keywords it
 * does not name, which JSON Schema ignores). Checked keyword by keyword while the tool schema
 * is walked once: interpreting the whole meta-schema over a 10,000-value schema cost a tenth
 * of a second.
 *
 * @example
 * checkSchemaKeyword('type', 'strin'); // 'must be one of array, boolean, ...'
 */
export function checkSchemaKeyword(keyword: string, value: unknown): string | undefined {
  const rule = Object.hasOwn(rules, keyword) ? rules[keyword] : undefined;
  return rule === undefined || rule[0](value) ? undefined : `must be ${rule[1]}`;
}
