import { api, buildTenant, jobSettled, metricValue, ops, testEnv } from '@idv/testkit';
import amqp from 'amqplib';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { CAPTURE_READINGS_QUEUE } from '../src/jobs/capture-reader';
import { anotherPhotoOf, buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, h1Of, statusOf, type Page } from './person';
import { startPrivateStack, startReceiver, startRegistry } from './providers';

/**
 * The registry check (`registryCheck: true`) through the real stack, with the national registry
 * played by a stand-in HTTP server on 127.0.0.1. TIME_SCALE 0.01: abandonment after 18 s of
 * idleness (shorter idle periods abandoned sessions on a loaded CI machine before the person's first
 * submission), registry retries every 0.3 s doubling up to 18 s, and REGISTRY_RETRY_HOURS 1.5 gives the
 * registry 54 s before the step is rejected as unavailable (longer than any outage a test plays).
 */
const TIME_SCALE = 0.01;
const RETRY_HOURS = 1.5;
const ABANDON_MS = 30 * 60_000 * TIME_SCALE;
const RETRY_WINDOW_MS = RETRY_HOURS * 3_600_000 * TIME_SCALE;
const SAMPLES = path.join(__dirname, '..', 'assets', 'samples');
const WAITING_TITLE = 'Estamos consultando el registro nacional';

let privateStack: Awaited<ReturnType<typeof startPrivateStack>>;
let registry: Awaited<ReturnType<typeof startRegistry>>;

beforeAll(async () => {
  registry = await startRegistry();
  privateStack = await startPrivateStack({
    database: 'idv_test_registry',
    env: {
      TIME_SCALE: String(TIME_SCALE),
      LOG_LEVEL: 'warn',
      REGISTRY_URL: registry.url,
      REGISTRY_TOKEN: 'registry-secret-token',
      REGISTRY_TIMEOUT_MS: '400',
      REGISTRY_RETRY_HOURS: String(RETRY_HOURS),
    },
  });
}, 120_000);

afterAll(async () => {
  await privateStack?.stop();
  await registry?.close();
});

const flowUrl = () => privateStack.stack.url('flow-runner');
const REGISTRY_STEP = { id: 'doc', type: 'document_ar', documents: ['passport'], registryCheck: true };

async function withDb<T>(work: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: testEnv().databaseUrl });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/** The check's id (the Idempotency-Key every attempt sends) once the flow scheduled it. */
const checkIdOf = (sessionId: string) =>
  eventually(
    () =>
      withDb(async (db) => {
        const { rows } = await db.query<{ id: string }>('SELECT id FROM flow.registry_checks WHERE session_id = $1', [sessionId]);
        return rows[0]?.id;
      }),
    30_000,
    'the registry check to be scheduled',
  );

/** Reloads until the document is read and the page is the registry wait or a final page. */
async function waitPastReading(person: Person, sessionId: string): Promise<Page> {
  return eventually(
    async () => {
      const page = await person.get(`/s/${sessionId}`);
      const reading = page.text.includes('http-equiv="refresh"') && !page.text.includes(WAITING_TITLE);
      return reading ? undefined : page;
    },
    30_000,
    'the reading of the capture',
  );
}

/** Consent, then the passport sample's data page and angled photo (test mode). */
async function sendSamplePassport(person: Person, sessionId: string): Promise<Page> {
  await person.submit({ action: 'accept' });
  for (const side of ['front', 'front_angle']) {
    await person.submit({ action: 'sample', side, sample: 'passport-ok' });
    await waitPastReading(person, sessionId);
  }
  return person.last!;
}

/** The same sample's card photographed again (live mode offers no samples and refuses their images). */
async function uploadPassportPhotos(person: Person, sessionId: string): Promise<Page> {
  await person.submit({ action: 'accept' });
  for (const side of ['front', 'front_angle']) {
    const hops: Page[] = [];
    const bytes = await anotherPhotoOf(readFileSync(path.join(SAMPLES, `passport-ok-${side}.jpg`)));
    await person.submitFiles({ side, action: 'upload' }, [{ field: 'capture', bytes, filename: 'foto.jpg' }], { hops });
    expect(hops[0]!.status).toBe(303);
    await waitPastReading(person, sessionId);
  }
  return person.last!;
}

