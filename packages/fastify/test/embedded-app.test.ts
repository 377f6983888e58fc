import { insecureAcceptAnyApiKey, generateApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fastifyQuantumChat } from '../src/index.js';

const key = generateApiKey('test');
let app: FastifyInstance;
let baseUrl = '';

beforeAll(async () => {
  app = Fastify();
  // A host-wide hook and header: they must reach our responses too.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-host-hook', 'ran');
    return payload;
  });
  app.post('/echo', async (request) => ({ echoed: request.body }));
  app.setErrorHandler((error: { code?: string }, _request, reply) => reply.code(400).send({ hostError: error.code ?? 'unknown' }));
  await app.register(fastifyQuantumChat, { prefix: '/api/v1', accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine() });
  baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

describe('fastifyQuantumChat in an existing app', () => {
  it('should leave the host JSON parser and error handler in charge of host routes', async () => {
    const echo = await fetch(`${baseUrl}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ echoed: { a: 1 } });
    const broken = await fetch(`${baseUrl}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(await broken.json()).toHaveProperty('hostError');
  });

  it('should apply host hooks to JSON answers and to streams', async () => {
    const request = { model: 'quantum-reasoner', messages: [{ role: 'user', content: 'Hi' }] };
    const json = await fetch(`${baseUrl}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(json.headers.get('x-host-hook')).toBe('ran');
    expect((await json.json()).choices[0].message.reasoning_content).toBeTypeOf('string');
    const stream = await fetch(`${baseUrl}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...request, stream: true }),
    });
    expect(stream.headers.get('x-host-hook')).toBe('ran');
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect((await stream.text()).endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('should answer its own errors in our envelope, not the host error handler', async () => {
    const response = await fetch(`${baseUrl}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('invalid_json');
  });

  it('should name full paths, mount prefix included, in its error messages', async () => {
    const unknown = await fetch(`${baseUrl}/api/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toContain('POST /api/v1/completions');
    const wrongMethod = await fetch(`${baseUrl}/api/v1/chat/completions`);
    expect(wrongMethod.status).toBe(405);
    expect((await wrongMethod.json()).error.message).toContain('/api/v1/chat/completions');
  });

  it('should serve an OpenAPI document whose server URL is its own mount path', async () => {
    const document = await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json();
    expect(document.servers).toEqual([{ url: '/api/v1' }]);
  });
});
