import { createHmac } from 'node:crypto';
import { eventId, newId } from '@idv/contracts';
import { testEnv, waitFor } from '@idv/testkit';
import pg from 'pg';
import type { Page, TestBrowser } from './support/browser';
import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';
import { TestReceiver } from './support/receiver';

/**
 * An endpoint's page: "retry the failed deliveries" (form, roles, bad input, progress) and its health, against the
 * stack's webhooks service and a real receiver on 127.0.0.1. The failed attempts are written into the stack's
 * webhooks schema as the dispatcher writes them (a real outage takes the circuit's period; outage.e2e.test.ts
 * runs one).
 */
let dashboard: Dashboard;
let webhooksDb: pg.Pool;
const receivers: TestReceiver[] = [];

beforeAll(async () => {
  dashboard = await startDashboard();
  webhooksDb = new pg.Pool({ connectionString: testEnv().databaseUrl, max: 2 });
});
afterAll(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await webhooksDb?.end();
  await dashboard?.stop();
});

async function receiver() {
  const started = await TestReceiver.start((res) => res.writeHead(200).end('ok'));
  receivers.push(started);
  return started;
}

function postForm(browser: TestBrowser, path: string, from: Page, fields: [string, string][]): Promise<Page> {
  const body = new URLSearchParams([['_csrf', from.csrfToken()], ...fields]).toString();
  return browser.request('POST', path, body, { 'content-type': 'application/x-www-form-urlencoded' });
}

async function createEndpoint(browser: TestBrowser, url: string) {
  const form = await browser.get('/webhooks');
  const nonce = /name="nonce" value="([^"]+)"/.exec(form.html)![1]!;
  const created = await postForm(browser, '/webhooks', form, [
    ['nonce', nonce],
    ['url', url],
    ['events', 'verification_session.approved'],
  ]);
  expect(created.status).toBe(201);
  const secret = /id="secret" [^>]*value="(whsec_[^"]+)"/.exec(created.html)![1]!;
  const id = /href="\/webhooks\/(whep_[0-9A-Z]+)"/.exec(created.html)![1]!;
  return { id, secret };
}

/** Attempts to the endpoint as the dispatcher logs them, `agoMs` ago: one event each (its row too). */
async function logged(
  accountId: string,
  endpointId: string,
  attempts: { status: 'failed' | 'succeeded'; durationMs: number; agoMs?: number }[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const attempt of attempts) {
    const session = newId('session');
    const id = eventId(accountId, session, 'verification_session.approved');
    await webhooksDb.query(
      `INSERT INTO webhooks.events (id, account_id, type, data, occurred_at) VALUES ($1, $2, 'verification_session.approved', $3, now())`,
      [id, accountId, JSON.stringify({ id: session, object: 'verification_session', status: 'approved' })],
    );
    const ok = attempt.status === 'succeeded';
    await webhooksDb.query(
      `INSERT INTO webhooks.deliveries (id, account_id, endpoint_id, message_id, event_id, event_type, attempt, status,
                                        http_status, duration_ms, error, failure_reason, created_at)
       VALUES ($1, $2, $3, 'msg_seeded', $4, 'verification_session.approved', 1, $5, $6, $7, $8, $9,
               now() - $10 * interval '1 millisecond')`,
      [
        newId('webhookDelivery'),
        accountId,
        endpointId,
        id,
        attempt.status,
        ok ? 200 : 503,
        attempt.durationMs,
        ok ? null : 'http_status',
        ok ? null : 'receiver answered 503',
        attempt.agoMs ?? 60_000,
      ],
    );
    ids.push(id);
  }
  return ids;
}

async function auditOf(accountId: string): Promise<string[]> {
  const { rows } = await dashboard.pool.query<{ action: string }>(
    `SELECT action FROM audit_log WHERE account_id = $1 AND action LIKE 'webhook%' ORDER BY id`,
    [accountId],
  );
  return rows.map((row) => row.action);
}

/** The progress line of the page's latest retry (its role="status" element). */
const progressOf = (page: Page) =>
  /<p role="status" id="retry-progress">([\s\S]*?)<\/p>/.exec(page.html)?.[1]?.replace(/<[^>]+>/g, '');

