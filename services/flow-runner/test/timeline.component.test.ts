import { randomBytes } from 'node:crypto';
import {
  FlowTimelineSchema,
  newId,
  type AccountId,
  type InternalSession,
  type RegistryCheckId,
  type ResolveSessionBody,
  type SessionId,
  type TimelineEntry,
} from '@idv/contracts';
import { request } from 'undici';
import { RegistryChecksRepository } from '../src/adapters/registry-checks.repository';
import { RetentionRepository } from '../src/adapters/retention.repository';
import type { SessionsPort } from '../src/domain/ports';
import { bindingCookieName } from '../src/http/security';
import { flowApp } from './flow-app';
import { privateFlowStores } from './private-database';

/**
 * A session's timeline as the flow-runner records and serves it: the app in-process over a PostgreSQL
 * database of the file's own, the link opened and handed over through the person's pages (so the device
 * is told from a real User-Agent header), the steps submitted and the readings applied through the flow's
 * use cases as the pages and the reading job call them (the readers' verdicts are given, no image is read).
 * The sessions service is the one thing scripted: it knows each session and takes the verdict.
 */
const stores = privateFlowStores('timeline');
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const EMAIL = 'ana.perez.timeline@example.com';
const WRONG_CODE = '424242';
const TEST_CODE = '000000';
const CLIENT_ADDRESS = '203.0.113.77';

const CONFIG = {
  steps: [
    { id: 'mail', type: 'otp_email' },
    { id: 'doc', type: 'document_ar', documents: ['dni'], maxAttempts: 2 },
  ],
  options: { documentData: false, verifiedChannels: false, formData: false, evidenceLinks: false, webhookEvents: [] },
};

/** The sessions service as this test scripts it: sessions by link token and id, the verdicts it took. */
const sessions = new Map<string, InternalSession>();
const byToken = new Map<string, SessionId>();
const resolved = new Map<string, ResolveSessionBody>();
const sessionsPort: SessionsPort = {
  redeem: (token) => {
    const id = byToken.get(token);
    const session = id ? sessions.get(id) : undefined;
    return Promise.resolve(session ? { ok: true, session } : { ok: false, reason: 'not_found' });
  },
  get: (sessionId) => Promise.resolve(sessions.get(sessionId) ?? null),
  activity: () => Promise.resolve('ok'),
  resolve: (sessionId, body) => {
    resolved.set(sessionId, body);
    return Promise.resolve('ok');
  },
  hold: () => Promise.resolve('ok'),
};

/** A session of `accountId` the sessions service knows, with its link token. */
function newSession(accountId: AccountId): { sessionId: SessionId; token: string } {
  const sessionId = newId('session');
  const token = `lt_${randomBytes(24).toString('base64url')}`;
  sessions.set(sessionId, {
    id: sessionId,
    object: 'verification_session',
    status: 'pending',
    mode: 'test',
    project_id: newId('project'),
    config_version: 1,
    created_at: new Date().toISOString(),
    account_id: accountId,
    config: CONFIG,
    redeemed_at: null,
  } as unknown as InternalSession);
  byToken.set(token, sessionId);
  return { sessionId, token };
}

const app = flowApp('timeline', stores, sessionsPort);

/** A person's page (`/l/…`, `/h/…`) from a device: the binding secret its cookie carries, if one was set. */
async function openPage(path: string, sessionId: SessionId, userAgent: string): Promise<{ status: number; secret?: string }> {
  const response = await request(`${app.base}${path}`, {
    headers: { 'user-agent': userAgent, 'x-forwarded-for': CLIENT_ADDRESS, 'accept-language': 'es-AR' },
  });
  await response.body.dump();
  const cookies = [response.headers['set-cookie'] ?? []].flat();
  const name = `${bindingCookieName(sessionId)}=`;
  const cookie = cookies.find((line) => line.startsWith(name));
  return {
    status: response.statusCode,
    ...(cookie ? { secret: decodeURIComponent(cookie.slice(name.length).split(';')[0]!) } : {}),
  };
}

async function timeline(accountId: string, sessionId: string, query = '') {
  const { status, text } = await app.internal(`/accounts/${accountId}/sessions/${sessionId}/timeline${query}`);
  return { status, text, body: JSON.parse(text) as unknown };
}

