import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, waitFor } from '@idv/testkit';
import { newOwner, startDashboard, type Dashboard } from './support/harness';

let dashboard: Dashboard;
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  dashboard = await startDashboard();
  // An integrator's webhook receiver on 127.0.0.1 that answers 200 to anything.
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await dashboard?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

const items = (html: string) =>
  Object.fromEntries(
    [...html.matchAll(/<li class="(done|missing)"><strong>[^<]*<\/strong> (?:<a [^>]*>)?([^<]+)/g)].map((match) => [
      match[2]!.trim(),
      match[1],
    ]),
  );

test('the go-live checklist follows the real state of the account, item by item, and back when a key is revoked', async () => {
  const owner = newOwner('golive');
  const browser = dashboard.browser();
  await browser.post('/sign-up', owner, await browser.get('/sign-up'));
  await browser.post('/sign-in', { email: owner.email, password: owner.password }, await browser.get('/sign-in'));
  const { rows } = await dashboard.pool.query<{ account_id: `acc_${string}` }>(
    'SELECT m.account_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1',
    [owner.email],
  );
  const accountId = rows[0]!.account_id;
  const ids = {
    account_active: 'Cuenta aprobada',
    live_config: 'Un flujo publicado en real',
    live_key: 'Una clave real',
    balance: 'Fichas disponibles',
    webhook: 'Un webhook que recibe los veredictos',
  };
  expect(items((await browser.get('/home')).html)).toEqual({
    [ids.account_active]: 'missing',
    [ids.live_config]: 'missing',
    [ids.live_key]: 'missing',
    [ids.balance]: 'missing',
    [ids.webhook]: 'missing',
  });

  await dashboard.platform.call('approveAccount', { id: accountId });
  const project = await dashboard.platform.call('createProject', {}, { account_id: accountId, name: 'Go live' });
  await dashboard.platform.call(
    'publishConfig',
    { id: project.id },
    {
      mode: 'live',
      config: { steps: [{ id: 'correo', type: 'otp_email' }], options: { webhookEvents: ['verification_session.approved'] } },
    },
  );
  await dashboard.platform.call('creditBalance', { id: accountId }, { tokens: 5, reason: 'prueba' });
  const liveKey = await dashboard.platform.call('createApiKey', {}, { account_id: accountId, mode: 'live', name: 'live' });
  let home = items((await browser.get('/home')).html);
  expect(home).toMatchObject({
    [ids.account_active]: 'done',
    [ids.live_config]: 'done',
    [ids.live_key]: 'done',
    [ids.balance]: 'done',
  });
  expect(home[ids.webhook]).toBe('missing');

  // An endpoint of one verdict only does not count; one of both verdicts counts once it answered a test.
  const partial = await api('POST', '/v1/webhook-endpoints', {
    key: liveKey.secret,
    body: { url: receiverUrl, events: ['verification_session.approved'] },
  });
  expect(partial.status).toBe(201);
  const endpoint = await api('POST', '/v1/webhook-endpoints', {
    key: liveKey.secret,
    body: { url: receiverUrl, events: ['verification_session.approved', 'verification_session.rejected'] },
  });
  expect(endpoint.status).toBe(201);
  expect(items((await browser.get('/home')).html)[ids.webhook]).toBe('missing');
  expect((await api('POST', `/v1/webhook-endpoints/${endpoint.body.id}/test`, { key: liveKey.secret })).status).toBeLessThan(300);
  home = await waitFor(
    async () => {
      const now = items((await browser.get('/home')).html);
      return now[ids.webhook] === 'done' ? now : undefined;
    },
    15_000,
    200,
  );
  expect(Object.values(home).every((state) => state === 'done')).toBe(true);

  // A key that no longer works is no live key: revoked, the item is to do again.
  await dashboard.platform.call('revokeApiKey', { id: liveKey.id });
  expect(items((await browser.get('/home')).html)).toMatchObject({ [ids.live_key]: 'missing', [ids.live_config]: 'done' });
});
