import { createSchemaValidator, type SchemaProblem, type SchemaValidator } from './schema-validator.js';

// Validators by schema text, least recently used out first (and disposed): schemas come from
// requests, so however many distinct ones arrive, memory holds this many.
const maxCachedValidators = 256;
const cache = new Map<string, SchemaValidator>();

/**
 * The validator of a schema, from a bounded cache keyed by the schema's JSON text: a tool
 * schema sent with every request of a conversation is prepared once.
 *
 * @example
 * getSchemaValidator({ type: 'object', required: ['city'] }).validate({ city: 'Oslo' }); // []
 */
export function getSchemaValidator(schema: unknown): SchemaValidator {
  const key = JSON.stringify(schema) ?? 'undefined';
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const validator = createSchemaValidator(schema);
  cache.set(key, validator);
  if (cache.size > maxCachedValidators) {
    const oldest = cache.keys().next().value!;
    cache.get(oldest)!.dispose();
    cache.delete(oldest);
  }
  return validator;
}

/**
 * The problems of `value` against `schema` (none: `[]`), through the cached validator.
 *
 * @example
 * validateWithSchema({ type: 'string', pattern: '^[A-Z]{3}$' }, 'eur'); // [{ path: '', message: 'String does not match the pattern /^[A-Z]{3}$/.' }]
 */
export function validateWithSchema(schema: unknown, value: unknown, options?: { all?: boolean }): SchemaProblem[] {
  return getSchemaValidator(schema).validate(value, options);
}
