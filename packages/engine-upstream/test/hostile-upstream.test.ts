import type { ChatEngineEvent, ChatEngineRequest } from '@quantum-chat/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createUpstreamEngine, type UsageReplacement } from '../src/index.js';
import { startHostileUpstream, type HostileAnswer } from './helpers/hostile-upstream.js';
import type { UpstreamServer } from './helpers/start-upstream-server.js';

const mebibyte = 1024 * 1024;

function requestOf(maxTokens: number): ChatEngineRequest {
  return {
    model: 'quantum-flash',
    messages: [{ role: 'user', content: 'Hi' }],
    tools: [],
    toolChoice: 'auto',
    parallelToolCalls: true,
    temperature: 0.7,
    maxTokens,
    reasoning: false,
  };
}

const upstreams: UpstreamServer[] = [];
afterEach(async () => {
  await Promise.all(upstreams.splice(0).map((upstream) => upstream.close()));
});

/** What reached the caller of one hostile answer: sizes, not the text (which may be huge before the fix). */
interface Outcome {
  contentChars: number;
  argumentChars: number;
  finish: Extract<ChatEngineEvent, { type: 'finish' }> | undefined;
  error: unknown;
  replaced: UsageReplacement[];
  rssGrowthMb: number;
  longestStallMs: number;
}

/**
 * Runs one request against a hostile upstream while sampling this process's RSS and the
 * longest gap between 10 ms timer turns (the event loop held), and prints both.
 */
