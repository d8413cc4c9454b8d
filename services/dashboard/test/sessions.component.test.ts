import { api } from '@idv/testkit';
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

const CONFIG = {
  steps: [
    { id: 'datos', type: 'form', fields: [{ name: 'ocupacion', type: 'text', label: 'Ocupación', required: true }] },
    { id: 'correo', type: 'otp_email' },
  ],
  options: { documentData: true, verifiedChannels: true, formData: true },
};
const DOCUMENT = {
  doc_type: 'dni',
  series: 'A',
  number: '30123456',
  surname: 'PEREZ',
  given_names: 'JUANA',
  sex: 'F',
  birth_date: '1990-05-01',
  cuil: '27301234563',
  expiry_date: '2031-05-01',
};
const STEPS = [
  { id: 'consent', type: 'consent', verdict: 'approved' },
  { id: 'datos', type: 'form', verdict: 'approved' },
  { id: 'correo', type: 'otp_email', verdict: 'approved' },
] as const;

/** An approved account with a live flow that keeps personal data, a live key named "backend" and tokens. */
async function liveAccount() {
  const { owner, project, keys } = await approvedAccount(dashboard, 'sessions', {
    config: CONFIG,
    keys: { live: 'backend' },
    tokens: { count: 20, reason: 'prueba' },
  });
  const create = async (ref: string) => {
    const answer = await api('POST', '/v1/verification-sessions', {
      key: keys.live!,
      body: { project_id: project.id, external_ref: ref },
    });
    expect(answer.status).toBe(201);
    return answer.body as { id: `vs_${string}`; url: string };
  };
  /** A session the person went through, decided as the flow-runner would with `outcome`. */
  const decided = async (ref: string, outcome: 'approved' | 'rejected', reasons: string[] = []) => {
    const session = await create(ref);
    await dashboard.platform.call('redeemLink', { token: session.url.split('/l/')[1]! });
    await dashboard.platform.call(
      'resolveSession',
      { id: session.id },
      {
        outcome,
        reason_codes: reasons,
        steps: STEPS.map((step) => ({ ...step, verdict: outcome === 'approved' ? step.verdict : 'rejected' })),
        document: DOCUMENT,
        verified_channels: { email: 'juana@example.com' },
        form_data: { ocupacion: 'docente' },
      },
    );
    return session;
  };
  return { owner, project, create, decided };
}

/** The sessions list's rows: the session id and its status. */
const rowsOf = (html: string) =>
  [...html.matchAll(/<a href="\/sessions\/(vs_[0-9A-Z]+)"><code>[^<]*<\/code><\/a><\/td><td>([^<]*)<\/td>/g)].map((match) => [
    match[1],
    match[2],
  ]);

const auditActions = async (accountId: string) =>
  (
    await dashboard.pool.query<{ action: string; target: string }>(
      'SELECT action, target FROM audit_log WHERE account_id = $1 ORDER BY id',
      [accountId],
    )
  ).rows;

