import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR, buildTenant, startServiceFromEnv, testEnv } from '@idv/testkit';
import pg from 'pg';
import { Pool as UndiciPool, request } from 'undici';
import { FORM_STEP, VALID_FORM, buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, h1Of, inputValue, statusOf, type Page } from './person';

/**
 * Continuing on another device (issue 11), through the real stack: a camera page shows a QR code of a
 * hand-over URL; opening it on another device moves the flow there (fresh binding, fresh CSRF token,
 * one winner among racing devices, any replica), and the browser it left is told the flow moved.
 */
const flowUrl = () => testEnv().flowUrl;
const BURST = 10;
/** A second flow-runner whose hand-over codes live 10 min × 0.002 = 1.2 s (the stack's live 30 s). */
const SHORT_TIME_SCALE = 0.002;
let replica: Awaited<ReturnType<typeof startServiceFromEnv>>;
let connections: UndiciPool;
let replicaConnections: UndiciPool;
let db: pg.Client;

beforeAll(async () => {
  // No reading or face threads: the stack's flow-runner reads the captures; this one only serves pages.
  replica = await startServiceFromEnv('flow-runner', {
    TIME_SCALE: String(SHORT_TIME_SCALE),
    VERIFICATION_THREADS: '0',
    FACE_THREADS: '0',
    FLOW_BASE_URL: flowUrl(),
  });
  connections = new UndiciPool(flowUrl(), { connections: BURST });
  replicaConnections = new UndiciPool(replica.url, { connections: BURST });
  db = new pg.Client({ connectionString: testEnv().databaseUrl });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await connections?.close();
  await replicaConnections?.close();
  await db?.end();
  await replica?.stop();
});

const PASSPORT_AND_FORM = [{ id: 'doc', type: 'document_ar', documents: ['passport'] }, FORM_STEP];

/** A laptop (no camera) at the document step's first capture page, on the stack's flow-runner or another. */
async function laptopAtCamera(origin = flowUrl()) {
  const tenant = await buildTenant({ config: buildConfig(PASSPORT_AND_FORM), modes: ['test'] });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const laptop = new Person(origin);
  await laptop.get(session.url.replace(flowUrl(), origin));
  await laptop.submit({ action: 'accept' });
  expect(h1Of(laptop.last!)).toBe('Página de datos del pasaporte');
  return { tenant, session, laptop };
}

const handoverUrlOf = (page: Page) => /<a href="([^"]+)" data-handover-url>/.exec(page.text)?.[1];

async function storedFlow(sessionId: string) {
  const { rows } = await db.query<{ binding_hash: string; csrf_token: string; state: string }>(
    'SELECT binding_hash, csrf_token, state::text AS state FROM flow.flows WHERE session_id = $1',
    [sessionId],
  );
  return rows[0]!;
}

/** Reloads until the reading's progress page gives way (it refreshes itself every 2 s in a browser). */
const waitForReading = (person: Person, sessionId: string) =>
  eventually(
    async () => {
      const page = await person.get(`/s/${sessionId}`);
      return page.text.includes('http-equiv="refresh"') ? undefined : page;
    },
    30_000,
    'the reading of the capture',
  );

const flowLog = () => readFileSync(path.join(ROOT_DIR, '.run', 'logs', `${testEnv().namespace}-flow-runner.log`), 'utf8');

