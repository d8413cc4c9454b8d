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

describe('evidence downloads', () => {
  test('when the link of a selfie kept by the face judge is used, then the image is served', async () => {
    const { path } = await route.captured('selfie', derivedArtefactId(newArtefactId(), 'selfie'));

    const answer = await download(path);

    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('image/jpeg');
  });
});
