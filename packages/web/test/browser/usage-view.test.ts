/**
 * The usage view (GET /usage), in headless Chromium against the real server process with an
 * admin token and a store holding a month of history: tokens per model per day drawn from
 * the admin API, the totals exact, the organisation and range pickers, a refused token and
 * an admin API that is off, each said in words. Screenshots at 1280 and 375 px (test-output/;
 * `pnpm screenshots` writes docs/screenshots/usage-*.png).
 */
import { join } from 'node:path';
import { createSqliteKeyStore, issueApiKey, type UsageRecord } from '@quantum-chat/access-control';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { chromiumAvailable, launchChromium, openWatchedPage, screenshot, viewports, type PageWatch } from './browser.js';
import { startServerProcess, type ServerProcess } from './server-process.js';

const adminToken = 'qc-admin-usage-view-7c1e9a4b2d6f8e0a';
const dayMs = 86_400_000;
const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** Usage rows for the last `days` days: deterministic, with a weekly rhythm and four models. */
function history(keys: { acme: string; globex: string }, now: number, days = 40): UsageRecord[] {
  const models = ['quantum-flash', 'quantum-lite', 'quantum-reasoner', 'quantum-pro'];
  const records: UsageRecord[] = [];
  for (let ago = 1; ago < days; ago++) {
    const weekday = (Math.floor((now - ago * dayMs) / dayMs) + 4) % 7;
    const busy = weekday === 0 || weekday === 6 ? 0.4 : 1;
    models.forEach((model, modelIndex) => {
      const organisation = modelIndex === 3 || (ago + modelIndex) % 3 === 0 ? 'acme' : 'globex';
      if (model === 'quantum-pro' && organisation !== 'acme') return;
      const requests = Math.max(1, Math.round((6 - modelIndex + ((ago * 7 + modelIndex * 3) % 5)) * busy));
      for (let request = 0; request < requests; request++) {
        const id = `seed_${ago}_${modelIndex}_${request}`;
        records.push({
          usageId: id,
          requestId: id,
          keyId: organisation === 'acme' ? keys.acme : keys.globex,
          organisation,
          model,
          promptTokens: 300 + ((ago * 13 + modelIndex * 29 + request * 7) % 400),
          completionTokens: (200 + ((ago * 17 + modelIndex * 11 + request * 5) % 900)) * (model === 'quantum-reasoner' ? 3 : 1),
          status: 200,
          interrupted: false,
          settled: true,
          timestamp: now - ago * dayMs,
        });
      }
    });
  }
  return records;
}

const unexpectedErrors = (watch: PageWatch) => watch.pageErrors.filter((text) => !text.startsWith('Failed to load resource'));

