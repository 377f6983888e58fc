import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UsageReplacement } from '../src/index.js';
import { sseHeaders, startUpstreamServer, type UpstreamServer } from './helpers/start-upstream-server.js';

/** Relayed text: 44 characters, about 11 tokens by the server's own count. */
const answer = 'The quick brown fox jumps over the lazy dog.';
const ownCompletion = Math.ceil(answer.length / 4);

const request: ChatEngineRequest = {
  model: 'quantum-flash',
  messages: [{ role: 'user', content: 'Say the pangram.' }],
  tools: [],
  toolChoice: 'none',
  parallelToolCalls: true,
  temperature: 0.7,
  maxTokens: 4096,
  reasoning: false,
};

const servers: UpstreamServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Streams `answer` over real HTTP, then the usage given (none when `undefined`). */
async function relay(usage: Record<string, unknown> | undefined, engineRequest: ChatEngineRequest = request) {
  const server = await startUpstreamServer((_request, response) => {
    response.writeHead(200, sseHeaders);
    const chunk = (fields: Record<string, unknown>) => `data: ${JSON.stringify({ id: 'up', object: 'chat.completion.chunk', created: 1, model: 'm', ...fields })}\n\n`;
    response.write(chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: answer }, finish_reason: null }] }));
    response.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    if (usage !== undefined) response.write(chunk({ choices: [], usage }));
    response.end('data: [DONE]\n\n');
  });
  servers.push(server);
  const replaced: UsageReplacement[] = [];
  const engine = createUpstreamEngine({ baseUrl: server.baseUrl, model: 'llama3.2', onUsageReplaced: (report) => replaced.push(report) });
  const events: ChatEngineEvent[] = [];
  for await (const event of engine.generate(engineRequest, { signal: new AbortController().signal, requestId: 'req_usage_1' })) events.push(event);
  const finish = events.at(-1);
  if (finish?.type !== 'finish') throw new Error('no finish event');
  return { usage: finish.usage, replaced };
}

describe('usage reported by an upstream (checked, never trusted)', () => {
  it('should keep honest figures, and report nothing', async () => {
    const { usage, replaced } = await relay({ prompt_tokens: 9, completion_tokens: 10, total_tokens: 19 });
    expect(usage).toEqual({ promptTokens: 9, completionTokens: 10, reasoningTokens: 0 });
    expect(replaced).toEqual([]);
  });

  it.each([
    ['far above the text it relayed', { prompt_tokens: 9, completion_tokens: 99_999_999, total_tokens: 100_000_008 }, 'completion_tokens'],
    ['negative', { prompt_tokens: 9, completion_tokens: -5, total_tokens: 4 }, 'completion_tokens'],
    ['fractional', { prompt_tokens: 9, completion_tokens: 10.5, total_tokens: 19.5 }, 'completion_tokens'],
    ['missing', { prompt_tokens: 9, total_tokens: 9 }, 'completion_tokens'],
  ])('should replace a completion count that is %s by its own count, and report it with the request id', async (_what, reported, field) => {
    const { usage, replaced } = await relay(reported);
    expect(usage.completionTokens).toBe(ownCompletion);
    expect(usage.promptTokens).toBe(9);
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toMatchObject({ requestId: 'req_usage_1', model: 'llama3.2', used: usage });
    expect(replaced[0]!.reasons.join(' ')).toContain(field);
    // Figures and reasons only: never the text.
    expect(JSON.stringify(replaced[0])).not.toContain('fox');
  });

  it('should cap a completion count above what the request allowed (max_tokens)', async () => {
    const { usage, replaced } = await relay({ prompt_tokens: 9, completion_tokens: 8, total_tokens: 17 }, { ...request, maxTokens: 6 });
    expect(usage.completionTokens).toBe(6);
    expect(replaced[0]!.reasons.join(' ')).toMatch(/completion_tokens.*max_tokens/);
  });

  it('should replace a negative, fractional or absurd prompt count, and a reasoning count above the completion', async () => {
    for (const prompt of [-1, 3.25, 50_000_000]) {
      const { usage, replaced } = await relay({ prompt_tokens: prompt, completion_tokens: 10, total_tokens: 10 });
      expect(usage.promptTokens).toBeGreaterThan(0);
      expect(usage.promptTokens).toBeLessThan(50);
      expect(usage.completionTokens).toBe(10);
      expect(replaced[0]!.reasons.join(' ')).toContain('prompt_tokens');
    }
    const reasoning = await relay({ prompt_tokens: 9, completion_tokens: 10, total_tokens: 19, completion_tokens_details: { reasoning_tokens: 30 } });
    expect(reasoning.usage).toEqual({ promptTokens: 9, completionTokens: 10, reasoningTokens: 0 });
    expect(reasoning.replaced[0]!.reasons.join(' ')).toContain('reasoning_tokens');
  });

  it('should count for itself, and say so, when the upstream reports no usage at all', async () => {
    const { usage, replaced } = await relay(undefined);
    expect(usage.completionTokens).toBe(ownCompletion);
    expect(replaced).toHaveLength(1);
    expect(replaced[0]!.reasons.join(' ')).toMatch(/no usage/);
  });
});
