/**
 * What a new user meets in the first minutes, in headless Chromium against the real server:
 * the reasoning panel stays as the reader left it (a visible toggle, a true "thought for"),
 * the key survives a reload of the tab, a temperature out of range is flagged in the form
 * instead of sent, the message box is usable on the first screen of a phone, and /docs shows
 * example requests and fits a phone. Screenshots of both pages at 1280 and 375 px are taken
 * (into test-output/; `pnpm screenshots` writes the committed set in docs/screenshots/).
 */
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { chromiumAvailable, launchChromium, openWatchedPage, screenshot, screenshotDirectory, viewports, type PageWatch } from './browser.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

const unexpectedErrors = (watch: PageWatch) => watch.pageErrors.filter((text) => !text.startsWith('Failed to load resource'));

describe.skipIf(!chromiumAvailable)('the first hour, in headless Chromium against the real server process', () => {
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    // Paced so that the reasoning takes a measurable time.
    server = await startServerProcess({ reference: { firstTokenDelayMs: 300, tokensPerSecond: 40 } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.dispose();
  });

  async function open(path: string, viewport: { width: number; height: number } = viewports.desktop): Promise<PageWatch> {
    const watch = await openWatchedPage(browser, viewport);
    onTestFinished(async () => {
      await watch.context.close();
      expect(watch.foreignRequests).toEqual([]);
      expect(unexpectedErrors(watch)).toEqual([]);
    });
    await watch.page.goto(`${server.origin}${path}`);
    return watch;
  }

  async function pasteKey(page: Page): Promise<void> {
    await page.fill('#api-key', server.testKey);
    await page.press('#api-key', 'Tab');
  }

  it('should keep the reasoning panel open when the answer ends, with a visible toggle and the time it thought', async () => {
    const { page } = await open('/');
    await pasteKey(page);
    await page.selectOption('#model', 'quantum-reasoner');
    await page.fill('#message', 'Why is the sky blue?');
    await page.click('#send');
    await page.waitForSelector('.message.assistant:not(.streaming) .message-meta', { timeout: 45_000 });

    const panel = page.locator('.message.assistant .reasoning');
    expect(await panel.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(true);
    expect(await page.isVisible('.message.assistant .reasoning-text')).toBe(true);
    // Paced at 40 tokens/s after a 300 ms wait, the thinking took well over a tenth of a second.
    const status = (await page.locator('.reasoning-status').textContent()) ?? '';
    expect(status).toMatch(/^thought for \d+(\.\d)? s$/u);
    expect(Number(/[\d.]+/u.exec(status)![0])).toBeGreaterThan(0.2);
    const toggle = page.locator('.message.assistant .reasoning-toggle');
    expect(await toggle.isVisible()).toBe(true);
    expect(await toggle.textContent()).toBe('Hide');
    await toggle.click();
    expect(await panel.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
    // The label follows the panel's `toggle` event, which the browser fires in a later task than
    // the click: read it once that task has run (a busy CI machine once read 'Hide' here).
    await expect.poll(() => toggle.textContent()).toBe('Show');
    await toggle.click();
    expect(await page.isVisible('.message.assistant .reasoning-text')).toBe(true);

    await screenshot(page, 'playground-1280');
  });

  it('should keep the key in the tab across a reload, as the hint says', async () => {
    const { page } = await open('/');
    expect(await page.locator('#api-key ~ .hint').textContent()).toContain('kept in this tab');
    // Pasted, and the page reloaded at once (no blur, no send).
    await page.fill('#api-key', server.testKey);
    await page.reload();
    await page.waitForFunction(() => document.querySelector<HTMLInputElement>('#api-key')?.value !== '');
    expect(await page.inputValue('#api-key')).toBe(server.testKey);
  });

  it('should flag a temperature out of 0-2 in the form and send nothing', async () => {
    const { page } = await open('/');
    await pasteKey(page);
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/chat/completions')) sent.push(request.postData() ?? '');
    });
    await page.fill('#temperature', '3');
    await page.fill('#message', 'Hello');
    await page.click('#send');
    const error = page.locator('#temperature-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Temperature must be between 0 and 2.');
    expect(await page.getAttribute('#temperature', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#message')).toBe('Hello');
    expect(await page.locator('.message').count()).toBe(0);
    expect(sent).toEqual([]);

    await page.fill('#temperature', '1.5');
    await page.click('#send');
    await page.waitForSelector('.message.assistant:not(.streaming) .message-meta', { timeout: 45_000 });
    expect(await error.isVisible()).toBe(false);
    expect(JSON.parse(sent[0]!)).toMatchObject({ temperature: 1.5 });
  });

  it('should give a phone the message box on its first screen, with the settings folded behind a button', async () => {
    const { page } = await open('/', viewports.phone);
    expect(await page.isVisible('#settings')).toBe(false);
    const message = await page.locator('#message').boundingBox();
    expect(message).not.toBeNull();
    expect(message!.y + message!.height).toBeLessThanOrEqual(viewports.phone.height);
    expect(message!.width).toBeGreaterThanOrEqual(300);
    expect(await page.locator('#send').boundingBox().then((box) => box!.y + box!.height)).toBeLessThanOrEqual(viewports.phone.height);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewports.phone.width);
    await screenshot(page, 'playground-375');

    const toggle = page.locator('#settings-toggle');
    expect(await toggle.isVisible()).toBe(true);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await page.isVisible('#settings')).toBe(true);
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await pasteKey(page);
    await page.selectOption('#model', 'quantum-lite');
    await toggle.click();
    expect(await page.isVisible('#settings')).toBe(false);
    expect(await toggle.textContent()).toContain('quantum-lite');
  });

  it('should show example requests on /docs for curl, the openai SDK and our client, and fit a phone', async () => {
    const { page } = await open('/docs');
    await page.waitForSelector('.operation');
    const examples = page.locator('#examples');
    expect(await examples.locator('h3').allTextContents()).toEqual(['curl', 'The openai SDK (Node)', '@quantum-chat/client', 'The Responses API']);
    const code = await examples.locator('pre code').allTextContents();
    expect(code[0]).toContain(`curl ${server.origin}/v1/chat/completions`);
    expect(code[0]).toContain('Authorization: Bearer');
    expect(code[1]).toContain(`baseURL: '${server.origin}/v1'`);
    expect(code[1]).toContain("from 'openai'");
    expect(code[2]).toContain("from '@quantum-chat/client'");
    expect(code[2]).toContain(`baseUrl: '${server.origin}/v1'`);
    await screenshot(page, 'docs-1280');

    await page.setViewportSize(viewports.phone);
    await page.goto(`${server.origin}/docs#schema-ChatCompletionRequest`);
    await page.waitForSelector('.operation');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewports.phone.width);
    // Every table stays inside the page: a wide one scrolls inside its own box (the outermost
    // one, for a table nested in another's cell).
    const overflowing = await page.evaluate(
      (width) =>
        [...document.querySelectorAll('table')].filter((table) => {
          let box: Element = table;
          for (let scroller = table.closest('.table-scroll'); scroller !== null; scroller = scroller.parentElement!.closest('.table-scroll')) box = scroller;
          return box.getBoundingClientRect().right > width + 0.5;
        }).length,
      viewports.phone.width,
    );
    expect(overflowing).toBe(0);
    await page.goto(`${server.origin}/docs`);
    await page.waitForSelector('.operation');
    await screenshot(page, 'docs-375');
  });

  it('should have written the four screenshots', () => {
    for (const name of ['playground-1280', 'playground-375', 'docs-1280', 'docs-375']) expect(existsSync(`${screenshotDirectory}${name}.png`), name).toBe(true);
  });
});
