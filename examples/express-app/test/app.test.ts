/**
 * The Express example app over real HTTP: its own routes, sessions and log, and the mounted
 * chat API used by the client with a key the app issued.
 */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthenticationError, createChatClient } from '@quantum-chat/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/create-app.js';

const lines: string[] = [];
let server: Server;
let baseUrl = '';

beforeAll(async () => {
  const { app } = createApp({ users: { ada: 'lovelace' }, log: (line) => lines.push(line) });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function logIn(): Promise<string> {
  const response = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'ada', password: 'lovelace' }),
  });
  expect(response.status).toBe(200);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

describe('the Express example app', () => {
  it('should serve its own public routes', async () => {
    expect(await (await fetch(`${baseUrl}/health`)).json()).toEqual({ status: 'ok' });
    const home = await fetch(baseUrl);
    expect(home.headers.get('content-type')).toContain('text/html');
    expect(await home.text()).toContain('/v1');
    expect((await fetch(`${baseUrl}/nowhere`)).status).toBe(404);
  });

  it('should keep its account routes behind its own login', async () => {
    expect((await fetch(`${baseUrl}/account`)).status).toBe(401);
    const wrong = await fetch(`${baseUrl}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"ada","password":"x"}' });
    expect(wrong.status).toBe(401);
    const cookie = await logIn();
    expect(await (await fetch(`${baseUrl}/account`, { headers: { cookie } })).json()).toEqual({ username: 'ada' });
    expect((await fetch(`${baseUrl}/logout`, { method: 'POST', headers: { cookie } })).status).toBe(204);
    expect((await fetch(`${baseUrl}/account`, { headers: { cookie } })).status).toBe(401);
  });

  it('should answer the mounted API with a key it issued, and refuse other keys', async () => {
    const cookie = await logIn();
    const issued = await fetch(`${baseUrl}/account/api-keys`, { method: 'POST', headers: { cookie } });
    expect(issued.status).toBe(201);
    const { key } = (await issued.json()) as { key: string };
    expect(key).toMatch(/^qc_live_/);

    const client = createChatClient({ baseUrl: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    expect((await client.models.list()).data.map((model) => model.id)).toContain('quantum-reasoner');
    const request = { model: 'quantum-reasoner', messages: [{ role: 'user' as const, content: 'What is 6 * 7?' }] };
    let reasoningEvents = 0;
    let content = '';
    for await (const event of client.chat.completions.stream(request)) {
      if (event.type === 'reasoning') reasoningEvents += 1;
      if (event.type === 'content') content += event.text;
    }
    expect(reasoningEvents).toBeGreaterThan(1);
    expect(content).toContain('42');

    const stranger = createChatClient({ baseUrl: `${baseUrl}/v1`, apiKey: 'qc_live_000000000000000000000000000000000000', maxRetries: 0 });
    await expect(stranger.chat.completions.create(request)).rejects.toSatisfy((error) => AuthenticationError.isInstance(error));
    const anonymous = await fetch(`${baseUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
  });

  it('should log its own requests and the API requests, with the chat usage', async () => {
    expect(lines).toContainEqual(expect.stringMatching(/^GET \/health 200 \d+ms user=-$/));
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/account\/api-keys 201 \d+ms user=ada$/));
    expect(lines).toContainEqual(expect.stringMatching(/^POST \/v1\/chat\/completions 200 \d+ms/));
    expect(lines).toContainEqual(expect.stringMatching(/^chat \S+ org=ada model=quantum-reasoner status=200 tokens=\d+\+\d+$/));
  });
});
