import { describe, expect, it, vi } from 'vitest';
import type { AccessControl } from '../auth/access-control.js';
import { createFormatOnlyAccessControl } from '../auth/static-api-keys.js';
import { generateApiKey } from '../auth/parse-api-key.js';
import { createMemoryReplayGuard } from '../auth/signature-replay-guard.js';
import { signRequestBody } from '../auth/verify-signature.js';
import { insecureAcceptAnyApiKey } from '../auth/static-api-keys.js';
import type { ChatEngine } from '../engine/chat-engine.js';
import { createChatHandler, type ChatHandlerOptions } from '../http/create-chat-handler.js';

const key = generateApiKey('live');
const secret = 'whsec_0123456789abcdef';
const nowMs = 1_700_000_000_000;
const nowSeconds = nowMs / 1000;
const engine: ChatEngine = {
  async *generate() {
    yield { type: 'content', text: 'ok' };
    yield { type: 'finish', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1, reasoningTokens: 0 } };
  },
};
const body = new TextEncoder().encode(JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'hi' }] }));

function handlerWith(options: Partial<ChatHandlerOptions> = {}) {
  return createChatHandler({ engine, accessControl: insecureAcceptAnyApiKey(), signingSecrets: [secret], now: () => nowMs, ...options });
}

async function send(handler: ReturnType<typeof createChatHandler>, signature?: string, bytes: Uint8Array<ArrayBuffer> = body, apiKey = key) {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  if (signature !== undefined) headers['x-service-signature'] = signature;
  const response = await handler.fetch(new Request('http://127.0.0.1/chat/completions', { method: 'POST', headers, body: bytes }));
  const json = (await response.json()) as { error?: { code: string; message: string } };
  return { status: response.status, code: json.error?.code, message: json.error?.message, retryAfter: response.headers.get('retry-after') };
}

function bodyAsking(content: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content }] }));
}

