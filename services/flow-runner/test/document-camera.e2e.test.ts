import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTenant, testEnv } from '@idv/testkit';
import type { Browser } from 'playwright-core';
import { axeViolations, launchBrowser } from './browser';
import { buildConfig, createSession } from './fixtures';
import { writeY4m } from './y4m';

/**
 * The document step in headless Chromium with a fake camera: the page's camera script shows the rear
 * camera (fed from a y4m written from a sample document), the person takes the photo, it is
 * uploaded, read by the real pipeline, and the flow moves on to the next side.
 */
const SAMPLE = path.join(__dirname, '..', 'assets', 'samples', 'passport-ok-front.jpg');
let directory: string;
let browser: Browser;

beforeAll(async () => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'idv-camera-'));
  const video = path.join(directory, 'document.y4m');
  // 1920×1080 as a phone's rear camera gives: the document photo is read at full size.
  await writeY4m(video, [{ image: readFileSync(SAMPLE), frames: 3 }], { width: 1920, height: 1080, fps: 5 });
  browser = await launchBrowser([
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-video-capture=${video}`,
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('the document step with a camera', () => {
  test('when the person takes the photo with the camera, then it is uploaded, read, and the next side is asked for', async () => {
    const tenant = await buildTenant({
      config: buildConfig([{ id: 'doc', type: 'document_ar', documents: ['passport'] }]),
      modes: ['test'],
    });
    const session = await createSession(tenant.testKey, tenant.project.id);
    const context = await browser.newContext({ locale: 'es-AR', permissions: ['camera'] });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();

    // The camera is asked for with the ideal 1920×1080 the script requests.
    await page.goto(session.url);
    await page.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
    await page.getByRole('heading', { name: 'Página de datos del pasaporte' }).waitFor();
    const shoot = page.getByRole('button', { name: 'Sacar foto' });
    await shoot.waitFor();
    await page.getByRole('status').filter({ hasText: /.+/ }).first().waitFor();
    await shoot.click();

    const next = page.getByRole('heading', { name: 'Frente, inclinado' });
    const refused = page.locator('p.alert');
    await next
      .or(refused)
      .first()
      .waitFor({ timeout: 45_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n${page.url()}\n${(await page.locator('main').innerText()).slice(0, 500)}`);
      });
    expect(await refused.allInnerTexts()).toEqual([]);
    expect(page.url()).toBe(`${testEnv().flowUrl}/s/${session.id}`);
    // The axe run needs its script injected, which this page's CSP forbids: a second context bypasses it.
    const audit = await browser.newContext({ locale: 'es-AR', permissions: ['camera'], bypassCSP: true });
    const auditPage = await audit.newPage();
    await auditPage.context().addCookies(await context.cookies());
    await auditPage.goto(page.url());
    await auditPage.getByRole('button', { name: 'Sacar foto' }).waitFor();
    expect(await axeViolations(auditPage)).toEqual([]);
    await audit.close();
    await context.close();
  }, 90_000);
});
