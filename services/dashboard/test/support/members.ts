import { linkInMail, type Dashboard, type signedInOwner } from './harness';

/** A person invited by `owner` with `role`, who joined through the e-mailed link, signed in in a browser of their own. */
export async function invitedMember(
  dashboard: Dashboard,
  owner: Awaited<ReturnType<typeof signedInOwner>>,
  role: 'developer' | 'viewer' | 'owner',
) {
  const email = `member-${role}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const page = await owner.browser.get('/members');
  const sent = await owner.browser.post('/members/invite', { email, role }, page);
  expect(sent.status).toBe(200);
  expect(sent.text).toContain(`Invitamos a ${email}`);
  const link = linkInMail((await dashboard.smtp.mailTo(email)).raw, '/invitations/accept');
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
