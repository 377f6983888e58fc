import type { FoundOperation } from '@quantum-chat/conformance';

type Schema = Record<string, unknown>;

/** An HTTP request for one operation, as the property test sends it. */
export interface OperationRequest {
  method: string;
  /** Below the API's mount point: `/models/quantum-lite`. */
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** Header values the document leaves free (a string of any form): printable ASCII, as HTTP carries it. */
const printableHeaderValue = '^[!-~]{1,40}$';

/** The parts of an operation's request, as one value: `{ path, header, body }`. */
export interface RequestParts {
  path: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}

/** A string schema that says nothing of its form (examples aside): any text is valid there. */
const isFree = (schema: unknown) =>
  typeof schema === 'object' && schema !== null && (schema as Schema).type === 'string' && !['enum', 'const', 'pattern', 'format', 'minLength', 'maxLength'].some((keyword) => keyword in schema);

/**
 * One schema for everything a request of the operation carries, so one generator makes valid
 * requests and one mutator breaks them: `path` (its parameters), `header` (its header
 * parameters; free-text ones made printable) and `body` (the JSON request body).
 *
 * @example
 * requestPartsSchema(checker.findOperation('GET', '/models/x')!); // { type: 'object', required: ['path', 'header'], properties: { path: { …model… }, header: {…} } }
 */
export function requestPartsSchema(found: FoundOperation): Schema {
  const parameters = found.operation.parameters ?? [];
  const group = (where: string): Schema => {
    const own = parameters.filter((parameter) => parameter.in === where);
    return {
      type: 'object',
      properties: Object.fromEntries(own.map((parameter) => [parameter.name, isFree(parameter.schema) ? { ...(parameter.schema as Schema), pattern: printableHeaderValue } : parameter.schema])),
      required: own.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
      // Only the parameters the operation names: other headers are not the document's to judge.
      additionalProperties: false,
    };
  };
  const body = found.operation.requestBody?.content['application/json']?.schema;
  return {
    type: 'object',
    properties: { path: group('path'), header: group('header'), ...(body !== undefined ? { body } : {}) },
    required: ['path', 'header', ...(body !== undefined && found.operation.requestBody?.required === true ? ['body'] : [])],
    additionalProperties: false,
  };
}

/**
 * Whether a mutation of the request parts can be sent as it is meant: a path or header
 * parameter only as another string (HTTP carries nothing else), and never a free-text header
 * (any printable text is valid there); the body anywhere, but not removed.
 */
export function canSendMutation(found: FoundOperation, path: (string | number)[], replacement: unknown): boolean {
  const [part, name] = path;
  if (part === 'body') return true;
  if ((part !== 'path' && part !== 'header') || path.length !== 2 || typeof replacement !== 'string') return false;
  const parameter = found.operation.parameters?.find((candidate) => candidate.name === name && candidate.in === part);
  return parameter !== undefined && !isFree(parameter.schema);
}

/** The request parts as HTTP: parameters put into the path template, headers as strings, the body as JSON. */
export function toOperationRequest(found: FoundOperation, parts: RequestParts): OperationRequest {
  const path = found.template.replace(/\{([^}]+)\}/gu, (_match, name: string) => encodeURIComponent(String(parts.path[name])));
  const headers = Object.fromEntries(Object.entries(parts.header).filter((entry) => entry[1] !== undefined).map(([name, value]) => [name.toLowerCase(), String(value)]));
  return { method: found.method.toUpperCase(), path, headers, ...(parts.body !== undefined ? { body: parts.body } : {}) };
}
