import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asId } from '@idv/contracts';
import { createPool } from '@idv/kit';
import { buildTenant, testEnv } from '@idv/testkit';
import type { Browser, Page } from 'playwright-core';
import { PgArtefactStore } from '../src/adapters/artefact.store';
import { artefactKeyring } from '../src/config';
import { decodeFaceFrames } from '../src/domain/face-frames';
import { axeViolations, launchBrowser } from './browser';
import { buildConfig, createSession, getSession } from './fixtures';
import { Person } from './person';
import { startPrivateStack } from './providers';
import { writeY4m, type Shot } from './y4m';

/**
 * The face step's camera page in headless Chromium: the page's script opens the front camera (a fake one,
 * fed from a y4m of test mode's live face sequence), asks for the server's poses in order, uploads the
 * frames it takes, and the real pipeline judges them. The stack runs at TIME_SCALE 1 so that the
 * challenge's window (60 s) and hold (600 ms) are a person's, which the script paces itself by.
 */
const SAMPLES = path.join(__dirname, '..', 'assets', 'face-samples');
type Pose = 'straight' | 'left' | 'right';
const CATALOG = JSON.parse(readFileSync(path.join(SAMPLES, 'catalog.json'), 'utf8')) as {
  id: string;
  poses: Record<Pose, string[]>;
}[];
/**
 * The script's pacing (assets/face-capture.js), from the window the page gives it: a fortieth of the window
 * to find the oval once the camera shows a picture, then each pose for its hold + 2 s (1.5 s and 2.6 s at
 * TIME_SCALE 1).
 */
const WINDOW_MS = 60_000;
const READY_MS = WINDOW_MS / 40;
const poseMs = (holdMs: number) => Math.min(holdMs + 2000, WINDOW_MS / 3);
const FPS = 4;
const INSTRUCTIONS: Record<Pose, string> = {
  straight: 'Mirá de frente a la cámara',
  left: 'Girá la cabeza hacia tu izquierda',
  right: 'Girá la cabeza hacia tu derecha',
};

let privateStack: Awaited<ReturnType<typeof startPrivateStack>>;
let directory: string;
const flowUrl = () => testEnv().flowUrl;

beforeAll(async () => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'idv-face-camera-'));
  privateStack = await startPrivateStack({ database: 'idv_test_face_camera', env: { TIME_SCALE: '1', LOG_LEVEL: 'warn' } });
}, 90_000);

afterAll(async () => {
  await privateStack?.stop();
  rmSync(directory, { recursive: true, force: true });
});

