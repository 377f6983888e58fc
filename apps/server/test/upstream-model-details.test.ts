import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startFakeUpstream } from './fake-upstream.js';
import { startServerProcess } from './server-process.js';
import { decodeSse } from './sse.js';

const reported = {
  prompt_tokens: 2006,
  completion_tokens: 8,
  total_tokens: 2014,
  prompt_tokens_details: { cached_tokens: 1920, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, accepted_prediction_tokens: 3, rejected_prediction_tokens: 1, audio_tokens: 0 },
};

describe('quantum-chat serve relaying an OpenAI-compatible upstream: what it reports in OpenAI\'s fields is passed on', () => {
  it('should pass on system_fingerprint and the usage details in JSON and streams on both mounts, and record cached tokens in the ledger', async () => {
    const upstream = await startFakeUpstream('Oslo.', reported, { system_fingerprint: 'fp_2f7c0d31a9' });
    onTestFinished(() => upstream.close());
    const server = await startServerProcess({ models: { 'quantum-flash': { engine: 'upstream', baseUrl: upstream.baseUrl, model: 'gpt-4o-mini' } }, store: { usageFlushIntervalMs: 50 } });
    onTestFinished(() => server.dispose());
    const liveKey = await createLiveKey(server.dataDir);
    const ask = (mount: string, requestId: string, extra: Record<string, unknown> = {}) =>
      fetch(`${server.origin}${mount}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ model: 'quantum-flash', messages: [{ role: 'user', content: 'The capital of Norway?' }], max_tokens: 64, ...extra }),
      });
    // Every reported count is within what it details, so it reaches the wire as reported.
    const wireUsage = reported;

    for (const mount of ['/v1', '/compat/v1']) {
      const json = (await (await ask(mount, `req_details_json${mount.length}`)).json()) as Record<string, unknown> & { choices: { message: Record<string, unknown> }[] };
      expect(json.choices[0]!.message).toEqual({ role: 'assistant', content: 'Oslo.', refusal: null });
      expect(json.usage).toEqual(wireUsage);
      expect(json.system_fingerprint).toBe('fp_2f7c0d31a9');

      const stream = await ask(mount, `req_details_stream${mount.length}`, { stream: true, stream_options: { include_usage: true } });
      const chunks = decodeSse(await stream.text())
        .filter((event) => event.data !== '[DONE]')
        .map((event) => JSON.parse(event.data) as { system_fingerprint?: string; usage?: unknown; choices: { finish_reason: string | null }[] });
      const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason === 'stop')!;
      const usage = chunks.at(-1)!;
      expect(finish.system_fingerprint).toBe('fp_2f7c0d31a9');
      expect(usage).toMatchObject({ choices: [], system_fingerprint: 'fp_2f7c0d31a9', usage: wireUsage });
    }

    const database = new Database(join(server.dataDir, 'quantum-chat.sqlite'), { readonly: true, fileMustExist: true });
    onTestFinished(() => {
      database.close();
    });
    const rows = () => database.prepare("SELECT request_id AS requestId, prompt_tokens AS promptTokens, cached_prompt_tokens AS cached FROM usage WHERE request_id LIKE 'req_details_%' AND settled = 1 ORDER BY request_id").all();
    await expect.poll(rows, { timeout: 10_000, interval: 50 }).toHaveLength(4);
    expect(rows()).toEqual(
      ['req_details_json10', 'req_details_json3', 'req_details_stream10', 'req_details_stream3'].map((requestId) => ({ requestId, promptTokens: 2006, cached: 1920 })),
    );
  }, 60_000);
});
