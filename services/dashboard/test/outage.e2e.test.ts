import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ROOT_DIR, Receiver, api, axeViolations, launchBrowser, newPerson, waitFor } from '@idv/testkit';
import { approvedAccount } from './support/accounts';
import { startDashboard, type Dashboard } from './support/harness';

/**
 * The outage story of issue 41, in a real Chromium against the dashboard (in this process, with its own SMTP server
 * and its own queue of owner notices) and the stack's services: the integrator's receiver fails while sessions are
 * decided, the circuit opens and the owner is told, the receiver recovers, "retry the failed deliveries" sends each
 * missed event once, the session's timeline shows the attempts, showing the person's data leaves a trace in the
 * access trail, and the balance's threshold mail arrives.
 */

const SCREENSHOTS = path.join(ROOT_DIR, '.run', 'screenshots', 'dashboard-outage');

let dashboard: Dashboard;
let browser: Browser;
let receiver: Receiver;
/** The receiver is down (503) until the story says it recovered. */
let down = true;
/** Each request the receiver got: the event's id and what it answered. */
const answered: { eventId: string; status: number; raw: string; signature: string }[] = [];

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  dashboard = await startDashboard();
  browser = await launchBrowser();
  receiver = await Receiver.start((hit, res) => {
    const status = down ? 503 : 200;
    answered.push({
      eventId: (JSON.parse(hit.raw) as { id: string }).id,
      status,
      raw: hit.raw,
      signature: String(hit.headers['x-service-signature']),
    });
    res.writeHead(status).end(down ? 'mantenimiento' : 'ok');
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await dashboard?.stop();
});

