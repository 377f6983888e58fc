import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { chromiumAvailable, launchChromium, openWatchedPage, screenshot, type PageWatch } from './browser.js';
import { startCuttableProxy } from './cuttable-proxy.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

/** Chromium reports every non-2xx fetch on the console; the page shows those itself. */
const unexpectedErrors = (watch: PageWatch) => watch.pageErrors.filter((text) => !text.startsWith('Failed to load resource'));

const text = async (page: Page, selector: string) => (await page.locator(selector).textContent()) ?? '';

describe.skipIf(!chromiumAvailable)('the playground in headless Chromium, against the real server process', () => {
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    // Paced so that a test can see an answer while it is still streaming.
    server = await startServerProcess({ reference: { firstTokenDelayMs: 200, tokensPerSecond: 20 } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.dispose();
  });

  /** The playground with `key` pasted in (the model list is read again with it on change). */
  async function openPlayground(key: string, origin = server.origin): Promise<PageWatch> {
    const watch = await openWatchedPage(browser);
    onTestFinished(async () => {
      await watch.context.close();
      expect(watch.foreignRequests).toEqual([]);
      expect(unexpectedErrors(watch)).toEqual([]);
    });
    await watch.page.goto(`${origin}/`);
    await watch.page.fill('#api-key', key);
    await watch.page.press('#api-key', 'Tab');
    return watch;
  }

  async function send(page: Page, message: string): Promise<void> {
    await page.fill('#message', message);
    await page.click('#send');
  }

  it('should stream a reasoner answer, with its trace in an open panel while it streams', async () => {
    const { page } = await openPlayground(server.testKey);
    await page.selectOption('#model', 'quantum-reasoner');
    expect(await page.isChecked('#stream')).toBe(true);
    await send(page, 'Why is the sky blue?');

    // Some of the trace has arrived and the answer is still streaming.
    await page.waitForFunction(() => (document.querySelector('.message.assistant.streaming .reasoning[open] .reasoning-text')?.textContent ?? '').length >= 40);
    expect(await page.isVisible('.message.assistant.streaming .reasoning-text')).toBe(true);
    expect(await text(page, '.reasoning-status')).toBe('thinking…');
    const traceWhileStreaming = await text(page, '.reasoning-text');
    expect(await page.locator('.message.assistant .content').count()).toBe(0);
    await screenshot(page, 'reasoner-streaming');

    await page.waitForSelector('.message.assistant:not(.streaming)', { timeout: 30_000 });
    const trace = await text(page, '.reasoning-text');
    expect(trace.length).toBeGreaterThan(traceWhileStreaming.length);
    expect(trace.startsWith(traceWhileStreaming)).toBe(true);
    expect((await text(page, '.message.assistant .content')).length).toBeGreaterThan(20);
    expect(await text(page, '.message.assistant .message-meta')).toMatch(/^finish_reason: stop · \d+ prompt \+ \d+ completion tokens \(\d+ reasoning\)$/u);
    // Finished: the trace stays open until the reader folds it, and opens again on a click.
    expect(await page.locator('.reasoning').evaluate((panel) => (panel as HTMLDetailsElement).open)).toBe(true);
    await page.click('.reasoning summary');
    expect(await page.isVisible('.reasoning-text')).toBe(false);
    await page.click('.reasoning summary');
    expect(await page.isVisible('.reasoning-text')).toBe(true);
    await screenshot(page, 'reasoner-finished');
  });

  it('should show "reconnecting…" when the connection drops mid-stream, and resume the answer where it was', async () => {
    const proxy = await startCuttableProxy(server.origin);
    onTestFinished(() => proxy.close());
    const { page } = await openPlayground(server.testKey, proxy.origin);
    const message = 'Write a long essay about rivers.';
    // The same request, uninterrupted (the reference engine answers a prompt the same way each time).
    const uninterrupted = fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quantum-lite', messages: [{ role: 'user', content: message }] }),
    }).then(async (response) => ((await response.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content);
    await page.selectOption('#model', 'quantum-lite');
    await send(page, message);
    await page.waitForFunction(() => (document.querySelector('.message.assistant.streaming .content')?.textContent ?? '').length >= 20);
    // The network goes away (a train tunnel): the stream's connection is reset, and the resume waits for the network.
    proxy.cut();
    await page.waitForSelector('.message.assistant .reconnecting', { timeout: 10_000 });
    expect(await text(page, '.message.assistant .reconnecting')).toBe('reconnecting…');
    await screenshot(page, 'reconnecting');
    proxy.restore();
    await page.waitForSelector('.message.assistant:not(.streaming)', { timeout: 60_000 });
    expect(await page.locator('.message.assistant .reconnecting').count()).toBe(0);
    expect(await page.locator('.message.assistant .error-type').count()).toBe(0);
    const answer = await text(page, '.message.assistant .content');
    // One answer, no gap and no repeat: the reference engine's essay reads as it does uninterrupted.
    expect(answer.length).toBeGreaterThan(100);
    expect(answer).toBe(await uninterrupted);
    expect(await text(page, '.message.assistant .message-meta')).toMatch(/^finish_reason: (stop|length)/u);
  });

  it('should show a tool call with its arguments, send back a result, and show the final answer', async () => {
    const { page } = await openPlayground(server.testKey);
    await page.selectOption('#model', 'quantum-flash');
    await page.click('#tools-example');
    expect(JSON.parse(await page.inputValue('#tools'))[0].function.name).toBe('get_weather');
    await send(page, 'What is the weather in Paris?');

    const call = page.locator('.message.assistant .tool-call');
    await page.waitForSelector('.tool-result textarea', { timeout: 30_000 });
    expect(await call.locator('.tool-name').textContent()).toBe('get_weather');
    expect(await call.locator('.tool-call-id').textContent()).toMatch(/^call_\w+$/u);
    expect(JSON.parse((await call.locator('.tool-arguments').textContent())!)).toMatchObject({ location: 'Paris' });
    expect(await text(page, '.message.assistant .message-meta')).toMatch(/^finish_reason: tool_calls/u);
    // The conversation waits for the result.
    expect(await page.isDisabled('#send')).toBe(true);

    await page.fill('.tool-result textarea', '{"temperature": 18, "unit": "celsius", "conditions": "sunny"}');
    await page.click('.tool-result button');
    await page.waitForFunction(() => document.querySelectorAll('.message.assistant:not(.streaming) .message-meta').length === 2, undefined, { timeout: 30_000 });
    expect(await text(page, '.message.tool .content')).toContain('"temperature": 18');
    const answer = page.locator('.message.assistant').nth(1);
    expect(await answer.locator('.content').textContent()).toContain('temperature is 18');
    expect(await answer.locator('.message-meta').textContent()).toMatch(/^finish_reason: stop/u);
    expect(await page.isEnabled('#send')).toBe(true);
    await screenshot(page, 'tool-call-round-trip');
  });

  it('should go through the Responses API when it is picked: reasoning, text, and a tool round trip', async () => {
    const { page } = await openPlayground(server.testKey);
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
    });
    await page.selectOption('#api', 'responses');
    await page.selectOption('#model', 'quantum-reasoner');
    await send(page, 'Why is the sky blue?');
    await page.waitForSelector('.message.assistant:not(.streaming) .message-meta', { timeout: 30_000 });
    expect((await text(page, '.reasoning-text')).length).toBeGreaterThan(20);
    expect((await text(page, '.message.assistant .content')).length).toBeGreaterThan(20);
    expect(await text(page, '.message.assistant .message-meta')).toMatch(/^finish_reason: stop · \d+ prompt \+ \d+ completion tokens \(\d+ reasoning\)$/u);

    await page.click('#clear');
    await page.selectOption('#model', 'quantum-flash');
    await page.click('#tools-example');
    await send(page, 'What is the weather in Paris?');
    const call = page.locator('.message.assistant .tool-call');
    await page.waitForSelector('.tool-result textarea', { timeout: 30_000 });
    expect(await call.locator('.tool-name').textContent()).toBe('get_weather');
    expect(await call.locator('.tool-call-id').textContent()).toMatch(/^call_\w+$/u);
    expect(JSON.parse((await call.locator('.tool-arguments').textContent())!)).toMatchObject({ location: 'Paris' });
    expect(await text(page, '.message.assistant .message-meta')).toMatch(/^finish_reason: tool_calls/u);
    await page.fill('.tool-result textarea', '{"temperature": 18, "unit": "celsius", "conditions": "sunny"}');
    await page.click('.tool-result button');
    await page.waitForFunction(() => document.querySelectorAll('.message.assistant:not(.streaming) .message-meta').length === 2, undefined, { timeout: 30_000 });
    const answer = page.locator('.message.assistant').nth(1);
    expect(await answer.locator('.content').textContent()).toContain('temperature is 18');
    expect(await answer.locator('.message-meta').textContent()).toMatch(/^finish_reason: stop/u);
    expect(posts).toEqual(['/v1/responses', '/v1/responses', '/v1/responses']);
    await screenshot(page, 'responses-api');
  });

  it('should answer whole with streaming off, and stop a stream on request', async () => {
    const { page } = await openPlayground(server.testKey);
    await page.selectOption('#model', 'quantum-lite');
    await page.uncheck('#stream');
    await send(page, 'Say hello.');
    await page.waitForSelector('.message.assistant:not(.streaming) .message-meta', { timeout: 30_000 });
    expect(await text(page, '.message.assistant .message-meta')).toMatch(/^finish_reason: stop/u);
    expect((await text(page, '.message.assistant .content')).length).toBeGreaterThan(10);

    await page.check('#stream');
    await page.selectOption('#model', 'quantum-reasoner');
    await send(page, 'Why is the sky blue?');
    await page.waitForSelector('.message.assistant.streaming .reasoning-text');
    expect(await page.isEnabled('#stop')).toBe(true);
    await page.click('#stop');
    const stopped = page.locator('.message.assistant').nth(1).locator('.message-meta');
    await stopped.waitFor();
    expect(await stopped.textContent()).toBe('Stopped. This partial answer is not part of the conversation.');
    expect(await page.isEnabled('#send')).toBe(true);
    expect(await page.isDisabled('#stop')).toBe(true);
  });

  it('should show a 403 for quantum-pro with a free key as an error with its type and message', async () => {
    const freeKey = await server.cli(['keys', 'create', '--org', 'free-org', '--plan', 'free', '--kind', 'live']);
    expect(freeKey).toMatch(/^qc_live_\w+$/u);
    const { page } = await openPlayground(freeKey);
    // With the key, the model list says which model needs a plan this key's plan lacks.
    await page.waitForFunction(() => document.querySelector('#model option[value="quantum-pro"]')?.textContent?.includes('not on your plan'));
    expect(await text(page, '#model option[value="quantum-pro"]')).toBe('quantum-pro ★ elite (not on your plan)');
    expect(await text(page, '#model option[value="quantum-lite"]')).toBe('quantum-lite');
    await page.selectOption('#model', 'quantum-pro');
    expect(await text(page, '#model-note')).toContain('Needs the elite plan');
    await send(page, 'Hello!');

    const error = page.locator('.message.assistant .error');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.locator('.error-type').textContent()).toBe('permission_error');
    expect(await error.locator('.error-code').textContent()).toBe('plan_required');
    expect(await error.locator('.error-status').textContent()).toBe('HTTP 403');
    expect(await error.locator('.error-message').textContent()).toBe("The model 'quantum-pro' requires the 'elite' plan; your organisation is on 'free'.");
    expect(await error.locator('.error-extra').textContent()).toMatch(/^param: model · request id: req_\w+$/u);
    await screenshot(page, 'plan-required-403');
  });
});