async function against(hostile: HostileAnswer, maxTokens: number, stream = true): Promise<Outcome> {
  const upstream = await startHostileUpstream(hostile);
  upstreams.push(upstream);
  const replaced: UsageReplacement[] = [];
  const engine = createUpstreamEngine({ baseUrl: upstream.baseUrl, model: 'hostile', onUsageReplaced: (report) => void replaced.push(report) });
  (globalThis as { gc?: () => void }).gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  let longestStallMs = 0;
  let last = performance.now();
  const sampler = setInterval(() => {
    const now = performance.now();
    longestStallMs = Math.max(longestStallMs, now - last - 10);
    last = now;
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 10);
  const outcome: Outcome = { contentChars: 0, argumentChars: 0, finish: undefined, error: undefined, replaced, rssGrowthMb: 0, longestStallMs: 0 };
  try {
    for await (const event of engine.generate(requestOf(maxTokens), { signal: AbortSignal.timeout(60_000), requestId: 'hostile', stream })) {
      if (event.type === 'content') outcome.contentChars += event.text.length;
      else if (event.type === 'tool-call') outcome.argumentChars += event.argumentsDelta.length;
      else if (event.type === 'finish') outcome.finish = event;
    }
  } catch (error) {
    outcome.error = error;
  } finally {
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }
  outcome.rssGrowthMb = (rssPeak - rssBefore) / mebibyte;
  outcome.longestStallMs = longestStallMs;
  if (!stream) expect(upstream.requests[0]?.body).toMatchObject({ stream: false });
  console.log(
    `${hostile.kind}${stream ? '' : ' (asked for JSON)'} (${hostile.mib} MiB, max_tokens ${maxTokens}): RSS ${(rssBefore / mebibyte).toFixed(0)} -> peak ${(rssPeak / mebibyte).toFixed(0)} MB (+${outcome.rssGrowthMb.toFixed(0)}), ` +
      `longest event-loop stall ${longestStallMs.toFixed(0)} ms, relayed ${outcome.contentChars + outcome.argumentChars} chars, ` +
      (outcome.error === undefined ? `finish ${outcome.finish?.reason}, usage ${JSON.stringify(outcome.finish?.usage)}` : `error ${(outcome.error as Error).message}`),
  );
  return outcome;
}

/** The error a client gets for an upstream fault: 502, `upstream_error`. */
const upstreamFault = (message: RegExp) => expect.objectContaining({ code: 'upstream_error', status: 502, message: expect.stringMatching(message) as string });

describe('an upstream engine against a hostile or broken upstream', () => {
  it('should cut a gzip stream that inflates to 400 MiB at max_tokens (with a margin), finish "length" and charge at most max_tokens', async () => {
    const outcome = await against({ kind: 'gzip-stream', mib: 400 }, 4096);
    expect(outcome.error).toBeUndefined();
    expect(outcome.finish).toMatchObject({ reason: 'length', usage: { completionTokens: 4096 } });
    expect(outcome.contentChars).toBeLessThanOrEqual((4096 * 4 + 64) * 4);
    expect(outcome.contentChars).toBeGreaterThan(4096 * 4);
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should refuse a gzip JSON answer that inflates past the decoded-bytes cap: an upstream fault', async () => {
    const outcome = await against({ kind: 'gzip-json', mib: 400 }, 4096);
    expect(outcome.error).toEqual(upstreamFault(/more than 33554432 bytes/));
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should refuse a stream of 100 MiB of chunks without a token past the decoded-bytes cap', async () => {
    const outcome = await against({ kind: 'padding-stream', mib: 100 }, 4096);
    expect(outcome.error).toEqual(upstreamFault(/more than 33554432 bytes/));
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should refuse a plain 300 MiB JSON answer past the cap', async () => {
    const outcome = await against({ kind: 'json', mib: 300 }, 4096);
    expect(outcome.error).toEqual(upstreamFault(/more than 33554432 bytes/));
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should read no more than the error-body cap of a 500 with a 300 MiB body, and still map the status', async () => {
    const outcome = await against({ kind: 'error-body', mib: 300 }, 4096);
    expect(outcome.error).toEqual(upstreamFault(/^The model server failed \(HTTP 500\)/));
    expect((outcome.error as Error).message.length).toBeLessThan(600);
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should refuse one endless SSE line once it passes the event cap', async () => {
    const outcome = await against({ kind: 'endless-line', mib: 800 }, 4096);
    expect(outcome.error).toEqual(upstreamFault(/a line longer than 4194304 characters/));
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should cut a tool call with 10 MiB of arguments under max_tokens 100: "length", charged 100, arguments bounded', async () => {
    const outcome = await against({ kind: 'tool-arguments', mib: 10 }, 100);
    expect(outcome.error).toBeUndefined();
    expect(outcome.finish).toMatchObject({ reason: 'length', usage: { completionTokens: 100 } });
    expect(outcome.argumentChars).toBeLessThanOrEqual((100 * 4 + 64) * 4);
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should refuse 10 MiB of tool arguments in one event past the event cap', async () => {
    const outcome = await against({ kind: 'tool-arguments-one-event', mib: 10 }, 100);
    expect(outcome.error).toEqual(upstreamFault(/an event longer than|a line longer than/));
    expect(outcome.argumentChars).toBe(0);
  }, 120_000);

  it('should charge our own count, not the one token a 300 MiB answer reports', async () => {
    const outcome = await against({ kind: 'under-reported', mib: 300 }, 4096);
    expect(outcome.finish).toMatchObject({ reason: 'length', usage: { completionTokens: 4096 } });
    expect(outcome.replaced).toHaveLength(1);
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should charge our own count for an answer within max_tokens that reports one token', async () => {
    const outcome = await against({ kind: 'under-reported', mib: 0.01 }, 8192);
    expect(outcome.finish?.reason).toBe('stop');
    expect(outcome.finish?.usage.completionTokens).toBe(Math.ceil(outcome.contentChars / 4));
    expect(outcome.replaced[0]?.reasons).toEqual([`completion_tokens (1) is below what the relayed text holds (${Math.ceil((outcome.contentChars / 4 - 64) / 4)})`]);
  }, 120_000);
});

describe('the JSON path (a client that does not stream) against a hostile or broken upstream', () => {
  it('should refuse a gzip JSON answer that inflates past the decoded-bytes cap', async () => {
    const outcome = await against({ kind: 'gzip-json', mib: 400 }, 4096, false);
    expect(outcome.error).toEqual(upstreamFault(/more than 33554432 bytes/));
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should refuse a plain 300 MiB JSON answer past the cap', async () => {
    const outcome = await against({ kind: 'json', mib: 300 }, 4096, false);
    expect(outcome.error).toEqual(upstreamFault(/more than 33554432 bytes/));
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should read no more than the error-body cap of a 500 with a 300 MiB body', async () => {
    const outcome = await against({ kind: 'error-body', mib: 300 }, 4096, false);
    expect(outcome.error).toEqual(upstreamFault(/^The model server failed \(HTTP 500\)/));
    expect((outcome.error as Error).message.length).toBeLessThan(600);
  }, 120_000);

  it('should refuse a JSON tool call with 10 MiB of arguments past the tool-argument cap', async () => {
    const outcome = await against({ kind: 'json-tool-arguments', mib: 10 }, 100, false);
    expect(outcome.error).toEqual(upstreamFault(/a tool call whose arguments are longer than 4194304 characters/));
    expect(outcome.argumentChars).toBe(0);
  }, 120_000);

  it('should cut a JSON tool call with 1 MiB of arguments under max_tokens 100: "length", charged 100, arguments bounded', async () => {
    const outcome = await against({ kind: 'json-tool-arguments', mib: 1 }, 100, false);
    expect(outcome.error).toBeUndefined();
    expect(outcome.finish).toMatchObject({ reason: 'length', usage: { completionTokens: 100 } });
    expect(outcome.argumentChars).toBeLessThanOrEqual((100 * 4 + 64) * 4);
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);

  it('should charge our own count, not the one token a 10 MiB JSON answer reports', async () => {
    const outcome = await against({ kind: 'json-under-reported', mib: 10 }, 4096, false);
    expect(outcome.finish).toMatchObject({ reason: 'length', usage: { completionTokens: 4096 } });
    expect(outcome.contentChars).toBeLessThanOrEqual((4096 * 4 + 64) * 4);
    expect(outcome.replaced).toHaveLength(1);
  }, 120_000);

  it('should still bound a stream from an upstream that ignores `stream: false`', async () => {
    const outcome = await against({ kind: 'gzip-stream', mib: 400 }, 4096, false);
    expect(outcome.finish).toMatchObject({ reason: 'length', usage: { completionTokens: 4096 } });
    expect(outcome.rssGrowthMb).toBeLessThan(200);
  }, 120_000);
});
