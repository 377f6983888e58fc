import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { assetNames, createStaticFiles, defaultStaticDirectory } from './static-files.js';

/** Options of {@link quantumChatWeb}. Paths are below the plugin's prefix, if it has one. */
export interface QuantumChatWebOptions {
  /** Where the pages call the API, as the browser sees it: `/v1` by default. */
  apiBasePath?: string;
  /** The playground page: `/` by default. */
  playgroundPath?: string;
  /** The API reference page: `/docs` by default. */
  docsPath?: string;
  /** The usage view (tokens per model per day, from the admin API): `/usage` by default. */
  usagePath?: string;
  /** Where the usage view calls the admin API, as the browser sees it: `/admin/v1` by default. */
  adminApiBasePath?: string;
  /** Where the pages' scripts and stylesheet are served: `/assets` by default. */
  assetsPath?: string;
  /** Where the built pages are read from; the package's own `dist/static/` by default. */
  staticDirectory?: string;
}

/*
 * Everything the pages load comes from this server: no CDN, no inline script. The playground
 * talks to the API on the same origin only.
 */
const securityHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

const escapeAttribute = (value: string) => value.replace(/&/gu, '&amp;').replace(/"/gu, '&quot;').replace(/</gu, '&lt;');

/** `/docs/` and `/docs` are one page; the root stays `/`. */
const trimSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/u, '') : path);

/**
 * The playground (`GET /`), the API reference (`GET /docs`) and the usage view (`GET /usage`,
 * for the admin, from the admin API) of the Quantum chat server,
 * served from this package's built files: nothing is fetched from anywhere else, so both work
 * offline. The reference renders the API's own `/openapi.json`; the playground calls the API
 * with `@quantum-chat/client`. Unknown asset names go to the app's not-found handler.
 *
 * @example
 * await app.register(fastifyQuantumChat, { prefix: '/v1', engine, accessControl });
 * await app.register(quantumChatWeb, { apiBasePath: '/v1' });
 */
export const quantumChatWeb: FastifyPluginAsync<QuantumChatWebOptions> = async (fastify, options) => {
  const files = createStaticFiles(options.staticDirectory ?? defaultStaticDirectory);
  const prefix = fastify.prefix;
  const apiBase = trimSlash(options.apiBasePath ?? '/v1');
  const playgroundPath = trimSlash(options.playgroundPath ?? '/');
  const docsPath = trimSlash(options.docsPath ?? '/docs');
  const usagePath = trimSlash(options.usagePath ?? '/usage');
  const adminApiBase = trimSlash(options.adminApiBasePath ?? '/admin/v1');
  const assetsPath = trimSlash(options.assetsPath ?? '/assets');
  // The pages are templates: they learn where the API, the other page and the assets are.
  const values: Record<string, string> = {
    API_BASE: apiBase,
    ADMIN_API_BASE: adminApiBase,
    ASSETS: `${prefix}${assetsPath}`,
    DOCS: `${prefix}${docsPath}`,
    USAGE: `${prefix}${usagePath}`,
    PLAYGROUND: `${prefix}${playgroundPath}` || '/',
  };
  const pages = new Map<string, Promise<string>>();
  const render = (name: string) => {
    let page = pages.get(name);
    if (page === undefined) {
      page = files.read(name).then(({ body }) => String(body).replace(/%(API_BASE|ADMIN_API_BASE|ASSETS|DOCS|USAGE|PLAYGROUND)%/gu, (_, key: string) => escapeAttribute(values[key]!)));
      page.catch(() => pages.delete(name));
      pages.set(name, page);
    }
    return page;
  };
  const sendPage = async (reply: FastifyReply, name: string) =>
    reply.headers(securityHeaders).type('text/html; charset=utf-8').send(await render(name));

  fastify.get(playgroundPath, (_request, reply) => sendPage(reply, 'playground.html'));
  fastify.get(docsPath, (_request, reply) => sendPage(reply, 'docs.html'));
  if (docsPath !== '/') fastify.get(`${docsPath}/`, (_request, reply) => reply.redirect(`${prefix}${docsPath}`));
  fastify.get(usagePath, (_request, reply) => sendPage(reply, 'usage.html'));

  const served = new Set<string>(assetNames);
  fastify.get<{ Params: { name: string } }>(`${assetsPath}/:name`, async (request, reply) => {
    if (!served.has(request.params.name)) return reply.callNotFound();
    const file = await files.read(request.params.name);
    return reply.headers(securityHeaders).type(file.contentType).send(file.body);
  });
};
