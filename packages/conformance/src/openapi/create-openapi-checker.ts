import { createSchemaValidator, type SchemaValidator } from '@quantum-chat/core/json-schema';
import { decodeEventItem, decodeItemSchema } from './decode-content.js';
import { parseEventStream } from './parse-event-stream.js';

type Json = Record<string, unknown>;

/** The parts of an OpenAPI 3.1/3.2 document the checker reads. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown>; headers?: Record<string, unknown> };
}

export interface MediaTypeObject {
  schema?: unknown;
  itemSchema?: unknown;
}

export interface ResponseObject {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaTypeObject>;
}

export interface OperationObject {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[];
  requestBody?: { required?: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject>;
}

/** An operation found for a request: its path template and method. */
export interface FoundOperation {
  template: string;
  method: string;
  operation: OperationObject;
}

/** A response as received: status, headers (names in any case) and the body's text. */
export interface ReceivedResponse {
  status: number;
  headers: Headers | Record<string, string>;
  body: string;
}

const schemaDialect = 'https://json-schema.org/draft/2020-12/schema';
const componentSchemaPrefix = '#/components/schemas/';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `#/components/schemas/X` → `#/$defs/X`, everywhere: the component schemas become `$defs` of the root. */
function pointRefsAtDefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pointRefsAtDefs);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith(componentSchemaPrefix) ? `#/$defs/${inner.slice(componentSchemaPrefix.length)}` : pointRefsAtDefs(inner),
    ]),
  );
}

