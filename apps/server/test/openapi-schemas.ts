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
 * The served document's schemas compiled with ajv's JSON Schema 2020-12 dialect (that of
 * OpenAPI 3.1) in strict mode, so that an unknown keyword fails too.
 */
export function createSchemaValidator(document: Json) {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    // The two formats the admin API's inputs use (RFC 3339), checked by shape.
    formats: {
      date: /^\d{4}-\d{2}-\d{2}$/u,
      'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/iu,
    },
  });
  const components = (document.components as { schemas: Record<string, unknown> }).schemas;
  ajv.addSchema({ $id: defsId, $defs: rewriteRefs(components) as Json });
  const cache = new Map<unknown, ValidateFunction>();
  return {
    compileAll(): void {
      for (const name of Object.keys(components)) {
        if (ajv.getSchema(`${defsId}#/$defs/${name}`) === undefined) ajv.compile({ $ref: `${defsId}#/$defs/${name}` });
      }
    },
    /** ajv's errors as text, or undefined when the value is valid. */
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
