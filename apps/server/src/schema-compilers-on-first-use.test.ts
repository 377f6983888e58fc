import Fastify from 'fastify';
import { describe, expect, it, onTestFinished } from 'vitest';
import { schemaCompilersOnFirstUse } from './schema-compilers-on-first-use.js';

describe('schemaCompilersOnFirstUse', () => {
  it('should validate and serialize a plugin route with schemas as Fastify does, over HTTP', async () => {
    const app = Fastify({ schemaController: schemaCompilersOnFirstUse() });
    onTestFinished(() => app.close());
    app.post(
      '/echo',
      {
        schema: {
          body: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 8 } } },
          response: { 200: { type: 'object', properties: { greeting: { type: 'string' } } } },
        },
      },
      async (request) => ({ greeting: `hello ${(request.body as { name: string }).name}`, secret: 'not in the response schema' }),
    );
    await app.listen({ host: '127.0.0.1', port: 0 });
    const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/echo`;
    const post = (body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    const ok = await post({ name: 'Ada' });
    expect(ok.status).toBe(200);
    // The response schema's serializer ran: the field it does not name is gone.
    expect(await ok.json()).toEqual({ greeting: 'hello Ada' });
    const refused = await post({ name: 'a name far too long' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'FST_ERR_VALIDATION' });
  });
});
