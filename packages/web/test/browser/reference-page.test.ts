import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, openWatchedPage, screenshot } from './browser.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

describe.skipIf(!chromiumAvailable)('the API reference page in headless Chromium, against the real server process', () => {
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    server = await startServerProcess();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.dispose();
  });

  it('should render the OpenAPI document with no network beyond 127.0.0.1', async () => {
    const { page, context, foreignRequests, pageErrors } = await openWatchedPage(browser);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    await page.goto(`${server.origin}/docs`);
    await page.waitForSelector('.operation');

    expect(await page.locator('h1').textContent()).toContain('Quantum chat-completions API');
    const adminPaths = ['/admin/v1/organisations', '/admin/v1/organisations', '/admin/v1/organisations/{name}', '/admin/v1/organisations/{name}', '/admin/v1/keys', '/admin/v1/keys', '/admin/v1/keys/{id}', '/admin/v1/keys/{id}', '/admin/v1/keys/{id}/revoke', '/admin/v1/keys/{id}/rotate', '/admin/v1/usage', '/admin/v1/audit-log'];
    expect(await page.locator('.operation h3 .path').allTextContents()).toEqual(['/chat/completions', '/chat/completions/{id}/stream', '/chat/completions/{id}', '/chat/completions/{id}/cancel', '/responses', '/responses/{response_id}', '/responses/{response_id}', '/responses/{response_id}/cancel', '/responses/{response_id}/input_items', '/models', '/models/{model}', '/openapi.json', ...adminPaths]);
    // The admin API: its own section, its own token, under /admin/v1 (off on this server, as it says).
    expect(await page.locator('#admin-api + .description').textContent()).toContain('off');
    expect(await page.locator('#op-adminRotateKey .auth').textContent()).toContain('Required: Authorization: Bearer <admin token>');
    expect(await page.locator('#op-adminCreateKey .response .status').allTextContents()).toEqual(['201', '400', '401', '404', '405', '413', '415', '429', '503']);
    expect(await page.locator('.facts dd code').first().textContent()).toBe(`${server.origin}/v1`);
    const chat = page.locator('#op-createChatCompletion');
    expect(await chat.locator('.property-name code').allTextContents()).toContain('x-stream-format');
    expect(await chat.locator('.auth').textContent()).toContain('Required: Authorization: Bearer <API key>');
    expect(await chat.locator('.sse-event td:first-child').allTextContents()).toEqual(['event: thought_trace', 'event: error', 'event: message, or unnamed']);
    expect(await chat.locator('.response .status').allTextContents()).toEqual(['200', '400', '401', '403', '404', '408', '413', '415', '429', '500', '502', '503', '504']);
    expect(await chat.locator('.response', { hasText: '403' }).locator('summary').textContent()).toContain('permission_error');
    expect(await page.locator('#op-listModels .auth').textContent()).toContain('Optional');
    // The Responses API: the same key, and its own request body.
    const responses = page.locator('#op-createResponse');
    expect(await responses.locator('.auth').textContent()).toContain('Required: Authorization: Bearer <API key>');
    expect(await responses.locator('.response .status').allTextContents()).toContain('200');
    expect(await page.locator('#op-listResponseInputItems').count()).toBe(1);
    expect(await page.locator('#examples h3').allTextContents()).toContain('The Responses API');
    expect(await page.locator('#examples pre').last().textContent()).toContain(`${server.origin}/v1/responses`);
    expect((await page.locator('.schema-section h3').allTextContents()).slice(0, 8)).toEqual(['ChatCompletionRequest', 'ChatCompletion', 'ChatCompletionChunk', 'ThoughtTraceChunk', 'ChatStreamEvent', 'Model', 'ModelList', 'ErrorEnvelope']);
    expect(await page.locator('.schema-section h3').allTextContents()).toContain('AdminCreatedApiKey');
    const temperature = page.locator('#schema-ChatCompletionRequest tr', { has: page.locator('code', { hasText: /^temperature$/u }) });
    expect(await temperature.locator('.constraints').textContent()).toBe('≥ 0 · ≤ 2 · default 0.7');
    await screenshot(page, 'api-reference');

    // A link from the table of contents lands on its section.
    await page.click('.toc a[href="#schema-ChatStreamEvent"]');
    expect(await page.locator('#schema-ChatStreamEvent .variant-label').allTextContents()).toEqual(['event: "thought_trace"', 'event: "error"', 'event: "message"']);
    await screenshot(page, 'api-reference-stream-events');

    await context.close();
    expect(foreignRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
    // The page, its three files and the document: nothing else, and all of it from the server.
    expect(new Set(requested)).toEqual(new Set(['/docs', '/assets/styles.css', '/assets/docs.js', '/assets/favicon.svg', '/v1/openapi.json']));
  });
});
