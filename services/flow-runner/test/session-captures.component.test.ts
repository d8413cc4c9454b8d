import {
  EvidenceDownloadsSchema,
  FlowTimelineSchema,
  SessionCapturesSchema,
  newArtefactId,
  newId,
  type AccountId,
  type InternalSession,
  type SessionId,
} from '@idv/contracts';
import { request } from 'undici';
import { appendTimeline } from '../src/adapters/timeline.repository';
import { RetentionRepository } from '../src/adapters/retention.repository';
import type { ArtefactKind } from '../src/domain/artefacts';
import type { SessionsPort } from '../src/domain/ports';
import { flowApp } from './flow-app';
import { buildFlowRecord } from './flow-records';
import { privateFlowStores } from './private-database';

/**
 * The dashboard's reads of a session's captures (`listSessionCaptures`, `getSessionCapture`,
 * `listSessionEvidenceDownloads`) and the timeline's texts (`getFlowTimeline?locale=`): the app in-process
 * over a PostgreSQL database of the file's own, flows and captures written to the stores as the flow writes
 * them, evidence links used through the app's public download route. The sessions service is scripted: it
 * knows whose each session is.
 */
const stores = privateFlowStores('captures');
const DOWNLOADER = '198.51.100.61';

const sessions = new Map<string, InternalSession>();
const sessionsPort: SessionsPort = {
  redeem: () => Promise.resolve({ ok: false, reason: 'not_found' }),
  get: (sessionId) => Promise.resolve(sessions.get(sessionId) ?? null),
  activity: () => Promise.resolve('ok'),
  resolve: () => Promise.resolve('ok'),
  hold: () => Promise.resolve('ok'),
};
const app = flowApp('captures', stores, sessionsPort);
const internal = (path: string) => app.internal(path);
const json = (answer: { text: string }) => JSON.parse(answer.text) as unknown;

/** A session of `accountId` the sessions service knows; opened (a flow here) unless said. */
async function sessionOf(accountId: AccountId, opened = true): Promise<SessionId> {
  const sessionId = newId('session');
  sessions.set(sessionId, { id: sessionId, account_id: accountId } as unknown as InternalSession);
  if (opened) await stores.flows.insert(buildFlowRecord({ sessionId, accountId, mode: 'live', status: 'approved' }));
  return sessionId;
}

/** A capture of `kind` stored as the flow stores one (sealed under the session and kind); its bytes. */
async function capture(sessionId: SessionId, kind: ArtefactKind): Promise<Buffer> {
  const bytes = Buffer.concat([stores.image, Buffer.from(kind)]);
  await stores.artefacts.store({ id: newArtefactId(), sessionId, kind, bytes, contentType: 'image/jpeg' });
  return bytes;
}

const capturesPath = (accountId: string, sessionId: string) => `/accounts/${accountId}/sessions/${sessionId}/captures`;
const downloadsPath = (accountId: string, sessionId: string) => `/accounts/${accountId}/sessions/${sessionId}/evidence-downloads`;

/** Uses the session's fresh evidence link of `artifact` through the public route, signed or tampered. */
async function useLink(sessionId: SessionId, artifact: string, tamper = false): Promise<number> {
  const link = (await app.links.linksFor([sessionId]))[sessionId]!.find((made) => made.artifact === artifact)!;
  const url = new URL(link.url);
  const signature = url.searchParams.get('signature')!;
  if (tamper) url.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
  const response = await request(`${app.base}${url.pathname}${url.search}`, {
    headers: { 'x-forwarded-for': DOWNLOADER, 'user-agent': 'captures-test/1.0' },
  });
  await response.body.dump();
  return response.statusCode;
}

