import { api, testEnv, waitFor } from '@idv/testkit';
import { approvedAccount } from './support/accounts';
import { TestBrowser, type Page } from './support/browser';
import { startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';

/**
 * A session's captured images on its page, the person's access trail with the API's evidence downloads,
 * and the texts the person saw in its timeline. The session is real: a test-mode flow in the stack's
 * flow-runner, its DNI front sent as the "dni-wrong-type" sample (a passport page), read once and refused,
 * so there is one stored capture (the front) and a message the person was shown.
 */
let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const DOCUMENT_STEP = { id: 'doc', type: 'document_ar', documents: ['dni'], maxAttempts: 1 };
const OPTED_IN = { steps: [DOCUMENT_STEP], options: { evidenceLinks: true } };
const NOT_OPTED_IN = { steps: [DOCUMENT_STEP], options: { evidenceLinks: false } };
/** Where the API's evidence download comes from (the test stands behind the flow-runner's trusted proxy). */
const INTEGRATOR_ADDRESS = '203.0.113.45';
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);

type SessionRef = { id: `vs_${string}`; url: string };

/** An approved account with a test-mode flow (`config`) and a test key; sessions created over the public API. */
async function testAccount(config: object) {
  const { owner, project, keys } = await approvedAccount(dashboard, 'images', { config, keys: { test: 'backend' } });
  const create = async (): Promise<SessionRef> => {
    const answer = await api('POST', '/v1/verification-sessions', { key: keys.test!, body: { project_id: project.id } });
    expect(answer.status).toBe(201);
    return answer.body as SessionRef;
  };
  return { owner, key: keys.test!, create };
}

/** The flow's form on a page: where it posts, its CSRF token and the step it was drawn for. */
function flowForm(page: Page) {
  const action = /<form method="post" action="([^"]+)"/.exec(page.html)?.[1];
  const step = /name="step" value="([^"]+)"/.exec(page.html)?.[1];
  if (!action || !step) throw new Error(`no flow form on this page (${page.status}):\n${page.text.slice(0, 600)}`);
  return { action, step, csrf: page.csrfToken() };
}

/** The person, in a browser of their own at the flow-runner: consent, then the front as the wrong-type sample. */
async function sendWrongDocument(session: SessionRef) {
  const person = new TestBrowser(testEnv().flowUrl);
  const follow = async (answer: Page): Promise<Page> => (answer.location ? follow(await person.get(answer.location)) : answer);
  const consent = await follow(await person.get(new URL(session.url).pathname));
  const accepted = flowForm(consent);
  const front = await follow(await person.post(accepted.action, { _csrf: accepted.csrf, step: accepted.step, action: 'accept' }));
  const upload = flowForm(front);
  expect(upload.step).toBe('doc');
  const sent = await person.post(upload.action, {
    _csrf: upload.csrf,
    step: upload.step,
    action: 'sample',
    side: 'front',
    sample: 'dni-wrong-type',
  });
  expect(sent.status).toBe(303);
}

