import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildTenant, testEnv } from '@idv/testkit';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { axeViolations, launchBrowser } from './browser';
import { buildConfig, createSession } from './fixtures';
import { writeY4m } from './y4m';

/**
 * The document step in headless Chromium with a fake camera: the page's camera script shows the rear
 * camera (fed from a y4m written from a sample document), the person takes the photo, it is
 * uploaded, read by the real pipeline, and the flow moves on to the next side.
 */
const SAMPLE = path.join(__dirname, '..', 'assets', 'samples', 'passport-ok-front.jpg');
// The camera script's own limit (capture.js SHARP_ENOUGH): the guide's sharpness at the service's blur scale.
const SHARP_ENOUGH = Number(
  /var SHARP_ENOUGH = (\d+);/.exec(readFileSync(path.join(__dirname, '..', 'assets', 'capture.js'), 'utf8'))![1],
);
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
    // One action: the live view and its button; sending and the file picker are not offered yet.
    expect(await page.locator('.camera video').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Enviar foto' }).isVisible()).toBe(false);
    expect(await page.locator('input[type=file]').isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Subir una foto en su lugar' }).isVisible()).toBe(true);
    await shoot.click();
    // The shot is shown to send or retake; a retake goes back to the live view.
    await page.getByRole('img', { name: 'La foto que sacaste' }).waitFor();
    // A sharp card is taken at once, with the usual check.
    expect(Number(await page.locator('.camera-shot').getAttribute('data-sharpness'))).toBeGreaterThanOrEqual(SHARP_ENOUGH);
    expect(await page.getByRole('status').filter({ hasText: 'Revisá que el documento se vea entero' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Sacar otra' }).click();
    await shoot.click();
    await page.getByRole('button', { name: 'Enviar foto' }).click();

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

  test('when the person chooses to upload a photo instead, then the camera stops and the file picker with its button is offered', async () => {
    const page = await documentPage(['camera']);
    await page.getByRole('button', { name: 'Sacar foto' }).waitFor();

    await page.getByRole('button', { name: 'Subir una foto en su lugar' }).click();

    expect(await page.locator('.camera').count()).toBe(0);
    expect(await page.locator('input[type=file]').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Enviar foto' }).isVisible()).toBe(true);
    await page.context().close();
  }, 60_000);

  test('when the camera permission is refused, then the page says how to allow it and the file picker is the way on', async () => {
    const page = await documentPage([], 'denied');

    const said = page.locator('.camera-unavailable');
    await said.waitFor();
    expect(await said.innerText()).toContain('permití la cámara y recargá la página');
    expect(await said.innerText()).toContain('con el botón de abajo');
    expect(await page.locator('input[type=file]').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Enviar foto' }).isVisible()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    await page.context().close();
  }, 60_000);
});

describe('the shutter waits for a sharp frame', () => {
  let blurred: Buffer;
  let sharpCard: Buffer;

  beforeAll(async () => {
    sharpCard = readFileSync(SAMPLE);
    // A Gaussian of 8 px on the 1400 px sample: far past what a barcode or a zone survives.
    blurred = await sharp(sharpCard).blur(8).jpeg({ quality: 90 }).toBuffer();
  });

  /** A browser whose rear camera plays these shots, at the first side of a passport step. */
  async function cameraSeeing(shots: { image: Buffer; frames: number }[], name: string) {
    const video = path.join(directory, `${name}.y4m`);
    await writeY4m(video, shots, { width: 1920, height: 1080, fps: 5 });
    const seeing = await launchBrowser([
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${video}`,
    ]);
    const page = await documentPage(['camera'], undefined, seeing);
    page.context().on('close', () => void seeing.close());
    return page;
  }

  test('when the camera only sees a blurred card, then the shutter holds, takes the sharpest frame it saw and says the photo may not read', async () => {
    const page = await cameraSeeing([{ image: blurred, frames: 3 }], 'blurred');
    await page.getByRole('button', { name: 'Sacar foto' }).click();

    await page.getByRole('status').filter({ hasText: 'Sostené quieto el teléfono' }).first().waitFor();
    await page.getByRole('img', { name: 'La foto que sacaste' }).waitFor();
    const said = page.getByRole('status').filter({ hasText: 'La foto salió movida' });
    await said.first().waitFor();
    expect(Number(await page.locator('.camera-shot').getAttribute('data-sharpness'))).toBeLessThan(SHARP_ENOUGH);
    // The person decides: sending stays possible (the details may read), retaking is offered.
    expect(await page.getByRole('button', { name: 'Enviar foto' }).isEnabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Sacar otra' }).isEnabled()).toBe(true);
    await page.context().close();
  }, 60_000);

  test('when the card turns sharp while the shutter holds, then the sharp frame is the photo taken', async () => {
    // 1.2 s blurred, then 0.8 s sharp, in a loop: a press at any moment finds a sharp frame within the hold.
    const page = await cameraSeeing(
      [
        { image: blurred, frames: 6 },
        { image: sharpCard, frames: 4 },
      ],
      'focusing',
    );
    await page.getByRole('button', { name: 'Sacar foto' }).click();

    await page.getByRole('img', { name: 'La foto que sacaste' }).waitFor();
    expect(Number(await page.locator('.camera-shot').getAttribute('data-sharpness'))).toBeGreaterThanOrEqual(SHARP_ENOUGH);
    await page.getByRole('status').filter({ hasText: 'Revisá que el documento se vea entero' }).first().waitFor();
    await page.context().close();
  }, 60_000);
});

/** A person at the first side of a passport step, with these camera permissions (CSP bypassed only for axe). */
async function documentPage(permissions: string[], camera?: 'denied', withBrowser: Browser = browser) {
  const tenant = await buildTenant({
    config: buildConfig([{ id: 'doc', type: 'document_ar', documents: ['passport'] }]),
    modes: ['test'],
  });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const denying = camera === 'denied' ? await launchBrowser(['--use-fake-device-for-media-stream']) : null;
  const context = await (denying ?? withBrowser).newContext({ locale: 'es-AR', permissions, bypassCSP: true });
  context.setDefaultTimeout(20_000);
  if (denying) context.on('close', () => void denying.close());
  const page = await context.newPage();
  if (camera === 'denied') {
    const devtools = await context.newCDPSession(page);
    await devtools.send('Browser.setPermission', {
      permission: { name: 'camera' },
      setting: 'denied',
      origin: new URL(testEnv().flowUrl).origin,
    });
  }
  await page.goto(session.url);
  await page.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
  await page.getByRole('heading', { name: 'Página de datos del pasaporte' }).waitFor();
  return page;
}