describe("the account's sessions", () => {
  it('lists the sessions newest first, filters them, and says which filter it did not take', async () => {
    const { owner, project, create, decided } = await liveAccount();
    const approved = await decided('cliente-1', 'approved');
    const rejected = await decided('cliente-2', 'rejected', ['underage']);
    const pending = await create('cliente-3');

    const page = await owner.browser.get('/sessions');
    expect(page.status).toBe(200);
    expect(rowsOf(page.html)).toEqual([
      [pending.id, 'Pendiente'],
      [rejected.id, 'Rechazada'],
      [approved.id, 'Aprobada'],
    ]);
    expect(page.html).toContain('href="/sessions" aria-current="page"');
    expect(page.text).not.toContain('30123456');

    expect(rowsOf((await owner.browser.get('/sessions?reason=underage')).html)).toEqual([[rejected.id, 'Rechazada']]);
    expect(rowsOf((await owner.browser.get('/sessions?status=approved')).html)).toEqual([[approved.id, 'Aprobada']]);
    expect(rowsOf((await owner.browser.get('/sessions?ref=cliente-3')).html)).toEqual([[pending.id, 'Pendiente']]);
    expect(rowsOf((await owner.browser.get(`/sessions?project=${project.id}&outcome=rejected`)).html)).toEqual([
      [rejected.id, 'Rechazada'],
    ]);
    expect(rowsOf((await owner.browser.get('/sessions?mode=test')).html)).toEqual([]);

    const bad = await owner.browser.get('/sessions?status=hecho&from=2026-13-40&reason=DROP%20TABLE');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('El estado no es uno de los ofrecidos');
    expect(bad.text).toContain('no es un día válido');
    expect(bad.text).toContain('minúsculas y guiones bajos');
    // The filters it could not take are left out: the list is still there.
    expect(rowsOf(bad.html)).toHaveLength(3);

    const forged = await owner.browser.get('/sessions?cursor=AAAA.BBBB');
    expect(forged.status).toBe(200);
    expect(forged.text).toContain('ya no existe con estos filtros');
    expect(rowsOf(forged.html)).toHaveLength(3);
  });

  it("shows a session's timeline, keeps its personal data behind an audited show, and lists who saw it", async () => {
    const { owner, decided } = await liveAccount();
    const session = await decided('cliente-9', 'rejected', ['underage']);

    const page = await owner.browser.get(`/sessions/${session.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Creada con la clave «backend»');
    expect(page.text).toContain('Decidida: Rechazada');
    expect(page.text).toContain('underage');
    expect(page.text).not.toContain('30123456');
    expect(page.text).not.toContain('juana@example.com');
    expect(await auditActions(owner.accountId)).not.toContainEqual(expect.objectContaining({ action: 'session.data_shown' }));

    const shown = await owner.browser.post(`/sessions/${session.id}/personal-data`, {}, page);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.text).toContain('30123456');
    expect(shown.text).toContain('juana@example.com');
    expect(shown.text).toContain('docente');
    expect(await auditActions(owner.accountId)).toContainEqual({ action: 'session.data_shown', target: session.id });

    const trail = await owner.browser.get(`/sessions/${session.id}/access`);
    expect(trail.status).toBe(200);
    expect(trail.text).toContain('Mostró los datos personales de una sesión');
    expect(trail.text).toContain(owner.owner.email);
    const csv = await owner.browser.get(`/sessions/${session.id}/access.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    expect(csv.html.split('\r\n')[0]).toBe('at,actor_kind,actor_name,actor_email,action,target,address');
    expect(csv.html).toContain(`session.data_shown,${session.id}`);
  });

  it('gives a viewer the list and the timeline but never personal data, cancel or the trail; a developer sees the data', async () => {
    const { owner, decided, create } = await liveAccount();
    const session = await decided('cliente-5', 'approved');
    const pending = await create('cliente-6');
    const { member: viewer } = await invitedMember(dashboard, owner, 'viewer');

    expect((await viewer.get('/sessions')).status).toBe(200);
    const page = await viewer.get(`/sessions/${session.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Tu rol no puede ver datos personales');
    expect(page.html).not.toContain('/personal-data');
    expect((await viewer.post(`/sessions/${session.id}/personal-data`, {}, page)).status).toBe(403);
    expect((await viewer.post(`/sessions/${pending.id}/cancel`, {}, page)).status).toBe(403);
    expect((await viewer.get(`/sessions/${session.id}/access`)).status).toBe(403);
    expect((await viewer.get(`/sessions/${session.id}/access.csv`)).status).toBe(403);

    const { member: developer } = await invitedMember(dashboard, owner, 'developer');
    const devPage = await developer.get(`/sessions/${session.id}`);
    const shown = await developer.post(`/sessions/${session.id}/personal-data`, {}, devPage);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('30123456');
    expect((await developer.get(`/sessions/${session.id}/access`)).status).toBe(403);
    const trail = await owner.browser.get(`/sessions/${session.id}/access`);
    expect(trail.text).toContain('Miembro');
  });

  it('cancels a pending session from its page, once, and audits it; a decided one offers no cancel', async () => {
    const { owner, create, decided } = await liveAccount();
    const pending = await create('cliente-7');
    const page = await owner.browser.get(`/sessions/${pending.id}`);
    expect(page.html).toContain(`/sessions/${pending.id}/cancel`);
    const canceled = await owner.browser.post(`/sessions/${pending.id}/cancel`, {}, page);
    expect(canceled.status).toBe(303);
    expect(canceled.location).toBe(`/sessions/${pending.id}`);
    const after = await owner.browser.get(`/sessions/${pending.id}`);
    expect(after.text).toContain('Cancelada');
    expect(after.html).not.toContain(`/sessions/${pending.id}/cancel`);
    expect(await auditActions(owner.accountId)).toContainEqual({ action: 'session.canceled', target: pending.id });

    const done = await decided('cliente-8', 'approved');
    expect((await owner.browser.get(`/sessions/${done.id}`)).html).not.toContain(`/sessions/${done.id}/cancel`);
  });

  it("answers 404 for another account's session and for an id that is not one, and needs the CSRF token to change", async () => {
    const first = await liveAccount();
    const second = await liveAccount();
    const theirs = await second.create('ajena');
    expect((await first.owner.browser.get(`/sessions/${theirs.id}`)).status).toBe(404);
    expect((await first.owner.browser.get(`/sessions/${theirs.id}/access`)).status).toBe(404);
    const own = await first.owner.browser.get('/sessions');
    expect((await first.owner.browser.post(`/sessions/${theirs.id}/cancel`, {}, own)).status).toBe(404);
    expect((await first.owner.browser.post(`/sessions/${theirs.id}/personal-data`, {}, own)).status).toBe(404);
    expect((await first.owner.browser.get('/sessions/no-es-un-id')).status).toBe(404);
    expect((await first.owner.browser.post(`/sessions/${theirs.id}/cancel`, {})).status).toBe(403);
    expect(
      (await dashboard.platform.call('getAccountSession', { id: second.owner.accountId, sessionId: theirs.id })).status,
    ).toBe('pending');
  });
});
