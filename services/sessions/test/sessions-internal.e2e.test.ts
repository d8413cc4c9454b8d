import { DomainEventSchema, INTERNAL_HEADERS, SessionEventDataSchema, eventId } from '@idv/contracts';
import { api, buildAccount, buildTenant, ops, SIMPLE_CONFIG, testEnv } from '@idv/testkit';
import { EventTap, createSession, internal, outboxMarker, tenantWithSession, tokenOf } from './helpers';

let tap: EventTap;
beforeAll(async () => {
  tap = await EventTap.open();
});
afterAll(async () => {
  await tap.close();
});

const STEPS = [
  { id: 'consent', type: 'consent', verdict: 'approved' },
  { id: 'extra', type: 'form', verdict: 'approved' },
];
const DOCUMENT = {
  doc_type: 'dni',
  series: 'A',
  number: '30123456',
  surname: 'PEREZ',
  given_names: 'JUAN',
  sex: 'M',
  birth_date: '1990-05-01',
  cuil: '20301234567',
  expiry_date: '2031-05-01',
};
const FULL_RESULT = {
  outcome: 'approved',
  reason_codes: [],
  steps: STEPS,
  document: DOCUMENT,
  verified_channels: { email: 'juan@example.com' },
  form_data: { occupation: 'docente' },
};

async function redeemed(options: Parameters<typeof tenantWithSession>[0] = {}) {
  const tenant = await tenantWithSession(options);
  const res = await internal('POST', `/internal/links/${tokenOf(tenant.session.url)}/redeem`);
  expect(res.status).toBe(200);
  return { ...tenant, internalSession: res.body };
}

