import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { asId, type EvidenceArtifact } from '@idv/contracts';
import { createPool } from '@idv/kit';
import { ROOT_DIR, api, buildTenant, testEnv, waitFor } from '@idv/testkit';
import type pg from 'pg';
import { request } from 'undici';
import { PgArtefactStore } from '../src/adapters/artefact.store';
import { artefactKeyring } from '../src/config';
import { buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, type Page } from './person';
import { startReceiver } from './providers';

/**
 * Evidence links end to end: a test-mode session with `evidenceLinks` goes through the document step
 * with the DNI sample (real uploads, real readers), then the GET answer and the delivered webhook carry
 * one link per captured side, and each link downloads the stored image once checked and logged.
 */
const flowUrl = () => testEnv().flowUrl;
const ARTIFACTS = ['front', 'back', 'front_angle'] as const;
/** The test stands behind a trusted proxy (127.0.0.1) and names its own client address. */
const CLIENT = { 'x-forwarded-for': '198.51.100.23', 'user-agent': 'evidence-e2e/1.0' };

interface EvidenceLink {
  artifact: string;
  url: string;
  expires_at: string;
}

let pool: pg.Pool;
beforeAll(() => {
  pool = createPool({ url: testEnv().databaseUrl, schema: 'flow', max: 2 });
});
afterAll(() => pool.end());

async function waitForReading(person: Person, sessionId: string): Promise<Page> {
  return eventually(
    async () => {
      const page = await person.get(`/s/${sessionId}`);
      return page.text.includes('http-equiv="refresh"') ? undefined : page;
    },
    30_000,
    'the reading of the capture',
  );
}

/** A session of the project through consent and every side of the approved sample DNI, each read. */
async function sendSampleDni(key: string, projectId: string) {
  const session = await createSession(key, projectId);
  const person = new Person(flowUrl());
  await person.get(session.url);
  await person.submit({ action: 'accept' });
  for (const side of ARTIFACTS) {
    await person.submit({ action: 'sample', side, sample: 'dni-ok' });
    await waitForReading(person, session.id);
  }
  return { session, person };
}

async function download(url: string) {
  const response = await request(url, { headers: CLIENT });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, bytes };
}

const problemOf = (answer: { headers: Record<string, unknown>; bytes: Buffer }) => {
  expect(String(answer.headers['content-type'])).toMatch(/^application\/problem\+json/);
  return JSON.parse(answer.bytes.toString('utf8')) as { code: string; status: number };
};

