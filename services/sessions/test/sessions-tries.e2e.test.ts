import { SIMPLE_CONFIG, api, buildAccount, buildTenant } from '@idv/testkit';
import { EventTap, internal, outboxMarker, tokenOf } from './helpers';

/** The dashboard's "Try it": a test session on a draft, never published, never public, no event, no debit. */
let tap: EventTap;
beforeAll(async () => {
  tap = await EventTap.open();
});
afterAll(async () => {
  await tap.close();
});

const DRAFT = {
  ...SIMPLE_CONFIG,
  steps: [{ id: 'draft_form', type: 'form', fields: [{ name: 'city', type: 'text', label: 'Ciudad', required: true }] }],
};
const month = new Date().toISOString().slice(0, 7);

function tryDraft(accountId: string, projectId: string, config: unknown = DRAFT) {
  return internal('POST', `/internal/projects/${projectId}/tries`, { account_id: accountId, config });
}

describe('tries of a draft', () => {
  test('when a draft is tried, then a test session on it with a link, hidden from the public API, the usage and the versions', async () => {
    const { account, project, testKey } = await buildTenant({ tokens: 2 });
    const tried = await tryDraft(account.id, project.id);
    expect(tried.status).toBe(201);
    expect(tried.body).toMatchObject({
      status: 'pending',
      mode: 'test',
      project_id: project.id,
      config_version: 'cfg_00000000',
      account_id: account.id,
      try: true,
      config: DRAFT,
    });
    expect(tried.body.url).toMatch(/\/l\/lt_/);

    expect((await api('GET', `/v1/verification-sessions/${tried.body.id}`, { key: testKey })).status).toBe(404);
    expect((await api('POST', `/v1/verification-sessions/${tried.body.id}/cancel`, { key: testKey })).status).toBe(404);
    const listed = await api('GET', '/v1/verification-sessions?limit=100', { key: testKey });
    expect(listed.body.data.map((s: { id: string }) => s.id)).not.toContain(tried.body.id);
    const usage = await api('GET', `/v1/usage?month=${month}`, { key: testKey });
    expect(usage.body.sessions.test.total).toBe(0);
    expect((await api('GET', `/v1/usage/sessions.csv?month=${month}`, { key: testKey })).text).not.toContain(tried.body.id);

    // Publications go on numbering from the last one, and the history lists no try.
    const versions = await internal('GET', `/internal/projects/${project.id}/configs`);
    expect(versions.body.data.map((v: { id: string }) => v.id)).toEqual(['cfg_00000002', 'cfg_00000001']);
    const published = await internal('POST', `/internal/projects/${project.id}/configs`, { mode: 'test', config: DRAFT });
    expect(published.body.id).toBe('cfg_00000003');
    expect((await internal('GET', `/internal/accounts/${account.id}/balance`)).body.balance).toBe(2);
  });

  test('when a try is opened and resolved, then the flow-runner gets the draft and no event is queued for it', async () => {
    const { account, project, testKey } = await buildTenant();
    const tried = (await tryDraft(account.id, project.id)).body;
    const redeemed = await internal('POST', `/internal/links/${tokenOf(tried.url)}/redeem`);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({ status: 'in_progress', try: true, config: DRAFT });
    const resolved = await internal('POST', `/internal/sessions/${tried.id}/resolve`, {
      outcome: 'approved',
      reason_codes: [],
      steps: [{ id: 'draft_form', type: 'form', verdict: 'approved' }],
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'approved', config_version: 'cfg_00000000' });
    expect((await internal('GET', `/internal/sessions/${tried.id}`)).body).toMatchObject({ status: 'approved', try: true });
    await outboxMarker(tap, testKey, project.id);
    expect(tap.of(tried.id)).toEqual([]);
  });

  test('when the project is another account’s or unknown, or the draft is not a configuration, then 404 or 422 and nothing frozen', async () => {
    const { project } = await buildTenant();
    const stranger = await buildAccount();
    expect((await tryDraft(stranger.id, project.id)).status).toBe(404);
    expect((await tryDraft(stranger.id, 'prj_00000000000000000000000000')).status).toBe(404);
    const invalid = await tryDraft(stranger.id, project.id, { steps: [{ id: 'x', type: 'teleport' }], options: {} });
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('validation_failed');
  });

  test('when 40 tries of one account race, then exactly 30 are made and the rest are 429 rate_limited', async () => {
    const { account, project } = await buildTenant();
    const results = await Promise.all(Array.from({ length: 40 }, () => tryDraft(account.id, project.id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(30);
    const refused = results.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual(Array(10).fill(429));
    expect(refused[0]!.body.code).toBe('rate_limited');
  });
});
