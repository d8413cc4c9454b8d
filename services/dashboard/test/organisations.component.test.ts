import type { TestBrowser } from './support/browser';
import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { newProject } from './support/projects';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'orgs');
/** The sign-in cookie's name (`__Host-` prefixed where cookies are secure) and value. */
const signInCookieName = (browser: TestBrowser) => [...browser.cookies.keys()].find((name) => name.endsWith('idv_dash'))!;
const signInCookie = (browser: TestBrowser) => browser.cookies.get(signInCookieName(browser)) ?? '';

async function createOrganisation(browser: TestBrowser, name: string) {
  const page = await browser.get('/organisations');
  const nonce = /name="nonce" value="([^"]+)"/.exec(page.html)![1]!;
  return browser.post('/organisations', { organisation: name, nonce }, page);
}

describe('more than one organisation per person', () => {
  it('creates another organisation, works in it with a new sign-in, and switches back', async () => {
    const { browser, owner, userId, accountId: first } = await signedInOwner();
    const firstProject = await newProject(browser, 'Del primero');
    const before = signInCookie(browser);

    const created = await createOrganisation(browser, 'Segunda S.A.');
    expect(created.status).toBe(303);
    expect(created.location).toBe('/home');
    const after = signInCookie(browser);
    expect(after).not.toBe(before);
    const home = await browser.get('/home');
    expect(home.text).toContain('Segunda S.A.');
    const { rows } = await dashboard.pool.query<{ account_id: string; role: string }>(
      'SELECT account_id, role FROM memberships WHERE user_id = $1 ORDER BY created_at',
      [userId],
    );
    expect(rows.map((row) => row.role)).toEqual(['owner', 'owner']);
    const second = rows[1]!.account_id;
    expect((await dashboard.platform.call('getAccount', { id: second })).status).toBe('pending');

    // The other organisation's project is out of reach from this one.
    expect((await browser.get(`/projects/${firstProject}`)).status).toBe(404);
    const list = await browser.get('/organisations');
    expect(list.text).toContain(`${owner.organisation}`);
    expect(list.text).toContain('Segunda S.A. · Dueño · pendiente de aprobación (en la que estás trabajando)');

    // The old sign-in ended with the switch: its cookie no longer signs anyone in.
    const stale = dashboard.browser();
    stale.cookies.set(signInCookieName(browser), before);
    expect((await stale.get('/home')).status).toBe(303);

    const back = await browser.post('/organisations/switch', { account_id: first }, list);
    expect(back.status).toBe(303);
    expect(signInCookie(browser)).not.toBe(after);
    expect((await browser.get(`/projects/${firstProject}`)).status).toBe(200);
    const { rows: audit } = await dashboard.pool.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE actor_id = $1 AND action IN ('account.created', 'user.switched_account') ORDER BY id`,
      [userId],
    );
    expect(audit.map((row) => row.action)).toEqual(['account.created', 'user.switched_account']);
  });

  it("answers a switch to someone else's account as not found, and a bad name with the form again", async () => {
    const { browser } = await signedInOwner();
    const stranger = await signedInOwner();
    const page = await browser.get('/organisations');
    expect((await browser.post('/organisations/switch', { account_id: stranger.accountId }, page)).status).toBe(404);
    expect((await browser.post('/organisations/switch', { account_id: 'nada' }, page)).status).toBe(404);
    for (const organisation of ['', 'x'.repeat(201), 'con\u0000nulo']) {
      const nonce = /name="nonce" value="([^"]+)"/.exec(page.html)![1]!;
      const answer = await browser.post('/organisations', { organisation, nonce }, page);
      expect(answer.status).toBe(422);
      expect(answer.text).toContain('Nombre de la organización');
    }
  });

  it('creates one organisation when its form is sent six times at once', async () => {
    const { browser, userId } = await signedInOwner();
    const page = await browser.get('/organisations');
    const nonce = /name="nonce" value="([^"]+)"/.exec(page.html)![1]!;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => browser.post('/organisations', { organisation: 'Una sola', nonce }, page)),
    );
    expect(answers.filter((answer) => answer.status === 303)).toHaveLength(1);
    const { rows } = await dashboard.pool.query('SELECT 1 FROM memberships WHERE user_id = $1', [userId]);
    expect(rows).toHaveLength(2);
  });
});
