import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { asId } from '@idv/contracts';
import { createPool } from '@idv/kit';
import { api, buildTenant, testEnv } from '@idv/testkit';
import type pg from 'pg';
import sharp from 'sharp';
import { Agent } from 'undici';
import { PgArtefactStore } from '../src/adapters/artefact.store';
import { artefactKeyring } from '../src/config';
import { FACE_TIMINGS } from '../src/domain/steps/face';
import { anotherPhotoOf, buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, h1Of, statusOf, type Page } from './person';
import { signatureValid, startReceiver } from './providers';

/**
 * The face step through the person's pages: a challenge stored with the flow, frame sets uploaded as the
 * camera page would send them (multipart `frame` files with their times and the challenge's nonce),
 * judged by the real models in the service's face pool from real images (test mode's licensed face
 * sequences, assets/face-samples), and the verdict in the session's result and its webhook.
 */
const flowUrl = () => testEnv().flowUrl;
// Each judged attempt is seconds of model time on a shared 2-core machine.
jest.setTimeout(180_000);
const SAMPLES = path.join(__dirname, '..', 'assets', 'face-samples');
type Pose = 'straight' | 'left' | 'right';
interface FaceSample {
  id: string;
  outcome: string;
  poses: Record<Pose, string[]>;
}
const CATALOG = JSON.parse(readFileSync(path.join(SAMPLES, 'catalog.json'), 'utf8')) as FaceSample[];
const sampleFrame = (file: string) => readFileSync(path.join(SAMPLES, file));

let pool: pg.Pool;
beforeAll(() => {
  pool = createPool({ url: testEnv().databaseUrl, schema: 'flow', max: 2 });
});
afterAll(() => pool.end());

interface Challenge {
  nonce: string;
  steps: Pose[];
  holdMs: number;
}

const challengeOf = (page: Page): Challenge => ({
  nonce: /data-nonce="([^"]+)"/.exec(page.text)![1]!,
  steps: /data-steps="([^"]+)"/.exec(page.text)![1]!.split(',') as Pose[],
  holdMs: Number(/data-hold-ms="(\d+)"/.exec(page.text)![1]),
});

/** A sample's frames in the order the challenge asks (or reversed), two a pose, `holdMs` + 10 apart. */
function framesFor(sampleId: string, challenge: Challenge, order: 'challenge' | 'reversed' = 'challenge') {
  const sample = CATALOG.find((entry) => entry.id === sampleId)!;
  const poses = order === 'reversed' ? [...challenge.steps].reverse() : challenge.steps;
  const gap = challenge.holdMs + 10;
  return poses.flatMap((pose, index) =>
    sample.poses[pose].map((file, frame) => ({ image: sampleFrame(file), atMs: index * 2 * gap + frame * gap })),
  );
}

async function startFaceFlow(
  stepOptions: Record<string, unknown> = {},
  steps: unknown[] = [],
  options: Record<string, unknown> = {},
) {
  const tenant = await buildTenant({
    config: buildConfig([...steps, { id: 'face', type: 'face_liveness', ...stepOptions }], options),
    modes: ['test'],
  });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  await person.submit({ action: 'accept' });
  return { tenant, session, person };
}

/** Starts an attempt: the challenge page, whose frames may then be sent. */
async function start(person: Person, action: 'start' | 'start_upload' = 'start'): Promise<Challenge> {
  const page = await person.submit({ action });
  expect(page.status).toBe(200);
  return challengeOf(page);
}

interface FramesOptions {
  nonce: string;
  atMs?: string;
  /** The page whose form tokens to use (default: the person's last page). */
  from?: Page;
  dispatcher?: Agent;
}

/** Posts frames as the camera page does: multipart, `frame` files in order, their times, the nonce. */
function sendFrames(person: Person, frames: { image: Buffer; atMs: number }[], options: FramesOptions): Promise<Page> {
  return person.submitFiles(
    { action: 'frames', nonce: options.nonce, at_ms: options.atMs ?? frames.map((frame) => frame.atMs).join(',') },
    frames.map((frame, index) => ({ field: 'frame', bytes: frame.image, filename: `frame-${index}.jpg` })),
    { ...(options.from ? { from: options.from } : {}), ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}) },
  );
}