/** An image as a browser gets it from the dashboard: status, headers and bytes (not text). */
async function image(browser: TestBrowser, path: string) {
  const response = await fetch(`${browser.baseUrl}${path}`, {
    redirect: 'manual',
    headers: {
      'x-forwarded-for': browser.address,
      cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
    },
  });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

const auditOf = async (accountId: string) =>
  (
    await dashboard.pool.query<{ action: string; target: string; actor_id: string }>(
      'SELECT action, target, actor_id FROM audit_log WHERE account_id = $1 AND action LIKE $2 ORDER BY id',
      [accountId, 'session.image%'],
    )
  ).rows;

/** The account whose session went through the flow, decided: one capture (the front) kept. */
let account: Awaited<ReturnType<typeof testAccount>>;
let session: SessionRef;

beforeAll(async () => {
  account = await testAccount(OPTED_IN);
  session = await account.create();
  await sendWrongDocument(session);
  await waitFor(
    async () => (await api('GET', `/v1/verification-sessions/${session.id}`, { key: account.key })).body.status === 'rejected',
    30_000,
    100,
    'the front read and the session rejected',
  );
}, 60_000);

describe("a session's captured images", () => {
  it('shows an owner the captured images after an audited show, each opened image its own entry, never cached', async () => {
    const { owner } = account;
    const page = await owner.browser.get(`/sessions/${session.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Imágenes capturadas');
    expect(page.html).toContain(`action="/sessions/${session.id}/images"`);
    expect(page.html).not.toContain(`/sessions/${session.id}/images/`);
    expect(await auditOf(owner.accountId)).toEqual([]);

    const shown = await owner.browser.post(`/sessions/${session.id}/images`, {}, page);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    const images = [...shown.html.matchAll(/<img src="([^"]+)" alt="([^"]+)"/g)].map((match) => [match[1], match[2]]);
    expect(images).toEqual([
      [`/sessions/${session.id}/images/front`, `Frente del documento, capturada en la sesión ${session.id}`],
    ]);
    // Shown before the page was made; no image opened yet.
    expect(await auditOf(owner.accountId)).toEqual([
      { action: 'session.images_shown', target: session.id, actor_id: owner.userId },
    ]);

    const first = await image(owner.browser, `/sessions/${session.id}/images/front`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/jpeg');
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.bytes.subarray(0, 3).equals(JPEG)).toBe(true);
    const again = await image(owner.browser, `/sessions/${session.id}/images/front`);
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect((await auditOf(owner.accountId)).slice(1)).toEqual([
      { action: 'session.image_opened', target: `${session.id}/front`, actor_id: owner.userId },
      { action: 'session.image_opened', target: `${session.id}/front`, actor_id: owner.userId },
    ]);
    // The page's policy lets it show images of its own origin only.
    expect(shown.headers.get('content-security-policy')).toContain("img-src 'self'");
  });

  it('never shows a viewer the images (no button, 403 on the show and on the image); a developer sees them, audited', async () => {
    const { owner } = account;
    const { member: viewer } = await invitedMember(dashboard, owner, 'viewer');
    const page = await viewer.get(`/sessions/${session.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Tu rol no puede ver las imágenes');
    expect(page.html).not.toContain(`/sessions/${session.id}/images`);
    expect((await viewer.post(`/sessions/${session.id}/images`, {}, page)).status).toBe(403);
    const refused = await image(viewer, `/sessions/${session.id}/images/front`);
    expect(refused.status).toBe(403);
    expect(refused.bytes.subarray(0, 3).equals(JPEG)).toBe(false);

    const { member: developer } = await invitedMember(dashboard, owner, 'developer');
    const devPage = await developer.get(`/sessions/${session.id}`);
    expect((await developer.post(`/sessions/${session.id}/images`, {}, devPage)).status).toBe(200);
    expect((await image(developer, `/sessions/${session.id}/images/front`)).status).toBe(200);
    const { rows } = await dashboard.pool.query<{ action: string; who: string }>(
      `SELECT a.action, u.name AS who FROM audit_log a JOIN users u ON u.id = a.actor_id
        WHERE a.account_id = $1 AND a.action LIKE 'session.image%' AND u.email <> $2 ORDER BY a.id`,
      [owner.accountId, owner.owner.email],
    );
    // Only the developer's: the viewer's refusals left nothing.
    expect(rows.map((row) => row.action)).toEqual(['session.images_shown', 'session.image_opened']);
  });

  it("answers 404 for another account's session, an artifact that is not captured or not one, and a session that did not opt in; never a 500", async () => {
    const other = await testAccount(NOT_OPTED_IN);
    const theirs = await other.create();
    const own = await other.owner.browser.get(`/sessions/${theirs.id}`);
    expect(own.status).toBe(200);
    // Not opted in: no images section, no show, no image.
    expect(own.text).not.toContain('Imágenes capturadas');
    expect((await other.owner.browser.post(`/sessions/${theirs.id}/images`, {}, own)).status).toBe(404);
    expect((await image(other.owner.browser, `/sessions/${theirs.id}/images/front`)).status).toBe(404);
    // Another account's session: as if it did not exist.
    expect((await other.owner.browser.post(`/sessions/${session.id}/images`, {}, own)).status).toBe(404);
    expect((await image(other.owner.browser, `/sessions/${session.id}/images/front`)).status).toBe(404);

    const { owner } = account;
    for (const path of ['back', 'selfie', 'face_frames', 'passport', '..%2Fback', 'front.jpg']) {
      const answer = await image(owner.browser, `/sessions/${session.id}/images/${path}`);
      expect([path, answer.status]).toEqual([path, 404]);
    }
    expect((await image(owner.browser, '/sessions/vs_nope/images/front')).status).toBe(404);
    // A session of the account whose link was never opened: nothing captured.
    const unopened = await account.create();
    const page = await owner.browser.get(`/sessions/${unopened.id}`);
    const none = await owner.browser.post(`/sessions/${unopened.id}/images`, {}, page);
    expect(none.status).toBe(200);
    expect(none.text).toContain('Esta sesión no tiene imágenes guardadas');
    expect((await image(owner.browser, `/sessions/${unopened.id}/images/front`)).status).toBe(404);
    // The show needs the page's CSRF token.
    expect((await owner.browser.post(`/sessions/${session.id}/images`, {})).status).toBe(403);
  });

  it("lists the API's evidence downloads in the access trail with their time and address, merged with the members' entries, in the page and the CSV", async () => {
    const { owner, key } = account;
    const answered = await api('GET', `/v1/verification-sessions/${session.id}`, { key });
    const links = answered.body.evidence_links as { artifact: string; url: string }[];
    expect(links.map((link) => link.artifact)).toEqual(['front']);
    const downloaded = await fetch(links[0]!.url, { headers: { 'x-forwarded-for': INTEGRATOR_ADDRESS } });
    expect(downloaded.status).toBe(200);
    await downloaded.arrayBuffer();
    const tampered = links[0]!.url.replace(/signature=(.)/, (_all, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
    const refused = await fetch(tampered, { headers: { 'x-forwarded-for': INTEGRATOR_ADDRESS } });
    expect(refused.status).toBe(403);
    await refused.arrayBuffer();
    const page = await owner.browser.get(`/sessions/${session.id}`);
    expect((await owner.browser.post(`/sessions/${session.id}/images`, {}, page)).status).toBe(200);
    expect((await image(owner.browser, `/sessions/${session.id}/images/front`)).status).toBe(200);

    const trail = await owner.browser.get(`/sessions/${session.id}/access`);
    expect(trail.status).toBe(200);
    const rows = [
      ...trail.html.matchAll(
        /<tr><td><time datetime="([^"]+)">[^<]*<\/time><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g,
      ),
    ].map((match) => ({ at: match[1]!, who: match[2]!, what: match[3]!, from: match[4]! }));
    // Newest first, whatever the source: the image opened, the show, then the API's uses of the link before them.
    const member = `${owner.owner.name} (${owner.owner.email})`;
    const link = 'Un enlace de evidencia (API)';
    expect(rows.slice(0, 4).map(({ who, what, from }) => ({ who, what, from }))).toEqual([
      { who: member, what: 'Abrió una imagen de una sesión: Frente del documento', from: owner.browser.address },
      { who: member, what: 'Mostró las imágenes de una sesión', from: owner.browser.address },
      {
        who: link,
        what: 'Usó un enlace de evidencia con la firma alterada (no se entregó): Frente del documento',
        from: INTEGRATOR_ADDRESS,
      },
      { who: link, what: 'Descargó con un enlace de evidencia: Frente del documento', from: INTEGRATOR_ADDRESS },
    ]);
    const times = rows.map((row) => Date.parse(row.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const download = rows[3]!;
    expect(trail.html).not.toContain('signature');

    const csv = await owner.browser.get(`/sessions/${session.id}/access.csv`);
    expect(csv.status).toBe(200);
    const lines = csv.html.split('\r\n');
    expect(lines[0]).toBe('at,actor_kind,actor_name,actor_email,action,target,address');
    expect(lines).toContainEqual(
      `${download.at},evidence_link,,,session.evidence_downloaded,${session.id}/front,${INTEGRATOR_ADDRESS}`,
    );
    expect(lines).toContainEqual(
      `${rows[2]!.at},evidence_link,,,session.evidence_link_invalid,${session.id}/front,${INTEGRATOR_ADDRESS}`,
    );
    expect(lines.some((line) => line.includes(`session.image_opened,${session.id}/front`))).toBe(true);
  });

  it("shows in the timeline the text the person saw, in the reader's language, not its key", async () => {
    const { owner } = account;
    const spanish = await owner.browser.get(`/sessions/${session.id}`);
    expect(spanish.text).toContain('El documento de las fotos no es del tipo que se pedía.');
    expect(spanish.html).not.toContain('<code>rejection.reasons.document_type_mismatch</code>');
    const english = await owner.browser.get(`/sessions/${session.id}`, { 'accept-language': 'en' });
    expect(english.text).toContain('The document in the photos is not of the type that was asked for.');
  });
});
