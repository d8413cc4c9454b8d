import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'team');

const linkIn = (raw: string) => {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return /http:\/\/dashboard\.test(\/invitations\/accept\?token=[A-Za-z0-9_-]+)/.exec(text)![1]!;
};

async function invited(owner: Awaited<ReturnType<typeof signedInOwner>>, role: 'developer' | 'viewer' | 'owner') {
  const email = `member-${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const page = await owner.browser.get('/members');
  const sent = await owner.browser.post('/members/invite', { email, role }, page);
  expect(sent.status).toBe(200);
  expect(sent.text).toContain(`Invitamos a ${email}`);
  const link = linkIn((await dashboard.smtp.mailTo(email)).raw);
  const member = dashboard.browser();
  const form = await member.get(link);
  expect(form.status).toBe(200);
  expect(form.text).toContain(email);
  const token = new URLSearchParams(link.split('?')[1]).get('token')!;
  const weak = await member.post('/invitations/accept', { token, name: 'Miembro', password: 'corta' }, form);
  expect(weak.status).toBe(422);
  const joined = await member.post(
    '/invitations/accept',
    { token, name: 'Miembro', password: 'una frase de miembro larga' },
    weak,
  );
  expect(joined.location).toBe('/home');
  expect((await member.get(link)).status).toBe(410);
  return { member, email };
}

describe('the team', () => {
  it('invites by e-mail with a role; the invited person joins once, with that role enforced on the server', async () => {
    const owner = await signedInOwner();
    const developer = await invited(owner, 'developer');
    const viewer = await invited(owner, 'viewer');

    expect((await developer.member.get('/home')).text).toContain(owner.owner.organisation);
    expect((await developer.member.get('/members')).status).toBe(403);
    const devKeys = await developer.member.get('/keys');
    expect(devKeys.html).toContain('action="/keys"');
    const viewerKeys = await viewer.member.get('/keys');
    expect(viewerKeys.status).toBe(200);
    expect(viewerKeys.html).not.toContain('action="/keys"');
    expect(
      (await viewer.member.post('/keys', { name: 'x', mode: 'test', scopes: 'usage:read', nonce: 'n'.repeat(20) }, viewerKeys))
        .status,
    ).toBe(403);
    expect((await viewer.member.post('/members/invite', { email: 'x@example.com', role: 'owner' }, viewerKeys)).status).toBe(403);

    const team = await owner.browser.get('/members');
    expect(team.text).toContain(developer.email);
    expect(team.text).toContain('Desarrollador');
    expect(team.text).toContain('Lector');
  });

  it('removes a member (their sign-in ends) but never the last owner; an address with an account is not invited', async () => {
    const owner = await signedInOwner();
    const developer = await invited(owner, 'developer');
    const team = await owner.browser.get('/members');
    const developerId = new RegExp(`action="/members/(usr_[0-9A-Z]{26})/remove"`, 'g');
    const ids = [...team.html.matchAll(developerId)].map((match) => match[1]!);
    expect(ids).toHaveLength(2);
    const { rows } = await dashboard.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [developer.email]);
    const removed = await owner.browser.post(`/members/${rows[0]!.id}/remove`, {}, team);
    expect(removed.location).toBe('/members?removed=1');
    expect((await developer.member.get('/home')).location).toBe('/sign-in');

    const { rows: ownerRows } = await dashboard.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [
      owner.owner.email,
    ]);
    const last = await owner.browser.post(`/members/${ownerRows[0]!.id}/remove`, {}, await owner.browser.get('/members'));
    expect(last.status).toBe(409);
    expect(last.text).toContain('al menos un dueño');

    const other = await signedInOwner();
    const taken = await owner.browser.post(
      '/members/invite',
      { email: other.owner.email, role: 'viewer' },
      await owner.browser.get('/members'),
    );
    expect(taken.status).toBe(409);
  });
});