/** The media type of a `content-type` value, without parameters, lower case. */
export const mediaTypeOf = (contentType: string | null | undefined) => (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();

function headerValue(headers: ReceivedResponse['headers'], name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

/** A header's text as the value its schema describes (OpenAPI's `simple` style: numbers and booleans are written as text). */
function headerAsValue(text: string, schema: unknown): unknown {
  const type = isObject(schema) ? schema.type : undefined;
  if ((type === 'integer' || type === 'number') && /^-?\d+(?:\.\d+)?$/u.test(text)) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/**
 * Checks requests and responses against an OpenAPI document, with the core's codegen-free
 * JSON Schema validator: the status must be documented for the operation, the content type
 * too, documented headers must match their schemas (required ones present), a JSON body its
 * schema, and every event of a `text/event-stream` body its `itemSchema`, JSON `data` decoded
 * and checked against its `contentSchema`. What a test tool such as Schemathesis checks.
 *
 * @example
 * const checker = createOpenApiChecker(await (await fetch(`${baseUrl}/openapi.json`)).json());
 * const found = checker.findOperation('POST', '/chat/completions')!;
 * expect(checker.checkResponse(found, { status: response.status, headers: response.headers, body: await response.text() })).toEqual([]);
 */
export function createOpenApiChecker(document: OpenApiDocument) {
  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  const defs = pointRefsAtDefs(schemas) as Json;
  const validators = new Map<unknown, SchemaValidator>();
  const itemValidators = new Map<unknown, SchemaValidator>();

  function resolve(ref: string): unknown {
    if (!ref.startsWith('#/components/')) throw new TypeError(`Only refs into #/components are supported: ${ref}`);
    let node: unknown = document;
    for (const part of ref.slice(2).split('/')) node = isObject(node) ? node[part.replace(/~1/gu, '/').replace(/~0/gu, '~')] : undefined;
    if (node === undefined) throw new TypeError(`Unresolved ref ${ref}`);
    return node;
  }

  const deref = <T>(value: unknown): T => (isObject(value) && typeof value.$ref === 'string' ? deref<T>(resolve(value.$ref)) : (value as T));

  function validatorOf(cache: Map<unknown, SchemaValidator>, schema: unknown, make: () => unknown): SchemaValidator {
    // A bare `{ $ref }` written by a test is a new object each time: cached by its target.
    const key = isObject(schema) && typeof schema.$ref === 'string' && Object.keys(schema).length === 1 ? `ref:${schema.$ref}` : schema;
    let validator = cache.get(key);
    if (validator === undefined) {
      const target = pointRefsAtDefs(make());
      const root = typeof target === 'boolean' ? { $schema: schemaDialect, $defs: defs, ...(target ? {} : { not: {} }) } : { $schema: schemaDialect, $defs: defs, ...(target as Json) };
      validator = createSchemaValidator(root);
      cache.set(key, validator);
    }
    return validator;
  }

  /** The problems of `value` against a schema of the document (inline or a `$ref`), as `path: message` lines. */
  function validate(schema: unknown, value: unknown): string[] {
    const problems = validatorOf(validators, schema, () => schema).validate(value, { all: true });
    return problems.map((problem) => `${problem.path || '/'}: ${problem.message}`);
  }

  /** Whether `value` is valid against a schema of the document: stops at the first problem. */
  function accepts(schema: unknown, value: unknown): boolean {
    return validatorOf(validators, schema, () => schema).validate(value).length === 0;
  }

  /** The problems of one stream event against an item schema, its JSON content decoded. */
  function validateEvent(itemSchema: unknown, item: Json): string[] {
    const problems = validatorOf(itemValidators, itemSchema, () => decodeItemSchema(itemSchema, resolve)).validate(decodeEventItem(item), { all: true });
    return problems.map((problem) => `${problem.path.replace(/\/(?:raw|json)(?=\/|$)/u, '') || '/'}: ${problem.message}`);
  }

  /** The operation of a method and a path below the document's server (`/models/quantum-lite`; a query string is not part of the path). */
  function findOperation(method: string, pathAndQuery: string): FoundOperation | undefined {
    const lower = method.toLowerCase();
    const path = pathAndQuery.split('?', 1)[0]!;
    for (const [template, item] of Object.entries(document.paths)) {
      const pattern = new RegExp(`^${template.split(/\{[^}]+\}/u).map((part) => part.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')).join('[^/]+')}$`, 'u');
      if (pattern.test(path) && isObject(item[lower])) return { template, method: lower, operation: item[lower] as unknown as OperationObject };
    }
    return undefined;
  }

  /** The documented response of a status: its own entry, its `NXX` range, or `default`. */
  function responseFor(operation: OperationObject, status: number): ResponseObject | undefined {
    const entry = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
    return entry === undefined ? undefined : deref<ResponseObject>(entry);
  }

  /** Every way a received response departs from what the document says of its operation. */
  function checkResponse(found: FoundOperation, response: ReceivedResponse): string[] {
    const where = `${found.method.toUpperCase()} ${found.template} → ${response.status}`;
    const documented = responseFor(found.operation, response.status);
    if (documented === undefined) return [`${where}: status ${response.status} is not documented (documented: ${Object.keys(found.operation.responses).join(', ')})`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      const definition = deref<{ required?: boolean; schema?: unknown }>(header);
      const text = headerValue(response.headers, name);
      if (text === undefined) {
        if (definition.required === true) problems.push(`${where}: the required header ${name} is missing`);
        continue;
      }
      if (definition.schema !== undefined) problems.push(...validate(definition.schema, headerAsValue(text, definition.schema)).map((problem) => `${where}: header ${name}: ${problem}`));
    }
    const contentType = headerValue(response.headers, 'content-type');
    if (documented.content === undefined) {
      if (response.body !== '') problems.push(`${where}: a body is sent, but the document describes none`);
      return problems;
    }
    const mediaType = mediaTypeOf(contentType);
    const media = documented.content[mediaType];
    if (media === undefined) return [...problems, `${where}: content type ${contentType ?? '(none)'} is not documented (documented: ${Object.keys(documented.content).join(', ')})`];
    if (media.itemSchema !== undefined) {
      const items = parseEventStream(response.body);
      if (items.length === 0) problems.push(`${where}: the event stream holds no event`);
      items.forEach((item, index) => problems.push(...validateEvent(media.itemSchema, item as unknown as Json).map((problem) => `${where}: event ${index} ${JSON.stringify(item).slice(0, 200)}: ${problem}`)));
    }
    if (media.schema !== undefined) {
      if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
        let body: unknown;
        try {
          body = JSON.parse(response.body);
        } catch {
          return [...problems, `${where}: the body is not JSON: ${response.body.slice(0, 200)}`];
        }
        problems.push(...validate(media.schema, body).map((problem) => `${where}: body ${problem}`));
      } else if (media.itemSchema === undefined) {
        problems.push(...validate(media.schema, response.body).map((problem) => `${where}: body ${problem}`));
      }
    }
    return problems;
  }

  return { document, resolve, deref, validate, accepts, validateEvent, findOperation, responseFor, checkResponse };
}

export type OpenApiChecker = ReturnType<typeof createOpenApiChecker>;
