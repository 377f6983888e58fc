import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { insecureAcceptAnyApiKey, generateApiKey } from '@quantum-chat/core';
import { createReferenceEngine } from '@quantum-chat/engine-reference';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressRouter, quantumChatErrorHandler } from '../src/index.js';

const key = generateApiKey('test');
let baseUrl = '';
let close: () => Promise<void> = async () => {};
const seenByLogger: string[] = [];

beforeAll(async () => {
  const app = express();
  app.use((req, _res, next) => {
    seenByLogger.push(`${req.method} ${req.path}`);
    next();
  });
  // The host's own global body parser runs before our router.
  app.use(express.json());
  app.post('/echo', (req, res) => {
    res.json({ echoed: req.body });
  });
  app.use('/api/v1', createExpressRouter({ accessControl: insecureAcceptAnyApiKey(), engine: createReferenceEngine() }));
  app.use('/api/v1', quantumChatErrorHandler);
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(400).json({ hostError: String(error).slice(0, 20) });
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
});
afterAll(() => close());

function chat(body: string) {
  return fetch(`${baseUrl}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'embedded-1' },
    body,
  });
}

describe('createExpressRouter in an existing app', () => {
  it('should keep the host routes, parser and middleware working beside the API', async () => {
    const echo = await fetch(`${baseUrl}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(await echo.json()).toEqual({ echoed: { a: 1 } });
    const models = await fetch(`${baseUrl}/api/v1/models`);
    expect((await models.json()).data).toHaveLength(4);
    expect(seenByLogger).toEqual(expect.arrayContaining(['POST /echo', 'GET /api/v1/models']));
  });

  it('should answer a chat request whose body the host parser already read', async () => {
    const response = await chat(JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'Hello there' }] }));
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.role).toBe('assistant');
  });

  it('should turn the host parser failure into our envelope under the mount path only', async () => {
    const ours = await chat('{"model":');
    expect(ours.status).toBe(400);
    expect(ours.headers.get('x-request-id')).toBe('embedded-1');
    expect((await ours.json()).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    const theirs = await fetch(`${baseUrl}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(await theirs.json()).toHaveProperty('hostError');
  });

  it('should refuse a pre-parsed body with __proto__ keys like a raw one', async () => {
    const response = await chat('{"model":"quantum-lite","messages":[{"role":"user","content":"x"}],"__proto__":{"polluted":true}}');
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

describe('the Responses API through the Express router, with no adapter code of its own', () => {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  it('should create (JSON and stream), retrieve and delete a response', async () => {
    const created = await fetch(`${baseUrl}/api/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'quantum-reasoner', input: 'What is 2 + 2?' }) });
    expect(created.status).toBe(200);
    const response = (await created.json()) as { id: string; status: string; output: { type: string }[] };
    expect(response.status).toBe('completed');
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);

    const retrieved = await fetch(`${baseUrl}/api/v1/responses/${response.id}`, { headers });
    expect(((await retrieved.json()) as { id: string }).id).toBe(response.id);
    const deleted = await fetch(`${baseUrl}/api/v1/responses/${response.id}`, { method: 'DELETE', headers });
    expect(await deleted.json()).toEqual({ id: response.id, object: 'response.deleted', deleted: true });

    const streamed = await fetch(`${baseUrl}/api/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: 'quantum-flash', input: 'Hi', stream: true }) });
    expect(streamed.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await streamed.text();
    expect(text).toContain('event: response.created');
    expect(text).toContain('event: response.completed');
    expect(text).not.toContain('[DONE]');
  });
});