describe('projects and configuration versions', () => {
  test('when a project is created, then 201 with a prj_ id for the account', async () => {
    const account = await buildAccount();
    const res = await internal('POST', '/internal/projects', { account_id: account.id, name: 'KYC' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'project', account_id: account.id, name: 'KYC' });
    expect(res.body.id).toMatch(/^prj_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  test('when configurations are published, then versions count up per project and only the chosen mode pointer moves', async () => {
    const { project, testKey, liveKey } = await buildTenant({ modes: ['test'], tokens: 5 });
    const first = await createSession(testKey, project.id);
    expect(first.body.config_version).toBe('cfg_00000001');
    const live = await internal('POST', `/internal/projects/${project.id}/configs`, { mode: 'live', config: SIMPLE_CONFIG });
    expect(live.status).toBe(201);
    expect(live.body).toEqual({ id: 'cfg_00000002', project_id: project.id, mode: 'live' });
    expect((await createSession(testKey, project.id)).body.config_version).toBe('cfg_00000001');
    expect((await createSession(liveKey, project.id)).body.config_version).toBe('cfg_00000002');
    await ops().publishConfig(project.id, 'test', SIMPLE_CONFIG);
    expect((await createSession(testKey, project.id)).body.config_version).toBe('cfg_00000003');
    // An existing session keeps the version it was created with.
    const again = await api('GET', `/v1/verification-sessions/${first.body.id}`, { key: testKey });
    expect(again.body.config_version).toBe('cfg_00000001');
  });

  test('when 10 publications race on one project, then they get 10 distinct consecutive versions', async () => {
    const { project } = await buildTenant({ modes: [] });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => ops().publishConfig(project.id, i % 2 ? 'live' : 'test', SIMPLE_CONFIG)),
    );
    expect(results.map((r) => r.id).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `cfg_${String(i + 1).padStart(8, '0')}`),
    );
  });

  test.each([
    ['an unknown step type', { steps: [{ id: 'x', type: 'selfie' }] }],
    ['an unknown parameter', { steps: [{ id: 'x', type: 'otp_email', retries: 3 }] }],
    [
      'duplicate step ids',
      {
        steps: [
          { id: 'x', type: 'otp_email' },
          { id: 'x', type: 'otp_whatsapp' },
        ],
      },
    ],
    [
      'a choice whose min exceeds its options',
      { steps: [{ id: 'c', type: 'choice', min: 2, options: [{ id: 'm', type: 'otp_email' }] }] },
    ],
    ['an unknown option', { steps: [{ id: 'x', type: 'otp_email' }], options: { shareEverything: true } }],
  ])('when a configuration has %s, then 422 validation_failed with errors', async (_name, config) => {
    const { project } = await buildTenant({ modes: [] });
    const res = await internal('POST', `/internal/projects/${project.id}/configs`, { mode: 'test', config });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.length).toBeGreaterThan(0);
    expect(res.body.errors[0].path).toMatch(/^config/);
  });

  test('when publishing to an unknown project, then 404 not_found', async () => {
    const res = await internal('POST', '/internal/projects/prj_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6/configs', {
      mode: 'test',
      config: SIMPLE_CONFIG,
    });
    expect(res.status).toBe(404);
  });

  test('when tokens are credited, then the balance grows; a non-positive amount is 422', async () => {
    const account = await buildAccount();
    expect((await internal('GET', `/internal/accounts/${account.id}/balance`)).body).toEqual({
      account_id: account.id,
      balance: 0,
    });
    expect((await internal('POST', `/internal/accounts/${account.id}/credits`, { tokens: 7 })).body).toEqual({
      account_id: account.id,
      balance: 7,
    });
    expect((await ops().creditBalance(account.id, 3)).balance).toBe(10);
    expect((await internal('POST', `/internal/accounts/${account.id}/credits`, { tokens: 0 })).status).toBe(422);
    expect((await internal('POST', `/internal/accounts/${account.id}/credits`, { tokens: -1 })).status).toBe(422);
  });

  test('when the internal token is missing, then 401 unauthorized', async () => {
    const res = await api('POST', '/internal/projects', {
      baseUrl: process.env.SESSIONS_URL!,
      body: { account_id: 'acc_x', name: 'x' },
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });
});

describe('upstream identity', () => {
  test('when a public route is called on the service without a valid signed identity, then 401 unauthorized', async () => {
    const { account, testKeyId } = await buildTenant();
    const context = Buffer.from(
      JSON.stringify({ account_id: account.id, key_id: testKeyId, mode: 'test', scopes: ['sessions:read'] }),
    ).toString('base64url');
    const attempts: Record<string, string>[] = [{}, { 'x-idv-context': context, 'x-idv-context-signature': 'f'.repeat(64) }];
    for (const headers of attempts) {
      const res = await api('GET', '/v1/verification-sessions', { baseUrl: process.env.SESSIONS_URL!, headers });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthorized');
    }
  });
});

describe('link redemption', () => {
  test('when a link is redeemed, then the internal session is in_progress with redeemed_at, account and frozen config', async () => {
    const { internalSession, session, account, testKey } = await redeemed();
    expect(internalSession).toMatchObject({
      id: session.id,
      status: 'in_progress',
      account_id: account.id,
      config: SIMPLE_CONFIG,
    });
    expect(internalSession.redeemed_at).toMatch(/Z$/);
    const publicView = await api('GET', `/v1/verification-sessions/${session.id}`, { key: testKey });
    expect(publicView.body.status).toBe('in_progress');
    expect(publicView.body.url).toBeUndefined();
    expect(publicView.body.qr).toBeUndefined();
    const fetched = await internal('GET', `/internal/sessions/${session.id}`);
    expect(fetched.body).toMatchObject({
      status: 'in_progress',
      redeemed_at: internalSession.redeemed_at,
      config: SIMPLE_CONFIG,
    });
  });

  test('when a link is redeemed twice, then 410 link_redeemed; unknown 404; a canceled session 409 session_terminal', async () => {
    const { session } = await redeemed();
    const again = await internal('POST', `/internal/links/${tokenOf(session.url)}/redeem`);
    expect(again.status).toBe(410);
    expect(again.body.code).toBe('link_redeemed');
    expect((await internal('POST', '/internal/links/lt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/redeem')).status).toBe(404);
    const other = await tenantWithSession();
    await api('POST', `/v1/verification-sessions/${other.session.id}/cancel`, { key: other.testKey });
    const canceled = await internal('POST', `/internal/links/${tokenOf(other.session.url)}/redeem`);
    expect(canceled.status).toBe(409);
    expect(canceled.body.code).toBe('session_terminal');
  });

  test('when many redemptions of one link race, then exactly one succeeds', async () => {
    const { session } = await tenantWithSession();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => internal('POST', `/internal/links/${tokenOf(session.url)}/redeem`)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 410)).toHaveLength(9);
  });
});