describe.skipIf(!chromiumAvailable)('the usage view, in headless Chromium against the real server process', () => {
  let server: ServerProcess;
  let browser: Browser;
  let seeded: UsageRecord[] = [];
  let acmeKey = '';

  beforeAll(async () => {
    server = await startServerProcess(
      { adminToken },
      {
        async beforeStart(dataDir) {
          const store = createSqliteKeyStore(join(dataDir, 'quantum-chat.sqlite'));
          try {
            await store.createOrganisation({ name: 'acme', plan: 'elite' });
            await store.createOrganisation({ name: 'globex', plan: 'free' });
            const acme = await issueApiKey(store, { organisation: 'acme', kind: 'live' });
            const globex = await issueApiKey(store, { organisation: 'globex', kind: 'live' });
            acmeKey = acme.key;
            seeded = history({ acme: acme.record.id, globex: globex.record.id }, Date.now());
            await store.writeUsage(seeded);
          } finally {
            await store.close();
          }
        },
      },
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.dispose();
  });

  async function open(viewport: { width: number; height: number } = viewports.desktop): Promise<PageWatch> {
    const watch = await openWatchedPage(browser, viewport);
    onTestFinished(async () => {
      await watch.context.close();
      expect(watch.foreignRequests).toEqual([]);
      expect(unexpectedErrors(watch)).toEqual([]);
    });
    await watch.page.goto(`${server.origin}/usage`);
    return watch;
  }

  async function showUsage(page: Page, token: string): Promise<void> {
    await page.fill('#admin-token', token);
    await page.click('#load');
  }

  /** The seeded tokens of the last `days` days (today included), optionally of one organisation. */
  function seededTotal(days: number, organisation?: string): number {
    const since = utcDay(Date.now() - (days - 1) * dayMs);
    return seeded.filter((record) => utcDay(record.timestamp) >= since && (organisation === undefined || record.organisation === organisation)).reduce((total, record) => total + record.promptTokens + record.completionTokens, 0);
  }

  const totalCell = (page: Page) => page.locator('.usage-totals .total-row td').last().textContent();

  it('should say what it needs, and refuse a wrong token in words', async () => {
    const { page } = await open();
    expect(await page.locator('#usage-status').textContent()).toContain('Enter an admin token');
    expect(await page.locator('.topbar nav a[aria-current="page"]').textContent()).toBe('Usage');
    await showUsage(page, 'not-the-admin-token-at-all');
    await page.waitForSelector('.usage-status.error');
    expect(await page.locator('#usage-status').textContent()).toBe('The admin token was refused: The admin token is not valid.');
    expect(await page.locator('.usage-chart').count()).toBe(0);
  });

  it('should draw tokens per model per day for 30 days, with exact totals, and follow the organisation and range pickers', async () => {
    // Today's traffic goes through the real server: the view shows it with the history.
    const response = await fetch(`${server.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${acmeKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'quantum-pro', messages: [{ role: 'user', content: 'How busy were we?' }], max_tokens: 40 }),
    });
    const live = ((await response.json()) as { usage: { total_tokens: number } }).usage.total_tokens;

    const { page } = await open();
    await showUsage(page, adminToken);
    await page.waitForSelector('.usage-chart');
    expect(await page.locator('#usage-status').textContent()).toMatch(/^Tokens per model per day, \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d \(UTC\), all organisations\.$/u);
    expect(await page.locator('.usage-chart .day').count()).toBe(30);
    // The legend (and the stacks, bottom up) go from the model with the most tokens down.
    const byModel = new Map<string, number>([['quantum-pro', live]]);
    for (const record of seeded.filter((entry) => utcDay(entry.timestamp) >= utcDay(Date.now() - 29 * dayMs))) {
      byModel.set(record.model, (byModel.get(record.model) ?? 0) + record.promptTokens + record.completionTokens);
    }
    expect(await page.locator('.usage-legend code').allTextContents()).toEqual([...byModel].sort((a, b) => b[1] - a[1]).map(([model]) => model));
    // Every segment says its day, model and tokens; today's bar has the live request.
    const today = page.locator(`.usage-chart .day[data-day="${utcDay(Date.now())}"] .bar`);
    expect(await today.count()).toBe(1);
    expect(await today.locator('title').textContent()).toBe(`${utcDay(Date.now())} · quantum-pro: ${live.toLocaleString('en-US')} tokens`);
    expect(await totalCell(page)).toBe((seededTotal(30) + live).toLocaleString('en-US'));
    // Drawn at the width it is shown: its text is the page's size, not scaled up or down.
    const labelHeight = await page.locator('.usage-chart .axis-label').first().evaluate((element) => element.getBoundingClientRect().height);
    expect(labelHeight).toBeGreaterThanOrEqual(10);
    expect(labelHeight).toBeLessThanOrEqual(16);
    await screenshot(page, 'usage-1280', { fullPage: true });

    await page.selectOption('#organisation', 'globex');
    await page.waitForFunction(() => document.querySelector('#usage-status')?.textContent?.includes("'globex'"));
    expect(await totalCell(page)).toBe(seededTotal(30, 'globex').toLocaleString('en-US'));
    expect(await page.locator('.usage-legend code').allTextContents()).not.toContain('quantum-pro');

    await page.selectOption('#organisation', '');
    await page.selectOption('#days', '7');
    await page.waitForFunction(() => document.querySelectorAll('.usage-chart .day').length === 7);
    expect(await totalCell(page)).toBe((seededTotal(7) + live).toLocaleString('en-US'));
  });

  it('should fit a phone, its labels readable', async () => {
    const { page } = await open(viewports.phone);
    await showUsage(page, adminToken);
    await page.waitForSelector('.usage-chart');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewports.phone.width);
    // Drawn at the width it is shown: an axis label is not shrunk below 10 px.
    const labelHeight = await page.locator('.usage-chart .axis-label').first().evaluate((element) => element.getBoundingClientRect().height);
    expect(labelHeight).toBeGreaterThanOrEqual(10);
    expect(labelHeight).toBeLessThanOrEqual(16);
    await screenshot(page, 'usage-375', { fullPage: true });
  });

  it('should say when the admin API is off, and how to turn it on', async () => {
    const plain = await startServerProcess();
    onTestFinished(() => plain.dispose());
    const watch = await openWatchedPage(browser, viewports.desktop);
    onTestFinished(() => watch.context.close());
    await watch.page.goto(`${plain.origin}/usage`);
    await showUsage(watch.page, adminToken);
    await watch.page.waitForSelector('.usage-status.error');
    expect(await watch.page.locator('#usage-status').textContent()).toContain('The admin API is off on this server. Start it with QUANTUM_CHAT_ADMIN_TOKEN set');
    expect(unexpectedErrors(watch)).toEqual([]);
  });
});
