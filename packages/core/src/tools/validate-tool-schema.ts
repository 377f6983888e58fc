import Ajv from 'ajv';

/** Why a tool's `parameters` was refused, with the path inside the schema when known. */
export interface ToolSchemaProblem {
  message: string;
}

// Schema nodes beyond this are refused: checking must never stall the event loop.
const maxSchemaNodes = 10_000;
const knownMetaSchemas = new Set([
  'http://json-schema.org/draft-07/schema#',
  'http://json-schema.org/draft-07/schema',
  'https://json-schema.org/draft/2020-12/schema',
  'http://json-schema.org/schema#',
]);

let metaValidator: Ajv | undefined;

/** Walks the schema once: counts nodes and finds `$ref`s that point outside the document. */
function findStructuralProblem(schema: unknown): string | undefined {
  const pending: unknown[] = [schema];
  let nodes = 0;
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (++nodes > maxSchemaNodes) return `the schema has more than ${maxSchemaNodes} nodes`;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) {
        return `remote $ref "${value.slice(0, 100)}" is not allowed; only local refs starting with "#" are`;
      }
      if (typeof value === 'object' && value !== null) pending.push(value);
    }
  }
  return undefined;
}

/**
 * Checks that a tool's `parameters` is a valid JSON Schema object (draft-07 meta-schema, via
 * ajv) with no remote `$ref`. Returns a problem or `undefined`. Nothing is fetched.
 */
export function findToolSchemaProblem(parameters: Record<string, unknown>): ToolSchemaProblem | undefined {
  const structural = findStructuralProblem(parameters);
  if (structural !== undefined) return { message: structural };
  const { $schema, ...rest } = parameters;
  if ($schema !== undefined && (typeof $schema !== 'string' || !knownMetaSchemas.has($schema))) {
    return { message: 'unsupported $schema; use draft-07 or 2020-12, or leave it out' };
  }
  if (rest.type !== undefined && rest.type !== 'object') {
    return { message: 'the root of a function\'s parameters must be of type "object"' };
  }
  metaValidator ??= new Ajv({ strict: false, validateFormats: false });
  let valid: boolean;
  try {
    valid = metaValidator.validateSchema(rest) as boolean;
  } catch (error) {
    return { message: `the schema could not be checked: ${(error as Error).message}` };
  }
  if (valid) return undefined;
  const first = metaValidator.errors?.[0];
  const where = first?.instancePath ? ` at ${first.instancePath}` : '';
  return { message: `not a valid JSON Schema${where}: ${first?.message ?? 'invalid'}` };
}