/** The same artefact and query under another session's id. */
const underSession = (url: string, sessionId: string) => url.replace(/\/evidence\/vs_[^/]+\//, `/evidence/${sessionId}/`);

describe('evidence links', () => {
  test('when a project opts in and the document is captured, then GET and the webhook carry one working, logged link per side', async () => {
    const receiver = await startReceiver();
    try {
      const tenant = await buildTenant({
        config: buildConfig([{ id: 'doc', type: 'document_ar', documents: ['dni'] }], { evidenceLinks: true }),
        modes: ['test'],
      });
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        key: tenant.testKey,
        body: { url: receiver.url, events: ['verification_session.approved'], description: 'evidence' },
      });
      expect(endpoint.status).toBe(201);
      const { session } = await sendSampleDni(tenant.testKey, tenant.project.id);
      const resolved = await eventually(async () => {
        const current = await getSession(tenant.testKey, session.id);
        return current.status === 'in_progress' ? undefined : current;
      }, 30_000);
      expect(resolved.status).toBe('approved');

      // GET: links made when answered, one per side, in the spec's order, valid 5 scaled minutes.
      const before = Date.now();
      const answered = await getSession(tenant.testKey, session.id);
      const links = answered.evidence_links as EvidenceLink[];
      expect(links.map((l) => l.artifact)).toEqual([...ARTIFACTS]);
      const lifetime = 5 * 60_000 * testEnv().timeScale;
      for (const link of links) {
        expect(link.url.startsWith(`${flowUrl()}/evidence/${session.id}/art_`)).toBe(true);
        const expiresAt = Date.parse(link.expires_at);
        expect(expiresAt).toBeGreaterThanOrEqual(before + lifetime - 1000);
        expect(expiresAt).toBeLessThanOrEqual(Date.now() + lifetime + 1000);
      }
      const listed = await api('GET', '/v1/verification-sessions?limit=5', { key: tenant.testKey });
      expect(listed.body.data.find((s: { id: string }) => s.id === session.id).evidence_links).toHaveLength(3);

      // The webhook: links made for that attempt.
      const delivered = await eventually(
        () => receiver.events.find((e) => e.body.type === 'verification_session.approved'),
        20_000,
        'the approved webhook',
      );
      const hooked = delivered.body.data.object.evidence_links as EvidenceLink[];
      expect(hooked.map((l) => l.artifact)).toEqual([...ARTIFACTS]);

      // Each link gives the stored image, byte for byte, never cached.
      const store = new PgArtefactStore(pool, artefactKeyring({ INTERNAL_TOKEN: testEnv().internalToken }));
      for (const link of [...links, ...hooked]) {
        const stored = await store.latest(asId('session', session.id), link.artifact as (typeof ARTIFACTS)[number]);
        const answer = await download(link.url);
        expect(answer.status).toBe(200);
        expect(answer.headers['content-type']).toBe('image/jpeg');
        expect(answer.headers['cache-control']).toBe('no-store');
        expect(answer.bytes.equals(stored!.bytes)).toBe(true);
      }

      // A changed signature or expiry: 403; the artefact under another session: 404.
      const front = links[0]!.url;
      const signature = new URL(front).searchParams.get('signature')!;
      const tampered = front.replace(signature, `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
      const forged = await download(tampered);
      expect(forged.status).toBe(403);
      expect(forged.headers['cache-control']).toBe('no-store');
      expect(problemOf(forged).code).toBe('evidence_link_invalid');
      const expiresParam = new URL(front).searchParams.get('expires')!;
      const stretched = await download(front.replace(`expires=${expiresParam}`, `expires=${Number(expiresParam) + 3_600_000}`));
      expect(problemOf(stretched).code).toBe('evidence_link_invalid');
      const cut = await download(front.split('?')[0]!);
      expect(cut.status).toBe(403);

      const other = await createSession(tenant.testKey, tenant.project.id);
      const elsewhere = await download(underSession(front, other.id));
      expect(elsewhere.status).toBe(404);
      expect(problemOf(elsewhere).code).toBe('not_found');

      // Once past its expiry (scaled), the link is refused as expired.
      await waitFor(
        () => Date.now() > Date.parse(links[0]!.expires_at) + 50 || undefined,
        lifetime + 10_000,
        250,
        'the link expiry',
      );
      const late = await download(front);
      expect(late.status).toBe(410);
      expect(problemOf(late).code).toBe('evidence_link_expired');

      // Every decision on this session's evidence is logged: who, when, which; never the signature.
      const { rows } = await pool.query<{
        kind: string;
        artefact_id: string;
        client_address: string;
        user_agent: string;
        outcome: string;
        downloaded_at: Date;
      }>(
        'SELECT kind, artefact_id, client_address, user_agent, outcome, downloaded_at FROM evidence_downloads WHERE session_id = $1',
        [session.id],
      );
      const served = rows.filter((r) => r.outcome === 'served');
      expect(served.map((r) => r.kind).sort()).toEqual([...ARTIFACTS, ...ARTIFACTS].sort());
      for (const row of rows) {
        expect(row).toMatchObject({ client_address: '198.51.100.23', user_agent: 'evidence-e2e/1.0' });
        expect(row.artefact_id).toMatch(/^art_/);
        expect(Date.now() - row.downloaded_at.getTime()).toBeLessThan(5 * 60_000);
      }
      expect(rows.map((r) => r.outcome).sort()).toEqual(
        [...Array(6).fill('served'), 'bad_signature', 'bad_signature', 'bad_signature', 'expired'].sort(),
      );
      expect(JSON.stringify(rows)).not.toContain(signature);

      const log = path.join(ROOT_DIR, '.run', 'logs', `${testEnv().namespace}-flow-runner.log`);
      expect(existsSync(log)).toBe(true);
      const text = readFileSync(log, 'utf8');
      expect(text).toContain(`/evidence/${session.id}/`);
      for (const link of [...links, ...hooked]) expect(text).not.toContain(new URL(link.url).searchParams.get('signature')!);
    } finally {
      await receiver.close();
    }
  });

  test('when a document and a face are approved, then every evidence link of the session downloads its stored image', async () => {
    const tenant = await buildTenant({
      config: buildConfig(
        [
          { id: 'doc', type: 'document_ar', documents: ['dni'] },
          { id: 'face', type: 'face_liveness' },
        ],
        { evidenceLinks: true },
      ),
      modes: ['test'],
    });
    const { session, person } = await sendSampleDni(tenant.testKey, tenant.project.id);
    const challenge = await person.submit({ action: 'start' });
    const nonce = /data-nonce="([^"]+)"/.exec(challenge.text)![1]!;
    const poses = /data-steps="([^"]+)"/.exec(challenge.text)![1]!.split(',').length;
    const holdMs = Number(/data-hold-ms="(\d+)"/.exec(challenge.text)![1]);
    // The sample's frames must fit in what the server saw elapse since the challenge: a person takes that long.
    await delay(poses * 2 * (holdMs + 10) + 150);
    await person.submit({ action: 'sample', sample: 'face-live', nonce });
    await eventually(
      async () => {
        const page = await person.get(`/s/${session.id}`);
        return page.text.includes('http-equiv="refresh"') ? undefined : page;
      },
      90_000,
      'the face judgement',
    );
    const resolved = await eventually(async () => {
      const current = await getSession(tenant.testKey, session.id);
      return current.status === 'in_progress' ? undefined : current;
    }, 30_000);
    expect(resolved.status).toBe('approved');

    const links = (await getSession(tenant.testKey, session.id)).evidence_links as EvidenceLink[];

    expect(links.map((link) => link.artifact)).toEqual([...ARTIFACTS, 'selfie']);
    const store = new PgArtefactStore(pool, artefactKeyring({ INTERNAL_TOKEN: testEnv().internalToken }));
    const answers = [];
    for (const link of links) answers.push({ artifact: link.artifact, ...(await download(link.url)) });
    expect(answers.map((answer) => [answer.artifact, answer.status, answer.headers['content-type']])).toEqual(
      links.map((link) => [link.artifact, 200, 'image/jpeg']),
    );
    for (const answer of answers) {
      const stored = await store.latest(asId('session', session.id), answer.artifact as EvidenceArtifact);
      expect(answer.bytes.equals(stored!.bytes)).toBe(true);
    }
    // Judging a face is seconds of model time on a shared machine.
  }, 180_000);

  test('when a project does not opt in, then its sessions carry no evidence_links', async () => {
    const tenant = await buildTenant({
      config: buildConfig([{ id: 'doc', type: 'document_ar', documents: ['dni'] }]),
      modes: ['test'],
    });
    const session = await createSession(tenant.testKey, tenant.project.id);
    const person = new Person(flowUrl());
    await person.get(session.url);
    await person.submit({ action: 'accept' });
    await person.submit({ action: 'sample', side: 'front', sample: 'dni-ok' });
    await waitForReading(person, session.id);

    const answered = await getSession(tenant.testKey, session.id);

    expect(answered).not.toHaveProperty('evidence_links');
  });
});
