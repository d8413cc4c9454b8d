import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium; `extraArgs` adds switches such as a fake camera's. */
export function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
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

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Runs axe-core in the page (the context bypasses CSP only so that this script can be injected). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target) }));
  });
  return violations.map((v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes)}`);
}
