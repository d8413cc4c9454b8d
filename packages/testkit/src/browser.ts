import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, BrowserType, Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium; `extraArgs` adds switches such as a fake camera's. */
export function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  // Loaded here, not at import: most test files take the testkit without a browser.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { chromium } = require('playwright-core') as { chromium: BrowserType };
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

/**
 * A fresh browser profile (own cookies): Spanish, CSP bypassed only so axe can be injected, bounded
 * waits; `javaScript: false` for a person whose browser runs no scripts (axe cannot run there).
 */
export async function newPerson(
  browser: Browser,
  locale = 'es-AR',
  { javaScript = true }: { javaScript?: boolean } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ bypassCSP: javaScript, javaScriptEnabled: javaScript, locale });
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(15_000);
  return context;
}

let axeSource: string | null = null;

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core in the page (the context bypasses CSP only so that this script can be injected); with
 * `impacts`, only the violations of those impacts (e.g. `['serious', 'critical']`).
 */
export async function axeViolations(page: Page, impacts?: readonly string[]): Promise<string[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? null,
      help: v.help,
      nodes: v.nodes.map((n) => n.target),
    }));
  });
  return violations
    .filter((v) => !impacts || impacts.includes(v.impact ?? ''))
    .map((v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes)}`);
}
