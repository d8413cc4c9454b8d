import { createHmac } from 'node:crypto';
import { receiversOfThisFile, waitFor } from '@idv/testkit';
import type { Page, TestBrowser } from './support/browser';
import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'hooks');

/** Real receivers on 127.0.0.1, closed after the file: 200 "ok" unless told otherwise. */
const receiver = receiversOfThisFile(() => (_hit, res) => res.writeHead(200).end('ok'));

/** Posts a form whose fields may repeat (the events' checkboxes), with the CSRF token of `from`. */
function postForm(browser: TestBrowser, path: string, from: Page, fields: [string, string][]): Promise<Page> {
  const body = new URLSearchParams([['_csrf', from.csrfToken()], ...fields]).toString();
  return browser.request('POST', path, body, { 'content-type': 'application/x-www-form-urlencoded' });
}

/** Text of an element as the page escaped it, decoded. */
const unescape = (html: string) =>
  html
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, '&');

/** The `<pre class="exchange">` bodies of an attempt's page: the request's, then the response's. */
const bodiesOf = (page: Page) =>
  [...page.html.matchAll(/<pre class="exchange"[^>]*>([\s\S]*?)<\/pre>/g)].map((m) => unescape(m[1]!));

/** A new endpoint made through the page, with the secret its answer showed once. */
async function createEndpoint(browser: TestBrowser, url: string, events = ['verification_session.approved']) {
  const form = await browser.get('/webhooks');
  const nonce = /name="nonce" value="([^"]+)"/.exec(form.html)![1]!;
  const created = await postForm(browser, '/webhooks', form, [
    ['nonce', nonce],
    ['url', url],
    ['description', 'Servidor de pruebas'],
    ...events.map((event): [string, string] => ['events', event]),
  ]);
  expect(created.status).toBe(201);
  const secret = /id="secret" [^>]*value="(whsec_[^"]+)"/.exec(created.html)?.[1];
  const id = /href="\/webhooks\/(whep_[0-9A-Z]+)"/.exec(created.html)?.[1];
  if (!secret || !id) throw new Error(`no secret or id on the answer:\n${created.text}`);
  return { id, secret, created };
}

async function auditOf(accountId: string): Promise<{ action: string; target: string }[]> {
  const { rows } = await dashboard.pool.query<{ action: string; target: string }>(
    `SELECT action, target FROM audit_log WHERE account_id = $1 AND action LIKE 'webhook%' ORDER BY id`,
    [accountId],
  );
  return rows;
}

/** The first attempt in the endpoint's log, once there is one: its page's path. */
async function firstAttempt(browser: TestBrowser, endpointId: string): Promise<string> {
  return waitFor(
    async () =>
      new RegExp(`href="(/webhooks/${endpointId}/deliveries/whd_[0-9A-Z]+)"`).exec(
        (await browser.get(`/webhooks/${endpointId}`)).html,
      )?.[1],
    20_000,
    100,
    'an attempt in the log',
  );
}