async function startRegistryFlow(mode: 'test' | 'live' = 'test', tokens = 0) {
  const tenant = await buildTenant({
    config: buildConfig([REGISTRY_STEP], { documentData: true }),
    modes: [mode],
    ...(tokens > 0 ? { tokens } : {}),
  });
  const key = mode === 'test' ? tenant.testKey : tenant.liveKey;
  const session = await createSession(key, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  return { tenant, key, session, person };
}

/** Reading jobs in the flow-runner's queue that no replica has taken yet. */
async function readingJobsWaiting(): Promise<number> {
  const connection = await amqp.connect(testEnv().amqpUrl);
  try {
    const channel = await connection.createChannel();
    return (await channel.checkQueue(`${testEnv().namespace}.${CAPTURE_READINGS_QUEUE}`)).messageCount;
  } finally {
    await connection.close();
  }
}

/** A counter summed over its labels and over the given replicas. */
async function metricSum(urls: string[], name: string): Promise<number> {
  const values = await Promise.all(urls.map((url) => metricValue(url, name)));
  return values.reduce((sum, value) => sum + value, 0);
}

const finalSession = (key: string, id: string, timeoutMs = 30_000) =>
  eventually(
    async () => {
      const current = await getSession(key, id);
      return current.status === 'in_progress' ? undefined : current;
    },
    timeoutMs,
    'the verdict',
  );

test('when the registry answers match, then the session is approved and the registry got the documented request', async () => {
  registry.behave('match');
  const { key, session, person } = await startRegistryFlow('live', 2);
  await uploadPassportPhotos(person, session.id);
  const checkId = await checkIdOf(session.id);

  const resolved = await finalSession(key, session.id);
  expect(resolved.status).toBe('approved');
  expect(statusOf(await person.get(`/s/${session.id}`))).toBe('approved');
  const calls = registry.requests.filter((r) => r.idempotencyKey === checkId);
  expect(calls).toHaveLength(1);
  expect(calls[0]).toMatchObject({ path: '/v1/identities/verify', authorization: 'Bearer registry-secret-token' });
  expect(checkId).toMatch(/^rgc_[0-9A-Z]{26}$/);
  expect(calls[0]!.body).toEqual({
    document_type: 'passport',
    number: resolved.result.document.number,
    sex: resolved.result.document.sex,
    surname: expect.any(String),
    given_names: expect.any(String),
    birth_date: resolved.result.document.birth_date,
    tramite: null,
    series: null,
  });
});

test('when a test-mode session reaches the registry check, then the national registry is never called and the number decides (a match here)', async () => {
  registry.behave('mismatch');
  const before = registry.requests.length;
  const { key, session, person } = await startRegistryFlow('test');
  await sendSamplePassport(person, session.id);

  const resolved = await finalSession(key, session.id);
  expect({ status: resolved.status, reasons: resolved.result?.reason_codes }).toEqual({ status: 'approved', reasons: [] });
  expect(resolved.result.document.number).not.toMatch(/9[789]$/);
  expect(registry.requests.length).toBe(before);
});

test.each([
  ['mismatch', 'a definite mismatch'],
  ['not_found', 'no such document'],
] as const)(
  'when the registry answers %s (%s), then the session is rejected with document_registry_mismatch',
  async (answer, _meaning) => {
    registry.behave(answer);
    const { key, session, person } = await startRegistryFlow('live', 2);
    await uploadPassportPhotos(person, session.id);

    const resolved = await finalSession(key, session.id);
    expect(resolved.status).toBe('rejected');
    expect(resolved.result.reason_codes).toEqual(['document_registry_mismatch']);
    expect(statusOf(await person.get(`/s/${session.id}`))).toBe('rejected');
  },
);

test('when the registry is down (5xx, silence, garbage) and then recovers, then the live session waits in_progress, is not abandoned, is approved, and costs one token', async () => {
  registry.behave('unavailable');
  const { tenant, key, session, person } = await startRegistryFlow('live', 3);
  expect((await ops().balance(tenant.account.id)).balance).toBe(2);
  const waiting = await uploadPassportPhotos(person, session.id);
  expect(h1Of(waiting)).toBe(WAITING_TITLE);
  expect(waiting.text).toContain('registro nacional de las personas');
  const english = new Person(flowUrl(), 'en');
  for (const [name, value] of person.cookies) english.cookies.set(name, value);
  expect(h1Of(await english.get(`/s/${session.id}`))).toBe('We are checking with the national registry');
  const checkId = await checkIdOf(session.id);

  // Down for longer than the abandonment period (the service's clock: that period has to pass), well
  // inside the retry window; each failure in turn answers the runner's next call.
  const downUntil = Date.now() + ABANDON_MS * 1.1;
  const callsOfCheck = () => registry.requests.filter((r) => r.idempotencyKey === checkId).length;
  let flips = 0;
  while (Date.now() < downUntil) {
    registry.behave((['unavailable', 'hang', 'malformed'] as const)[flips++ % 3]!);
    expect((await getSession(key, session.id)).status).toBe('in_progress');
    expect(h1Of(await person.get(`/s/${session.id}`))).toBe(WAITING_TITLE);
    const callsSoFar = callsOfCheck();
    await eventually(() => callsOfCheck() > callsSoFar || Date.now() >= downUntil, ABANDON_MS * 1.2, 'the next registry call');
  }
  expect((await getSession(key, session.id)).status).toBe('in_progress');
  expect(h1Of(await person.get(`/s/${session.id}`))).toBe(WAITING_TITLE);
  const failedCalls = callsOfCheck();
  expect(failedCalls).toBeGreaterThanOrEqual(3);
  registry.behave('match');

  const resolved = await finalSession(key, session.id);
  expect(resolved.status).toBe('approved');
  const calls = registry.requests.filter((r) => r.idempotencyKey === checkId);
  expect(calls.filter((r) => r.answered === 'match')).toHaveLength(1);
  expect(calls.every((r) => r.body.number === calls[0]!.body.number)).toBe(true);
  expect((await ops().balance(tenant.account.id)).balance).toBe(2);
  // The runner marks its check done after the verdict it delivered: the session may be approved a moment before.
  const check = await eventually(
    () =>
      withDb(async (db) => {
        const { rows } = await db.query('SELECT status, attempts, last_outcome FROM flow.registry_checks WHERE id = $1', [
          checkId,
        ]);
        return rows[0]?.status === 'done' ? rows[0] : undefined;
      }),
    10_000,
    'the registry check marked done',
  );
  expect(check).toEqual({ status: 'done', attempts: calls.length, last_outcome: 'match' });
  // The person's page moves on by itself.
  expect(statusOf(await person.get(`/s/${session.id}`))).toBe('approved');
}, 90_000);

test('when the registry never answers, then the session waits in_progress and is rejected with document_registry_unavailable when the retries run out', async () => {
  registry.behave('unavailable');
  const { key, session, person } = await startRegistryFlow('live', 2);
  const started = Date.now();
  await uploadPassportPhotos(person, session.id);
  const checkId = await checkIdOf(session.id);

  // Past the abandonment period (the service's clock), with no activity: the hold is what is tested.
  await new Promise((resolve) => setTimeout(resolve, ABANDON_MS * 1.2));
  expect((await getSession(key, session.id)).status).toBe('in_progress');
  const resolved = await finalSession(key, session.id, RETRY_WINDOW_MS + 30_000);
  expect(resolved.status).toBe('rejected');
  expect(resolved.result.reason_codes).toEqual(['document_registry_unavailable']);
  expect(Date.now() - started).toBeGreaterThanOrEqual(RETRY_WINDOW_MS - 1000);
  const calls = registry.requests.filter((r) => r.idempotencyKey === checkId);
  // 30 s, 1, 2, 4, 8, 16, 30 min, then the deadline (90 min, scaled): nine or ten attempts with the first.
  expect(calls.length).toBeGreaterThanOrEqual(7);
  expect(calls.length).toBeLessThanOrEqual(12);
  expect(statusOf(await person.get(`/s/${session.id}`))).toBe('rejected');
}, 120_000);

test('when the only flow-runner is killed in the middle of a registry call, then after its restart the check goes on and the session is approved', async () => {
  registry.behave('hang');
  const { key, session, person } = await startRegistryFlow('live', 2);
  await uploadPassportPhotos(person, session.id);
  const checkId = await checkIdOf(session.id);
  const inFlight = registry.requests.filter((r) => r.idempotencyKey === checkId).length;
  await eventually(() => registry.requests.filter((r) => r.idempotencyKey === checkId).length > inFlight, 15_000, 'a call');

  await privateStack.stack.kill('flow-runner', 'SIGKILL');
  registry.behave('match');
  await privateStack.stack.startService('flow-runner');
  expect((await getSession(key, session.id)).status).toBe('in_progress');

  // The dead replica's lease (2 × 400 ms + 10 s) runs out, then the restarted one takes the check.
  const resolved = await finalSession(key, session.id, 40_000);
  expect(resolved.status).toBe('approved');
  const calls = registry.requests.filter((r) => r.idempotencyKey === checkId);
  expect(calls.filter((r) => r.answered === 'match')).toHaveLength(1);
}, 90_000);

test('when the reading jobs are delivered again in a burst to two replicas while the registry check waits, then the check is made and decided once', async () => {
  // A second replica polls the same checks and consumes the same reading queue.
  const replica = await privateStack.stack.startReplica('flow-runner');
  const replicas = [flowUrl(), replica.url];
  const decidedBefore = await metricSum(replicas, 'flow_registry_checks_decided_total');
  const resolvedBefore = await metricSum(replicas, 'flow_sessions_resolved_total');
  const receiver = await startReceiver();
  try {
    registry.behave('unavailable');
    const { key, session, person } = await startRegistryFlow('live', 2);
    const endpoint = await api('POST', '/v1/webhook-endpoints', {
      key,
      body: { url: receiver.url, events: ['verification_session.completed'], description: 'registry burst' },
    });
    expect(endpoint.status).toBe(201);
    await uploadPassportPhotos(person, session.id);
    const checkId = await checkIdOf(session.id);

    const artefacts = await withDb(async (db) => {
      // The captures the person sent (reading them also stored the document's portrait, not a capture).
      const { rows } = await db.query<{ id: string; kind: string }>(
        "SELECT id, kind FROM flow.artefacts WHERE session_id = $1 AND kind IN ('front', 'front_angle')",
        [session.id],
      );
      return rows;
    });
    expect(artefacts).toHaveLength(2);
    const connection = await amqp.connect(testEnv().amqpUrl);
    try {
      const channel = await connection.createConfirmChannel();
      const exchange = `${testEnv().namespace}.events`;
      const publishes = artefacts.flatMap((artefact) =>
        Array.from({ length: 15 }, () => {
          const event = {
            id: `evt_${artefact.id}`,
            type: 'capture.stored',
            occurred_at: new Date().toISOString(),
            data: {
              session_id: session.id,
              step_id: 'doc',
              artefact_id: artefact.id,
              kind: artefact.kind,
              doc_type: 'passport',
              accepted_types: ['passport'],
            },
          };
          channel.publish(exchange, 'capture.stored', Buffer.from(JSON.stringify(event)), {
            persistent: true,
            messageId: event.id,
            contentType: 'application/json',
          });
        }),
      );
      expect(publishes).toHaveLength(30);
      await channel.waitForConfirms();
    } finally {
      await connection.close();
    }
    registry.behave('match', 150);

    const resolved = await finalSession(key, session.id);
    expect(resolved.status).toBe('approved');
    await eventually(() => receiver.events.length >= 1, 15_000, 'the completed webhook');
    // A second decision would come of a reading job or of a second claim of the check. Every reading
    // job has been handed to a replica once the queue is empty, and a replica handles them in well
    // under one pass of its registry checks (a check it scheduled wakes that job); once each replica's
    // job has finished what it had claimed, any second decision has been made and counted.
    await eventually(async () => (await readingJobsWaiting()) === 0, 15_000, 'the reading jobs taken');
    await jobSettled(replicas, 'flow-registry-checks');
    // Webhooks are at least once: a redelivery carries the same event id, a second verdict could not.
    const completed = new Set(
      receiver.events.filter((e) => e.body.type === 'verification_session.completed').map((e) => e.body.id),
    );
    expect(completed.size).toBe(1);
    expect(await metricSum(replicas, 'flow_registry_checks_decided_total')).toBe(decidedBefore + 1);
    expect(await metricSum(replicas, 'flow_sessions_resolved_total')).toBe(resolvedBefore + 1);
    const calls = registry.requests.filter((r) => r.idempotencyKey === checkId);
    expect(calls.filter((r) => r.answered === 'match')).toHaveLength(1);
    const rows = await withDb(async (db) => {
      const { rows } = await db.query('SELECT status, last_outcome FROM flow.registry_checks WHERE session_id = $1', [
        session.id,
      ]);
      return rows;
    });
    expect(rows).toEqual([{ status: 'done', last_outcome: 'match' }]);
  } finally {
    await receiver.close();
  }
}, 90_000);
