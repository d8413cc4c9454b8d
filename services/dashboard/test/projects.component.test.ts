import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { draftOf, newProject } from './support/projects';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'projects');

describe('projects and their flows', () => {
  it('builds a draft checked by the publication schema, publishes it to test after a diff, and keeps who published what', async () => {
    const { browser, owner } = await signedInOwner();
    const projectId = await newProject(browser);
    const page = await browser.get(`/projects/${projectId}/json`);
    expect(page.status).toBe(200);
    const starter = draftOf(page.html);
    expect(JSON.parse(starter).steps[0].type).toBe('form');

    const invalid = await browser.post(`/projects/${projectId}/draft`, { config: '{"steps": []}' }, page);
    expect(invalid.status).toBe(422);
    expect(invalid.text).toContain('no se puede publicar así');
    expect(draftOf(invalid.html)).toBe('{"steps": []}'); // saved as typed
    const broken = await browser.post(`/projects/${projectId}/draft`, { config: '{"steps": [' }, invalid);
    expect(broken.status).toBe(422);
    expect(broken.text).toContain('(json)');

    const preview = await browser.post(`/projects/${projectId}/draft`, { config: starter, then: 'publish_test' }, broken);
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('Este modo no tiene versión publicada todavía');
    expect(preview.html).toContain('<ins>');
    const published = await browser.post(
      `/projects/${projectId}/publish`,
      { mode: 'test', source: 'draft', against: 'none' },
      preview,
    );
    expect(published.status).toBe(303);
    const after = await browser.get(published.location!);
    expect(after.text).toContain('Publicaste cfg_00000001 en Prueba');

    const history = await browser.get(`/projects/${projectId}/history`);
    expect(history.text).toContain('cfg_00000001');
    expect(history.text).toContain(owner.email);
  });

  it('shows a readable diff against the current version, refuses a stale confirmation, and moves a pointer back by a new publication', async () => {
    const { browser } = await signedInOwner();
    const projectId = await newProject(browser);
    const page = await browser.get(`/projects/${projectId}/json`);
    const first = draftOf(page.html);
    const firstPreview = await browser.post(`/projects/${projectId}/draft`, { config: first, then: 'publish_test' }, page);
    await browser.post(`/projects/${projectId}/publish`, { mode: 'test', source: 'draft', against: 'none' }, firstPreview);

    const second = first.replace('Nombre y apellido', 'Nombre completo');
    const preview = await browser.post(`/projects/${projectId}/draft`, { config: second, then: 'publish_test' }, page);
    expect(preview.text).toContain('Cambios respecto de cfg_00000001');
    expect(preview.html).toMatch(/<del>- .*Nombre y apellido/);
    expect(preview.html).toMatch(/<ins>\+ .*Nombre completo/);

    // Someone else publishes in between: the confirmation made against cfg_00000001 is stale.
    const other = await browser.post(`/projects/${projectId}/publish`, { mode: 'test', source: 'cfg_00000001' }, preview);
    const otherConfirmed = await browser.post(
      `/projects/${projectId}/publish`,
      { mode: 'test', source: 'cfg_00000001', against: 'cfg_00000001' },
      other,
    );
    expect(otherConfirmed.status).toBe(303);
    const stale = await browser.post(
      `/projects/${projectId}/publish`,
      { mode: 'test', source: 'draft', against: 'cfg_00000001' },
      preview,
    );
    expect(stale.status).toBe(409);
    expect(stale.text).toContain('Alguien publicó en este modo mientras revisabas');
    const confirmed = await browser.post(
      `/projects/${projectId}/publish`,
      { mode: 'test', source: 'draft', against: 'cfg_00000002' },
      stale,
    );
    expect(confirmed.status).toBe(303);

    const history = await browser.get(`/projects/${projectId}/history`);
    expect(history.text).toMatch(/cfg_00000003/);
    const diff = await browser.get(`/projects/${projectId}/diff?from=cfg_00000002&to=cfg_00000003`);
    expect(diff.status).toBe(200);
    expect(diff.html).toMatch(/<ins>\+ .*Nombre completo/);

    // Back to the first version in test: a new publication of it (cfg_00000004), never an edit in place.
    const restore = await browser.post(`/projects/${projectId}/publish`, { mode: 'test', source: 'cfg_00000001' }, history);
    expect(restore.html).toMatch(/<ins>\+ .*Nombre y apellido/);
    const restored = await browser.post(
      `/projects/${projectId}/publish`,
      { mode: 'test', source: 'cfg_00000001', against: 'cfg_00000003' },
      restore,
    );
    expect(restored.location).toContain('published=cfg_00000004');
    const project = (await dashboard.platform.call('listProjects', { id: await accountOfProject(projectId) })).data.find(
      (candidate) => candidate.id === projectId,
    )!;
    expect(project.test_version).toBe('cfg_00000004');
    expect(project.live_version).toBeNull();
  });

  it('publishes to live only once the account is active', async () => {
    const { browser, accountId } = await signedInOwner();
    const projectId = await newProject(browser);
    const page = await browser.get(`/projects/${projectId}/json`);
    const refused = await browser.post(
      `/projects/${projectId}/draft`,
      { config: draftOf(page.html), then: 'publish_live' },
      page,
    );
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('El modo real se habilita cuando aprobamos la cuenta');
    await dashboard.platform.call('approveAccount', { id: accountId });
    const preview = await browser.post(
      `/projects/${projectId}/draft`,
      { config: draftOf(page.html), then: 'publish_live' },
      refused,
    );
    const done = await browser.post(
      `/projects/${projectId}/publish`,
      { mode: 'live', source: 'draft', against: 'none' },
      preview,
    );
    expect(done.location).toContain('mode=live');
  });

  it("keeps another account's project out of reach, and a viewer's hands off the draft", async () => {
    const first = await signedInOwner();
    const projectId = await newProject(first.browser);
    const stranger = await signedInOwner();
    expect((await stranger.browser.get(`/projects/${projectId}`)).status).toBe(404);
    expect((await stranger.browser.get(`/projects/${projectId}/history`)).status).toBe(404);
    const page = await stranger.browser.get('/projects');
    expect((await stranger.browser.post(`/projects/${projectId}/draft`, { config: '{}' }, page)).status).toBe(404);
    expect(
      (await stranger.browser.post(`/projects/${projectId}/publish`, { mode: 'test', source: 'draft', against: 'none' }, page))
        .status,
    ).toBe(404);

    await dashboard.pool.query('UPDATE memberships SET role = $2 WHERE user_id = $1', [first.userId, 'viewer']);
    const asViewer = await first.browser.get(`/projects/${projectId}/json`);
    expect(asViewer.status).toBe(200);
    expect(asViewer.html).toContain('readonly');
    expect((await first.browser.post(`/projects/${projectId}/draft`, { config: '{}' }, asViewer)).status).toBe(403);
    expect((await first.browser.post(`/projects/${projectId}/publish`, { mode: 'test', source: 'draft' }, asViewer)).status).toBe(
      403,
    );
  });

  it('creates one project when its form is sent six times at once, and answers a 1 MB configuration with a page', async () => {
    const { browser, accountId } = await signedInOwner();
    const list = await browser.get('/projects');
    const nonce = /name="nonce" value="([^"]+)"/.exec(list.html)![1]!;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => browser.post('/projects', { name: 'Una vez', nonce }, list)),
    );
    expect(answers.filter((answer) => answer.status === 303)).toHaveLength(1);
    expect((await dashboard.platform.call('listProjects', { id: accountId })).data).toHaveLength(1);
    const projectId = answers
      .find((answer) => answer.status === 303)!
      .location!.split('/')
      .at(-1)!;
    const page = await browser.get(`/projects/${projectId}/json`);
    const huge = await browser.post(`/projects/${projectId}/draft`, { config: `{"x":"${'a'.repeat(1024 * 1024)}"}` }, page);
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('demasiado grande');
  });
});

async function accountOfProject(projectId: string): Promise<string> {
  const { rows } = await dashboard.pool.query<{ account_id: string }>(
    `SELECT account_id FROM audit_log WHERE action = 'project.created' AND target = $1`,
    [projectId],
  );
  return rows[0]!.account_id;
}
