import { newId } from '@idv/contracts';
import {
  EvidenceLinks,
  EvidenceSigner,
  type DownloadRecord,
  type EvidenceArtefact,
  type EvidencePort,
} from '../src/domain/evidence';

/** Evidence links as pure logic: an in-memory port, a fixed clock, a known key. */
const artefactId = () => `art_${newId('session').slice(3)}`;

function buildPort(artefacts: EvidenceArtefact[]) {
  const recorded: DownloadRecord[] = [];
  const port: EvidencePort = {
    latestOf: (ids) => Promise.resolve(artefacts.filter((a) => ids.includes(a.sessionId))),
    find: (sessionId, id) => Promise.resolve(artefacts.find((a) => a.sessionId === sessionId && a.id === id) ?? null),
    bytes: (id) => Promise.resolve(Buffer.from(`bytes of ${id}`)),
    record: (download) => {
      recorded.push(download);
      return Promise.resolve();
    },
  };
  return { port, recorded };
}

function buildLinks(artefacts: EvidenceArtefact[], clock: { now: number }) {
  const { port, recorded } = buildPort(artefacts);
  const links = new EvidenceLinks(
    { port, signer: new EvidenceSigner(Buffer.alloc(32, 7)), publicBaseUrl: 'https://verify.idv.example/' },
    { timeScale: 1, now: () => new Date(clock.now) },
  );
  return { links, recorded };
}

const request = (url: string) => {
  const parsed = new URL(url);
  const [, , sessionId, id] = parsed.pathname.split('/');
  return {
    sessionId: sessionId!,
    artefactId: id!,
    expires: parsed.searchParams.get('expires') ?? undefined,
    signature: parsed.searchParams.get('signature') ?? undefined,
    clientAddress: '203.0.113.9',
    userAgent: 'curl/8',
  };
};

describe('evidence links', () => {
  const sessionId = newId('session');
  const front: EvidenceArtefact = { id: artefactId(), sessionId, kind: 'front', contentType: 'image/jpeg' };
  const back: EvidenceArtefact = { id: artefactId(), sessionId, kind: 'back', contentType: 'image/jpeg' };

  test('when links are made, then there is one per captured side in the spec order, valid 5 minutes, and none for an unknown session', async () => {
    const clock = { now: Date.parse('2026-12-01T10:00:00.000Z') };
    const { links } = buildLinks([back, front], clock);
    const other = newId('session');

    const made = await links.linksFor([sessionId, other]);

    expect(made[other]).toEqual([]);
    expect(made[sessionId]!.map((l) => l.artifact)).toEqual(['front', 'back']);
    expect(made[sessionId]![0]!.expires_at).toBe('2026-12-01T10:05:00.000Z');
    expect(made[sessionId]![0]!.url).toMatch(
      new RegExp(`^https://verify\\.idv\\.example/evidence/${sessionId}/${front.id}\\?expires=\\d+&signature=[A-Za-z0-9_-]{43}$`),
    );
  });

  test('when a link is used in time, then the bytes are served and the download is recorded without the signature', async () => {
    const clock = { now: Date.now() };
    const { links, recorded } = buildLinks([front], clock);
    const [link] = (await links.linksFor([sessionId]))[sessionId]!;

    const result = await links.download(request(link!.url));

    expect(result.kind).toBe('served');
    expect(recorded).toEqual([
      expect.objectContaining({
        sessionId,
        artefactId: front.id,
        kind: 'front',
        clientAddress: '203.0.113.9',
        outcome: 'served',
      }),
    ]);
    expect(JSON.stringify(recorded)).not.toContain(new URL(link!.url).searchParams.get('signature')!);
  });

  test('when the signature, the expiry or the artefact is changed, then the link is refused', async () => {
    const clock = { now: Date.now() };
    const { links } = buildLinks([front, back], clock);
    const [link] = (await links.linksFor([sessionId]))[sessionId]!;
    const valid = request(link!.url);
    const flipped = valid.signature!.startsWith('A') ? `B${valid.signature!.slice(1)}` : `A${valid.signature!.slice(1)}`;

    expect((await links.download({ ...valid, signature: flipped })).kind).toBe('bad_signature');
    expect((await links.download({ ...valid, signature: undefined })).kind).toBe('bad_signature');
    expect((await links.download({ ...valid, expires: String(Number(valid.expires) + 60_000) })).kind).toBe('bad_signature');
    expect((await links.download({ ...valid, expires: '1e99' })).kind).toBe('bad_signature');
    expect((await links.download({ ...valid, artefactId: back.id })).kind).toBe('bad_signature');
    expect((await links.download({ ...valid, sessionId: newId('session') })).kind).toBe('not_found');
  });

  test('when the link is past its expiry, then it is refused as expired', async () => {
    const clock = { now: Date.now() };
    const { links, recorded } = buildLinks([front], clock);
    const [link] = (await links.linksFor([sessionId]))[sessionId]!;

    clock.now += 5 * 60_000;

    expect((await links.download(request(link!.url))).kind).toBe('expired');
    expect(recorded.map((r) => r.outcome)).toEqual(['expired']);
  });
});