/** The frames' times must fit in what the server saw elapse since the challenge: a person takes that long. */
const afterPoses = (challenge: Challenge) => delay(challenge.steps.length * 2 * (challenge.holdMs + 10) + 150);

/** Reloads until the progress page gives way (it refreshes itself every 2 s in a browser). */
function waitForVerdict(person: Person, sessionId: string): Promise<Page> {
  return eventually(
    async () => {
      const page = await person.get(`/s/${sessionId}`);
      return page.text.includes('http-equiv="refresh"') ? undefined : page;
    },
    90_000,
    'the face judgement',
  );
}

async function attempt(person: Person, sessionId: string, sampleId: string, order: 'challenge' | 'reversed' = 'challenge') {
  const challenge = await start(person);
  await afterPoses(challenge);
  const processing = await sendFrames(person, framesFor(sampleId, challenge, order), { nonce: challenge.nonce });
  expect(processing.text).toContain('Estamos revisando las fotos');
  return waitForVerdict(person, sessionId);
}

async function flowState(sessionId: string) {
  const { rows } = await pool.query<{ state: string }>('SELECT state::text AS state FROM flows WHERE session_id = $1', [
    sessionId,
  ]);
  return rows[0]!.state;
}

async function finalSession(key: string, sessionId: string) {
  return eventually(async () => {
    const current = await getSession(key, sessionId);
    return current.status === 'in_progress' ? undefined : current;
  }, 30_000);
}

