import { derivedArtefactId, newArtefactId } from '@idv/contracts';
import { evidenceRoute } from './evidence-route';

/**
 * Evidence downloads through the route in-process over the real PostgreSQL: which links open and which
 * are refused. The throttle is generous here (its own file tests it); each request names its own address.
 */
const route = evidenceRoute('evidence_download', { perSecond: 100, burst: 1000 });
let client = 0;
const nextAddress = () => `198.51.100.${(client++ % 250) + 1}`;
const download = (path: string) => route.download(path, nextAddress());

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The path with one query value replaced, the rest exactly as sent. */
function withQuery(path: string, name: 'expires' | 'signature', value: string): string {
  const [pathname, query] = path.split('?') as [string, string];
  const params = query.split('&').map((pair) => (pair.startsWith(`${name}=`) ? `${name}=${value}` : pair));
  return `${pathname}?${params.join('&')}`;
}

describe('evidence downloads', () => {
  test('when the link of a selfie kept by the face judge is used, then the image is served', async () => {
    const { path } = await route.captured('selfie', derivedArtefactId(newArtefactId(), 'selfie'));

    const answer = await download(path);

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('image/jpeg');
  });

  test('when the signature or the expiry is spelled another way that decodes to the same value, then it is refused as invalid and the link as sent still works', async () => {
    const { sessionId, path } = await route.captured('front');
    const query = new URLSearchParams(path.split('?')[1]);
    const signature = query.get('signature')!;
    const expires = query.get('expires')!;
    // 32 bytes in 43 base64url characters: the last one carries 4 bits of the MAC and 2 spare bits.
    const last = BASE64URL.indexOf(signature.at(-1)!);
    const spareBits = [1, 2, 3].map((bits) => `${signature.slice(0, -1)}${BASE64URL[last ^ bits]!}`);
    const altered = [
      ...spareBits.map((spelling) => withQuery(path, 'signature', spelling)),
      withQuery(path, 'signature', `${signature}=`),
      withQuery(path, 'signature', encodeURIComponent(`${signature} `)),
      withQuery(path, 'expires', `0${expires}`),
      withQuery(path, 'expires', `00${expires}`),
      withQuery(path, 'expires', encodeURIComponent(`+${expires}`)),
      withQuery(path, 'expires', `${expires}.0`),
      withQuery(path, 'expires', encodeURIComponent(` ${expires}`)),
    ];

    const answers = [];
    for (const link of altered) answers.push({ link, ...(await download(link)) });

    expect(answers.map((answer) => [answer.link, answer.status])).toEqual(altered.map((link) => [link, 403]));
    for (const answer of answers) {
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(answer.body.toString('utf8'))).toMatchObject({ code: 'evidence_link_invalid', status: 403 });
    }
    expect((await download(path)).status).toBe(200);
    const { rows } = await route.pool.query<{ outcome: string }>(
      'SELECT outcome FROM evidence_downloads WHERE session_id = $1 ORDER BY id',
      [sessionId],
    );
    expect(rows.map((row) => row.outcome)).toEqual([...Array(altered.length).fill('bad_signature'), 'served']);
  });
});
