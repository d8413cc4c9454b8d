import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTenant, testEnv } from '@idv/testkit';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { axeViolations, launchBrowser } from './browser';
import { buildConfig, createSession } from './fixtures';

/**
 * The document step in headless Chromium with a fake camera: the page's camera script shows the rear
 * camera (fed from a y4m written from a sample document), the person takes the photo, it is
 * uploaded, read by the real pipeline, and the flow moves on to the next side.
 */
const SAMPLE = path.join(__dirname, '..', 'assets', 'samples', 'passport-ok-front.jpg');
let directory: string;
let browser: Browser;

/** A y4m video (YUV 4:2:0, a few identical frames) from an image, as Chromium's fake capture reads it. */
async function writeY4m(image: Buffer, file: string): Promise<void> {
  const width = 1920;
  const height = 1080;
  const { data } = await sharp(image)
    .resize(width, height, { fit: 'contain', background: '#404040' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const y = Buffer.alloc(width * height);
  const u = Buffer.alloc((width / 2) * (height / 2));
  const v = Buffer.alloc((width / 2) * (height / 2));
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      const at = (row * width + column) * 3;
      const [r, g, b] = [data[at]!, data[at + 1]!, data[at + 2]!];
      y[row * width + column] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
      if (row % 2 === 0 && column % 2 === 0) {
        const chroma = (row / 2) * (width / 2) + column / 2;
        u[chroma] = Math.max(0, Math.min(255, Math.round(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)));
        v[chroma] = Math.max(0, Math.min(255, Math.round(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)));
      }
    }
  }
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, u, v]);
  writeFileSync(
    file,
    Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F5:1 Ip A1:1 C420jpeg\n`), frame, frame, frame]),
  );
}

beforeAll(async () => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'idv-camera-'));
  const video = path.join(directory, 'document.y4m');
  await writeY4m(readFileSync(SAMPLE), video);
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