describe('continuing on another device', () => {
  test('when the phone opens the code of the laptop page, then the phone goes on to the next step and the laptop is told the flow moved', async () => {
    const { tenant, session, laptop } = await laptopAtCamera();
    const camera = laptop.last!;
    expect(camera.text).toContain('¿No tenés cámara acá? Seguí en tu celular');
    expect(camera.text).toMatch(/<div class="handover-qr" role="img" aria-label="[^"]+"><svg [^>]*viewBox/);
    const url = handoverUrlOf(camera)!;
    expect(url).toMatch(new RegExp(`^${flowUrl()}/h/${session.id}/ho_[A-Za-z0-9_-]{43}$`));
    const token = url.split('/').pop()!;
    // Only the hash is stored; a reload shows the same code while it is alive.
    const stored = await storedFlow(session.id);
    expect(stored.state).not.toContain(token.slice(3));
    expect(handoverUrlOf(await laptop.get(`/s/${session.id}`))).toBe(url);
    const oldCsrf = inputValue(laptop.last!.text, '_csrf')!;

    const phone = new Person(flowUrl());
    const hops: Page[] = [];
    const landed = await phone.get(url, hops);
    expect(hops[0]!.status).toBe(303);
    expect(hops[0]!.headers['cache-control']).toBe('no-store');
    expect(landed.status).toBe(200);
    expect(h1Of(landed)).toBe('Página de datos del pasaporte');
    const rebound = await storedFlow(session.id);
    expect(rebound.binding_hash).not.toBe(stored.binding_hash);
    expect(rebound.csrf_token).not.toBe(oldCsrf);
    expect(inputValue(landed.text, '_csrf')).toBe(rebound.csrf_token);
    // The phone's page offers a code of its own: the laptop's are spent.
    expect(handoverUrlOf(landed)).not.toBe(url);

    // The laptop's next view, submission and link open: the moved page, and nothing of the flow.
    for (const page of [
      await laptop.get(`/s/${session.id}`),
      await laptop.post(`/s/${session.id}`, {
        _csrf: oldCsrf,
        step: 'doc',
        action: 'sample',
        side: 'front',
        sample: 'passport-ok',
      }),
      await laptop.get(session.url),
    ]) {
      expect(page.status).toBe(409);
      expect(statusOf(page)).toBe('moved');
      expect(h1Of(page)).toBe('Seguís en otro dispositivo');
      expect(page.text).not.toContain(session.id);
      expect(page.text).not.toContain('_csrf');
      expect(page.text).not.toContain('Pasaporte');
    }
    const english = new Person(flowUrl(), 'en-GB,en;q=0.8');
    for (const [name, value] of laptop.cookies) english.cookies.set(name, value);
    const moved = await english.get(`/s/${session.id}`);
    expect([moved.status, h1Of(moved)]).toEqual([409, 'You are continuing on another device']);

    // The phone goes on: both sides of the passport, read by the real pipeline, then the next step.
    await phone.submit({ action: 'sample', side: 'front', sample: 'passport-ok' });
    await waitForReading(phone, session.id);
    expect(h1Of(phone.last!)).toBe('Frente, inclinado');
    await phone.submit({ action: 'sample', side: 'front_angle', sample: 'passport-ok' });
    const next = await waitForReading(phone, session.id);
    expect(h1Of(next)).toBe('Completá tus datos');
    expect(next.text).not.toContain('data-handover-url');

    // The session's status is unchanged; the hand-over is logged by session id, never with its token.
    expect((await getSession(tenant.testKey, session.id)).status).toBe('in_progress');
    const log = await eventually(() => {
      const text = flowLog();
      const lines = text.split('\n').filter((line) => line.includes('flow handed over to another device'));
      const logged = lines.map((line) => JSON.parse(line) as { session_id?: string });
      return logged.some((entry) => entry.session_id === session.id) ? text : undefined;
    });
    expect(log).toContain(`/h/${session.id}/ho_[REDACTED]`);
    expect(log).not.toContain(token);
    expect(log).not.toContain(token.slice(3));
  });

  test('when the face step starts on a browser without a camera, then it offers the phone too, and a waiting-free page such as the form does not', async () => {
    const tenant = await buildTenant({
      config: buildConfig([FORM_STEP, { id: 'face', type: 'face_liveness', allowUpload: true }]),
      modes: ['test'],
    });
    const session = await createSession(tenant.testKey, tenant.project.id);
    const laptop = new Person(flowUrl(), 'en-US');
    await laptop.get(session.url);
    await laptop.submit({ action: 'accept' });
    expect(laptop.last!.text).not.toContain('data-handover-url');
    await laptop.submit(VALID_FORM);
    expect(laptop.last!.text).toContain('No camera here? Continue on your phone');
    const url = handoverUrlOf(laptop.last!)!;
    // The two-photo fallback's page offers the same code.
    await laptop.submit({ action: 'start_upload' });
    expect(laptop.last!.text).toContain('capture="user"');
    expect(handoverUrlOf(laptop.last!)).toBe(url);
    const phone = new Person(flowUrl());
    expect(statusOf(await phone.get(url))).toBeNull();
    expect(phone.last!.text).toContain('name="frame"');
  });

  test('when the code is opened a second time, then the second device is told to scan again and gets nothing of the flow', async () => {
    const { session, laptop } = await laptopAtCamera();
    const url = handoverUrlOf(laptop.last!)!;
    const phone = new Person(flowUrl());
    expect(statusOf(await phone.get(url))).toBeNull();

    const other = new Person(flowUrl());
    const again = await other.get(url);
    expect(again.status).toBe(410);
    expect(statusOf(again)).toBe('handover_invalid');
    expect(h1Of(again)).toBe('Este código ya no sirve');
    expect(again.setCookies).toEqual([]);
    expect(statusOf(await other.get(`/s/${session.id}`))).toBe('used');
    // The phone itself opening it again does not lose the flow it has.
    expect((await phone.get(url)).status).toBe(410);
    expect(h1Of(await phone.get(`/s/${session.id}`))).toBe('Página de datos del pasaporte');
  });

  test('when the code is unknown, malformed or of an unknown session, then the scan-again page answers, never an error', async () => {
    const { session } = await laptopAtCamera();
    const phone = new Person(flowUrl(), 'en-US');
    const unknown = `ho_${randomBytes(32).toString('base64url')}`;
    for (const pathname of [
      `/h/${session.id}/${unknown}`,
      `/h/${session.id}/ho_short`,
      `/h/${session.id}/${'x'.repeat(5000)}`,
      `/h/vs_01JZZZZZZZZZZZZZZZZZZZZZZZ/${unknown}`,
      `/h/not-a-session/${unknown}`,
      `/h/${session.id}/%E0%A4%A`,
    ]) {
      const page = await phone.get(pathname);
      expect([pathname, page.status, statusOf(page)]).toEqual([pathname, 410, 'handover_invalid']);
      expect(h1Of(page)).toBe('This code no longer works');
    }
  });

  test('when a link-preview robot or a HEAD request fetches the code, then it is not spent', async () => {
    const { session, laptop } = await laptopAtCamera();
    const url = handoverUrlOf(laptop.last!)!;
    const preview = await request(url, { headers: { 'user-agent': 'WhatsApp/2.23.20.0 A' } });
    expect(preview.statusCode).toBe(200);
    expect(preview.headers['set-cookie']).toBeUndefined();
    expect(await preview.body.text()).toContain('data-page="preview"');
    const head = await request(url, { method: 'HEAD' });
    await head.body.dump();
    expect(head.statusCode).toBe(200);

    const phone = new Person(flowUrl());
    expect(h1Of(await phone.get(url))).toBe('Página de datos del pasaporte');
    expect(statusOf(await laptop.get(`/s/${session.id}`))).toBe('moved');
  });

  test('when the code outlives its time (TIME_SCALE), then it is refused and the laptop page shows a new code that any replica accepts', async () => {
    const { session, laptop } = await laptopAtCamera(replica.url);
    const first = handoverUrlOf(laptop.last!)!;
    expect(first.startsWith(`${flowUrl()}/h/${session.id}/`)).toBe(true);
    // Waiting for time itself to pass: the code lives 1.2 s on this replica.
    await new Promise((resolve) => setTimeout(resolve, 10 * 60_000 * SHORT_TIME_SCALE + 300));

    const phone = new Person(replica.url);
    const late = await phone.get(first.replace(flowUrl(), replica.url));
    expect([late.status, statusOf(late)]).toEqual([410, 'handover_invalid']);
    const renewed = handoverUrlOf(await laptop.get(`/s/${session.id}`))!;
    expect(renewed).not.toBe(first);
    // Issued by the replica, opened on the stack's flow-runner at once.
    const onMain = await new Person(flowUrl()).get(renewed);
    expect(h1Of(onMain)).toBe('Página de datos del pasaporte');
    expect(statusOf(await laptop.get(`/s/${session.id}`))).toBe('moved');
  });

  test('when 10 devices open one code at once on two replicas, then exactly one gets the flow', async () => {
    const { session, laptop } = await laptopAtCamera();
    const url = handoverUrlOf(laptop.last!)!;
    const before = await storedFlow(session.id);
    const phones = Array.from({ length: BURST }, (_, i) =>
      i % 2 === 0 ? new Person(flowUrl(), 'es-AR', connections) : new Person(replica.url, 'es-AR', replicaConnections),
    );
    const pages = await Promise.all(phones.map((phone) => phone.get(url.replace(flowUrl(), phone.origin))));

    const winners = pages.filter((page) => page.status === 200);
    expect(winners).toHaveLength(1);
    expect(h1Of(winners[0]!)).toBe('Página de datos del pasaporte');
    expect(pages.filter((page) => page.status === 410 && statusOf(page) === 'handover_invalid')).toHaveLength(BURST - 1);
    const after = await storedFlow(session.id);
    expect(after.binding_hash).not.toBe(before.binding_hash);
    expect((JSON.parse(after.state) as { handover: { movedFrom: string[] } }).handover.movedFrom).toEqual([before.binding_hash]);
    // Only the winner's browser sees the flow.
    const views = await Promise.all(phones.map((phone) => phone.get(`/s/${session.id}`)));
    expect(views.filter((page) => page.status === 200)).toHaveLength(1);
    expect(statusOf(await laptop.get(`/s/${session.id}`))).toBe('moved');
  });

  test('when one address opens codes over and over, then it is throttled like link opens and the outcomes are counted', async () => {
    const { session } = await laptopAtCamera();
    const address = `198.51.100.${1 + (randomBytes(1)[0]! % 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 130 && !statuses.includes(429); i++) {
      const response = await request(`${flowUrl()}/h/${session.id}/ho_${randomBytes(32).toString('base64url')}`, {
        headers: { 'x-forwarded-for': address },
      });
      await response.body.dump();
      statuses.push(response.statusCode);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(new Set(statuses.slice(0, -1))).toEqual(new Set([410]));
    const metrics = await (await request(`${flowUrl()}/metrics`)).body.text();
    expect(metrics).toMatch(/^flow_handovers_total\{[^}]*outcome="invalid"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^flow_handovers_total\{[^}]*outcome="throttled"[^}]*\} [1-9]/m);
  });
});
