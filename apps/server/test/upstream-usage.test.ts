import { join } from 'node:path';
import Database from 'better-sqlite3';
import { chatCompletionSchema } from '@quantum-chat/core/schemas';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createLiveKey } from './create-live-key.js';
import { startFakeUpstream } from './fake-upstream.js';
import { runBuiltCli } from './run-cli.js';
import { startServerProcess } from './server-process.js';

/** 40 characters: about 10 tokens by the server's own count. */
const answer = 'A secret answer the logs must never see.';
const ownCompletion = Math.ceil(answer.length / 4);

describe('quantum-chat serve: usage an upstream reports is checked, never trusted', () => {
  it('should charge its own count for absurd and negative figures, log a warning with the request id (never the text), and keep the quota', async () => {
    const absurd = await startFakeUpstream(answer, { prompt_tokens: 9, completion_tokens: 99_999_999, total_tokens: 100_000_008 });
    const negative = await startFakeUpstream(answer, { prompt_tokens: 9, completion_tokens: -5, total_tokens: 4 });
    onTestFinished(() => absurd.close());
    onTestFinished(() => negative.close());
    const server = await startServerProcess({
      models: {
        'quantum-flash': { engine: 'upstream', baseUrl: absurd.baseUrl, model: 'absurd' },
        'quantum-lite': { engine: 'upstream', baseUrl: negative.baseUrl, model: 'negative' },
      },
      store: { usageFlushIntervalMs: 50 },
    });
    onTestFinished(() => server.dispose());
    const liveKey = await createLiveKey(server.dataDir);
    // A daily cap that one trusted 99,999,999 would have spent at once.
    expect((await runBuiltCli(['orgs', 'set-limits', 'default', '--tokens-per-day', '30000', '--data-dir', server.dataDir])).code).toBe(0);

    const ask = async (model: string, requestId: string) => {
      const response = await fetch(`${server.origin}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Tell me.' }], max_tokens: 100 }),
      });
      expect(response.status).toBe(200);
      return chatCompletionSchema.parse(await response.json());
    };
    const first = await ask('quantum-flash', 'req_absurd_usage');
    expect(first.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: ownCompletion, total_tokens: 9 + ownCompletion });
    const second = await ask('quantum-lite', 'req_negative_usage');
    expect(second.usage!.completion_tokens).toBe(ownCompletion);
    // The day's quota was charged the real figures: requests still pass.
    await ask('quantum-flash', 'req_after_absurd');

    for (const requestId of ['req_absurd_usage', 'req_negative_usage']) {
      await server.waitForStdout(new RegExp(`"reqId":"${requestId}"[^\\n]*upstream usage replaced`));
      const line = JSON.parse(server.stdout().split('\n').find((each) => each.includes(requestId) && each.includes('upstream usage replaced'))!) as Record<string, unknown>;
      expect(line).toMatchObject({ level: 40, used: { completionTokens: ownCompletion } });
      expect((line.reasons as string[]).join(' ')).toContain('completion_tokens');
    }
    expect(server.stdout()).not.toContain('secret answer');

    const database = new Database(join(server.dataDir, 'quantum-chat.sqlite'), { readonly: true, fileMustExist: true });
    onTestFinished(() => {
      database.close();
    });
    const charged = () => database.prepare("SELECT request_id AS requestId, completion_tokens AS completionTokens FROM usage WHERE request_id IN ('req_absurd_usage', 'req_negative_usage') ORDER BY request_id").all();
    await expect.poll(charged, { timeout: 10_000, interval: 50 }).toEqual([
      { requestId: 'req_absurd_usage', completionTokens: ownCompletion },
      { requestId: 'req_negative_usage', completionTokens: ownCompletion },
    ]);
  }, 60_000);
});