/** The text of a mail as its reader sees it: quoted-printable decoded (soft breaks joined, =XX bytes as UTF-8). */
const readable = (raw: string) =>
  Buffer.from(
    raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

/** Waits for a mail to `address` whose text says `words`. */
const mailSaying = (address: string, words: string, timeoutMs = 30_000) =>
  waitFor(
    () => dashboard.smtp.mails.find((mail) => mail.to.includes(address) && readable(mail.raw).includes(words)),
    timeoutMs,
    100,
    `a mail to ${address} saying "${words}"`,
  );

async function check(page: Page, name: string): Promise<void> {
  expect(await axeViolations(page, ['serious', 'critical'])).toEqual([]);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const CONFIG = {
  steps: [{ id: 'datos', type: 'form', fields: [{ name: 'nombre', type: 'text', label: 'Nombre', required: true }] }],
  options: {
    formData: true,
    webhookEvents: ['verification_session.approved', 'verification_session.completed'],
  },
};

test('a receiver outage: the circuit opens and the owner is told, retry-all sends each missed event once, the timeline and the access trail show it, the balance warns', async () => {
  // An approved account with a live flow, 10 tokens and a live key; its owner signs in in Chromium.
  const { owner, project, keys } = await approvedAccount(dashboard, 'outage', {
    config: CONFIG,
    keys: { live: 'backend' },
    tokens: { count: 10, reason: 'Para la caída' },
  });
  const context = await newPerson(browser);
  const page = await context.newPage();
  await page.goto(`${dashboard.url}/sign-in`);
  await page.getByLabel('Correo electrónico').fill(owner.owner.email);
  await page.getByLabel('Contraseña').fill(owner.owner.password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await page.waitForURL(/\/home$/);

  // The owner asks to be told when fewer than 8 tokens are left.
  await page.goto(`${dashboard.url}/balance`);
  await page.getByLabel('Avisar cuando queden menos de (fichas)').fill('8');
  await page.getByRole('button', { name: 'Guardar el aviso' }).click();
  await check(page, 'balance-threshold');

  // The endpoint, created on the dashboard: its secret is shown once.
  await page.goto(`${dashboard.url}/webhooks`);
  await page.getByLabel('Dirección (URL)').fill(receiver.url);
  await page.getByLabel('Sesión aprobada').check();
  await page.getByLabel('Sesión completa (aprobada o rechazada)').check();
  await page.getByRole('button', { name: 'Crear el endpoint' }).click();
  const secret = await page.getByLabel('Secreto de firma').inputValue();
  expect(secret).toMatch(/^whsec_/);
  await check(page, 'endpoint-created');
  const endpointId = /whep_[0-9A-Z]{26}/.exec(await page.content())![0];

  // The receiver is down while three sessions are decided: six events fail, and the fifth failure opens the circuit.
  const decided: string[] = [];
  for (const ref of ['caida-1', 'caida-2', 'caida-3']) {
    const created = await api('POST', '/v1/verification-sessions', {
      key: keys.live!,
      body: { project_id: project.id, external_ref: ref },
    });
    expect(created.status).toBe(201);
    const session = created.body as { id: `vs_${string}`; url: string };
    await dashboard.platform.call('redeemLink', { token: session.url.split('/l/')[1]! });
    await dashboard.platform.call(
      'resolveSession',
      { id: session.id },
      {
        outcome: 'approved',
        reason_codes: [],
        steps: [
          { id: 'consent', type: 'consent', verdict: 'approved' },
          { id: 'datos', type: 'form', verdict: 'approved' },
        ],
        form_data: { nombre: `Persona ${ref}` },
      },
    );
    decided.push(session.id);
  }
  await mailSaying(owner.owner.email, `El webhook ${receiver.url} falló varias veces seguidas`);
  // 10 − 3 = 7 tokens, under the owner's 8: the balance's mail too.
  await mailSaying(owner.owner.email, 'A la cuenta le quedan 7 fichas, menos que el aviso de 8 fichas');

  await page.goto(`${dashboard.url}/webhooks/${endpointId}`);
  await page.getByText('abierto', { exact: false }).first().waitFor();
  await check(page, 'endpoint-circuit-open');

  // The receiver recovers; the owner retries every failed delivery of the last day in one action.
  down = false;
  await page.getByRole('button', { name: 'Reintentar las entregas fallidas' }).click();
  const eventIds = new Set(answered.map((hit) => hit.eventId));
  expect(eventIds.size).toBeGreaterThanOrEqual(5);
  await waitFor(
    async () => {
      await page.goto(`${dashboard.url}/webhooks/${endpointId}`);
      const progress = await page.getByRole('status').filter({ hasText: 'Reintento:' }).first().textContent();
      const match = /Reintento: (\d+) de (\d+) enviadas/.exec(progress ?? '');
      return match && match[1] === match[2] ? match : undefined;
    },
    90_000,
    1000,
  );
  await check(page, 'endpoint-retried');

  // Every event the receiver missed arrived once with 2xx, signed with the endpoint's secret; none twice.
  await waitFor(() => [...eventIds].every((id) => answered.some((hit) => hit.eventId === id && hit.status === 200)), 60_000, 200);
  for (const id of eventIds) {
    const delivered = answered.filter((hit) => hit.eventId === id && hit.status === 200);
    expect({ id, times: delivered.length }).toEqual({ id, times: 1 });
    const [timestamp, v1] = delivered[0]!.signature.split(',').map((part) => part.split('=')[1]);
    expect(createHmac('sha256', secret).update(`${timestamp}.${delivered[0]!.raw}`).digest('hex')).toBe(v1);
  }
  // The circuit closed again, and the owner is told.
  await mailSaying(owner.owner.email, `El webhook ${receiver.url} volvió a responder bien`);

  // The session's timeline shows its failed attempts and the one that got through.
  await page.goto(`${dashboard.url}/sessions/${decided[0]}`);
  await page
    .getByText(/Webhook verification_session\.approved, intento 1: falló/)
    .first()
    .waitFor();
  await page
    .getByText(/respondió 200/)
    .first()
    .waitFor();
  await check(page, 'session-timeline');
  // An attempt as it went: the request with its signature, the receiver's answer.
  await page.getByRole('link', { name: 'Ver el pedido y la respuesta' }).first().click();
  await page.getByText('x-service-signature').first().waitFor();
  await check(page, 'delivery-attempt');
  // Its body carries the person's form answers: seeing it is in the session's access trail.
  const shown = await dashboard.pool.query(
    "SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'session.data_shown' AND target = $2",
    [owner.accountId, decided[0]],
  );
  expect(shown.rowCount).toBe(1);
  await page.goto(`${dashboard.url}/webhooks`);
  await check(page, 'endpoints');
  await page.goto(`${dashboard.url}/sessions/${decided[0]}`);

  // Showing the person's data leaves an entry in the session's access trail.
  await page.getByRole('button', { name: 'Mostrar los datos personales' }).click();
  await page.getByText('Persona caida-1').waitFor();
  await page.getByRole('link', { name: 'Quién vio los datos personales' }).click();
  // Two entries: the delivery's body seen on the attempt's page, then the data shown on the session's page.
  await page.getByRole('cell', { name: 'Mostró los datos personales de una sesión' }).nth(1).waitFor();
  expect(await page.getByRole('cell', { name: 'Mostró los datos personales de una sesión' }).count()).toBe(2);
  await page
    .getByRole('cell', { name: new RegExp(owner.owner.email) })
    .first()
    .waitFor();
  await check(page, 'access-trail');
}, 240_000);
