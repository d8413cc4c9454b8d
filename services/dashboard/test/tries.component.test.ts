import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { draftOf, newProject, nonceOf } from './support/projects';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'tries');
const TRY_PATH = /^\/projects\/(prj_[0-9A-Z]{26})\/tries\/(vs_[0-9A-Z]{26})$/;
const linkTokenOf = (html: string) => /href="[^"]*\/l\/(lt_[A-Za-z0-9_-]+)"/.exec(html)?.[1];

type Owner = Awaited<ReturnType<typeof signedInOwner>>;

/** "Probar el borrador" pressed on the project's JSON view, with its draft as shown (or `config`). */
async function pressTry(owner: Owner, projectId: string, config?: string) {
  const page = await owner.browser.get(`/projects/${projectId}/json`);
  return owner.browser.post(
    `/projects/${projectId}/draft`,
    { config: config ?? draftOf(page.html), then: 'try', nonce: nonceOf(page.html) },
    page,
  );
}

/** The draft of a new project saved and tried from its JSON view; the answer and the project. */
async function triedDraft(owner: Owner, config?: string) {
  const projectId = await newProject(owner.browser);
  return { projectId, answer: await pressTry(owner, projectId, config) };
}

describe('"Try it" on the draft', () => {
  it('opens a test session on the draft without publishing it: a link and a QR, then its status and verdicts', async () => {
    const owner = await signedInOwner();
    // The account is still pending approval: it may try, as it may publish to test.
    const { projectId, answer } = await triedDraft(owner);
    expect(answer.status).toBe(303);
    const [, triedProject, sessionId] = TRY_PATH.exec(answer.location!)!;
    expect(triedProject).toBe(projectId);

    const page = await owner.browser.get(answer.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Prueba del borrador');
    expect(page.html).toContain('target="_blank"');
    expect(page.html).toMatch(/<div class="qr" role="img"[^>]*><svg/);
    expect(page.html).toContain('data-status="pending"');
    const token = linkTokenOf(page.html)!;
    expect(token).toBeDefined();

    // Nothing was published: no version, no pointer; the audit log says who tried what.
    expect((await owner.browser.get(`/projects/${projectId}/history`)).text).not.toContain('cfg_0');
    const listed = await dashboard.platform.call('listProjects', { id: owner.accountId });
    expect(listed.data.find((p) => p.id === projectId)).toMatchObject({ test_version: null, live_version: null });
    const audit = await dashboard.pool.query('SELECT actor_id FROM audit_log WHERE action = $1 AND target = $2', [
      'config.tried',
      `${projectId}/${sessionId}`,
    ]);
    expect(audit.rows).toEqual([{ actor_id: owner.userId }]);

    // The person opens the link (the flow-runner redeems it) and finishes: the page follows.
    const opened = await dashboard.platform.call('redeemLink', { token });
    expect(opened.try).toBe(true);
    const inProgress = await owner.browser.get(answer.location!);
    expect(inProgress.html).toContain('data-status="in_progress"');
    expect(linkTokenOf(inProgress.html)).toBeUndefined();
    expect(inProgress.text).toContain('El enlace ya se abrió o venció');
    await dashboard.platform.call(
      'resolveSession',
      { id: sessionId as `vs_${string}` },
      { outcome: 'rejected', reason_codes: ['document_expired'], steps: [{ id: 'datos', type: 'form', verdict: 'rejected' }] },
    );
    const decided = await owner.browser.get(answer.location!);
    expect(decided.html).toContain('data-status="rejected"');
    expect(decided.html).toContain('<code>document_expired</code>');
    expect(decided.text).toContain('rechazado');
  });

  it('refuses a draft with problems, showing them, and starts nothing', async () => {
    const owner = await signedInOwner();
    const { answer } = await triedDraft(owner, '{"steps": []}');
    expect(answer.status).toBe(422);
    expect(answer.text).toContain('no se puede publicar así');
    const tries = await dashboard.pool.query('SELECT 1 FROM audit_log WHERE account_id = $1 AND action = $2', [
      owner.accountId,
      'config.tried',
    ]);
    expect(tries.rowCount).toBe(0);
  });

  it('refuses a try of a suspended account with a page that says why', async () => {
    const owner = await signedInOwner();
    await dashboard.platform.call('suspendAccount', { id: owner.accountId });
    const { answer } = await triedDraft(owner);
    expect(answer.status).toBe(422);
    expect(answer.text).toContain('La cuenta está suspendida');
  });

  it('says so when the account made its 30 tries of the hour', async () => {
    const owner = await signedInOwner();
    const projectId = await newProject(owner.browser);
    for (let n = 0; n < 30; n++) expect((await pressTry(owner, projectId)).status).toBe(303);
    const refused = await pressTry(owner, projectId);
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Hiciste muchas pruebas en la última hora');
  });

  it('starts one try when the same form is sent six times at once', async () => {
    const owner = await signedInOwner();
    const projectId = await newProject(owner.browser);
    const page = await owner.browser.get(`/projects/${projectId}/json`);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        owner.browser.post(
          `/projects/${projectId}/draft`,
          { config: draftOf(page.html), then: 'try', nonce: nonceOf(page.html) },
          page,
        ),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([303, 409, 409, 409, 409, 409]);
    expect(answers.find((answer) => answer.status === 409)!.text).toContain('Ese botón ya se apretó');
    const tries = await dashboard.pool.query('SELECT 1 FROM audit_log WHERE account_id = $1 AND action = $2', [
      owner.accountId,
      'config.tried',
    ]);
    expect(tries.rowCount).toBe(1);
  });

  it("keeps another account's try, another project's and a made-up id out of reach; a developer starts one, a viewer sees it and cannot", async () => {
    const owner = await signedInOwner();
    const { projectId, answer } = await triedDraft(owner);
    const [, , sessionId] = TRY_PATH.exec(answer.location!)!;
    const stranger = await signedInOwner();
    const strangersProject = await newProject(stranger.browser);
    expect((await stranger.browser.get(answer.location!)).status).toBe(404);
    expect((await stranger.browser.get(`/projects/${strangersProject}/tries/${sessionId}`)).status).toBe(404);
    const otherProject = await newProject(owner.browser);
    expect((await owner.browser.get(`/projects/${otherProject}/tries/${sessionId}`)).status).toBe(404);
    expect((await owner.browser.get(`/projects/${projectId}/tries/vs_00000000000000000000000000`)).status).toBe(404);
    expect((await owner.browser.get(`/projects/${projectId}/tries/nonsense`)).status).toBe(404);

    await dashboard.pool.query('UPDATE memberships SET role = $2 WHERE user_id = $1', [owner.userId, 'developer']);
    expect((await pressTry(owner, projectId)).location).toMatch(TRY_PATH);

    await dashboard.pool.query('UPDATE memberships SET role = $2 WHERE user_id = $1', [owner.userId, 'viewer']);
    expect((await owner.browser.get(answer.location!)).status).toBe(200);
    const page = await owner.browser.get(`/projects/${projectId}/json`);
    expect(page.html).not.toContain('value="try"');
    const refused = await owner.browser.post(`/projects/${projectId}/draft`, { config: draftOf(page.html), then: 'try' }, page);
    expect(refused.status).toBe(403);
  });
});