describe('resolution', () => {
  test('when approved, then the session is approved with result and completed_at, and approved + completed events carry deterministic ids', async () => {
    const { session, account, testKey } = await redeemed();
    const res = await internal('POST', `/internal/sessions/${session.id}/resolve`, FULL_RESULT);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: session.id,
      status: 'approved',
      result: { outcome: 'approved', reason_codes: [], steps: STEPS },
    });
    expect(res.body.completed_at).toBeDefined();
    // SIMPLE_CONFIG opts into nothing: no personal data anywhere.
    expect(res.body.result.document).toBeUndefined();
    expect(res.body.result.verified_channels).toBeUndefined();
    expect(res.body.result.form_data).toBeUndefined();
    expect((await api('GET', `/v1/verification-sessions/${session.id}`, { key: testKey })).body).toEqual(res.body);
    const events = await tap.waitFor(session.id, 2);
    expect(events.map((e) => e.type).sort()).toEqual(['verification_session.approved', 'verification_session.completed']);
    for (const event of events) {
      // The envelope and data the webhooks service parses.
      expect(DomainEventSchema.safeParse(event).success).toBe(true);
      expect(SessionEventDataSchema.safeParse(event.data).success).toBe(true);
      expect(event.id).toBe(eventId(account.id, session.id, event.type));
      expect(event.data.session).toEqual(res.body);
      expect(JSON.stringify(event)).not.toContain('PEREZ');
    }
  });

  test('when rejected, then rejected + completed with reason codes; resolving again is 409 session_terminal', async () => {
    const { session } = await redeemed();
    const res = await internal('POST', `/internal/sessions/${session.id}/resolve`, {
      outcome: 'rejected',
      reason_codes: ['document_expired'],
      steps: STEPS,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'rejected', result: { outcome: 'rejected', reason_codes: ['document_expired'] } });
    const again = await internal('POST', `/internal/sessions/${session.id}/resolve`, FULL_RESULT);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('session_terminal');
    const events = await tap.waitFor(session.id, 2);
    expect(events.map((e) => e.type).sort()).toEqual(['verification_session.completed', 'verification_session.rejected']);
    // A terminal session takes no more activity either.
    const activity = await internal('POST', '/internal/sessions/activity', { session_ids: [session.id] });
    expect(activity.status).toBe(200);
    expect(activity.body.sessions).toEqual({ [session.id]: 'terminal' });
  });

  test('when the frozen config opted into document and form data, then only those appear in the result and the events', async () => {
    const config = { ...SIMPLE_CONFIG, options: { ...SIMPLE_CONFIG.options, documentData: true, formData: true } };
    const { session } = await redeemed({ config });
    const res = await internal('POST', `/internal/sessions/${session.id}/resolve`, FULL_RESULT);
    expect(res.body.result).toEqual({
      outcome: 'approved',
      reason_codes: [],
      steps: STEPS,
      document: DOCUMENT,
      form_data: { occupation: 'docente' },
    });
    const events = await tap.waitFor(session.id, 2);
    expect(events[0]!.data.session.result.document).toEqual(DOCUMENT);
    expect(events[0]!.data.options).toEqual({
      documentData: true,
      verifiedChannels: false,
      formData: true,
      evidenceLinks: false,
    });
  });

  test('when a pending (never redeemed) session is resolved, then 409 conflict and it stays pending', async () => {
    const { session, testKey } = await tenantWithSession();
    const res = await internal('POST', `/internal/sessions/${session.id}/resolve`, FULL_RESULT);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('conflict');
    expect((await api('GET', `/v1/verification-sessions/${session.id}`, { key: testKey })).body.status).toBe('pending');
  });

  test('when the resolve body is invalid or the session unknown, then 422 or 404', async () => {
    const { session } = await redeemed();
    expect(
      (await internal('POST', `/internal/sessions/${session.id}/resolve`, { outcome: 'maybe', reason_codes: [], steps: [] }))
        .status,
    ).toBe(422);
    expect((await internal('POST', '/internal/sessions/vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6/resolve', FULL_RESULT)).status).toBe(404);
    expect((await internal('GET', '/internal/sessions/vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6')).status).toBe(404);
  });

  test('when a resolve and a cancel race, then exactly one wins and only its events are published', async () => {
    for (let round = 0; round < 5; round++) {
      const { session, testKey, project } = await redeemed();
      const [resolved, canceled] = await Promise.all([
        internal('POST', `/internal/sessions/${session.id}/resolve`, FULL_RESULT),
        api('POST', `/v1/verification-sessions/${session.id}/cancel`, { key: testKey }),
      ]);

      expect([resolved.status, canceled.status].sort()).toEqual([200, 409]);
      const won = resolved.status === 200 ? 'approved' : 'canceled';
      expect((await api('GET', `/v1/verification-sessions/${session.id}`, { key: testKey })).body.status).toBe(won);
      const expected =
        won === 'approved'
          ? ['verification_session.approved', 'verification_session.completed']
          : ['verification_session.canceled'];
      const events = await tap.waitFor(session.id, expected.length);
      // No event of the loser may follow: both requests have answered, so anything the loser wrote is
      // in the outbox before the marker's event, and the relay publishes in the order written.
      await outboxMarker(tap, testKey, project.id);
      expect(
        tap
          .of(session.id)
          .map((e) => e.type)
          .sort(),
      ).toEqual(expected);
      expect(events).toHaveLength(expected.length);
    }
  });

  test('when an in-progress session is canceled through the API, then canceled and the flow-runner can no longer resolve it', async () => {
    const { session, testKey } = await redeemed();
    expect((await api('POST', `/v1/verification-sessions/${session.id}/cancel`, { key: testKey })).body.status).toBe('canceled');
    const res = await internal('POST', `/internal/sessions/${session.id}/resolve`, FULL_RESULT);
    expect(res.body.code).toBe('session_terminal');
  });
});

