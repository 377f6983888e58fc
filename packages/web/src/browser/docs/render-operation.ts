import { h } from '../dom.js';
import { renderSchema, typeLink } from './render-schema.js';
import { description, renderText } from './render-text.js';
import { refName, variantsOf, type Schema } from './schema-summary.js';

/** The parts of an OpenAPI 3.1 or 3.2 document the page renders. */
export interface ApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  security?: Record<string, string[]>[];
  paths: Record<string, PathItem>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, Schema>; headers?: Record<string, Schema> };
}

export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema; description?: string }[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { description?: string; headers?: Record<string, Schema>; content?: Record<string, MediaType> }>;
}

/** A body's media type: `schema` for the whole body, `itemSchema` (OpenAPI 3.2) for each event of a stream. */
type MediaType = { schema?: Schema; itemSchema?: Schema };

export const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

/** A path's operations, and the server it has of its own (the admin API's `/admin/v1`), if any. */
export type PathItem = { servers?: { url: string; description?: string }[] } & Partial<Record<(typeof httpMethods)[number], Operation>>;

/** The path as a request names it: below the path's own server when it has one (`/admin/v1/keys`). */
export const fullPath = (path: string, item: PathItem) => `${item.servers?.[0]?.url.replace(/\/+$/u, '') ?? ''}${path}`;


/** The anchor of an operation: its `operationId`, else method and path. */
export const operationAnchor = (method: string, path: string, operation: Operation) => `op-${operation.operationId ?? `${method}-${path.replace(/[^a-z0-9]+/giu, '-')}`}`;

/** A `$ref` into `components`, resolved; anything else as it is. */
function resolve(document: ApiDocument, value: Schema | undefined): Schema | undefined {
  const ref = value?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/components/')) return value;
  const [, , section, name] = ref.split('/');
  return (document.components as Record<string, Record<string, Schema>> | undefined)?.[section!]?.[name!];
}

function authNote(document: ApiDocument, operation: Operation): HTMLElement {
  const security = operation.security ?? document.security ?? [];
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  const optional = security.some((requirement) => Object.keys(requirement).length === 0);
  const described: Record<string, string> = { bearerAuth: 'Authorization: Bearer <API key>', adminAuth: 'Authorization: Bearer <admin token>' };
  const text = schemes.length === 0 ? 'No authentication.' : `${optional ? 'Optional' : 'Required'}: ${schemes.map((scheme) => described[scheme] ?? scheme).join(' or ')}.`;
  return h('p', { class: `auth ${optional || schemes.length === 0 ? 'auth-optional' : 'auth-required'}` }, h('span', { class: 'label' }, 'Auth'), ' ', text);
}

function table(headings: string[], rows: HTMLElement[]): HTMLElement {
  return h('table', { class: 'properties' }, h('thead', {}, h('tr', {}, headings.map((heading) => h('th', {}, heading)))), h('tbody', {}, rows));
}

function parametersTable(operation: Operation): HTMLElement | undefined {
  if (!operation.parameters?.length) return undefined;
  const rows = operation.parameters.map((parameter) =>
    h('tr', {}, h('td', { class: 'property-name' }, h('code', {}, parameter.name), parameter.required && h('span', { class: 'required' }, 'required')), h('td', {}, parameter.in), h('td', {}, typeLink(parameter.schema)), h('td', {}, description(parameter.description))),
  );
  return h('div', {}, h('h4', {}, 'Parameters'), table(['Name', 'In', 'Type', 'Description'], rows));
}

/** An event's name as a reader looks for it: `event: message`, or also unnamed when the name is optional. */
function eventName(variant: Schema): string {
  const name = ((variant.properties ?? {}) as Record<string, Schema>).event?.const;
  if (name === undefined) return '(unnamed)';
  const required = Array.isArray(variant.required) && variant.required.includes('event');
  return required ? `event: ${String(name)}` : `event: ${String(name)}, or unnamed`;
}

/** The events of a `text/event-stream` body, from its `itemSchema` (one row per variant). */
function eventsTable(document: ApiDocument, itemSchema: Schema): HTMLElement | undefined {
  const variants = variantsOf(resolve(document, itemSchema) ?? {});
  if (!variants) return undefined;
  const rows = variants.map((variant) => {
    const properties = (variant.properties ?? {}) as Record<string, Schema>;
    return h('tr', { class: 'sse-event' }, h('td', {}, h('code', {}, eventName(variant))), h('td', {}, typeLink(properties.data)), h('td', {}, description(variant.description)));
  });
  return h('div', { class: 'events' }, h('h5', {}, 'Events'), table(['Event', 'Data', 'When'], rows), h('p', { class: 'hint' }, 'Event schema: ', typeLink(itemSchema), '.'));
}

function contentBlock(document: ApiDocument, content: Record<string, MediaType> | undefined): HTMLElement[] {
  return Object.entries(content ?? {}).map(([mediaType, media]) =>
    h(
      'div',
      { class: 'media' },
      h('p', { class: 'media-type' }, h('code', {}, mediaType), media.schema && ' ', media.schema && typeLink(media.schema), media.itemSchema && ' ', media.itemSchema && h('span', {}, 'one ', typeLink(media.itemSchema), ' per event')),
      media.schema && typeof media.schema.$ref !== 'string' && description(media.schema.description),
      media.itemSchema && eventsTable(document, media.itemSchema),
    ),
  );
}

function responseBlock(document: ApiDocument, status: string, response: Operation['responses'][string]): HTMLElement {
  const headers = Object.entries(response.headers ?? {}).map(([name, header]) => {
    const resolved = resolve(document, header) ?? {};
    return h('tr', {}, h('td', {}, h('code', {}, name)), h('td', {}, typeLink(resolved.schema)), h('td', {}, description(resolved.description)));
  });
  return h(
    'details',
    { class: 'response', open: status.startsWith('2') },
    h('summary', {}, h('span', { class: `status status-${status[0]}xx` }, status), ' ', ...renderText(response.description ?? '')),
    headers.length > 0 && h('div', {}, h('h5', {}, 'Headers'), table(['Header', 'Type', 'Description'], headers)),
    contentBlock(document, response.content),
  );
}

/**
 * One endpoint: method and path, what it does, its auth, parameters, request body, and every
 * response with its headers, body schema and (for streams) its events.
 *
 * @example
 * reference.append(renderOperation(document, 'post', '/chat/completions', document.paths['/chat/completions'].post));
 */
export function renderOperation(document: ApiDocument, method: string, path: string, operation: Operation): HTMLElement {
  const body = operation.requestBody;
  return h(
    'section',
    { class: 'operation', id: operationAnchor(method, path, operation) },
    h('h3', {}, h('span', { class: `method method-${method}` }, method.toUpperCase()), ' ', h('code', { class: 'path' }, path), operation.summary && h('span', { class: 'op-summary' }, operation.summary)),
    description(operation.description),
    authNote(document, operation),
    parametersTable(operation),
    body && h('div', {}, h('h4', {}, 'Request body', body.required && h('span', { class: 'required' }, 'required')), contentBlock(document, body.content)),
    h('h4', {}, 'Responses'),
    Object.entries(operation.responses).map(([status, response]) => responseBlock(document, status, response)),
  );
}

/** The section of a component schema. */
export function renderSchemaSection(name: string, schema: Schema): HTMLElement {
  return h('section', { class: 'schema-section', id: `schema-${name}` }, h('h3', {}, h('code', {}, refName(name))), renderSchema(schema));
}
