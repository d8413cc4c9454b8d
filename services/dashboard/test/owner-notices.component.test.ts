import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, waitFor } from '@idv/testkit';
import { approvedAccount } from './support/accounts';
import { startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

type Owner = Awaited<ReturnType<typeof approvedAccount>>['owner'];

/** An approved account with flows published in both modes, a key of each mode, and `tokens` credited. */
async function account(tokens: number) {
  const { owner, project, keys } = await approvedAccount(dashboard, 'notices', {
    projectName: 'Avisos',
    config: {
      steps: [{ id: 'correo', type: 'otp_email' }],
      options: {
        documentData: false,
        verifiedChannels: false,
        formData: false,
        evidenceLinks: false,
        webhookEvents: ['verification_session.canceled'],
      },
    },
    keys: { test: 'test', live: 'live' },
    ...(tokens > 0 ? { tokens: { count: tokens, reason: 'Para probar' } } : {}),
  });
  const createSession = async (key = keys.live!) => {
    for (;;) {
      const answer = await api('POST', '/v1/verification-sessions', { key, body: { project_id: project.id } });
      if (answer.status !== 429) return answer;
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers['retry-after'] ?? 1)));
    }
  };
  return { owner, createSession, testKey: keys.test! };
}

async function setThreshold(owner: Owner, threshold: string) {
  return owner.browser.post('/balance/threshold', { threshold }, await owner.browser.get('/balance'));
}