describe("a session's captures, for its account's dashboard", () => {
  test('when the session has captures, then the list names each evidence artifact in order and each image is served decrypted, never cached', async () => {
    const accountId = newId('account');
    const sessionId = await sessionOf(accountId);
    const back = await capture(sessionId, 'back');
    const front = await capture(sessionId, 'front');
    await capture(sessionId, 'face_frames');

    const listed = await internal(capturesPath(accountId, sessionId));

    expect(listed.status).toBe(200);
    expect(listed.headers['cache-control']).toBe('no-store');
    const list = SessionCapturesSchema.parse(json(listed));
    expect(list).toMatchObject({ object: 'list', session_id: sessionId, data_removed_at: null });
    expect(list.data.map((item) => [item.artifact, item.content_type])).toEqual([
      ['front', 'image/jpeg'],
      ['back', 'image/jpeg'],
    ]);
    for (const [artifact, bytes] of [
      ['front', front],
      ['back', back],
    ] as const) {
      const image = await internal(`${capturesPath(accountId, sessionId)}/${artifact}`);
      expect(image.status).toBe(200);
      expect(image.headers['content-type']).toBe('image/jpeg');
      expect(image.headers['cache-control']).toBe('no-store');
      expect(image.headers['x-content-type-options']).toBe('nosniff');
      expect(image.bytes.equals(bytes)).toBe(true);
    }
  });

  test("when another account, an unknown session or a missing artifact is asked for, then 404 and nothing of the session's; a malformed artifact is 422", async () => {
    const accountId = newId('account');
    const sessionId = await sessionOf(accountId);
    await capture(sessionId, 'front');
    const other = newId('account');

    for (const path of [
      capturesPath(other, sessionId),
      `${capturesPath(other, sessionId)}/front`,
      downloadsPath(other, sessionId),
      capturesPath(accountId, newId('session')),
      `${capturesPath(accountId, newId('session'))}/front`,
      downloadsPath(accountId, newId('session')),
      `${capturesPath(accountId, sessionId)}/selfie`,
    ]) {
      const answer = await internal(path);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(json(answer)).toMatchObject({ code: 'not_found', status: 404 });
    }
    expect((await internal(`${capturesPath(accountId, sessionId)}/face_frames`)).status).toBe(422);
    expect((await internal(`${capturesPath(accountId, sessionId)}/..%2Ffront`)).status).toBe(422);
  });

  test('when a session of the account was never opened, then it has no capture and no download; another account still gets 404', async () => {
    const accountId = newId('account');
    const sessionId = await sessionOf(accountId, false);

    expect(json(await internal(capturesPath(accountId, sessionId)))).toEqual({
      object: 'list',
      session_id: sessionId,
      data: [],
      data_removed_at: null,
    });
    expect(json(await internal(downloadsPath(accountId, sessionId)))).toEqual({
      object: 'list',
      session_id: sessionId,
      data: [],
      has_more: false,
    });
    expect((await internal(`${capturesPath(accountId, sessionId)}/front`)).status).toBe(404);
    expect((await internal(capturesPath(newId('account'), sessionId))).status).toBe(404);
  });

  test('when retention deletes the captures, or removes the flow data, then no image is served: 404, and the list says so', async () => {
    const accountId = newId('account');
    const swept = await sessionOf(accountId);
    await capture(swept, 'front');
    const removed = await sessionOf(accountId);
    await capture(removed, 'front');
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    const cutoff = new Date(Date.now() - 30 * 86_400_000);
    // Only these two sessions are old enough: the other tests' captures and flows stay.
    await stores.pool.query('UPDATE artefacts SET created_at = $2 WHERE session_id = $1', [swept, longAgo]);
    await stores.pool.query('UPDATE flows SET created_at = $2, updated_at = $2 WHERE session_id = $1', [removed, longAgo]);

    expect(await stores.artefacts.deleteCapturedBefore(cutoff, 100)).toBe(1);
    expect(await new RetentionRepository(stores.pool).removeFlowDataBefore(cutoff, 100)).toBe(1);

    expect((await internal(`${capturesPath(accountId, swept)}/front`)).status).toBe(404);
    expect(SessionCapturesSchema.parse(json(await internal(capturesPath(accountId, swept))))).toMatchObject({
      data: [],
      data_removed_at: null,
    });
    // The flow's data went: its capture is not served even before the artefact sweep reaches it.
    expect((await stores.artefacts.latest(removed, 'front')) !== null).toBe(true);
    expect((await internal(`${capturesPath(accountId, removed)}/front`)).status).toBe(404);
    const list = SessionCapturesSchema.parse(json(await internal(capturesPath(accountId, removed))));
    expect(list.data).toEqual([]);
    expect(list.data_removed_at).not.toBeNull();
  });

  test('when evidence links are used, then each use is listed newest first with its artifact, outcome and address, and never the link', async () => {
    const accountId = newId('account');
    const sessionId = await sessionOf(accountId);
    await capture(sessionId, 'front');
    await capture(sessionId, 'back');

    expect(await useLink(sessionId, 'front')).toBe(200);
    expect(await useLink(sessionId, 'back', true)).toBe(403);
    expect(await useLink(sessionId, 'back')).toBe(200);

    const answer = await internal(downloadsPath(accountId, sessionId));
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const downloads = EvidenceDownloadsSchema.parse(json(answer));
    expect(downloads.has_more).toBe(false);
    expect(downloads.data.map(({ artifact, outcome, client_address }) => [artifact, outcome, client_address])).toEqual([
      ['back', 'served', DOWNLOADER],
      ['back', 'bad_signature', DOWNLOADER],
      ['front', 'served', DOWNLOADER],
    ]);
    expect(answer.text).not.toMatch(/signature=|expires|\/evidence\/|art_|captures-test/);

    const first = EvidenceDownloadsSchema.parse(json(await internal(`${downloadsPath(accountId, sessionId)}?limit=2`)));
    expect(first.data).toEqual(downloads.data.slice(0, 2));
    expect(first.has_more).toBe(true);
    expect((await internal(`${downloadsPath(accountId, sessionId)}?limit=0`)).status).toBe(422);
  });
});