describe('retrying the failed deliveries of an endpoint', () => {
  it('when the owner retries the last day, then each failed event arrives once, signed, and the page shows the progress', async () => {
    const owner = await signedIn(dashboard, 'retry');
    const target = await receiver();
    const { id, secret } = await createEndpoint(owner.browser, target.url);
    const failed = await logged(owner.accountId, id, [
      { status: 'failed', durationMs: 40 },
      { status: 'failed', durationMs: 40 },
      { status: 'failed', durationMs: 40 },
    ]);
    await logged(owner.accountId, id, [{ status: 'succeeded', durationMs: 40 }]);
    // Older than the day the form offers: not retried.
    await logged(owner.accountId, id, [{ status: 'failed', durationMs: 40, agoMs: 2 * 86_400_000 }]);

    const page = await owner.browser.get(`/webhooks/${id}`);
    expect(page.text).toContain('Reintentar las entregas fallidas');
    expect(page.text).toContain('Todavía no reintentaste entregas de este endpoint.');
    const from = /id="r-from"[^>]*value="([^"]+)"/.exec(page.html)?.[1] ?? /value="([^"]+)"[^>]*id="r-from"/.exec(page.html)?.[1];
    const to = /id="r-to"[^>]*value="([^"]+)"/.exec(page.html)?.[1] ?? /value="([^"]+)"[^>]*id="r-to"/.exec(page.html)?.[1];
    expect(from).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    // The default is the last 24 hours, in Argentina's time.
    expect(Date.parse(`${to}:00-03:00`) - Date.parse(`${from}:00-03:00`)).toBe(86_400_000);

    const started = await postForm(owner.browser, `/webhooks/${id}/retries`, page, [
      ['from', from!],
      ['to', to!],
    ]);
    expect(started.status).toBe(303);
    expect(started.location).toBe(`/webhooks/${id}?notice=retry_started#retry`);
    const done = await waitFor(
      async () => {
        const reloaded = await owner.browser.get(`/webhooks/${id}`);
        return progressOf(reloaded)?.includes('Reintento: 3 de 3 enviadas') ? reloaded : undefined;
      },
      20_000,
      200,
      'the retry finished',
    );
    expect(progressOf(done)).toContain('(terminado)');
    expect(target.hits.map((hit) => (JSON.parse(hit.raw) as { id: string }).id).sort()).toEqual([...failed].sort());
    for (const hit of target.hits) {
      const [timestamp, v1] = String(hit.headers['x-service-signature'])
        .split(',')
        .map((part) => part.split('=')[1]);
      expect(createHmac('sha256', secret).update(`${timestamp}.${hit.raw}`).digest('hex')).toBe(v1);
    }
    expect(await auditOf(owner.accountId)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.retry_started']);
    const audit = await owner.browser.get('/audit?group=webhooks');
    expect(audit.text).toContain('Reintentó las entregas fallidas de un endpoint');
  });

  it('when the range is empty, backwards, too long or not a date, then the form comes back 422 saying why and nothing is sent', async () => {
    const owner = await signedIn(dashboard, 'retry');
    const target = await receiver();
    const { id } = await createEndpoint(owner.browser, target.url);
    await logged(owner.accountId, id, [{ status: 'failed', durationMs: 40 }]);
    const page = await owner.browser.get(`/webhooks/${id}`);
    const cases: [[string, string][], string][] = [
      [[], 'Completá la fecha y la hora.'],
      [
        [
          ['from', '2026-03-10T10:00'],
          ['to', '2026-03-10T09:00'],
        ],
        '“Hasta” tiene que ser posterior a “desde”.',
      ],
      [
        [
          ['from', '2026-01-01T00:00'],
          ['to', '2026-03-01T00:00'],
        ],
        'El lapso no puede pasar de 31 días.',
      ],
      [
        [
          ['from', '2026-02-30T10:00'],
          ['to', 'mañana'],
        ],
        'No es una fecha y hora válidas.',
      ],
    ];
    for (const [fields, message] of cases) {
      const answer = await postForm(owner.browser, `/webhooks/${id}/retries`, page, fields);
      expect([answer.status, answer.text.includes(message)]).toEqual([422, true]);
      expect(answer.html).toContain('aria-invalid="true"');
    }
    // A disabled endpoint is not retried (disabling is how a retry under way is stopped): 409.
    await owner.browser.post(`/webhooks/${id}/status`, { status: 'disabled' }, page);
    const now = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 16);
    const refused = await postForm(owner.browser, `/webhooks/${id}/retries`, page, [
      ['from', '2026-01-01T00:00'],
      ['to', now],
    ]);
    expect(refused.status).toBe(422);
    const disabled = await postForm(owner.browser, `/webhooks/${id}/retries`, page, [
      ['from', new Date(Date.now() - 27 * 3_600_000).toISOString().slice(0, 16)],
      ['to', now],
    ]);
    expect(disabled.status).toBe(409);
    expect(disabled.text).toContain('el endpoint está desactivado o ya hay un reintento en curso');
    expect(target.hits).toHaveLength(0);
    expect(await auditOf(owner.accountId)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.disabled']);
  });

  it('when a viewer opens the page, then they see the progress and the health but no form, and retrying is 403; a developer may retry', async () => {
    const owner = await signedIn(dashboard, 'retry');
    const target = await receiver();
    const { id } = await createEndpoint(owner.browser, target.url);
    await logged(owner.accountId, id, [{ status: 'failed', durationMs: 40 }]);
    const developer = (await invitedMember(dashboard, owner, 'developer')).member;
    const page = await developer.get(`/webhooks/${id}`);
    const range = (to: Date): [string, string][] => [
      ['from', new Date(to.getTime() - 27 * 3_600_000).toISOString().slice(0, 16)],
      ['to', new Date(to.getTime() - 3 * 3_600_000 + 60_000).toISOString().slice(0, 16)],
    ];
    const started = await postForm(developer, `/webhooks/${id}/retries`, page, range(new Date()));
    expect(started.status).toBe(303);
    await waitFor(() => target.hits.length === 1, 20_000, 100, 'the retried event');

    const viewer = (await invitedMember(dashboard, owner, 'viewer')).member;
    const seen = await viewer.get(`/webhooks/${id}`);
    expect(seen.status).toBe(200);
    expect(progressOf(seen)).toMatch(/Reintento: [01] de 1 enviadas/);
    expect(seen.text).toContain('Salud');
    expect(seen.html).not.toContain(`action="/webhooks/${id}/retries"`);
    expect(seen.text).not.toContain('Hora de Argentina; “hasta” incluye ese minuto.');
    const refused = await postForm(viewer, `/webhooks/${id}/retries`, seen, range(new Date()));
    expect(refused.status).toBe(403);
    const stranger = await signedIn(dashboard, 'retry');
    const theirs = await stranger.browser.get('/webhooks');
    expect((await postForm(stranger.browser, `/webhooks/${id}/retries`, theirs, range(new Date()))).status).toBe(404);
    expect(await auditOf(owner.accountId)).toEqual(['webhook_endpoint.created', 'webhook_endpoint.retry_started']);
    expect(target.hits).toHaveLength(1);
  });
});

describe("an endpoint's health", () => {
  it('when attempts were logged, then the page shows the figures, a chart with a title and the same numbers in a table', async () => {
    const owner = await signedIn(dashboard, 'health');
    const { id } = await createEndpoint(owner.browser, (await receiver()).url);
    const empty = await owner.browser.get(`/webhooks/${id}`);
    expect(empty.text).toContain('Sin intentos.');
    await logged(owner.accountId, id, [
      ...Array.from({ length: 9 }, () => ({ status: 'succeeded' as const, durationMs: 120, agoMs: 1000 })),
      { status: 'failed', durationMs: 800, agoMs: 1000 },
    ]);
    const page = await owner.browser.get(`/webhooks/${id}`);
    expect(page.status).toBe(200);
    const figures = /<dl class="facts" id="health-24h-figures">([\s\S]*?)<\/dl>/.exec(page.html)![1]!.replace(/<[^>]+>/g, ' ');
    expect(figures.replace(/\s+/g, ' ').trim()).toMatch(/^Intentos 10 Entregados 90 % Latencia p95 (8[0-9]{2}) ms$/);
    expect(page.html).toMatch(/<svg [^>]*role="img" aria-labelledby="health-24h-chart-title health-24h-chart-desc"/);
    expect(page.html).toContain('<title id="health-24h-chart-title">Porcentaje entregado, últimas 24 horas</title>');
    expect(page.text).toContain('Últimas 24 horas: 10 intento(s), 90 % entregado.');
    expect(page.html).toMatch(/<td class="number">10<\/td><td class="number">90 %<\/td>/);
    expect(page.html).not.toContain('<script');
  });
});