/** A step's submission as the page posts it, with the page's CSRF token. */
async function submit(sessionId: SessionId, secret: string, input: Record<string, string>, capture?: Buffer) {
  const record = await stores.flows.find(sessionId);
  const result = await app.flows.submit(
    sessionId,
    secret,
    { _csrf: record!.csrfToken, ...input },
    'es',
    capture ? { capture } : {},
  );
  expect(result.kind === 'status' ? result.page : result.kind).not.toMatch(/csrf|used|moved|not_found/);
}

/** The front being read, as the reading job hands its verdict to the flow. */
async function readFront(sessionId: SessionId, problems: 'blurry'[]) {
  const record = await stores.flows.find(sessionId);
  const front = record!.state.steps.doc!.document!.captures.front!;
  await app.flows.applyReading(sessionId, 'doc', front.artefactId, { problems, detectedType: 'dni' });
}

/** What an entry is, without its id and time. */
const shape = ({ id: _id, at: _at, ...entry }: TimelineEntry) => entry;

describe("a session's timeline", () => {
  const accountId = newId('account');
  const { sessionId, token } = newSession(accountId);

  beforeAll(async () => {
    const opened = await openPage(`/l/${token}`, sessionId, IPHONE);
    expect(opened.status).toBe(303);
    let secret = opened.secret!;
    await submit(sessionId, secret, { step: 'consent', action: 'accept' });
    await submit(sessionId, secret, { step: 'mail', action: 'send', destination: EMAIL });
    await submit(sessionId, secret, { step: 'mail', action: 'verify', code: WRONG_CODE });
    await submit(sessionId, secret, { step: 'mail', action: 'verify', code: TEST_CODE });
    // The document's camera page offers to go on on another device; the computer opens its code.
    const page = await app.flows.show(sessionId, secret, 'es');
    const handover = page.kind === 'flow' ? page.handover : undefined;
    expect(handover).toBeDefined();
    const moved = await openPage(`/h/${sessionId}/${handover!.token}`, sessionId, WINDOWS);
    expect(moved.status).toBe(303);
    secret = moved.secret!;
    await submit(sessionId, secret, { step: 'doc', action: 'upload', side: 'front' }, stores.image);
    await readFront(sessionId, ['blurry']);
    await submit(sessionId, secret, { step: 'doc', action: 'upload', side: 'front' }, stores.image);
    await readFront(sessionId, ['blurry']);
    expect(resolved.get(sessionId)).toMatchObject({ outcome: 'rejected', reason_codes: ['document_unreadable'] });
  }, 60_000);

  test('when a flow was opened, handed over, coded and rejected on its document, then every entry is there in order, with its times', async () => {
    const answer = await timeline(accountId, sessionId);

    expect(answer.status).toBe(200);
    const body = FlowTimelineSchema.parse(answer.body);
    expect(body).toMatchObject({ object: 'list', session_id: sessionId, has_more: false });
    expect(body.data.map(shape)).toEqual([
      { kind: 'link_opened', device: 'phone' },
      { kind: 'step_started', step_id: 'consent', step_type: 'consent' },
      { kind: 'step_decided', step_id: 'consent', step_type: 'consent', verdict: 'approved', reason_codes: [] },
      { kind: 'step_started', step_id: 'mail', step_type: 'otp_email' },
      { kind: 'code_sent', step_id: 'mail', attempt: 1, channel: 'email' },
      { kind: 'code_wrong', step_id: 'mail', attempt: 1, channel: 'email' },
      { kind: 'code_verified', step_id: 'mail', channel: 'email' },
      { kind: 'step_decided', step_id: 'mail', step_type: 'otp_email', verdict: 'approved', reason_codes: [] },
      { kind: 'step_started', step_id: 'doc', step_type: 'document_ar' },
      { kind: 'handed_over', device: 'desktop' },
      { kind: 'capture_uploaded', step_id: 'doc', attempt: 1, capture: 'front' },
      {
        kind: 'capture_read',
        step_id: 'doc',
        attempt: 1,
        capture: 'front',
        result: 'asked_again',
        reason: 'blurry',
        message_key: 'document.problems.blurry',
      },
      { kind: 'capture_uploaded', step_id: 'doc', attempt: 2, capture: 'front' },
      {
        kind: 'capture_read',
        step_id: 'doc',
        attempt: 2,
        capture: 'front',
        result: 'refused',
        reason: 'blurry',
        message_key: 'rejection.reasons.document_unreadable',
      },
      {
        kind: 'step_decided',
        step_id: 'doc',
        step_type: 'document_ar',
        verdict: 'rejected',
        reason_codes: ['document_unreadable'],
      },
      { kind: 'flow_decided', verdict: 'rejected', reason_codes: ['document_unreadable'] },
    ]);
    const times = body.data.map((entry) => Date.parse(entry.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const ids = body.data.map((entry) => BigInt(entry.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a < b ? -1 : 1)));
  });

  test('when the timeline is read, then no entry holds the address, the User-Agent, the e-mail, a code or the link token', async () => {
    const { rows } = await stores.pool.query<{ entry: string }>(
      `SELECT row_to_json(t)::text AS entry FROM timeline_entries t WHERE session_id = $1`,
      [sessionId],
    );
    const stored = rows.map((row) => row.entry).join('\n');
    const served = (await timeline(accountId, sessionId)).text;

    expect(rows.length).toBeGreaterThan(10);
    for (const text of [stored, served]) {
      for (const personal of [EMAIL, 'example.com', WRONG_CODE, TEST_CODE, token, CLIENT_ADDRESS, 'iPhone', 'Windows NT']) {
        expect(text).not.toContain(personal);
      }
    }
  });

  test('when the timeline is read in pages, then each page follows the last entry of the one before', async () => {
    const first = FlowTimelineSchema.parse((await timeline(accountId, sessionId, '?limit=10')).body);
    const rest = FlowTimelineSchema.parse(
      (await timeline(accountId, sessionId, `?limit=10&after=${first.data.at(-1)!.id}`)).body,
    );
    const all = FlowTimelineSchema.parse((await timeline(accountId, sessionId)).body);

    expect(first.has_more).toBe(true);
    expect(rest.has_more).toBe(false);
    expect([...first.data, ...rest.data]).toEqual(all.data);
  });

  test("when another account asks for the session's timeline, then 404 and nothing of it", async () => {
    const answer = await timeline(newId('account'), sessionId);

    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ code: 'not_found', status: 404 });
    expect(answer.text).not.toContain('link_opened');
  });

  test('when the session is unknown or the ids are malformed, then 404 or 422', async () => {
    expect((await timeline(accountId, newId('session'))).status).toBe(404);
    expect((await timeline(accountId, 'vs_nope')).status).toBe(422);
    expect((await timeline(accountId, sessionId, '?limit=1001')).status).toBe(422);
  });

  test("when a session of the account was never opened, then its timeline is empty; another account's gets 404", async () => {
    const { sessionId: unopened } = newSession(accountId);

    const answer = await timeline(accountId, unopened);

    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ object: 'list', session_id: unopened, data: [], has_more: false });
    expect((await timeline(newId('account'), unopened)).status).toBe(404);
  });

  test("when retention removes the flow's document data, then the timeline is served as it was", async () => {
    const before = (await timeline(accountId, sessionId)).body;

    const swept = await new RetentionRepository(stores.pool).removeFlowDataBefore(new Date(Date.now() + 86_400_000), 100);

    expect(swept).toBeGreaterThan(0);
    const { rows } = await stores.pool.query('SELECT 1 FROM flows WHERE session_id = $1 AND data_removed_at IS NOT NULL', [
      sessionId,
    ]);
    expect(rows).toHaveLength(1);
    expect((await timeline(accountId, sessionId)).body).toEqual(before);
  });

  test('when the registry does not answer and is asked again, then the attempt is in the timeline with when, and nothing of the query', async () => {
    const checks = new RegistryChecksRepository(stores.pool);
    await stores.pool.query(
      `INSERT INTO registry_checks (session_id, step_id, id, status, attempts, next_attempt_at, give_up_at)
       VALUES ($1, 'doc', $2, 'pending', 0, now(), now() + interval '1 day')`,
      [sessionId, newId('registryCheck')],
    );
    const { rows } = await stores.pool.query<{ id: string; give_up_at: Date }>(
      `SELECT id, give_up_at FROM registry_checks WHERE session_id = $1`,
      [sessionId],
    );
    const next = new Date('2030-01-02T03:04:05.000Z');

    await checks.reschedule(
      {
        sessionId,
        stepId: 'doc',
        id: rows[0]!.id as RegistryCheckId,
        status: 'pending',
        attempts: 0,
        giveUpAt: rows[0]!.give_up_at,
      },
      1,
      next,
      'unavailable',
      'status_503',
    );

    const body = FlowTimelineSchema.parse((await timeline(accountId, sessionId)).body);
    expect(shape(body.data.at(-1)!)).toEqual({
      kind: 'registry_check_attempted',
      step_id: 'doc',
      attempt: 1,
      outcome: 'unavailable',
      cause: 'status_503',
      retry_at: next.toISOString(),
    });
  });
});
