import type { FoundOperation } from './create-openapi-checker.js';

type Schema = Record<string, unknown>;
type Path = (string | number)[];

/** An HTTP request for one operation, as the property test sends it. */
export interface OperationRequest {
  method: string;
  /** Below the operation's server: `/models/quantum-lite`, `/usage?since=2026-01-01`. */
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** The parts of an operation's request, as one value: `{ path, query, header, body }`. */
export interface RequestParts {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body?: unknown;
}

/** Where parameters go (cookies are not used by these APIs). */
const parameterPlaces = ['path', 'query', 'header'] as const;

/** Header values the document leaves free (a string of any form): printable ASCII, as HTTP carries it. */
const printableHeaderValue = '^[!-~]{1,40}$';

const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string schema that says nothing of its form (examples aside): any text is valid there. */
const isFreeText = (schema: unknown) =>
  isObject(schema) && schema.type === 'string' && !['enum', 'const', 'pattern', 'format', 'minLength', 'maxLength'].some((keyword) => keyword in schema);

/**
 * A parameter's text as the value its schema describes (OpenAPI's `simple` and `form` styles
 * for a scalar): digits for a number, `true`/`false` for a boolean, else the text itself.
 */
export function parameterValue(text: string, schema: unknown): unknown {
  const types = isObject(schema) ? (Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type]) : [];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(?:\.\d+)?$/u.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * One schema for everything a request of the operation carries, so one generator makes valid
 * requests and one mutator breaks them: `path`, `query` and `header` (its parameters; free-text
 * headers made printable) and `body` (the JSON request body).
 *
 * @example
 * requestPartsSchema(checker.findOperation('GET', '/models/x')!); // { type: 'object', required: ['path', 'query', 'header'], properties: { path: { …model… }, … } }
 */
export function requestPartsSchema(found: FoundOperation): Schema {
  const parameters = found.operation.parameters ?? [];
  const group = (where: string): Schema => {
    const own = parameters.filter((parameter) => parameter.in === where);
    return {
      type: 'object',
      properties: Object.fromEntries(
        own.map((parameter) => [parameter.name, where === 'header' && isFreeText(parameter.schema) ? { ...(parameter.schema as Schema), pattern: printableHeaderValue } : parameter.schema]),
      ),
      required: own.filter((parameter) => parameter.required === true).map((parameter) => parameter.name),
      // Only the parameters the operation names: others are not the document's to judge.
      additionalProperties: false,
    };
  };
  const body = found.operation.requestBody?.content['application/json']?.schema;
  return {
    type: 'object',
    properties: { ...Object.fromEntries(parameterPlaces.map((where) => [where, group(where)])), ...(body !== undefined ? { body } : {}) },
    required: [...parameterPlaces, ...(body !== undefined && found.operation.requestBody?.required === true ? ['body'] : [])],
    additionalProperties: false,
  };
}

/**
 * Whether a mutation of the request parts can be sent as it is meant. A parameter travels as
 * text: a scalar replacement is sent if its text, read back as the schema reads it, is still
 * invalid (`accepts`), and never into a free-text header, where any printable text is valid.
 * The body may change anywhere, but not be removed.
 */
export function canSendMutation(found: FoundOperation, path: Path, replacement: unknown, accepts: (schema: unknown, value: unknown) => boolean): boolean {
  const [part, name] = path;
  if (part === 'body') return true;
  if (!(parameterPlaces as readonly unknown[]).includes(part) || path.length !== 2) return false;
  if (typeof replacement !== 'string' && typeof replacement !== 'number' && typeof replacement !== 'boolean') return false;
  const parameter = found.operation.parameters?.find((candidate) => candidate.name === name && candidate.in === part);
  if (parameter === undefined || (part === 'header' && isFreeText(parameter.schema))) return false;
  const text = String(replacement);
  // A path segment is never empty, and a header value keeps to printable text.
  if (text === '' || (part === 'header' && !/^[!-~]+$/u.test(text))) return false;
  return !accepts(parameter.schema, parameterValue(text, parameter.schema));
}

/** Whether every path parameter makes a path segment of its own (not empty, not `.` or `..`, which URLs fold away). */
export function hasSendablePath(parts: RequestParts): boolean {
  return Object.values(parts.path).every((value) => !['', '.', '..'].includes(String(value)));
}

/** The request parts as HTTP: parameters put into the path template and the query, headers as strings, the body as JSON. */
export function toOperationRequest(found: FoundOperation, parts: RequestParts): OperationRequest {
  const path = found.template.replace(/\{([^}]+)\}/gu, (_match, name: string) => encodeURIComponent(String(parts.path[name])));
  const query = new URLSearchParams(Object.entries(parts.query).filter((entry) => entry[1] !== undefined).map(([name, value]) => [name, String(value)])).toString();
  const headers = Object.fromEntries(Object.entries(parts.header).filter((entry) => entry[1] !== undefined).map(([name, value]) => [name.toLowerCase(), String(value)]));
  return { method: found.method.toUpperCase(), path: query === '' ? path : `${path}?${query}`, headers, ...(parts.body !== undefined ? { body: parts.body } : {}) };
}
