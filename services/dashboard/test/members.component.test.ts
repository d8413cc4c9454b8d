import { linkInMail, signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';
import type { DashboardPorts } from '../src/use-cases/ports';
import { changeRole } from '../src/use-cases/members';
import type { Viewer } from '../src/use-cases/sign-in';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'team');

const invited = (owner: Awaited<ReturnType<typeof signedInOwner>>, role: 'developer' | 'viewer' | 'owner') =>
  invitedMember(dashboard, owner, role);

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

  it('removes a member (their sign-in ends) but never the last owner; a member already is not invited again', async () => {
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

    // A member already is not invited again.
    const taken = await owner.browser.post(
      '/members/invite',
      { email: owner.owner.email, role: 'viewer' },
      await owner.browser.get('/members'),
    );
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('Esa persona ya es parte de esta cuenta');
  });
});

describe("a member's role", () => {
  const userIdOf = async (email: string) =>
    (await dashboard.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [email])).rows[0]!.id;

  it('is changed by an owner, applies at once, is audited, and never leaves the account without an owner', async () => {
    const owner = await signedInOwner();
    const developer = await invited(owner, 'developer');
    const developerId = await userIdOf(developer.email);
    const page = await owner.browser.get('/members');
    expect(page.html).toContain(`action="/members/${developerId}/role"`);

    const changed = await owner.browser.post(`/members/${developerId}/role`, { role: 'viewer' }, page);
    expect(changed.status).toBe(200);
    expect(changed.text).toContain(`${developer.email} ahora es Lector`);
    // The next request of theirs has the new role: no key form for a viewer.
    expect((await developer.member.get('/keys')).html).not.toContain('action="/keys"');
    const { rows } = await dashboard.pool.query<{ target: string }>(
      "SELECT target FROM audit_log WHERE account_id = $1 AND action = 'member.role_changed'",
      [owner.accountId],
    );
    expect(rows).toEqual([{ target: `${developerId}:developer->viewer` }]);

    expect((await owner.browser.post(`/members/${developerId}/role`, { role: 'jefe' }, page)).status).toBe(422);
    expect((await owner.browser.post(`/members/${owner.userId}/role`, { role: 'viewer' }, page)).status).toBe(409);
    expect((await developer.member.post(`/members/${owner.userId}/role`, { role: 'viewer' }, page)).status).toBe(403);
    expect((await owner.browser.post('/members/usr_01M8PEGES70ACRXAC6PQW0CV94/role', { role: 'viewer' }, page)).status).toBe(404);
  });

  it('when two owners demote each other at once, then one of them stays an owner', async () => {
    const owner = await signedInOwner();
    const second = await invited(owner, 'owner');
    const secondId = (await userIdOf(second.email)) as Viewer['userId'];
    // The use case itself, twice at once on two connections: over HTTP the two requests rarely overlap.
    const viewer = (userId: Viewer['userId']): Viewer => ({
      userId,
      accountId: owner.accountId,
      role: 'owner',
      signInHash: 'x',
      secondFactorPending: false,
      totpEnrolled: false,
      mustEnrolTotp: false,
    });
    const ports = { pool: dashboard.pool } as Pick<DashboardPorts, 'pool'> as DashboardPorts;
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([
        changeRole(ports, viewer(owner.userId as Viewer['userId']), secondId, 'developer', '10.0.0.1'),
        changeRole(ports, viewer(secondId), owner.userId, 'developer', '10.0.0.2'),
      ]);
      expect(results.map((result) => result.kind).sort()).toEqual(['changed', 'last_owner']);
      const { rows } = await dashboard.pool.query<{ user_id: string }>(
        "SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner'",
        [owner.accountId],
      );
      expect(rows).toHaveLength(1);
      // Both owners again for the next round.
      await dashboard.pool.query("UPDATE memberships SET role = 'owner' WHERE account_id = $1", [owner.accountId]);
    }
  });
});

describe('an invitation to an address that already has a user', () => {
  it('joins with that user when signed in as them, once; anyone else is told how, and cannot use it', async () => {
    const inviter = await signedInOwner();
    const invitee = await signedInOwner();
    const page = await inviter.browser.get('/members');
    const sent = await inviter.browser.post('/members/invite', { email: invitee.owner.email, role: 'developer' }, page);
    expect(sent.status).toBe(200);
    const link = linkInMail((await dashboard.smtp.mailTo(invitee.owner.email, 2)).raw, '/invitations/accept');
    const token = new URLSearchParams(link.split('?')[1]).get('token')!;

    // Not signed in: how to join, no form to create a second user for the address.
    const anonymous = await dashboard.browser().get(link);
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toContain('ya tiene una cuenta en el panel');
    expect(anonymous.html).not.toContain('name="password"');
    expect(anonymous.html).not.toContain('action="/invitations/join"');

    // Someone else signed in: sign out first; their own join with the token is the invalid-link page.
    const stranger = await signedInOwner();
    const asStranger = await stranger.browser.get(link);
    expect(asStranger.html).toContain('action="/sign-out"');
    expect((await stranger.browser.post('/invitations/join', { token }, asStranger)).status).toBe(410);

    // The invited person, signed in: one button; they join with the role, and this browser moves there.
    const offer = await invitee.browser.get(link);
    expect(offer.html).toContain('action="/invitations/join"');
    const joined = await invitee.browser.post('/invitations/join', { token }, offer);
    expect(joined.status).toBe(303);
    expect(joined.location).toBe('/home');
    expect((await invitee.browser.get('/home')).text).toContain(inviter.owner.organisation);
    expect((await invitee.browser.get('/members')).status).toBe(403); // a developer there
    const organisations = await invitee.browser.get('/organisations');
    expect(organisations.text).toContain(inviter.owner.organisation);
    expect(organisations.text).toContain(invitee.owner.organisation);
    const audit = await dashboard.pool.query('SELECT actor_id FROM audit_log WHERE account_id = $1 AND action = $2', [
      inviter.accountId,
      'member.joined',
    ]);
    expect(audit.rows).toEqual([{ actor_id: invitee.userId }]);

    // Used once; inviting a member again is refused.
    expect((await invitee.browser.post('/invitations/join', { token }, await invitee.browser.get('/home'))).status).toBe(410);
    expect((await invitee.browser.get(link)).status).toBe(410);
    const again = await inviter.browser.post('/members/invite', { email: invitee.owner.email, role: 'viewer' }, page);
    expect(again.status).toBe(409);
    expect(again.text).toContain('Esa persona ya es parte de esta cuenta');
  });
});
