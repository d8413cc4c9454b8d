import { AccountSessionListSchema, AccountSessionSchema } from '@idv/contracts';
import { buildAccount, buildTenant, ops, SIMPLE_CONFIG } from '@idv/testkit';
import { createSession, internal, tokenOf } from './helpers';

/** The dashboard's view of an account's sessions: the filtered list, one session, cancel. */

const STEPS = [{ id: 'consent', type: 'consent', verdict: 'approved' }];

async function resolved(key: string, projectId: string, ref: string, outcome: 'approved' | 'rejected', reasons: string[] = []) {
  const created = await createSession(key, projectId, { external_ref: ref });
  expect(created.status).toBe(201);
  expect((await internal('POST', `/internal/links/${tokenOf(created.body.url)}/redeem`)).status).toBe(200);
  const res = await internal('POST', `/internal/sessions/${created.body.id}/resolve`, {
    outcome,
    reason_codes: reasons,
    steps: STEPS,
  });
  expect(res.status).toBe(200);
  return created.body.id as string;
}

const list = async (accountId: string, query: Record<string, string> = {}) => {
  const res = await internal('GET', `/internal/accounts/${accountId}/sessions?${new URLSearchParams(query).toString()}`);
  return { status: res.status, body: res.status === 200 ? AccountSessionListSchema.parse(res.body) : res.body };
};
const ids = (body: unknown) => (body as { data: { id: string }[] }).data.map((session) => session.id);

describe('an account sessions for the dashboard', () => {
  let tenant: Awaited<ReturnType<typeof buildTenant>>;
  let approved: string;
  let underage: string;
  let expiredDoc: string;
  let pending: string;
  let testSession: string;
  let otherProject: { id: string };

  beforeAll(async () => {
    tenant = await buildTenant({ tokens: 20 });
    otherProject = await ops().createProject({ account_id: tenant.account.id, name: 'otro' });
    await ops().publishConfig(otherProject.id, 'live', SIMPLE_CONFIG);
    approved = await resolved(tenant.liveKey, tenant.project.id, 'cliente-1', 'approved');
    underage = await resolved(tenant.liveKey, tenant.project.id, 'cliente-2', 'rejected', ['underage']);
    expiredDoc = await resolved(tenant.liveKey, otherProject.id, 'cliente-3', 'rejected', ['document_expired', 'underage']);
    pending = (await createSession(tenant.liveKey, tenant.project.id, { external_ref: 'cliente-4' })).body.id;
    testSession = (await createSession(tenant.testKey, tenant.project.id, { external_ref: 'cliente-1' })).body.id;
  });

  test('when no filter is given, then the live sessions newest first, without the test ones or any personal data', async () => {
    const { status, body } = await list(tenant.account.id);
    expect(status).toBe(200);
    expect(ids(body)).toEqual([pending, expiredDoc, underage, approved]);
    const row = (body as { data: Record<string, unknown>[] }).data[1];
    expect(row).toEqual({
      id: expiredDoc,
      mode: 'live',
      status: 'rejected',
      project_id: otherProject.id,
      external_ref: 'cliente-3',
      outcome: 'rejected',
      reason_codes: ['document_expired', 'underage'],
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    expect(ids((await list(tenant.account.id, { mode: 'test' })).body)).toEqual([testSession]);
  });

  test('when each filter is given, then only the sessions it keeps', async () => {
    const account = tenant.account.id;
    expect(ids((await list(account, { status: 'pending' })).body)).toEqual([pending]);
    expect(ids((await list(account, { outcome: 'rejected' })).body)).toEqual([expiredDoc, underage]);
    expect(ids((await list(account, { reason_code: 'underage' })).body)).toEqual([expiredDoc, underage]);
    expect(ids((await list(account, { reason_code: 'document_expired' })).body)).toEqual([expiredDoc]);
    expect(ids((await list(account, { reason_code: 'face_mismatch' })).body)).toEqual([]);
    expect(ids((await list(account, { project_id: otherProject.id })).body)).toEqual([expiredDoc]);
    expect(ids((await list(account, { external_ref: 'cliente-2' })).body)).toEqual([underage]);
    expect(ids((await list(account, { reason_code: 'underage', project_id: tenant.project.id })).body)).toEqual([underage]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(ids((await list(account, { created_from: future })).body)).toEqual([]);
    expect(ids((await list(account, { created_to: future, status: 'approved' })).body)).toEqual([approved]);
  });

  test('when the list is read a page at a time, then the cursor walks it without repeating or skipping, filters kept', async () => {
    const first = await list(tenant.account.id, { limit: '1', reason_code: 'underage' });
    expect(first.body).toMatchObject({ has_more: true });
    const second = await list(tenant.account.id, {
      limit: '1',
      reason_code: 'underage',
      cursor: (first.body as { next_cursor: string }).next_cursor,
    });
    expect([...ids(first.body), ...ids(second.body)]).toEqual([expiredDoc, underage]);
    expect(second.body).toMatchObject({ has_more: false });
  });

  test('when a filter or the cursor is malformed, then 422 problem+json, never a 500', async () => {
    const malformed: Record<string, string>[] = [
      { status: 'done' },
      { reason_code: 'DROP TABLE' },
      { project_id: 'prj_nope' },
      { created_from: 'yesterday' },
      { cursor: 'forged.cursor' },
      { created_from: '2026-02-01T00:00:00.000Z', created_to: '2026-01-01T00:00:00.000Z' },
      { limit: '1000' },
    ];
    for (const query of malformed) {
      const res = await list(tenant.account.id, query);
      expect({ query, status: res.status }).toEqual({ query, status: 422 });
    }
  });

  test("when another account asks for the list or a session, then it sees none of this account's", async () => {
    const stranger = await buildAccount();
    expect(ids((await list(stranger.id)).body)).toEqual([]);
    expect((await internal('GET', `/internal/accounts/${stranger.id}/sessions/${approved}`)).status).toBe(404);
    expect((await internal('POST', `/internal/accounts/${stranger.id}/sessions/${pending}/cancel`)).status).toBe(404);
  });

  test('when one session is read, then it comes with its configuration and the key that created it', async () => {
    const res = await internal('GET', `/internal/accounts/${tenant.account.id}/sessions/${underage}`);
    expect(res.status).toBe(200);
    const session = AccountSessionSchema.parse(res.body);
    expect(session).toMatchObject({ id: underage, api_key_id: tenant.liveKeyId, status: 'rejected' });
    expect(session.config).toHaveProperty('steps');
  });

  test('when a pending session is cancelled from the dashboard three times at once, then one cancels it and the others are told it ended', async () => {
    const cancel = (id: string) => internal('POST', `/internal/accounts/${tenant.account.id}/sessions/${id}/cancel`);
    const results = await Promise.all([cancel(pending), cancel(pending), cancel(pending)]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 409, 409]);
    expect(results.find((res) => res.status === 200)?.body).toMatchObject({ id: pending, status: 'canceled' });
    for (const res of results.filter((res) => res.status === 409)) expect(res.body.code).toBe('session_terminal');
    const decided = await cancel(approved);
    expect(decided.status).toBe(409);
    expect((await internal('GET', `/internal/accounts/${tenant.account.id}/sessions/${approved}`)).body).toMatchObject({
      status: 'approved',
    });
  });
});
