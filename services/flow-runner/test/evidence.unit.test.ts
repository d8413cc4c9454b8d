import { isArtefactId, isId, newArtefactId, newId } from '@idv/contracts';
import { EvidenceSigner, parseExpires } from '../src/domain/evidence';
import { EvidenceLinks } from '../src/use-cases/evidence';
import { type DownloadRecord, type EvidenceArtefact, type EvidencePort } from '../src/domain/ports';

/** Evidence links as pure logic: an in-memory port, a fixed clock, a known key. */

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

/** A download of a link, its ids checked as the route checks them. */
const request = (url: string) => {
  const parsed = new URL(url);
  const [, , sessionId, id] = parsed.pathname.split('/');
  if (!isId('session', sessionId) || !isArtefactId(id)) throw new Error(`not an evidence link: ${parsed.pathname}`);
  return {
    sessionId,
    artefactId: id,
    expires: parsed.searchParams.get('expires') ?? undefined,
    signature: parsed.searchParams.get('signature') ?? undefined,
    clientAddress: '203.0.113.9',
    userAgent: 'curl/8',
  };
};

describe('evidence links', () => {
  const sessionId = newId('session');
  const front: EvidenceArtefact = { id: newArtefactId(), sessionId, kind: 'front', contentType: 'image/jpeg' };
  const back: EvidenceArtefact = { id: newArtefactId(), sessionId, kind: 'back', contentType: 'image/jpeg' };

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

  test('when the signature is spelled another way that decodes to the same bytes, then the link is refused', async () => {
    const clock = { now: Date.now() };
    const { links, recorded } = buildLinks([front], clock);
    const [link] = (await links.linksFor([sessionId]))[sessionId]!;
    const valid = request(link!.url);
    const signature = valid.signature!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature.at(-1)!);
    // The last of 43 characters carries 4 bits of the MAC and 2 spare bits a decoder ignores.
    const spellings = [1, 2, 3].map((bits) => `${signature.slice(0, -1)}${alphabet[last ^ bits]!}`);
    const standardAlphabet = signature.replaceAll('-', '+').replaceAll('_', '/');

    for (const spelling of [...spellings, `${signature}=`, standardAlphabet === signature ? `${signature}/` : standardAlphabet]) {
      expect((await links.download({ ...valid, signature: spelling })).kind).toBe('bad_signature');
    }
    expect((await links.download(valid)).kind).toBe('served');
    expect(recorded.map((r) => r.outcome)).toEqual([...Array(5).fill('bad_signature'), 'served']);
  });

  test('when expires is written another way than the link wrote it, then the link is refused', async () => {
    const clock = { now: Date.now() };
    const { links } = buildLinks([front], clock);
    const [link] = (await links.linksFor([sessionId]))[sessionId]!;
    const valid = request(link!.url);
    const expires = valid.expires!;

    for (const spelling of [`0${expires}`, `00${expires}`, `+${expires}`, ` ${expires}`, `${expires}.0`, `${expires}\n`, '']) {
      expect((await links.download({ ...valid, expires: spelling })).kind).toBe('bad_signature');
    }
    expect((await links.download(valid)).kind).toBe('served');
  });

  test('when expires is parsed, then only digits without a leading zero that name an instant are a time', () => {
    expect(parseExpires('1795930839526')).toBe(1_795_930_839_526);
    expect(parseExpires('1')).toBe(1);
    expect(parseExpires('8640000000000000')).toBe(8_640_000_000_000_000);
    for (const refused of [
      undefined,
      '',
      '0',
      '01',
      '+1',
      '-1',
      '1e3',
      '1.0',
      ' 1',
      '1 ',
      '0x10',
      '٣',
      '8640000000000001',
      '99999999999999999',
    ]) {
      expect(parseExpires(refused)).toBeNull();
    }
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
