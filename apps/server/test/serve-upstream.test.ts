import { chatCompletionSchema } from '@quantum-chat/core/schemas';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startFakeUpstream } from './fake-upstream.js';
import { startServerProcess } from './server-process.js';

const answer = 'Hello from the upstream model.';
const question = { messages: [{ role: 'user', content: 'Say hello.' }] };

async function ask(origin: string, apiKey: string, model: string) {
  const response = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, ...question }),
  });
  expect(response.status).toBe(200);
  return chatCompletionSchema.parse(await response.json());
}

describe('quantum-chat serve with a model mapped to an upstream', () => {
  it('should answer live keys from the upstream and test keys from the reference engine', async () => {
    const upstream = await startFakeUpstream(answer);
    onTestFinished(() => upstream.close());
    const server = await startServerProcess(
      { models: { 'quantum-flash': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'llama3.2', apiKeyEnv: 'FAKE_UPSTREAM_KEY' } } },
      { FAKE_UPSTREAM_KEY: 'sk-upstream-secret' },
    );
    onTestFinished(() => server.dispose());

    const liveKey = await createLiveKey(server.dataDir);
    const live = await ask(server.origin, liveKey, 'quantum-flash');
    expect(live.model).toBe('quantum-flash');
    expect(live.choices[0]!.message.content).toBe(answer);
    expect(live.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 });
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]).toMatchObject({ body: { model: 'llama3.2' }, authorization: 'Bearer sk-upstream-secret' });

    // Test keys never reach a live engine (decisions §6), and other models stay on the reference engine.
    const test = await ask(server.origin, server.firstStartKey!, 'quantum-flash');
    expect(test.choices[0]!.message.content).not.toBe(answer);
    const other = await ask(server.origin, liveKey, 'quantum-lite');
    expect(other.choices[0]!.message.content).not.toBe(answer);
    expect(upstream.requests).toHaveLength(1);
    expect(server.stdout()).not.toContain('sk-upstream-secret');
  }, 45_000);

  it('should refuse to start when apiKeyEnv names an unset variable, naming the field', async () => {
    await expect(
      startServerProcess({ models: { 'quantum-pro': { engine: 'upstream', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'QC_UNSET_VARIABLE_FOR_TEST' } } }),
    ).rejects.toThrow(/exited \(1\)[\s\S]*models\["quantum-pro"\]\.apiKeyEnv names QC_UNSET_VARIABLE_FOR_TEST/);
  }, 45_000);
});
