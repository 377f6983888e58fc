import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Json = Record<string, unknown>;

const defsId = 'urn:quantum-chat:openapi';

/** `#/components/schemas/X` → `urn:…#/$defs/X`, everywhere in a schema. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) =>
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/components/schemas/')
        ? [key, `${defsId}#/$defs/${inner.slice('#/components/schemas/'.length)}`]
        : [key, rewriteRefs(inner)],
    ),
  );
}

/**
 * Compiles the document's schemas with ajv's JSON Schema 2020-12 dialect (the dialect of
 * OpenAPI 3.1) in strict mode, so a keyword ajv does not know fails too. The component
 * schemas become `$defs` of one schema, and `#/components/schemas/…` refs point there.
 */
export function createSchemaValidator(document: Json) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const components = (document.components as { schemas: Record<string, unknown> }).schemas;
  ajv.addSchema({ $id: defsId, $defs: rewriteRefs(components) as Json });
  const cache = new Map<unknown, ValidateFunction>();
  return {
    ajv,
    /** Every component schema compiles (strict mode reports unknown keywords and formats). */
    compileAll(): void {
      for (const name of Object.keys(components)) {
        if (ajv.getSchema(`${defsId}#/$defs/${name}`) === undefined) ajv.compile({ $ref: `${defsId}#/$defs/${name}` });
      }
    },
    /** Validates a value against a schema of the document (a `$ref` or an inline schema); returns ajv's errors as text, or undefined. */
    validate(schema: unknown, value: unknown): string | undefined {
      let validate = cache.get(schema);
      if (validate === undefined) {
        validate = ajv.compile(rewriteRefs(schema) as Json);
        cache.set(schema, validate);
      }
      return validate(value) ? undefined : ajv.errorsText(validate.errors, { separator: '\n' });
    },
  };
}
