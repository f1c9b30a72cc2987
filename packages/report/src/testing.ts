import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it). */
export const CHROMIUM_PATH = process.env.XSB_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Why browser tests cannot run here, or null when they can. Under `CI=true` a missing Chromium is a
 * failure, not a skip: CI installs it.
 */
export function chromiumUnavailableReason(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  const reason = `Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set XSB_CHROMIUM)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI must run the browser tests`);
  return reason;
}

/** The flags that keep headless Chromium quiet on a machine without network. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
];

export interface OpenedReport {
  page: Page;
  /** Console messages of type error, and uncaught page errors. */
  errors: string[];
  /** Every request other than the report itself (each one was blocked). */
  requests: string[];
  /** Dialogs (alert, confirm, prompt) the page tried to open. */
  dialogs: string[];
}

export interface HeadlessBrowser {
  /** Opens a report (file path or http URL) at 1400×900 with every other request blocked and counted. */
  open(target: string): Promise<OpenedReport>;
  close(): Promise<void>;
}

/**
 * Headless Chromium through playwright-core with a fresh profile folder. Every request that is not the
 * page itself is aborted and recorded, so a test can assert that a report asks for nothing.
 */
export async function launchHeadlessBrowser(): Promise<HeadlessBrowser> {
  const { chromium } = await import('playwright-core');
  const profile = await mkdtemp(join(tmpdir(), 'xsb-chromium-'));
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
  });
  return {
    async open(target) {
      const url = /^https?:\/\//.test(target) ? target : pathToFileURL(target).href;
      const page = await context.newPage();
      const opened: OpenedReport = { page, errors: [], requests: [], dialogs: [] };
      await page.route('**/*', async (route) => {
        const requested = route.request().url();
        if (requested === url || requested.split('#')[0] === url.split('#')[0]) return route.continue();
        opened.requests.push(requested);
        return route.abort();
      });
      page.on('console', (message) => {
        if (message.type() === 'error') opened.errors.push(message.text());
      });
      page.on('pageerror', (error) => opened.errors.push(error.message));
      page.on('dialog', async (dialog) => {
        opened.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        await dialog.dismiss();
      });
      await page.goto(url, { waitUntil: 'load' });
      return opened;
    },
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