const attribute = (html: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(html)?.[1] ?? '';

/**
 * The live sample filmed in the challenge's order, its two frames of a pose alternating. The first pose
 * also covers the camera's start and the moment to find the oval; the last one outlasts the capture, so
 * the looping video never comes back to the first pose while frames are taken.
 */
function filmed(steps: Pose[], holdMs: number): Shot[] {
  const sample = CATALOG.find((entry) => entry.id === 'face-live')!;
  const ticks = (ms: number) => Math.round((ms * FPS) / 1000);
  return steps.flatMap((pose, index) => {
    const images = sample.poses[pose].map((file) => readFileSync(path.join(SAMPLES, file)));
    const ms = poseMs(holdMs) + (index === 0 ? READY_MS + 300 : 0) + (index === steps.length - 1 ? 5000 : 0);
    return Array.from({ length: ticks(ms) }, (_, tick) => ({ image: images[tick % images.length]!, frames: 1 }));
  });
}

/**
 * A session at its face step's challenge, started over HTTP: the server picks the poses' order per attempt
 * and a fake camera's video is fixed at launch, so the person is filmed once that order is known.
 */
async function challengeStarted() {
  const tenant = await buildTenant({ config: buildConfig([{ id: 'face', type: 'face_liveness' }]), modes: ['test'] });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  await person.submit({ action: 'accept' });
  const started = await person.submit({ action: 'start' });
  const steps = attribute(started.text, 'data-steps').split(',') as Pose[];
  const holdMs = Number(attribute(started.text, 'data-hold-ms'));
  expect(Number(attribute(started.text, 'data-window-ms'))).toBe(WINDOW_MS);
  return { tenant, session, person, steps, holdMs, nonce: attribute(started.text, 'data-nonce') };
}

/** Chromium whose camera plays the person filmed in `steps`' order. */
async function cameraBrowser(steps: Pose[], holdMs: number): Promise<Browser> {
  const video = path.join(directory, `face-${steps.join('-')}.y4m`);
  await writeY4m(video, filmed(steps, holdMs), { fps: FPS });
  return launchBrowser([
    '--use-fake-device-for-media-stream',
    '--use-fake-ui-for-media-stream',
    `--use-file-for-fake-video-capture=${video}`,
  ]);
}

/**
 * A mid-range phone as DevTools emulates one: the CPU 4× slower and the "Fast 3G" profile (its figures:
 * 562.5 ms of latency, 1.6 Mbit/s down and 750 kbit/s up, each × 0.9; throughputs in bytes per second).
 */
const SLOW_PHONE = {
  cpuSlowdown: 4,
  network: { offline: false, latency: 562.5, downloadThroughput: (1.6e6 / 8) * 0.9, uploadThroughput: (750e3 / 8) * 0.9 },
};

/** The person's browser on a phone-sized screen, with their binding cookie (CSP bypassed only for axe). */
async function openChallenge(browser: Browser, person: Person, sessionId: string, { slowPhone = false } = {}) {
  const context = await browser.newContext({
    locale: 'es-AR',
    permissions: ['camera'],
    bypassCSP: true,
    viewport: { width: 390, height: 800 },
  });
  context.setDefaultTimeout(20_000);
  await context.addCookies([...person.cookies].map(([name, value]) => ({ name, value, url: flowUrl() })));
  const page = await context.newPage();
  if (slowPhone) {
    const devtools = await context.newCDPSession(page);
    await devtools.send('Emulation.setCPUThrottlingRate', { rate: SLOW_PHONE.cpuSlowdown });
    await devtools.send('Network.enable');
    await devtools.send('Network.emulateNetworkConditions', SLOW_PHONE.network);
  }
  const scriptErrors: string[] = [];
  page.on('pageerror', (error) => scriptErrors.push(String(error)));
  await page.goto(`${flowUrl()}/s/${sessionId}`);
  return { context, page, scriptErrors, instruction: page.locator('[data-face-instruction]') };
}

/** What the page shows when a wait fails: the URL and the start of its main content. */
async function pageState(page: Page, error: unknown): Promise<Error> {
  const main = await page
    .locator('main')
    .innerText()
    .catch(() => '');
  return new Error(`${String(error)}\n${page.url()}\n${main.slice(0, 800)}`);
}

describe('the face step with a camera', () => {
  test('when the person follows the challenge in front of the camera, then the frames are judged live and the session is approved', async () => {
    const { tenant, session, person, steps, holdMs, nonce } = await challengeStarted();
    expect([...steps].sort()).toEqual(['left', 'right', 'straight']);
    expect(holdMs).toBe(600);
    const browser = await cameraBrowser(steps, holdMs);
    try {
      const { context, page, scriptErrors, instruction } = await openChallenge(browser, person, session.id);
      // The same stored challenge as the one filmed: a GET does not start another.
      expect(await page.locator('[data-face-challenge]').getAttribute('data-nonce')).toBe(nonce);
      await instruction.filter({ hasText: INSTRUCTIONS[steps[0]!] }).waitFor();
      // The script runs: nothing on the page says JavaScript is needed.
      expect(await page.locator('main').innerText()).not.toContain('JavaScript');
      // Mirrored on the screen only; the judge's reading of left and right below shows the frames were not.
      const transform = await page
        .locator('[data-face-video]')
        .evaluate(
          (node) =>
            (globalThis as unknown as { getComputedStyle(node: unknown): { transform: string } }).getComputedStyle(node)
              .transform,
        );
      expect(transform).toMatch(/^matrix\(-1, 0, 0, 1/);
      expect(await page.getByRole('status').count()).toBeGreaterThan(0);
      expect(await axeViolations(page)).toEqual([]);
      await instruction.filter({ hasText: INSTRUCTIONS[steps[2]!] }).waitFor();

      await page
        .getByRole('heading', { name: '¡Listo!' })
        .waitFor({ timeout: 45_000 })
        .catch(async (error: unknown) => {
          throw await pageState(page, error);
        });
      expect(scriptErrors).toEqual([]);
      const resolved = await getSession(tenant.testKey, session.id);
      expect(resolved.status).toBe('approved');
      expect(resolved.result.steps).toContainEqual({ id: 'face', type: 'face_liveness', verdict: 'approved' });
      await context.close();
    } finally {
      await browser.close();
    }
  }, 90_000);

  test('when the phone is slow (4× CPU) on Fast 3G, then the frames are taken, sent and judged, and the session is approved', async () => {
    const { tenant, session, person, steps, holdMs } = await challengeStarted();
    const browser = await cameraBrowser(steps, holdMs);
    try {
      const { context, page, scriptErrors, instruction } = await openChallenge(browser, person, session.id, { slowPhone: true });
      await instruction.filter({ hasText: INSTRUCTIONS[steps[0]!] }).waitFor({ timeout: 30_000 });

      await page
        .getByRole('heading', { name: '¡Listo!' })
        .waitFor({ timeout: 100_000 })
        .catch(async (error: unknown) => {
          throw await pageState(page, error);
        });

      expect(scriptErrors).toEqual([]);
      expect((await getSession(tenant.testKey, session.id)).status).toBe('approved');
      // The frames as the server kept them: their times within what it saw, their span within the window.
      const pool = createPool({ url: testEnv().databaseUrl, schema: 'flow', max: 1 });
      try {
        const store = new PgArtefactStore(pool, artefactKeyring({ INTERNAL_TOKEN: testEnv().internalToken }));
        const set = decodeFaceFrames((await store.latest(asId('session', session.id), 'face_frames'))!.bytes);
        const times = set.frames.map((frame) => frame.atMs);
        expect(times[0]).toBeGreaterThanOrEqual(0);
        expect(times.at(-1)!).toBeLessThanOrEqual(set.receivedAt - set.challenge.issuedAt);
        expect(times.at(-1)! - times[0]!).toBeLessThanOrEqual(set.challenge.windowMs);
      } finally {
        await pool.end();
      }
      await context.close();
    } finally {
      await browser.close();
    }
  }, 150_000);

  test('when the frames are refused (another attempt was started meanwhile), then the page says why and starts again on request', async () => {
    const { session, person, steps, holdMs, nonce } = await challengeStarted();
    const browser = await cameraBrowser(steps, holdMs);
    try {
      const { context, page, scriptErrors, instruction } = await openChallenge(browser, person, session.id);
      await instruction.filter({ hasText: INSTRUCTIONS[steps[0]!] }).waitFor();
      // Another tab of the same person starts a new attempt: the frames being taken carry a used nonce.
      const newer = await person.submit({ action: 'start' });
      expect(attribute(newer.text, 'data-nonce')).not.toBe(nonce);

      await page
        .getByRole('alert')
        .filter({ hasText: 'no corresponden a este intento' })
        .waitFor({ timeout: 30_000 })
        .catch(async (error: unknown) => {
          throw await pageState(page, error);
        });
      expect(await page.locator('[data-face-camera]').isHidden()).toBe(true);
      await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Empezar de nuevo' }).click()]);
      // A new challenge, and the camera runs again for it.
      const challenge = page.locator('[data-face-challenge]');
      expect([nonce, attribute(newer.text, 'data-nonce')]).not.toContain(await challenge.getAttribute('data-nonce'));
      const first = (await challenge.getAttribute('data-steps'))!.split(',')[0] as Pose;
      await instruction.filter({ hasText: INSTRUCTIONS[first] }).waitFor();
      expect(scriptErrors).toEqual([]);
      await context.close();
    } finally {
      await browser.close();
    }
  }, 60_000);

  test('when the browser has no camera, then the page says so and keeps the way on without one', async () => {
    const tenant = await buildTenant({
      config: buildConfig([{ id: 'face', type: 'face_liveness', allowUpload: true }]),
      modes: ['test'],
    });
    const session = await createSession(tenant.testKey, tenant.project.id);
    let browser: Browser | undefined;
    try {
      browser = await launchBrowser();
      const context = await browser.newContext({ locale: 'en-US', bypassCSP: true });
      context.setDefaultTimeout(20_000);
      const page = await context.newPage();
      await page.goto(session.url);
      await page.getByRole('button', { name: 'I agree and want to continue' }).click();
      await page.getByRole('button', { name: 'Start with the camera' }).click();

      const said = page.locator('[data-face-no-camera]');
      await said.filter({ hasText: 'camera' }).waitFor();
      expect(await said.innerText()).toContain('You can also send two photos with the button below');
      expect(await page.locator('main').innerText()).not.toContain('JavaScript');
      expect(await page.locator('[data-face-camera]').isHidden()).toBe(true);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'I cannot use the camera: send two photos' }).click();
      await page.getByRole('heading', { name: 'Send two photos of yourself' }).waitFor();
      await context.close();
    } finally {
      await browser?.close();
    }
  }, 60_000);

  test('when the person refuses the camera permission, then the page says how to allow it and offers the phone by QR code', async () => {
    const { session, person } = await challengeStarted();
    // A camera is there, but this browser's permission for it is "block".
    const browser = await launchBrowser(['--use-fake-device-for-media-stream']);
    try {
      const context = await browser.newContext({ locale: 'es-AR', bypassCSP: true });
      context.setDefaultTimeout(20_000);
      await context.addCookies([...person.cookies].map(([name, value]) => ({ name, value, url: flowUrl() })));
      const page = await context.newPage();
      const devtools = await context.newCDPSession(page);
      await devtools.send('Browser.setPermission', {
        permission: { name: 'camera' },
        setting: 'denied',
        origin: new URL(flowUrl()).origin,
      });
      await page.goto(`${flowUrl()}/s/${session.id}`);

      const said = page.locator('[data-face-no-camera]');
      await said.filter({ hasText: 'permiso' }).waitFor();
      expect(await said.innerText()).toContain('permití la cámara y recargá la página');
      expect(await said.innerText()).toContain('seguir en tu celular con el código QR');
      expect(await page.locator('.handover svg').count()).toBe(1);
      expect(await page.locator('main').innerText()).not.toContain('JavaScript');
      expect(await axeViolations(page)).toEqual([]);
      await context.close();
    } finally {
      await browser.close();
    }
  }, 60_000);

  test('when the browser runs no JavaScript and the step allows no upload, then the page says the camera needs it and offers the phone by QR code', async () => {
    const { session, person } = await challengeStarted();

    const page = await person.get(`/s/${session.id}`);

    expect(page.text).toMatch(/<noscript><p class="hint">Este paso usa la cámara, y para eso el navegador necesita JavaScript/);
    expect(page.text).toContain('Seguí en tu celular con el código QR de abajo');
    expect(page.text).toMatch(/<section class="handover"[\s\S]*<svg/);
  });
});
