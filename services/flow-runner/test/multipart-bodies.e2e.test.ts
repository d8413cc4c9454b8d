import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildTenant, testEnv } from '@idv/testkit';
import { buildConfig, createSession, eventually } from './fixtures';
import { Person, inputValue, statusOf } from './person';
import { multipartBody, rawRequest } from './raw-http';

/**
 * Multipart bodies cut anywhere, sent by hand to the stack's flow-runner: each is answered with a page
 * (400 for the person whose upload was cut, the flow's own refusal for anyone else), the process stays
 * up, and the person's step is where it was, no attempt used. Nothing of a stranger's body is read.
 */
const flowUrl = () => testEnv().flowUrl;
const SAMPLES = path.join(__dirname, '..', 'assets', 'samples');
const BOUNDARY = 'X';

async function atDocumentStep() {
  const tenant = await buildTenant({
    config: buildConfig([{ id: 'doc', type: 'document_ar', documents: ['passport'] }]),
    modes: ['test'],
  });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  const page = await person.submit({ action: 'accept' });
  const csrf = inputValue(page.text, '_csrf')!;
  const cookie = [...person.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return { session, person, csrf, cookie };
}

const post = (sessionId: string, body: Buffer | string, cookie?: string) =>
  rawRequest(
    flowUrl(),
    [
      `POST /s/${sessionId} HTTP/1.1`,
      `Host: 127.0.0.1`,
      'Accept-Language: es-AR',
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...(cookie ? [`Cookie: ${cookie}`] : []),
    ].join('\n'),
    { body },
  );

const field = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (name: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;

/** The body shapes a cut connection or a hostile client leaves, each after a valid CSRF token. */
const CUT_BODIES: Record<string, (csrf: string) => string> = {
  'cut inside a file part': (csrf) => `${field('_csrf', csrf)}${field('step', 'doc')}${filePart('capture')}abc`,
  'cut inside a field': (csrf) => `${field('_csrf', csrf)}--${BOUNDARY}\r\nContent-Disposition: form-data; name="step"\r\n\r\ndo`,
  "cut inside a part's headers": (csrf) => `${field('_csrf', csrf)}--${BOUNDARY}\r\nContent-Disposition: form-da`,
  'a last part with no closing boundary': (csrf) => `${field('_csrf', csrf)}${field('step', 'doc')}${filePart('frame')}abc\r\n`,
};

async function expectAlive() {
  const health = await fetch(`${flowUrl()}/healthz`);
  expect(health.status).toBe(200);
}

describe('multipart bodies cut anywhere', () => {
  test.each(Object.entries(CUT_BODIES))(
    'when the person’s body is %s, then the answer is 400 with a page saying to try again, and the step is unchanged',
    async (_shape, body) => {
      const { session, person, csrf, cookie } = await atDocumentStep();

      const answer = await post(session.id, body(csrf), cookie);

      expect(answer.status).toBe(400);
      expect(answer.text).toContain('no llegó completa');
      expect(answer.text).toContain(`href="/s/${session.id}"`);
      await expectAlive();
      const page = await person.get(`/s/${session.id}`);
      expect(page.status).toBe(200);
      expect(inputValue(page.text, 'side')).toBe('front');
      expect(page.text).not.toContain('intentos');
    },
  );

  test.each(Object.entries(CUT_BODIES))(
    'when a browser without the flow’s cookie sends a body %s, then it is refused from the headers alone and the process stays up',
    async (_shape, body) => {
      const { session, csrf } = await atDocumentStep();

      const stranger = await post(session.id, body(csrf));
      const unknown = await post('vs_00000000000000000000000000', body(csrf));

      expect(stranger.status).toBe(403);
      expect(stranger.text).toContain('data-page="used"');
      expect(unknown.status).toBe(404);
      await expectAlive();
    },
  );

  test('when the body reported in the issue (a file part cut, no cookie) is sent five times, then each gets 404 and the process stays up', async () => {
    const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="capture"; filename="a.jpg"\r\n\r\nabc`;
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await post('vs_00000000000000000000000000', body)).status).toBe(404);
    }
    await expectAlive();
  });

  test('when a file part comes before the CSRF token, then the page-out-of-date answer comes before any of the file is kept', async () => {
    const { session, cookie, csrf } = await atDocumentStep();
    const photo = readFileSync(path.join(SAMPLES, 'passport-ok-front.jpg'));

    const fileFirst = await post(
      session.id,
      multipartBody(BOUNDARY, [
        { name: 'capture', value: photo, filename: 'a.jpg' },
        { name: '_csrf', value: csrf },
      ]),
      cookie,
    );
    const wrongToken = await post(
      session.id,
      multipartBody(BOUNDARY, [
        { name: '_csrf', value: 'not-the-token' },
        { name: 'capture', value: photo, filename: 'a.jpg' },
      ]),
      cookie,
    );

    for (const answer of [fileFirst, wrongToken]) {
      expect(answer.status).toBe(403);
      expect(answer.text).toContain('data-page="csrf"');
    }
    await expectAlive();
  });

  test('when the connection drops inside a file part, then the process stays up and the person can still upload', async () => {
    const { session, person, csrf, cookie } = await atDocumentStep();
    const head = [
      `POST /s/${session.id} HTTP/1.1`,
      'Host: 127.0.0.1',
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length: 100000',
      `Cookie: ${cookie}`,
    ].join('\n');
    await rawRequest(flowUrl(), head, {
      writeBody: (socket) => {
        socket.write(`${field('_csrf', csrf)}${filePart('capture')}abc`);
        setTimeout(() => socket.destroy(), 200);
      },
      timeoutMs: 2000,
    }).catch(() => undefined);

    await expectAlive();
    const photo = readFileSync(path.join(SAMPLES, 'passport-ok-front.jpg'));
    const hops: Awaited<ReturnType<Person['get']>>[] = [];
    await person.submitFiles({ side: 'front', action: 'upload' }, [{ field: 'capture', bytes: photo, filename: 'foto.jpg' }], {
      hops,
    });
    expect(hops[0]!.status).toBe(303);
    const next = await eventually(async () => {
      const page = await person.get(`/s/${session.id}`);
      return page.text.includes('http-equiv="refresh"') ? undefined : page;
    }, 30_000);
    expect(statusOf(next)).toBeNull();
    expect(inputValue(next.text, 'side')).toBe('front_angle');
  });
});