describe('activity', () => {
  const UNKNOWN = 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6';

  test('when activity of several sessions is reported at once, then each gets its own answer and only live ones are pushed', async () => {
    const [live, other, ended] = await Promise.all([redeemed(), redeemed(), redeemed()]);
    await api('POST', `/v1/verification-sessions/${ended.session.id}/cancel`, { key: ended.testKey });
    const ids = [live.session.id, other.session.id, ended.session.id, UNKNOWN, live.session.id];

    const res = await internal('POST', '/internal/sessions/activity', { session_ids: ids });

    expect(res.status).toBe(200);
    expect(res.body.sessions).toEqual({
      [live.session.id]: 'active',
      [other.session.id]: 'active',
      [ended.session.id]: 'terminal',
      [UNKNOWN]: 'not_found',
    });
  });

  test('when an activity report is malformed or comes without the internal token, then a problem and nothing else', async () => {
    const { session } = await redeemed();
    const url = '/internal/sessions/activity';
    const baseUrl = testEnv().sessionsUrl;
    const body = { session_ids: [session.id] };

    const anonymous = await api('POST', url, { baseUrl, body });
    const wrong = await api('POST', url, { baseUrl, body, headers: { [INTERNAL_HEADERS.token]: 'not-the-token' } });
    const malformed = await internal('POST', url, { session_ids: ['not-a-session'] });
    const empty = await internal('POST', url, { session_ids: [] });
    const tooMany = await internal('POST', url, { session_ids: Array.from({ length: 101 }, () => session.id) });
    const extra = await internal('POST', url, { ...body, also: true });

    expect([anonymous, wrong, malformed, empty, tooMany, extra].map((r) => r.status)).toEqual([401, 401, 422, 422, 422, 422]);
    for (const res of [anonymous, wrong, malformed, empty, tooMany, extra]) {
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.request_id).toMatch(/^req_/);
    }
    expect(anonymous.body.code).toBe('unauthorized');
    expect(malformed.body.code).toBe('validation_failed');
    expect(malformed.body.errors[0].path).toBe('session_ids.0');
  });
});