describe("a session's timeline in the reader's language", () => {
  test('when the timeline is read with a locale, then each message key carries the text the person saw in it; without one, the key alone', async () => {
    const accountId = newId('account');
    const sessionId = await sessionOf(accountId);
    await appendTimeline(stores.pool, accountId, sessionId, [
      {
        kind: 'capture_read',
        stepId: 'doc',
        attempt: 1,
        detail: { capture: 'front', result: 'asked_again', reason: 'blurry', message_key: 'document.problems.blurry' },
      },
      {
        kind: 'capture_read',
        stepId: 'doc',
        attempt: 2,
        detail: { capture: 'front', result: 'refused', message_key: 'rejection.reasons.document_type_mismatch' },
      },
      // A key that names a group, one with no text and one since renamed: no text, the key stays.
      { kind: 'capture_read', stepId: 'doc', attempt: 3, detail: { capture: 'front', message_key: 'document.problems' } },
      {
        kind: 'capture_read',
        stepId: 'doc',
        attempt: 4,
        detail: { capture: 'front', message_key: 'rejection.reasons.choice_not_satisfied' },
      },
      {
        kind: 'capture_read',
        stepId: 'doc',
        attempt: 5,
        detail: { capture: 'front', message_key: 'document.problems.toString' },
      },
    ]);
    const read = async (query: string) =>
      FlowTimelineSchema.parse(json(await internal(`/accounts/${accountId}/sessions/${sessionId}/timeline${query}`))).data.map(
        (entry) => [entry.message_key, entry.message],
      );

    expect(await read('?locale=es')).toEqual([
      ['document.problems.blurry', 'La foto está movida. Apoyá el documento, sostené firme el teléfono y volvé a sacarla.'],
      ['rejection.reasons.document_type_mismatch', 'El documento de las fotos no es del tipo que se pedía.'],
      ['document.problems', undefined],
      ['rejection.reasons.choice_not_satisfied', undefined],
      ['document.problems.toString', undefined],
    ]);
    expect((await read('?locale=en')).slice(0, 2)).toEqual([
      ['document.problems.blurry', expect.stringMatching(/blurr/i)],
      ['rejection.reasons.document_type_mismatch', 'The document in the photos is not of the type that was asked for.'],
    ]);
    expect((await read('')).every(([, message]) => message === undefined)).toBe(true);
    expect((await internal(`/accounts/${accountId}/sessions/${sessionId}/timeline?locale=fr`)).status).toBe(422);
    const stored = await stores.pool.query('SELECT 1 FROM timeline_entries WHERE session_id = $1 AND detail ? $2', [
      sessionId,
      'message',
    ]);
    expect(stored.rows).toEqual([]);
  });
});
