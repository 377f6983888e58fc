import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's `chromium` package; CI installs it. The tests never download a browser. */
const chromiumPath = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(chromiumPath);
if (!chromiumAvailable) console.warn(`@quantum-chat/web browser tests skipped: ${chromiumPath} is missing (apt-get install chromium).`);

/**
 * Screenshots land here: `test-output/` (gitignored; CI keeps it), so that `pnpm test` changes
 * no tracked file. `pnpm screenshots` sets QC_SCREENSHOTS_DIR to `docs/screenshots/` to refresh
 * the committed set.
 */
export const screenshotDirectory = process.env.QC_SCREENSHOTS_DIR ? `${process.env.QC_SCREENSHOTS_DIR.replace(/\/+$/u, '')}/` : fileURLToPath(new URL('../../test-output/', import.meta.url));

/** Headless, and quiet: no background requests of the browser's own, no first-run pages. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** What a page did that a test must not accept: requests to other hosts, script errors. */
export interface PageWatch {
  page: Page;
  context: BrowserContext;
  /** URLs the page tried to load from anywhere but 127.0.0.1 (each was aborted). */
  foreignRequests: string[];
  /** Uncaught exceptions and `console.error` messages. */
  pageErrors: string[];
}

/**
 * A fresh context (its own temporary profile) whose every request is routed: 127.0.0.1 goes
 * through, anything else is aborted and recorded, so a test can fail on it.
 */
export async function openWatchedPage(browser: Browser, viewport = { width: 1360, height: 900 }): Promise<PageWatch> {
  const context = await browser.newContext({ viewport });
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    foreignRequests.push(url.href);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(message.text());
  });
  return { page, context, foreignRequests, pageErrors };
}

/** Writes `test-output/<name>.png`. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(screenshotDirectory, { recursive: true });
  const path = `${screenshotDirectory}${name}.png`;
  await page.screenshot({ path, fullPage: options.fullPage ?? false });
  return path;
}

/** The widths every page is checked and photographed at: a laptop and a small phone. */
export const viewports = { desktop: { width: 1280, height: 800 }, phone: { width: 375, height: 667 } } as const;
