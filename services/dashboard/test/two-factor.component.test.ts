import type { TestBrowser } from './support/browser';
import { newOwner, startDashboard, type Dashboard } from './support/harness';
import { codeAt, secretOn } from './support/totp';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

async function signUpAndIn() {
  const owner = newOwner('twofa');
  const browser = dashboard.browser();
  await browser.post('/sign-up', owner, await browser.get('/sign-up'));
  const answer = await browser.post('/sign-in', { email: owner.email, password: owner.password }, await browser.get('/sign-in'));
  return { browser, owner, answer };
}

async function enrol(browser: TestBrowser) {
  const setup = await browser.get('/security/setup');
  expect(setup.html).toContain('<svg');
  const secret = secretOn(setup);
  const enrolledAt = Date.now();
  const done = await browser.post('/security/setup', { code: codeAt(secret, 0, enrolledAt) }, setup);
  expect(done.status).toBe(200);
  const codes = [...done.html.matchAll(/<code>([a-z0-9]{5}-[a-z0-9]{5})<\/code>/g)].map((match) => match[1]!);
  expect(codes).toHaveLength(10);
  return { secret, codes, enrolledAt };
}

describe('two-step verification for any user', () => {
  it('is enrolled by a QR; then the password opens only the code page, a code works once, a recovery code once', async () => {
    const { browser, owner } = await signUpAndIn();
    expect((await browser.get('/security')).text).toContain('no está activada');
    const { secret, codes, enrolledAt } = await enrol(browser);
    expect((await browser.get('/security')).text).toContain('está activada');

    const again = dashboard.browser();
    const password = await again.post('/sign-in', { email: owner.email, password: owner.password }, await again.get('/sign-in'));
    expect(password.location).toBe('/two-factor');
    expect((await again.get('/home')).location).toBe('/two-factor');
    expect((await again.get('/keys')).location).toBe('/two-factor');
    const reused = await again.post('/two-factor', { code: codeAt(secret, 0, enrolledAt) }, await again.get('/two-factor'));
    expect(reused.status).toBe(401); // the enrolment used this step's code
    const before = again.cookies.get('__Host-idv_dash');
    const next = await again.post('/two-factor', { code: codeAt(secret, 1, enrolledAt) }, reused);
    expect(next.location).toBe('/home');
    expect(again.cookies.get('__Host-idv_dash')).not.toBe(before);
    expect((await again.get('/home')).status).toBe(200);

    const third = dashboard.browser();
    await third.post('/sign-in', { email: owner.email, password: owner.password }, await third.get('/sign-in'));
    expect((await third.post('/two-factor', { code: codes[3]! }, await third.get('/two-factor'))).location).toBe('/home');
    const fourth = dashboard.browser();
    await fourth.post('/sign-in', { email: owner.email, password: owner.password }, await fourth.get('/sign-in'));
    expect((await fourth.post('/two-factor', { code: codes[3]! }, await fourth.get('/two-factor'))).status).toBe(401);
  });

  it('never lets the e-mailed sign-in link stand for the code', async () => {
    const { browser, owner } = await signUpAndIn();
    await enrol(browser);
    const asker = dashboard.browser();
    await asker.post('/forgot', { email: owner.email }, await asker.get('/forgot'));
    const raw = (await dashboard.smtp.mailTo(owner.email, 2)).raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const link = /http:\/\/dashboard\.test(\/sign-in-link\?token=[A-Za-z0-9_-]+)/.exec(raw)![1]!;
    const page = await asker.get(link);
    const signedIn = await asker.post('/sign-in-link', { token: new URLSearchParams(link.split('?')[1]).get('token')! }, page);
    expect(signedIn.location).toBe('/two-factor');
    expect((await asker.get('/home')).location).toBe('/two-factor');
  });

  it("an owner requires it of every member: a member without it can only enrol (or sign out); others can't change the setting", async () => {
    const { browser: owner } = await signUpAndIn();
    const invite = `dev-${Math.random().toString(36).slice(2, 8)}@example.com`;
    await owner.post('/members/invite', { email: invite, role: 'developer' }, await owner.get('/members'));
    const raw = (await dashboard.smtp.mailTo(invite)).raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const link = /http:\/\/dashboard\.test(\/invitations\/accept\?token=[A-Za-z0-9_-]+)/.exec(raw)![1]!;
    const developer = dashboard.browser();
    const form = await developer.get(link);
    await developer.post(
      '/invitations/accept',
      { token: new URLSearchParams(link.split('?')[1]).get('token')!, name: 'Dev', password: 'una frase de desarrollo' },
      form,
    );
    expect((await developer.get('/keys')).status).toBe(200);

    const security = await owner.get('/security');
    expect((await owner.post('/security/require', { required: 'on' }, security)).location).toBe('/security?saved=1');
    expect((await developer.get('/keys')).location).toBe('/security/setup');
    const setup = await developer.get('/security/setup');
    expect(setup.text).toContain('pide verificación en dos pasos a todo el equipo');
    expect((await developer.post('/security/require', { required: 'off' }, setup)).location).toBe('/security/setup');
    await developer.post('/security/setup', { code: codeAt(secretOn(setup)) }, setup);
    expect((await developer.get('/keys')).status).toBe(200);
    expect((await developer.post('/security/require', { required: 'off' }, await developer.get('/security'))).status).toBe(403);
    // The owner, who has no TOTP either, is asked to enrol too.
    expect((await owner.get('/home')).location).toBe('/security/setup');
  });
});
