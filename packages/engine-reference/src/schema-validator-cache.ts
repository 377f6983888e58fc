import Ajv, { type ValidateFunction } from 'ajv';

/*
 * One Ajv instance for the process, `strict: false` so vendor keywords and unknown formats
 * in client schemas do not throw, `logger: false` so they do not print either.
 */
const ajv = new Ajv({ strict: false, logger: false });

/** Compiled validators by schema text. Bounded, because schemas come from clients. */
const maxEntries = 256;
const cache = new Map<string, ValidateFunction | null>();

function compile(schema: Record<string, unknown>): ValidateFunction | null {
  // Ajv's default meta-schema is draft-07; a `$schema` naming another draft would not compile.
  const { $schema: _ignored, ...rest } = schema;
  try {
    return ajv.compile(rest);
  } catch {
    return null; // a schema Ajv cannot compile is not checked (the handler validated it already)
  } finally {
    // Ajv also keeps every compiled schema by object identity (and by $id); drop it so
    // memory is bounded by our cache alone and a reused $id never collides.
    try {
      ajv.removeSchema(rest);
    } catch {
      // nothing was registered
    }
  }
}

/**
 * The compiled Ajv validator of a JSON Schema, cached by the schema's JSON text (least
 * recently used out first). `null` when the schema does not compile.
 *
 * @example
 * getSchemaValidator({ type: 'object', required: ['city'] })?.({ city: 'Oslo' }); // true
 * @internal
 */
export function getSchemaValidator(schema: Record<string, unknown>): ValidateFunction | null {
  const key = JSON.stringify(schema);
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const validator = compile(schema);
  cache.set(key, validator);
  if (cache.size > maxEntries) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return validator;
}
