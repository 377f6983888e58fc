/**
 * The Fastify example app over real HTTP: its own routes, bearer-token auth and pino log,
 * and the mounted chat API used by the client with a key the app issued.
 */
import { AuthenticationError, createChatClient } from '@quantum-chat/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/create-app.js';

const logged: Record<string, unknown>[] = [];
let app: FastifyInstance;
let baseUrl = '';

beforeAll(async () => {
  app = await createApp({
    users: { ada: 'lovelace' },
    logger: { level: 'info', stream: { write: (line: string) => void logged.push(JSON.parse(line)) } },
  });
  baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => app.close());

async function logIn(): Promise<string> {
  const response = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'ada', password: 'lovelace' }),
  });
  expect(response.status).toBe(200);
  return `Bearer ${((await response.json()) as { token: string }).token}`;
}

describe('the Fastify example app', () => {
  it('should serve its own public routes', async () => {
    expect(await (await fetch(`${baseUrl}/health`)).json()).toEqual({ status: 'ok' });
    const home = await fetch(baseUrl);
    expect(home.headers.get('content-type')).toContain('text/html');
    expect(await home.text()).toContain('/v1');
  });

  it('should keep its private routes behind its own tokens', async () => {
    expect((await fetch(`${baseUrl}/projects`)).status).toBe(401);
    const wrong = await fetch(`${baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"ada","password":"x"}' });
    expect(wrong.status).toBe(401);
    const authorization = await logIn();
    expect(await (await fetch(`${baseUrl}/me`, { headers: { authorization } })).json()).toEqual({ username: 'ada' });
    const created = await fetch(`${baseUrl}/projects`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"name":"apollo"}' });
    expect(created.status).toBe(201);
    expect(await (await fetch(`${baseUrl}/projects`, { headers: { authorization } })).json()).toEqual({ projects: [{ name: 'apollo' }] });
    // The app's JSON parser and errors still serve its own routes.
    const broken = await fetch(`${baseUrl}/projects`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"name":' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { code?: string }).code).toBe('FST_ERR_CTP_INVALID_JSON_BODY');
  });

  it('should answer the mounted API with a key it issued, and refuse other keys', async () => {
    const authorization = await logIn();
    const issued = await fetch(`${baseUrl}/me/api-keys`, { method: 'POST', headers: { authorization } });
    expect(issued.status).toBe(201);
    const { key } = (await issued.json()) as { key: string };
    expect(key).toMatch(/^qc_live_/);

    const client = createChatClient({ baseUrl: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    expect((await client.models.list()).data.map((model) => model.id)).toContain('quantum-reasoner');
    const request = { model: 'quantum-reasoner', messages: [{ role: 'user' as const, content: 'What is 6 * 7?' }] };
    const collected = await client.chat.completions.stream(request).collect();
    expect(collected.reasoning.length).toBeGreaterThan(0);
    expect(collected.content).toContain('42');
    expect(collected.finishReason).toBe('stop');

    // The app's session token is not an API key: the API answers in its own envelope.
    const confused = createChatClient({ baseUrl: `${baseUrl}/v1`, apiKey: authorization.slice('Bearer '.length), maxRetries: 0 });
    await expect(confused.chat.completions.create(request)).rejects.toSatisfy((error) => AuthenticationError.isInstance(error) && error.code === 'invalid_api_key');
    const broken = await fetch(`${baseUrl}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"model":' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  });

  it('should log its own requests and the API requests through pino, with the chat usage', () => {
    const completed = logged.filter((entry) => entry.msg === 'request completed');
    expect(completed.length).toBeGreaterThan(5);
    const urls = logged.filter((entry) => entry.msg === 'incoming request').map((entry) => (entry.req as { url: string }).url);
    expect(urls).toEqual(expect.arrayContaining(['/health', '/me/api-keys', '/v1/models', '/v1/chat/completions']));
    expect(logged).toContainEqual(expect.objectContaining({ msg: 'api key issued', organisation: 'ada' }));
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'chat request settled', chat: expect.objectContaining({ principal: 'ada', model: 'quantum-reasoner', status: 200 }) }),
    );
  });
});