describe('webhook endpoints in the dashboard', () => {
  it('when the owner creates an endpoint, then the secret is shown once, never cached, and never on the endpoint’s page', async () => {
    const owner = await signedInOwner();
    const target = await receiver();
    const { id, secret, created } = await createEndpoint(owner.browser, target.url);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.text).toContain('No lo vamos a volver a mostrar');
    const list = await owner.browser.get('/webhooks');
    expect(list.status).toBe(200);
    expect(list.html).toContain(`href="/webhooks/${id}"`);
    expect(list.html).toContain('href="/webhooks" aria-current="page"');
    const detail = await owner.browser.get(`/webhooks/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('cerrado');
    expect(detail.html).not.toContain(secret);
    expect(await auditOf(owner.accountId)).toEqual([{ action: 'webhook_endpoint.created', target: id }]);
  });

  it('when the url is one the API refuses or the form is incomplete, then the form comes back 422 saying why', async () => {
    const owner = await signedInOwner();
    const form = await owner.browser.get('/webhooks');
    const nonce = /name="nonce" value="([^"]+)"/.exec(form.html)![1]!;
    const refused = await postForm(owner.browser, '/webhooks', form, [
      ['nonce', nonce],
      ['url', 'https://169.254.169.254/hook'],
      ['events', 'verification_session.approved'],
    ]);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('La API no acepta esa dirección');
    expect(refused.html).toContain('value="https://169.254.169.254/hook"');
    const incomplete = await postForm(owner.browser, '/webhooks', form, [
      ['nonce', 'another'],
      ['url', 'no es una url'],
    ]);
    expect(incomplete.status).toBe(422);
    expect(incomplete.text).toContain('Escribí una dirección completa');
    expect(incomplete.text).toContain('Marcá al menos un evento');
    expect((await owner.browser.get('/webhooks')).text).toContain('Todavía no hay endpoints.');
    expect(await auditOf(owner.accountId)).toEqual([]);
  });

  it('when the owner edits, disables, enables, rotates and deletes (after confirming), then each is done and audited', async () => {
    const owner = await signedInOwner();
    const target = await receiver();
    const { id } = await createEndpoint(owner.browser, target.url);
    const page = await owner.browser.get(`/webhooks/${id}`);

    const refused = await postForm(owner.browser, `/webhooks/${id}`, page, [
      ['url', 'https://user:pw@example.com/hook'],
      ['events', 'verification_session.approved'],
    ]);
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('La API no acepta esa dirección');

    const other = await receiver();
    const saved = await postForm(owner.browser, `/webhooks/${id}`, page, [
      ['url', other.url],
      ['description', 'Nuevo servidor'],
      ['events', 'verification_session.rejected'],
      ['events', 'verification_session.completed'],
    ]);
    expect(saved.status).toBe(303);
    const edited = await owner.browser.get(saved.location!);
    expect(edited.text).toContain('Guardamos los cambios.');
    expect(edited.text).toContain('Nuevo servidor');
    expect(edited.html).toContain(`value="${other.url}"`);

    const disabled = await owner.browser.post(`/webhooks/${id}/status`, { status: 'disabled' }, page);
    expect((await owner.browser.get(disabled.location!)).text).toContain('Desactivaste el endpoint');
    const enabled = await owner.browser.post(`/webhooks/${id}/status`, { status: 'active' }, page);
    expect((await owner.browser.get(enabled.location!)).text).toContain('Activaste el endpoint');

    const rotated = await owner.browser.post(`/webhooks/${id}/rotate`, {}, page);
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.html).toMatch(/id="secret" [^>]*value="whsec_/);
    expect(rotated.text).toMatch(/Hasta el .+ cada aviso lleva dos firmas/);
    expect((await owner.browser.get(`/webhooks/${id}`)).text).toMatch(/El secreto anterior firma también hasta el/);

    const confirm = await owner.browser.get(`/webhooks/${id}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('No se puede deshacer');
    const deleted = await owner.browser.post(`/webhooks/${id}/delete`, {}, confirm);
    expect(deleted.location).toBe(`/webhooks?deleted=${encodeURIComponent(other.url)}`);
    expect((await owner.browser.get(deleted.location!)).text).toContain(`Eliminaste el endpoint ${other.url}`);
    expect((await owner.browser.get(`/webhooks/${id}`)).status).toBe(404);

    expect((await auditOf(owner.accountId)).map((entry) => entry.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
      'webhook_endpoint.disabled',
      'webhook_endpoint.enabled',
      'webhook_endpoint.secret_rotated',
      'webhook_endpoint.deleted',
    ]);
    const audit = await owner.browser.get('/audit?group=webhooks');
    expect(audit.status).toBe(200);
    expect(audit.text).toContain('Renovó el secreto de un endpoint de webhooks');
  });

  it('when a test event is answered with a long body, then the attempt shows the request as sent with its signature and the first 4 KB of the response', async () => {
    const owner = await signedInOwner();
    const long = `${'x'.repeat(4000)}${'ñ'.repeat(200)}FIN-QUE-NO-SE-GUARDA`;
    const target = await receiver((_hit, res) =>
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'x-receiver-trace': 'rastro-41' }).end(long),
    );
    const { id, secret } = await createEndpoint(owner.browser, target.url);
    const page = await owner.browser.get(`/webhooks/${id}`);
    const sent = await owner.browser.post(`/webhooks/${id}/test`, {}, page);
    expect(sent.location).toBe(`/webhooks/${id}?notice=test_sent`);

    const path = await firstAttempt(owner.browser, id);
    const attempt = await owner.browser.get(path);
    expect(attempt.status).toBe(200);
    expect(attempt.text).toContain('receiver answered 503');
    const hit = target.hits[0]!;
    const signature = hit.headers['x-service-signature'] as string;
    expect(attempt.html).toContain(`<code>x-service-signature</code>`);
    expect(unescape(attempt.html)).toContain(signature);
    expect(attempt.text).toContain('rastro-41');
    const [requestBody, responseBody] = bodiesOf(attempt);
    expect(requestBody).toBe(hit.raw);
    const [timestamp, v1] = signature.split(',').map((part) => part.split('=')[1]);
    expect(createHmac('sha256', secret).update(`${timestamp}.${requestBody}`).digest('hex')).toBe(v1);
    // 4,000 x and 48 ñ are 4,096 bytes: the rest (and the marker) is not kept.
    expect(responseBody).toBe(`${'x'.repeat(4000)}${'ñ'.repeat(48)}`);
    expect(attempt.text).toContain(`Primeros 4096 de ${Buffer.byteLength(long)} bytes.`);
    expect(attempt.html).not.toContain('FIN-QUE-NO-SE-GUARDA');

    const redelivered = await owner.browser.post(`${path}/redeliver`, {}, attempt);
    expect(redelivered.location).toBe(`/webhooks/${id}?notice=redelivered`);
    await waitFor(() => target.hits.length >= 2, 20_000, 100, 'the redelivery');
    expect((await auditOf(owner.accountId)).map((entry) => entry.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.test_sent',
      'webhook_delivery.redelivered',
    ]);

    const failed = await owner.browser.get(`/webhooks/${id}?status=failed&event_type=test`);
    expect(failed.html).toContain(path);
    const succeeded = await owner.browser.get(`/webhooks/${id}?status=succeeded`);
    expect(succeeded.text).toContain('No hay intentos con estos filtros.');
    const bad = await owner.browser.get(`/webhooks/${id}?status=quizas&session=abc&from=2026-02-30T10:00&cursor=x`);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('No conocemos ese resultado');
    expect(bad.text).toContain('Eso no es el id de una sesión');
    expect(bad.text).toContain('La fecha “desde” no es válida');
    expect(bad.text).toContain('El enlace de la página no es válido');
    expect(bad.html).toContain(path);
  });

  it('when a viewer reads, then they see endpoints, the circuit and the log but no secret, no body, and every change is 403', async () => {
    const owner = await signedInOwner();
    const target = await receiver((_hit, res) => res.writeHead(200).end('{"dni":"12345678"}'));
    const { id, secret } = await createEndpoint(owner.browser, target.url);
    const ownerPage = await owner.browser.get(`/webhooks/${id}`);
    await owner.browser.post(`/webhooks/${id}/test`, {}, ownerPage);
    const path = await firstAttempt(owner.browser, id);
    const viewer = (await invitedMember(dashboard, owner, 'viewer')).member;

    const list = await viewer.get('/webhooks');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('Agregar un endpoint');
    const detail = await viewer.get(`/webhooks/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('Circuito');
    expect(detail.text).not.toContain('Renovar el secreto');
    expect(detail.html).toContain(path);
    const attempt = await viewer.get(path);
    expect(attempt.status).toBe(200);
    expect(attempt.text).toContain('Oculto para tu rol');
    expect(bodiesOf(attempt)).toEqual([]);
    expect(attempt.html).not.toContain('12345678');
    expect(attempt.html).toContain('x-service-signature');
    for (const html of [list.html, detail.html, attempt.html]) expect(html).not.toContain(secret);

    const token = detail;
    const refused = await Promise.all([
      postForm(viewer, '/webhooks', token, [
        ['nonce', 'n'],
        ['url', target.url],
        ['events', 'verification_session.approved'],
      ]),
      postForm(viewer, `/webhooks/${id}`, token, [
        ['url', target.url],
        ['events', 'verification_session.approved'],
      ]),
      viewer.post(`/webhooks/${id}/status`, { status: 'disabled' }, token),
      viewer.post(`/webhooks/${id}/rotate`, {}, token),
      viewer.post(`/webhooks/${id}/test`, {}, token),
      viewer.post(`/webhooks/${id}/delete`, {}, token),
      viewer.post(`${path}/redeliver`, {}, token),
      viewer.get(`/webhooks/${id}/delete`),
    ]);
    expect(refused.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 403, 403, 403, 403]);
    for (const answer of refused) expect(answer.html).not.toContain('whsec_');
    expect((await auditOf(owner.accountId)).map((entry) => entry.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.test_sent',
    ]);
    expect(target.hits).toHaveLength(1);
  });

  it('when a developer works on the endpoints, then they may change them and see the bodies', async () => {
    const owner = await signedInOwner();
    const target = await receiver((_hit, res) => res.writeHead(200).end('recibido'));
    const developer = (await invitedMember(dashboard, owner, 'developer')).member;
    const { id } = await createEndpoint(developer, target.url);
    const page = await developer.get(`/webhooks/${id}`);
    await developer.post(`/webhooks/${id}/test`, {}, page);
    const attempt = await developer.get(await firstAttempt(developer, id));
    expect(bodiesOf(attempt)).toEqual([target.hits[0]!.raw, 'recibido']);
  });

  it('when an endpoint id is unknown, malformed or another account’s, then every page and action is 404', async () => {
    const owner = await signedInOwner();
    const stranger = await signedInOwner();
    const target = await receiver();
    const { id } = await createEndpoint(owner.browser, target.url);
    const page = await owner.browser.get(`/webhooks/${id}`);
    await owner.browser.post(`/webhooks/${id}/test`, {}, page);
    const path = await firstAttempt(owner.browser, id);
    const theirs = await stranger.browser.get('/webhooks');
    const answers = await Promise.all([
      stranger.browser.get(`/webhooks/${id}`),
      stranger.browser.get(path),
      stranger.browser.get(`/webhooks/${id}/delete`),
      postForm(stranger.browser, `/webhooks/${id}`, theirs, [
        ['url', target.url],
        ['events', 'verification_session.approved'],
      ]),
      stranger.browser.post(`/webhooks/${id}/status`, { status: 'disabled' }, theirs),
      stranger.browser.post(`/webhooks/${id}/rotate`, {}, theirs),
      stranger.browser.post(`/webhooks/${id}/test`, {}, theirs),
      stranger.browser.post(`/webhooks/${id}/delete`, {}, theirs),
      stranger.browser.post(`${path}/redeliver`, {}, theirs),
      owner.browser.get('/webhooks/whep_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'),
      owner.browser.get('/webhooks/not-an-id'),
      owner.browser.get(`/webhooks/${id}/deliveries/whd_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6`),
      owner.browser.get(`/webhooks/whep_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6/deliveries/${path.split('/').pop()}`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404, 404]);
    expect(answers[0].text).toContain('No encontramos esta página');
    expect(await auditOf(stranger.accountId)).toEqual([]);
    expect(target.hits).toHaveLength(1);
  });
});