describe('the face step', () => {
  test('when a live sequence follows the challenge, then the step passes and the selfie is kept encrypted, with no embedding anywhere', async () => {
    const { tenant, session, person } = await startFaceFlow();
    expect(h1Of(person.last!)).toBe('Verificá tu rostro');
    const challenge = await start(person);
    expect([...challenge.steps].sort()).toEqual(['left', 'right', 'straight']);

    await afterPoses(challenge);
    await sendFrames(person, framesFor('face-live', challenge), { nonce: challenge.nonce });
    const final = await waitForVerdict(person, session.id);

    expect(statusOf(final)).toBe('approved');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.result.steps).toContainEqual({ id: 'face', type: 'face_liveness', verdict: 'approved' });
    const store = new PgArtefactStore(pool, artefactKeyring({ INTERNAL_TOKEN: testEnv().internalToken }));
    const selfie = await store.latest(asId('session', session.id), 'selfie');
    expect((await sharp(selfie!.bytes).metadata()).format).toBe('jpeg');
    const { rows } = await pool.query<{ kind: string; ciphertext: Buffer; reading: unknown }>(
      `SELECT a.kind, a.ciphertext, r.reading FROM artefacts a LEFT JOIN artefact_readings r ON r.artefact_id = a.id
        WHERE a.session_id = $1`,
      [session.id],
    );
    expect(rows.map((row) => row.kind).sort()).toEqual(['face_frames', 'selfie']);
    for (const row of rows) expect(row.ciphertext.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))).toBe(false);
    // Scores and names only: no embedding (1024 numbers) in the judgement or the flow's state.
    const stored = JSON.stringify(rows.map((row) => row.reading)) + (await flowState(session.id));
    expect(stored).not.toContain('embedding');
    expect(stored).not.toMatch(/(-?\d+\.\d+,){50}/);
    expect(JSON.parse(await flowState(session.id)).steps.face.face.evidence[0]).toMatchObject({ method: 'camera', passed: true });
    const metrics = await (await fetch(`${flowUrl()}/metrics`)).text();
    expect(metrics).toMatch(/^flow_face_attempts_judged_total\{[^}]*outcome="passed"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^flow_face_judgement_duration_seconds_count\{[^}]*\} [1-9]/m);
    expect(metrics).toMatch(/^flow_worker_tasks_queued\{[^}]*pool="face"[^}]*\} \d/m);
  });

  test('when attempts fail, then each says what to change, and the last one’s reason rejects the session', async () => {
    const { tenant, session, person } = await startFaceFlow();
    const swapped = await attempt(person, session.id, 'face-swap');
    expect(swapped.text).toContain('una persona distinta');
    expect(swapped.text).toContain('Te quedan 2 intentos');
    const none = await attempt(person, session.id, 'face-none');
    expect(none.text).toContain('No encontramos tu cara');
    const reversed = await attempt(person, session.id, 'face-live', 'reversed');

    expect(statusOf(reversed)).toBe('rejected');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.result.reason_codes).toEqual(['liveness_challenge_failed']);
    expect(resolved.result.steps).toContainEqual({ id: 'face', type: 'face_liveness', verdict: 'rejected' });
  });

  test('when the step compares with a document and there is none, then it is rejected with face_document_photo_missing', async () => {
    const { tenant, session, person } = await startFaceFlow({ compareWithDocument: true });
    const final = await attempt(person, session.id, 'face-live');
    expect(statusOf(final)).toBe('rejected');
    expect((await getSession(tenant.testKey, session.id)).result.reason_codes).toEqual(['face_document_photo_missing']);
  });

  test('when frames are bad input, then each gets a clear page, never a 500, and costs no attempt', async () => {
    const { person } = await startFaceFlow({}, [], {});
    const english = new Person(flowUrl(), 'en-US,en;q=0.9');
    const other = await startFaceFlow();
    const challenge = await start(person);
    const otherChallenge = await start(other.person);
    const page = person.last!;
    const good = framesFor('face-live', challenge);
    const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#888' } })
      .png()
      .toBuffer();

    const answers = {
      onePixel: await sendFrames(person, [{ image: tiny, atMs: 0 }], { nonce: challenge.nonce, from: page }),
      notImage: await sendFrames(person, [{ image: Buffer.from('hola'), atMs: 0 }], { nonce: challenge.nonce, from: page }),
      tooMany: await sendFrames(
        person,
        Array.from({ length: 200 }, (_, index) => ({ image: tiny, atMs: index })),
        { nonce: challenge.nonce, from: page },
      ),
      noTimes: await sendFrames(person, good, { nonce: challenge.nonce, atMs: '', from: page }),
      othersNonce: await sendFrames(person, good, { nonce: otherChallenge.nonce, from: page }),
      none: await sendFrames(person, [], { nonce: challenge.nonce, from: page }),
    };
    expect(answers.onePixel.text).toContain('demasiado chica');
    expect(answers.notImage.text).toContain('no es una foto que podamos leer');
    expect(answers.tooMany.text).toContain('demasiadas fotos');
    expect(answers.noTimes.text).toContain('sin sus horarios');
    expect(answers.othersNonce.text).toContain('no corresponden a este intento');
    expect(answers.none.text).toContain('No recibimos las fotos');
    for (const answer of Object.values(answers)) {
      expect(answer.status).toBeLessThan(500);
      expect(answer.text).toContain('role="alert"');
      expect(answer.text).not.toContain('intentos');
    }
    // The same refusal, in English when the browser asks for it.
    for (const [name, value] of person.cookies) english.cookies.set(name, value);
    expect((await sendFrames(english, [{ image: tiny, atMs: 0 }], { nonce: challenge.nonce, from: page })).text).toContain(
      'is too small',
    );
  });

  test('when frames taken within the window arrive after it would have closed (a slow upload), then they are judged and the step passes', async () => {
    const { tenant, session, person } = await startFaceFlow();
    const challenge = await start(person);
    // Taken in the challenge's first moments (their times say so), arriving once a window has gone by.
    await delay(FACE_TIMINGS.cameraWindowMs * testEnv().timeScale + 500);

    const processing = await sendFrames(person, framesFor('face-live', challenge), { nonce: challenge.nonce });
    expect(processing.text).toContain('Estamos revisando las fotos');
    const final = await waitForVerdict(person, session.id);

    expect(statusOf(final)).toBe('approved');
    expect((await getSession(tenant.testKey, session.id)).result.steps).toContainEqual({
      id: 'face',
      type: 'face_liveness',
      verdict: 'approved',
    });
  });

  test('when frames come too late, then they are not judged, use no attempt and the page says what to do, the second time naming the ways around a slow connection', async () => {
    const { session, person } = await startFaceFlow();
    const scale = testEnv().timeScale;
    const windowMs = FACE_TIMINGS.cameraWindowMs * scale;
    // Their own span is longer than the window: a capture that stopped midway (the phone locked, another app).
    const first = await start(person);
    const stretched = framesFor('face-live', first).map((frame, index, all) =>
      index === all.length - 1 ? { ...frame, atMs: all[0]!.atMs + windowMs + 100 } : frame,
    );
    await delay(windowMs + 300);
    const expired = await sendFrames(person, stretched, { nonce: first.nonce });

    expect(expired.status).toBe(200);
    expect(h1Of(expired)).toBe('Verificá tu rostro');
    expect(expired.text).toContain('Pasó demasiado tiempo y no pudimos revisar los movimientos');
    expect(expired.text).toContain('no te descuenta ningún intento');
    expect(expired.text).not.toContain('No pudimos ver los movimientos');
    expect(expired.text).not.toContain('Te quedan');
    // The challenge went with its frames: its nonce is not taken again.
    const replay = await sendFrames(person, framesFor('face-live', first), { nonce: first.nonce });
    expect(replay.text).toContain('no corresponden a este intento');

    // Sent after the challenge's last moment (a very slow connection): the second time.
    const second = await start(person);
    await delay(FACE_TIMINGS.cameraMaxAgeMs * scale + 300);
    const again = await sendFrames(person, framesFor('face-live', second), { nonce: second.nonce });

    expect(again.text).toContain('Otra vez pasó demasiado tiempo');
    expect(again.text).toContain('código QR');
    const english = new Person(flowUrl(), 'en-US,en;q=0.9');
    for (const [name, value] of person.cookies) english.cookies.set(name, value);
    expect((await english.get(`/s/${session.id}`)).text).toContain('Too much time went by again');
    const face = JSON.parse(await flowState(session.id)).steps.face.face;
    expect(face).toMatchObject({ attempts: 0, expiries: 2, last: 'expired_again' });
    expect(face.judging).toBeUndefined();
    const { rows } = await pool.query('SELECT id FROM artefacts WHERE session_id = $1', [session.id]);
    expect(rows).toEqual([]);
  });

  test('when the same frames are sent many times at once, then they are judged once and the nonce is not accepted again', async () => {
    const { session, person } = await startFaceFlow();
    const challenge = await start(person);
    const page = person.last!;
    await afterPoses(challenge);
    const frames = framesFor('face-none', challenge);
    const dispatcher = new Agent({ connections: 8 });
    try {
      const pages = await Promise.all(
        Array.from({ length: 6 }, () => sendFrames(person, frames, { nonce: challenge.nonce, from: page, dispatcher })),
      );
      // One was taken (the progress page); the others found its nonce used.
      const refused = pages.filter((answer) => answer.text.includes('no corresponden a este intento'));
      expect(refused).toHaveLength(5);
      for (const answer of pages) expect(answer.status).toBeLessThan(500);
    } finally {
      await dispatcher.close();
    }
    const verdict = await waitForVerdict(person, session.id);
    expect(verdict.text).toContain('Te quedan 2 intentos');
    const again = await sendFrames(person, frames, { nonce: challenge.nonce, from: page });
    expect(again.text).toContain('no corresponden a este intento');
    const { rows } = await pool.query(
      `SELECT r.reading FROM artefacts a JOIN artefact_readings r ON r.artefact_id = a.id WHERE a.session_id = $1 AND a.kind = 'face_frames'`,
      [session.id],
    );
    expect(rows).toHaveLength(1);
    expect(JSON.parse(await flowState(session.id)).steps.face.face.attempts).toBe(1);
  });

  test('when the camera cannot be used and uploads are allowed, then two photos judged passively pass, recorded as such', async () => {
    const { session, person } = await startFaceFlow({ allowUpload: true });
    expect(person.last!.text).toContain('value="start_upload"');
    const challenge = await start(person, 'start_upload');
    const page = person.last!;
    expect(page.text).toContain('capture="user"');
    expect(page.text).toContain('enctype="multipart/form-data"');
    const [straight, turned] = challenge.steps;
    const sample = CATALOG.find((entry) => entry.id === 'face-live')!;
    const frames = [sample.poses[straight!][0]!, sample.poses[turned!][0]!].map((file, atMs) => ({
      image: sampleFrame(file),
      atMs,
    }));
    await sendFrames(person, frames, { nonce: challenge.nonce, atMs: '' });
    const final = await waitForVerdict(person, session.id);

    expect(statusOf(final)).toBe('approved');
    expect(JSON.parse(await flowState(session.id)).steps.face.face.evidence[0]).toMatchObject({ method: 'upload', passed: true });
  });
});

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A passport then a face, with `documentData`, in one mode; the receiver subscribed to approvals; the person past consent. */
async function startDocumentAndFace(mode: 'test' | 'live', receiver: Receiver, options: Record<string, unknown> = {}) {
  const tenant = await buildTenant({
    config: buildConfig(
      [
        { id: 'doc', type: 'document_ar', documents: ['passport'] },
        { id: 'face', type: 'face_liveness' },
      ],
      { documentData: true, ...options },
    ),
    modes: [mode],
    tokens: 2,
  });
  const key = mode === 'live' ? tenant.liveKey : tenant.testKey;
  const endpoint = await api('POST', '/v1/webhook-endpoints', {
    key,
    body: { url: receiver.url, events: ['verification_session.approved'], description: `face, ${mode}` },
  });
  const session = await createSession(key, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  await person.submit({ action: 'accept' });
  return { key, endpoint, session, person };
}

/** The approved event the receiver got, signed with the endpoint's secret, with the document and face verdicts. */
async function approvedEvent(receiver: Receiver, secret: string) {
  const delivered = await eventually(
    () => receiver.events.find((e) => e.body.type === 'verification_session.approved'),
    20_000,
    'the approved webhook',
  );
  expect(signatureValid(delivered.headers['x-service-signature'] as string, delivered.raw, secret)).toBe(true);
  const object = delivered.body.data.object;
  expect(object.result.steps).toEqual([
    { id: 'consent', type: 'consent', verdict: 'approved' },
    { id: 'doc', type: 'document_ar', verdict: 'approved' },
    { id: 'face', type: 'face_liveness', verdict: 'approved' },
  ]);
  expect(object.result.document).toMatchObject({ doc_type: 'passport' });
  return object;
}

describe('document and face in test mode', () => {
  test('when the sample passport and the matching face sequence are sent, then the signed webhook carries both verdicts and the document', async () => {
    const receiver = await startReceiver();
    try {
      const { endpoint, session, person } = await startDocumentAndFace('test', receiver, { evidenceLinks: true });
      for (const side of ['front', 'front_angle']) {
        await person.submit({ action: 'sample', side, sample: 'passport-ok' });
        await waitForVerdict(person, session.id);
      }
      expect(h1Of(person.last!)).toBe('Verificá tu rostro');
      const challenge = await start(person);
      expect(person.last!.text).toContain('value="face-live"');
      await afterPoses(challenge);
      await person.submit({ action: 'sample', sample: 'face-live', nonce: challenge.nonce });
      const final = await waitForVerdict(person, session.id);
      expect(statusOf(final)).toBe('approved');

      const object = await approvedEvent(receiver, endpoint.body.secret);
      expect(object.evidence_links.map((link: { artifact: string }) => link.artifact)).toEqual([
        'front',
        'front_angle',
        'selfie',
      ]);
      const evidence = JSON.parse(await flowState(session.id)).steps.face.face.evidence[0];
      expect(evidence.comparison.match).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  test('when the face sequence is of another person than the document, then the session is rejected with face_mismatch', async () => {
    const tenant = await buildTenant({
      config: buildConfig([
        { id: 'doc', type: 'document_ar', documents: ['passport'] },
        { id: 'face', type: 'face_liveness', maxAttempts: 1 },
      ]),
      modes: ['test'],
    });
    const session = await createSession(tenant.testKey, tenant.project.id);
    const person = new Person(flowUrl());
    await person.get(session.url);
    await person.submit({ action: 'accept' });
    for (const side of ['front', 'front_angle']) {
      await person.submit({ action: 'sample', side, sample: 'passport-ok' });
      await waitForVerdict(person, session.id);
    }
    const final = await attempt(person, session.id, 'face-mismatch');
    expect(statusOf(final)).toBe('rejected');
    expect((await finalSession(tenant.testKey, session.id)).result.reason_codes).toEqual(['face_mismatch']);
  });
});

describe('document and face in live mode', () => {
  const DOCUMENT_SAMPLES = path.join(__dirname, '..', 'assets', 'samples');

  // Live mode offers no samples and refuses their images: the passport's photos go up as a browser
  // without JavaScript sends them (test mode's passport-ok photographed again: a real photo the readers
  // decode), the face frames (face-live's, likewise) as the camera page sends them.
  test('when a passport is uploaded and the matching face follows the challenge, then the session is approved and the signed webhook carries both verdicts and the document', async () => {
    const receiver = await startReceiver();
    try {
      const { key, endpoint, session, person } = await startDocumentAndFace('live', receiver);
      for (const side of ['front', 'front_angle']) {
        expect(person.last!.text).not.toContain('name="sample"');
        await person.uploadCapture(await anotherPhotoOf(readFileSync(path.join(DOCUMENT_SAMPLES, `passport-ok-${side}.jpg`))));
        await waitForVerdict(person, session.id);
      }
      expect(h1Of(person.last!)).toBe('Verificá tu rostro');
      const challenge = await start(person);
      expect(person.last!.text).not.toContain('value="face-live"');
      await afterPoses(challenge);
      const frames = await Promise.all(
        framesFor('face-live', challenge).map(async (frame) => ({ ...frame, image: await anotherPhotoOf(frame.image) })),
      );
      await sendFrames(person, frames, { nonce: challenge.nonce });
      const final = await waitForVerdict(person, session.id);
      expect(statusOf(final)).toBe('approved');

      const object = await approvedEvent(receiver, endpoint.body.secret);
      expect(object.mode).toBe('live');
      expect((await getSession(key, session.id)).status).toBe('approved');
    } finally {
      await receiver.close();
    }
  });

  // The samples are public: a live session sent them stands for no one. Refused on arrival, before any
  // reading or judging, and the step fails at once.
  test('when the public test samples are sent in live mode, as a photo and as camera frames, then each step is rejected at once with test_sample_detected', async () => {
    const liveFlow = async (steps: unknown[]) => {
      const tenant = await buildTenant({ config: buildConfig(steps), modes: ['live'], tokens: 1 });
      const session = await createSession(tenant.liveKey, tenant.project.id);
      const person = new Person(flowUrl());
      await person.get(session.url);
      await person.submit({ action: 'accept' });
      return { key: tenant.liveKey, session, person };
    };

    const document = await liveFlow([{ id: 'doc', type: 'document_ar', documents: ['dni'] }]);
    const documentPage = await document.person.uploadCapture(readFileSync(path.join(DOCUMENT_SAMPLES, 'dni-ok-front.jpg')));
    const face = await liveFlow([{ id: 'face', type: 'face_liveness', compareWithDocument: false }]);
    const challenge = await start(face.person);
    const facePage = await sendFrames(face.person, framesFor('face-live', challenge), { nonce: challenge.nonce });

    for (const [flow, page] of [
      [document, documentPage],
      [face, facePage],
    ] as const) {
      expect(statusOf(page)).toBe('rejected');
      const resolved = await finalSession(flow.key, flow.session.id);
      expect(resolved.status).toBe('rejected');
      expect(resolved.result.reason_codes).toEqual(['test_sample_detected']);
    }
    // Nothing of theirs was stored or queued for reading.
    const { rows } = await pool.query('SELECT kind FROM artefacts WHERE session_id = ANY($1)', [
      [document.session.id, face.session.id],
    ]);
    expect(rows).toEqual([]);
  });
});