describe('X-Service-Signature', () => {
  it('should accept an unsigned request unless signatures are required, and always check one that is sent', async () => {
    expect((await send(handlerWith())).status).toBe(200);
    expect(await send(handlerWith(), `t=${nowSeconds},v1=${'0'.repeat(64)}`)).toMatchObject({ status: 401, code: 'invalid_signature' });
    expect(await send(handlerWith({ requireSignatures: true }))).toMatchObject({ status: 401, code: 'invalid_signature', message: expect.stringContaining('must be signed') });
    expect((await send(handlerWith({ requireSignatures: true }), await signRequestBody(secret, body, nowSeconds))).status).toBe(200);
  });

  it('should require a signature from a key marked so', async () => {
    const base = createFormatOnlyAccessControl();
    const accessControl: AccessControl = { authenticate: async (parsed) => ({ ...(await base.authenticate(parsed)), requireSignature: true }) };
    expect(await send(handlerWith({ accessControl }))).toMatchObject({ status: 401, code: 'invalid_signature' });
    expect((await send(handlerWith({ accessControl }), await signRequestBody(secret, body, nowSeconds))).status).toBe(200);
  });

  it('should refuse a tampered body, an expired timestamp and a second use of the same signature', async () => {
    const handler = handlerWith();
    const signature = await signRequestBody(secret, body, nowSeconds);
    expect(await send(handler, signature, new TextEncoder().encode(`${new TextDecoder().decode(body)} `))).toMatchObject({ status: 401, code: 'invalid_signature' });
    expect((await send(handler, await signRequestBody(secret, body, nowSeconds - 301))).status).toBe(401);
    expect((await send(handler, signature)).status).toBe(200);
    expect(await send(handler, signature)).toMatchObject({ status: 401, code: 'invalid_signature', message: expect.stringContaining('already used') });
  });

  it('should accept signed content once, whichever of the rotating secrets\' v1 values a replay carries', async () => {
    const next = 'whsec_fedcba9876543210';
    const handler = handlerWith({ signingSecrets: [secret, next] });
    const both = [await signRequestBody(secret, body, nowSeconds), (await signRequestBody(next, body, nowSeconds)).split(',')[1]].join(',');
    expect((await send(handler, both)).status).toBe(200);
    const [timestamp, , second] = both.split(',');
    expect(await send(handler, `${timestamp},${second}`)).toMatchObject({ status: 401, code: 'invalid_signature', message: expect.stringContaining('already used') });
    expect(await send(handler, await signRequestBody(secret, body, nowSeconds))).toMatchObject({ status: 401, code: 'invalid_signature' });
    // Upper-case hex is the same signature.
    expect(await send(handler, `${timestamp},${second!.toUpperCase().replace('V1=', 'v1=')}`)).toMatchObject({ status: 401, code: 'invalid_signature' });
  });

  it('should claim the key with the signed content: the same signed body is accepted once per API key', async () => {
    const handler = handlerWith();
    const signature = await signRequestBody(secret, body, nowSeconds);
    const other = generateApiKey('live');
    expect((await send(handler, signature)).status).toBe(200);
    expect((await send(handler, signature, body, other)).status).toBe(200);
    expect((await send(handler, signature, body, other)).status).toBe(401);
  });

  it('should refuse with 503 and retry-after when the replay guard is full, never forgetting a signature still valid', async () => {
    let now = nowMs;
    const handler = handlerWith({ now: () => now, signatureReplayGuard: createMemoryReplayGuard({ maxEntries: 2, now: () => now }) });
    const first = await signRequestBody(secret, bodyAsking('one'), nowSeconds);
    expect((await send(handler, first, bodyAsking('one'))).status).toBe(200);
    now += 1000;
    expect((await send(handler, await signRequestBody(secret, bodyAsking('two'), nowSeconds + 1), bodyAsking('two'))).status).toBe(200);
    const full = await send(handler, await signRequestBody(secret, bodyAsking('three'), nowSeconds + 1), bodyAsking('three'));
    // The oldest claim is held for twice the 300 s tolerance: 599 s are left of it.
    expect(full).toMatchObject({ status: 503, code: 'overloaded', retryAfter: '599' });
    expect(await send(handler, first, bodyAsking('one'))).toMatchObject({ status: 401, message: expect.stringContaining('already used') });
    now = nowMs + 600_000;
    expect((await send(handler, await signRequestBody(secret, bodyAsking('three'), nowSeconds + 600), bodyAsking('three'))).status).toBe(200);
  });

  it('should check at most 4 v1 values, refusing a header with more before hashing the body', async () => {
    const valid = (await signRequestBody(secret, body, nowSeconds)).split(',')[1]!;
    const bogus = (count: number) => Array.from({ length: count }, (_, index) => `v1=${index.toString(16).padStart(64, '0')}`);
    const sign = vi.spyOn(crypto.subtle, 'sign');
    try {
      expect(await send(handlerWith(), [`t=${nowSeconds}`, ...bogus(234), valid].join(','))).toMatchObject({ status: 401, code: 'invalid_signature', message: expect.stringContaining('at most 4') });
      expect(sign).not.toHaveBeenCalled();
      expect((await send(handlerWith(), [`t=${nowSeconds}`, ...bogus(3), valid].join(','))).status).toBe(200);
      // One HMAC of the body per secret, however many v1 values are compared with it.
      expect(sign).toHaveBeenCalledTimes(1);
    } finally {
      sign.mockRestore();
    }
  });
});

describe('createMemoryReplayGuard', () => {
  it('should forget a claim once its time is up, and refuse new claims while maxEntries are still valid', () => {
    let now = 0;
    const guard = createMemoryReplayGuard({ maxEntries: 2, now: () => now });
    expect(guard.claim('a', 1000)).toBe(true);
    expect(guard.claim('a', 1000)).toBe(false);
    now = 1001;
    expect(guard.claim('a', 1000)).toBe(true);
    expect(guard.claim('b', 1000)).toBe(true);
    expect(() => guard.claim('c', 1000)).toThrow(expect.objectContaining({ status: 503, code: 'overloaded', headers: { 'retry-after': '1' } }));
    expect(guard.claim('a', 1000)).toBe(false);
    expect(guard.claim('b', 1000)).toBe(false);
    now = 2002;
    expect(guard.claim('c', 1000)).toBe(true);
    expect(guard.claim('a', 1000)).toBe(true);
  });
});