/** A mail's text as sent (quoted-printable or base64 undone). */
function textOf(raw: string): string {
  const split = raw.search(/\r?\n\r?\n/);
  const head = raw.slice(0, split);
  const body = raw.slice(split).trim();
  if (/content-transfer-encoding:\s*base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (!/content-transfer-encoding:\s*quoted-printable/i.test(head)) return body;
  const bytes = body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

type NoticeKind = 'low' | 'depleted' | 'opened' | 'closed';
const NOTICE_MARKS: Record<NoticeKind, string> = {
  low: 'menos que el aviso',
  depleted: 'no le quedan fichas',
  opened: 'pausamos sus entregas',
  closed: 'reanudamos las entregas',
};

/** The owners' notices mailed to `email` so far, by kind. */
function noticesTo(email: string, kind: NoticeKind): string[] {
  return dashboard.smtp.mails
    .filter((mail) => mail.to.includes(email))
    .map((mail) => textOf(mail.raw))
    .filter((text) => text.includes(NOTICE_MARKS[kind]));
}

const noticeArrived = (email: string, kind: NoticeKind, count = 1) =>
  waitFor(() => noticesTo(email, kind).length >= count, 15_000, 50, `${count} ${kind} notice(s) to ${email}`);

/** The notices the dashboard handled for the account, by event type, once every one of them is done. */
async function handledNotices(accountId: string): Promise<Record<string, number>> {
  const { rows } = await dashboard.pool.query<{ type: string; done: boolean }>(
    'SELECT type, done_at IS NOT NULL AS done FROM owner_notices WHERE account_id = $1',
    [accountId],
  );
  if (rows.some((row) => !row.done)) throw new Error('a notice is still being handled');
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.type] = (counts[row.type] ?? 0) + 1;
  return counts;
}

describe('the low-balance alert form', () => {
  it('when an owner sets a threshold, then the tokens page shows it and the audit log has it; empty goes back to the default', async () => {
    const { owner } = await account(10);
    const saved = await setThreshold(owner, '1.500');
    expect(saved.status).toBe(303);
    expect(saved.location).toBe('/balance?threshold=saved');
    const page = await owner.browser.get('/balance?threshold=saved');
    expect(page.text).toContain('Avisamos cuando queden menos de 1.500 fichas.');
    expect(page.text).toContain('Guardamos el aviso de saldo bajo.');
    expect(page.html).toContain('value="1500"');
    expect((await dashboard.platform.call('getBalanceLedger', { id: owner.accountId }, undefined, {})).threshold).toBe(1500);

    expect((await setThreshold(owner, '')).status).toBe(303);
    const back = await owner.browser.get('/balance');
    expect(back.text).toContain('Sin uso en esos días, solo avisamos al llegar a cero.');
    expect((await dashboard.platform.call('getBalanceLedger', { id: owner.accountId }, undefined, {})).threshold).toBeNull();

    const audit = await owner.browser.get('/audit');
    expect(audit.text).toContain('Cambió el aviso de saldo bajo');
    expect(audit.html).toContain('<code>1500</code>');
    expect(audit.html).toContain('<code>default</code>');
  });

  it('when the threshold is not a whole number from 1 to 1.000.000.000, then 422 with the form and its error, and nothing changes', async () => {
    const { owner } = await account(10);
    expect((await setThreshold(owner, '25')).status).toBe(303);
    for (const bad of ['abc', '0', '1.5', '-3', '1,5', '2000000000', '12 fichas']) {
      const answer = await setThreshold(owner, bad);
      expect(answer.status).toBe(422);
      expect(answer.text).toContain('Escribí un número entero de fichas');
      expect(answer.html).toContain('aria-invalid="true"');
      expect(answer.html).toContain('href="#f-threshold"');
    }
    expect((await dashboard.platform.call('getBalanceLedger', { id: owner.accountId }, undefined, {})).threshold).toBe(25);
  });

  it('when a developer or a viewer posts the form, then 403, and their tokens page has no form', async () => {
    const { owner } = await account(10);
    for (const role of ['developer', 'viewer'] as const) {
      const { member } = await invitedMember(dashboard, owner, role);
      const page = await member.get('/balance');
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('action="/balance/threshold"');
      expect(page.text).toContain('Solo los dueños de la cuenta cambian el aviso.');
      expect((await member.post('/balance/threshold', { threshold: '5' }, page)).status).toBe(403);
    }
    expect((await dashboard.platform.call('getBalanceLedger', { id: owner.accountId }, undefined, {})).threshold).toBeNull();
  });
});

describe("the owners' e-mails about the balance", () => {
  it('when a debit takes the balance under the threshold, then each owner gets one mail and a developer none; at zero, the zero mail; a credit re-arms it', async () => {
    const { owner, createSession } = await account(4);
    const second = await invitedMember(dashboard, owner, 'owner');
    const developer = await invitedMember(dashboard, owner, 'developer');
    expect((await setThreshold(owner, '3')).status).toBe(303);

    expect((await createSession()).status).toBe(201); // 3 left: at the threshold, not under it
    expect((await createSession()).status).toBe(201); // 2 left: under it
    await noticeArrived(owner.owner.email, 'low');
    await noticeArrived(second.email, 'low');
    const [mail] = noticesTo(owner.owner.email, 'low');
    expect(mail).toContain('A la cuenta le quedan 2 fichas, menos que el aviso de 3 fichas.');
    expect(mail).toContain('http://dashboard.test/balance');

    expect((await createSession()).status).toBe(201); // 1 left: still under, told already
    expect((await createSession()).status).toBe(201); // 0 left
    expect((await createSession()).status).toBe(402);
    await noticeArrived(owner.owner.email, 'depleted');
    await noticeArrived(second.email, 'depleted');
    expect(noticesTo(owner.owner.email, 'depleted')[0]).toContain('402');

    // A credit above the threshold re-arms the alert: the next crossing is told again.
    await dashboard.platform.call('creditBalance', { id: owner.accountId }, { tokens: 4, reason: 'Más' });
    expect((await createSession()).status).toBe(201); // 3 left
    expect((await createSession()).status).toBe(201); // 2 left: under it again
    await noticeArrived(owner.owner.email, 'low', 2);
    await noticeArrived(second.email, 'low', 2);

    expect(await waitFor(() => handledNotices(owner.accountId), 10_000, 50, 'the notices handled')).toEqual({
      'balance.low': 2,
      'balance.depleted': 1,
    });
    for (const kind of ['low', 'depleted'] as const) expect(noticesTo(developer.email, kind)).toEqual([]);
    expect(noticesTo(owner.owner.email, 'low')).toHaveLength(2);
    expect(noticesTo(owner.owner.email, 'depleted')).toHaveLength(1);

    const audit = await owner.browser.get('/audit');
    expect(audit.text).toContain('Avisó a los dueños que quedan pocas fichas');
    expect(audit.text).toContain('Avisó a los dueños que se terminaron las fichas');
    expect(audit.text).toContain('El servicio (aviso automático)');
    expect(audit.html).toContain('<code>balance=2 threshold=3</code>');
  });

  it('when a burst of parallel live sessions crosses the threshold, then one low mail, and one zero mail when a second burst spends the rest', async () => {
    const { owner, createSession } = await account(30);
    expect((await setThreshold(owner, '20')).status).toBe(303);
    const first = await Promise.all(Array.from({ length: 15 }, () => createSession()));
    expect(first.map((answer) => answer.status)).toEqual(Array(15).fill(201));
    await noticeArrived(owner.owner.email, 'low');
    const second = await Promise.all(Array.from({ length: 18 }, () => createSession()));
    expect(second.filter((answer) => answer.status === 201)).toHaveLength(15);
    expect(second.filter((answer) => answer.status === 402)).toHaveLength(3);
    await noticeArrived(owner.owner.email, 'depleted');
    expect(await waitFor(() => handledNotices(owner.accountId), 10_000, 50, 'the notices handled')).toEqual({
      'balance.low': 1,
      'balance.depleted': 1,
    });
    expect(noticesTo(owner.owner.email, 'low')).toHaveLength(1);
    expect(noticesTo(owner.owner.email, 'depleted')).toHaveLength(1);
  });
});

/** A receiver of webhooks on 127.0.0.1 answering `status` (changed by the test). */
async function receiver() {
  const state = { status: 500, hits: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.hits += 1;
      res.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("the owners' e-mails about a webhook", () => {
  it("when an endpoint's circuit opens, then each owner gets one mail; when a delivery succeeds again, one more", async () => {
    const { owner, createSession, testKey } = await account(0);
    const second = await invitedMember(dashboard, owner, 'owner');
    const target = await receiver();
    try {
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        key: testKey,
        body: { url: target.url, events: ['verification_session.canceled'] },
      });
      expect(endpoint.status).toBe(201);
      // Five canceled sessions, five failed deliveries in a row: the circuit opens.
      for (let i = 0; i < 5; i += 1) {
        const session = await createSession(testKey);
        expect(session.status).toBe(201);
        expect((await api('POST', `/v1/verification-sessions/${session.body.id}/cancel`, { key: testKey })).status).toBe(200);
      }
      await noticeArrived(owner.owner.email, 'opened');
      await noticeArrived(second.email, 'opened');
      const [opened] = noticesTo(owner.owner.email, 'opened');
      expect(opened).toContain(target.url);
      expect(opened).toContain(`http://dashboard.test/webhooks/${endpoint.body.id}`);

      // The receiver recovers; a redelivery is sent whatever the circuit, and its success closes it.
      target.state.status = 200;
      const log = await api('GET', `/v1/webhook-deliveries?endpoint=${endpoint.body.id}`, { key: testKey });
      const failed = log.body.data[0];
      expect((await api('POST', `/v1/webhook-deliveries/${failed.id}/redeliver`, { key: testKey })).status).toBe(202);
      await noticeArrived(owner.owner.email, 'closed');
      await noticeArrived(second.email, 'closed');
      expect(noticesTo(owner.owner.email, 'closed')[0]).toContain(`http://dashboard.test/webhooks/${endpoint.body.id}`);

      expect(await waitFor(() => handledNotices(owner.accountId), 10_000, 50, 'the notices handled')).toEqual({
        'webhook_endpoint.circuit_opened': 1,
        'webhook_endpoint.circuit_closed': 1,
      });
      expect(noticesTo(owner.owner.email, 'opened')).toHaveLength(1);
      const audit = await owner.browser.get('/audit');
      expect(audit.text).toContain('Avisó a los dueños que un webhook se pausó por fallas');
      expect(audit.text).toContain('Avisó a los dueños que un webhook volvió a recibir');
      expect(audit.html).toContain(`<code>${endpoint.body.id}</code>`);
    } finally {
      await target.close();
    }
  });
});
