import { signRequestBody } from '@quantum-chat/core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { redisServerAvailable, redisSkipMessage, startRedisServer } from '../../../packages/access-control/test/redis-server.js';
import { startInProcessServer, type InProcessServer } from './in-process-server.js';

const current = 'whsec_current_0123456789';
const next = 'whsec_next_9876543210abcdef';

async function signedWithBoth(body: Uint8Array<ArrayBuffer>): Promise<{ both: string; secondAlone: string }> {
  const first = await signRequestBody(current, body);
  const second = await signRequestBody(next, body, Number(first.slice(2, first.indexOf(','))));
  const secondV1 = second.slice(second.indexOf(',') + 1);
  return { both: `${first},${secondV1}`, secondAlone: second };
}

async function send(server: InProcessServer, mount: string, body: Uint8Array<ArrayBuffer>, signature: string) {
  const response = await fetch(`${server.origin}${mount}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.testKey}`, 'content-type': 'application/json', 'x-service-signature': signature },
    body,
  });
  const json = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: json.error?.code };
}

describe('quantum-chat serve: a signed request is accepted once, whichever of its rotating secrets\' signatures a replay carries', () => {
  it('should refuse the replay with the second v1 alone, on either mount (memory guard)', async () => {
    const server = await startInProcessServer({ signingSecrets: [current, next] });
    onTestFinished(() => server.close());
    const body = new TextEncoder().encode(JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Pay invoice 42.' }] }));
    const { both, secondAlone } = await signedWithBoth(body);
    expect((await send(server, '/v1', body, both)).status).toBe(200);
    expect(await send(server, '/v1', body, secondAlone)).toEqual({ status: 401, code: 'invalid_signature' });
    expect(await send(server, '/compat/v1', body, secondAlone)).toEqual({ status: 401, code: 'invalid_signature' });
  });

  it.skipIf(!redisServerAvailable)('should refuse it on another instance sharing Redis', async () => {
    if (!redisServerAvailable) console.warn(redisSkipMessage);
    const redis = await startRedisServer();
    onTestFinished(() => redis.stop());
    const first = await startInProcessServer({ signingSecrets: [current, next], redisUrl: redis.url });
    onTestFinished(() => first.close());
    // The second instance shares the first one's store, and so its keys.
    const second = await startInProcessServer({ signingSecrets: [current, next], redisUrl: redis.url, dataDir: first.dataDir });
    onTestFinished(() => second.close());
    const body = new TextEncoder().encode(JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: 'Pay invoice 43.' }] }));
    const { both, secondAlone } = await signedWithBoth(body);
    expect((await send(first, '/v1', body, both)).status).toBe(200);
    expect(await send({ ...second, testKey: first.testKey }, '/v1', body, secondAlone)).toEqual({ status: 401, code: 'invalid_signature' });
  });
});
