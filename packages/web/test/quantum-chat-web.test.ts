import Fastify from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { quantumChatWeb, type QuantumChatWebOptions } from '../src/index.js';

async function createApp(options: QuantumChatWebOptions = {}, prefix?: string) {
  const app = Fastify();
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: { message: 'not found', type: 'invalid_request_error', param: null, code: 'unknown_url' } }));
  await app.register(quantumChatWeb, { ...options, ...(prefix ? { prefix } : {}) });
  onTestFinished(() => app.close());
  return app;
}

describe('quantumChatWeb', () => {
  it('should serve the playground at / and the reference at /docs, pointing at the API and the local assets', async () => {
    const app = await createApp();
    const playground = await app.inject('/');
    expect(playground.statusCode).toBe(200);
    expect(playground.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(playground.body).toContain('<meta name="quantum-chat-api" content="/v1" />');
    expect(playground.body).toContain('<script type="module" src="/assets/playground.js"></script>');
    expect(playground.body).toContain('<a href="/docs">API reference</a>');
    const docs = await app.inject('/docs');
    expect(docs.statusCode).toBe(200);
    expect(docs.body).toContain('src="/assets/docs.js"');
  });

  it('should load nothing from elsewhere: no absolute URLs in the pages, and a CSP that allows only this origin', async () => {
    const app = await createApp();
    for (const path of ['/', '/docs', '/usage']) {
      const page = await app.inject(path);
      expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//u);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'; script-src 'self'");
      expect(page.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('should serve the built scripts and the stylesheet with their content types', async () => {
    const app = await createApp();
    const script = await app.inject('/assets/playground.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.body).toContain('/chat/completions');
    expect((await app.inject('/assets/styles.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await app.inject('/assets/docs.js')).statusCode).toBe(200);
    expect((await app.inject('/assets/usage.js')).body).toContain('/usage');
    expect((await app.inject({ method: 'HEAD', url: '/docs' })).statusCode).toBe(200);
  });

  it('should serve the usage view at /usage, pointing at the admin API, and link it from every page', async () => {
    const app = await createApp();
    const usage = await app.inject('/usage');
    expect(usage.statusCode).toBe(200);
    expect(usage.body).toContain('<meta name="quantum-chat-admin-api" content="/admin/v1" />');
    expect(usage.body).toContain('<script type="module" src="/assets/usage.js"></script>');
    expect(usage.body).toContain('<a href="/usage" aria-current="page">Usage</a>');
    for (const path of ['/', '/docs']) expect((await app.inject(path)).body).toContain('<a href="/usage">Usage</a>');
  });

  it("should leave unknown asset names and paths outside the list to the app's not-found handler", async () => {
    const app = await createApp();
    for (const url of ['/assets/nope.js', '/assets/..%2Fpackage.json', '/assets/%2e%2e%2fdocs.html', '/assets/docs.html']) {
      const response = await app.inject(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code).toBe('unknown_url');
    }
  });

  it('should redirect /docs/ to /docs', async () => {
    const app = await createApp();
    const response = await app.inject('/docs/');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/docs');
  });

  it('should follow its prefix and options in every link', async () => {
    const app = await createApp({ apiBasePath: '/compat/v1/', docsPath: '/reference', assetsPath: '/static', usagePath: '/stats', adminApiBasePath: '/ops/admin/' }, '/web');
    const page = await app.inject('/web/reference');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('content="/compat/v1"');
    expect(page.body).toContain('href="/web/static/styles.css"');
    expect(page.body).toContain('<a href="/web/">Playground</a>');
    expect((await app.inject('/web/static/docs.js')).statusCode).toBe(200);
    expect((await app.inject('/web/')).statusCode).toBe(200);
    expect(page.body).toContain('<a href="/web/stats">Usage</a>');
    expect((await app.inject('/web/stats')).body).toContain('content="/ops/admin"');
  });
});
