// The API reference page: renders the server's own OpenAPI document, fetched from the API
// (`<api base>/openapi.json`). Everything it needs is served by this server.
import { apiBaseUrl, byId, h } from '../dom.js';
import { fullPath, httpMethods, operationAnchor, renderOperation, renderSchemaSection, type ApiDocument, type PathItem } from './render-operation.js';
import { renderExamples } from './render-examples.js';
import { description } from './render-text.js';

const reference = byId('reference');
const toc = byId('toc');

/** `HTTP bearer token`, `API key in header x-api-key`, … */
function schemeKind(scheme: Record<string, unknown>): string {
  if (scheme.type === 'http') return `HTTP ${String(scheme.scheme ?? '')} token`.replace('  ', ' ');
  if (scheme.type === 'apiKey') return `API key in ${String(scheme.in)} ${String(scheme.name)}`;
  return String(scheme.type);
}

/** The API's base URL: the document's server (relative to this page), else the page's API base. */
const baseUrlOf = (document: ApiDocument) => new URL(document.servers?.[0]?.url ?? apiBaseUrl(), window.location.href).href.replace(/\/+$/u, '');

function overview(document: ApiDocument, openApiUrl: string): HTMLElement {
  const base = baseUrlOf(document);
  const schemes = Object.entries(document.components?.securitySchemes ?? {});
  return h(
    'section',
    { class: 'overview', id: 'overview' },
    h('h1', {}, document.info.title, h('span', { class: 'version' }, document.info.version)),
    description(document.info.description, 'lead'),
    h('dl', { class: 'facts' }, h('dt', {}, 'Base URL'), h('dd', {}, h('code', {}, base)), h('dt', {}, 'OpenAPI'), h('dd', {}, h('a', { href: openApiUrl }, `openapi.json`), ` (OpenAPI ${document.openapi})`)),
    schemes.length > 0 && h('h2', { id: 'authentication' }, 'Authentication'),
    schemes.map(([name, scheme]) => h('div', { class: 'scheme' }, h('p', {}, h('code', {}, name), ` (${schemeKind(scheme)})`), description(scheme.description))),
  );
}

/** The API's paths, and apart those with a server of their own (the admin API), in document order. */
function pathGroups(document: ApiDocument): { main: [string, PathItem][]; own: [string, PathItem][] } {
  const entries = Object.entries(document.paths);
  return { main: entries.filter(([, item]) => item.servers === undefined), own: entries.filter(([, item]) => item.servers !== undefined) };
}

const operationsOf = (entries: [string, PathItem][]) =>
  entries.flatMap(([path, item]) => httpMethods.filter((method) => item[method]).map((method) => ({ method, path, item, operation: item[method]! })));

function tableOfContents(document: ApiDocument): HTMLElement[] {
  const links = (entries: [string, PathItem][]) =>
    operationsOf(entries).map(({ method, path, item, operation }) =>
      h('li', {}, h('a', { href: `#${operationAnchor(method, path, operation)}` }, h('span', { class: `method method-${method}` }, method.toUpperCase()), ' ', fullPath(path, item))),
    );
  const { main, own } = pathGroups(document);
  const schemas = Object.keys(document.components?.schemas ?? {}).map((name) => h('li', {}, h('a', { href: `#schema-${name}` }, name)));
  return [
    h('a', { class: 'toc-title', href: '#overview' }, 'Overview'),
    h('a', { class: 'toc-title', href: '#examples' }, 'Example requests'),
    h('h2', {}, 'Endpoints'),
    h('ul', {}, links(main)),
    ...(own.length > 0 ? [h('h2', {}, 'Admin API'), h('ul', {}, links(own))] : []),
    h('h2', {}, 'Schemas'),
    h('ul', {}, schemas),
  ];
}

function render(document: ApiDocument, openApiUrl: string): void {
  const { main, own } = pathGroups(document);
  const operations = (entries: [string, PathItem][]) => operationsOf(entries).map(({ method, path, item, operation }) => renderOperation(document, method, fullPath(path, item), operation));
  const ownServer = own[0]?.[1].servers?.[0];
  const schemas = Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => renderSchemaSection(name, schema));
  reference.replaceChildren(
    overview(document, openApiUrl),
    renderExamples(baseUrlOf(document)),
    h('h2', { id: 'endpoints' }, 'Endpoints'),
    ...operations(main),
    ...(own.length > 0 ? [h('h2', { id: 'admin-api' }, 'Admin API'), description(ownServer?.description) ?? '', ...operations(own)] : []),
    h('h2', { id: 'schemas' }, 'Schemas'),
    ...schemas,
  );
  // Wide tables scroll inside their own box instead of widening the page (phones).
  for (const table of reference.querySelectorAll('table')) {
    const box = h('div', { class: 'table-scroll' });
    table.replaceWith(box);
    box.append(table);
  }
  toc.replaceChildren(...tableOfContents(document));
  // The page was empty when the browser tried to scroll to the fragment.
  if (window.location.hash) window.document.getElementById(window.location.hash.slice(1))?.scrollIntoView();
}

async function load(): Promise<void> {
  const openApiUrl = `${apiBaseUrl()}/openapi.json`;
  try {
    const response = await fetch(openApiUrl, { headers: { accept: 'application/json' } });
    if (!response.ok) throw new Error(`GET ${openApiUrl} answered ${response.status}.`);
    render((await response.json()) as ApiDocument, openApiUrl);
  } catch (error) {
    reference.replaceChildren(h('div', { class: 'error', role: 'alert' }, h('p', { class: 'error-head' }, 'The API description could not be loaded.'), h('p', { class: 'error-message' }, error instanceof Error ? error.message : String(error))));
  }
}

void load();
