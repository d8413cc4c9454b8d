import { api } from '@idv/testkit';
import type { TestBrowser } from './support/browser';
import { newOwner, startDashboard, type Dashboard } from './support/harness';
import { enrolledOperator as enrolled, operatorWithPassword as withPassword } from './support/operators';
import { codeAt, secretOn } from './support/totp';

let dashboard: Dashboard;
const operatorWithPassword = () => withPassword(dashboard);
const enrolledOperator = () => enrolled(dashboard);

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

async function pendingAccount() {
  const owner = newOwner('pending');
  const browser = dashboard.browser();
  await browser.post('/sign-up', owner, await browser.get('/sign-up'));
  const { rows } = await dashboard.pool.query<{ account_id: string }>(
    'SELECT m.account_id FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = $1',
    [owner.email],
  );
  return { owner, accountId: rows[0]!.account_id };
}

describe('operators: password, then TOTP', () => {
  it('enrols TOTP at the first sign-in by a QR, gives ten recovery codes once, and only then opens the console', async () => {
    const { browser, answer } = await operatorWithPassword();
    expect(answer.status).toBe(303);
    expect((await browser.get('/operator')).location).toBe('/operator/enroll');
    const enrol = await browser.get('/operator/enroll');
    expect(enrol.html).toContain('<svg');
    const secret = secretOn(enrol);
    const wrong = await browser.post('/operator/enroll', { code: '000000' === codeAt(secret) ? '111111' : '000000' }, enrol);
    expect(wrong.location).toBe('/operator/enroll?wrong=1');
    const before = browser.cookies.get('__Host-idv_op');
    const retry = await browser.get('/operator/enroll');
    const newSecret = /class="secret-text">([A-Z2-7]+)</.exec(retry.html)![1]!;
    const done = await browser.post('/operator/enroll', { code: codeAt(newSecret) }, retry);
    expect(done.status).toBe(200);
    expect(done.html.match(/<code>[a-z0-9]{5}-[a-z0-9]{5}<\/code>/g)).toHaveLength(10);
    expect(browser.cookies.get('__Host-idv_op')).not.toBe(before); // a new sign-in with the privilege
    const console = await browser.get('/operator');
    expect(console.status).toBe(200);
    expect(console.text).toContain('Consola de operación');
  });

  it('asks for the code at every sign-in; a code works once; a recovery code works once', async () => {
    const { credentials, secret, codes, enrolledAt } = await enrolledOperator();
    const signIn = async () => {
      const browser = dashboard.browser();
      const answer = await browser.post(
        '/operator/sign-in',
        { email: credentials.email, password: credentials.password },
        await browser.get('/operator/sign-in'),
      );
      expect(answer.location).toBe('/operator/verify');
      expect((await browser.get('/operator/accounts/acc_01HZZZZZZZZZZZZZZZZZZZZZZZ')).location).toBe('/operator/verify');
      return browser;
    };
    const first = await signIn();
    // The enrolment used this step's code: the next step's is accepted (one step of drift), this one never again.
    const reused = await first.post(
      '/operator/verify',
      { code: codeAt(secret, 0, enrolledAt) },
      await first.get('/operator/verify'),
    );
    expect(reused.status).toBe(401);
    expect(reused.text).toContain('ya se usó');
    const next = await first.post(
      '/operator/verify',
      { code: codeAt(secret, 1, enrolledAt) },
      await first.get('/operator/verify'),
    );
    expect(next.location).toBe('/operator');

    const second = await signIn();
    const recovered = await second.post(
      '/operator/verify',
      { code: codes[0]!.toUpperCase() },
      await second.get('/operator/verify'),
    );
    expect(recovered.location).toBe('/operator');
    const third = await signIn();
    const again = await third.post('/operator/verify', { code: codes[0]! }, await third.get('/operator/verify'));
    expect(again.status).toBe(401);
  });

  it("never lets an integrator's sign-in into the console", async () => {
    const { owner } = await pendingAccount();
    const browser = dashboard.browser();
    await browser.post('/sign-in', { email: owner.email, password: owner.password }, await browser.get('/sign-in'));
    expect((await browser.get('/home')).status).toBe(200);
    expect((await browser.get('/operator')).location).toBe('/operator/sign-in');
    const asOperator = await browser.post(
      '/operator/sign-in',
      { email: owner.email, password: owner.password },
      await browser.get('/operator/sign-in'),
    );
    expect(asOperator.status).toBe(401);
  });
});

describe('the console', () => {
  let operator: TestBrowser;

  beforeAll(async () => {
    operator = (await enrolledOperator()).browser;
  });

  it('lists pending accounts oldest first with their age, and shows one without its keys secrets', async () => {
    const { owner, accountId } = await pendingAccount();
    const list = await operator.get('/operator?status=pending');
    expect(list.text).toContain(owner.organisation);
    expect(list.text).toMatch(/\d+ h/);
    const detail = await operator.get(`/operator/accounts/${accountId}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain(owner.email);
    expect(detail.html).not.toMatch(/sk_(test|live)_/);
    expect((await operator.get('/operator/accounts/acc_01HZZZZZZZZZZZZZZZZZZZZZZZ')).status).toBe(404);
    expect((await operator.get('/operator/accounts/not-an-id')).status).toBe(404);
  });

  it("shows an account's projects with what each mode points to, and the month's usage", async () => {
    const { accountId } = await pendingAccount();
    await dashboard.platform.call('approveAccount', { id: accountId });
    const project = await dashboard.platform.call('createProject', {}, { account_id: accountId, name: 'Alta de socios' });
    await dashboard.platform.call(
      'publishConfig',
      { id: project.id },
      { mode: 'test', config: { steps: [{ id: 'correo', type: 'otp_email' }] } },
    );
    const key = await dashboard.platform.call('createApiKey', {}, { account_id: accountId, mode: 'test', name: 'backend' });
    for (let i = 0; i < 2; i += 1) {
      expect((await api('POST', '/v1/verification-sessions', { key: key.secret, body: { project_id: project.id } })).status).toBe(
        201,
      );
    }

    const detail = await operator.get(`/operator/accounts/${accountId}`);
    expect(detail.text).toContain(`Alta de socios · ${project.id} · prueba: cfg_00000001 · real: sin publicar`);
    expect(detail.text).toContain(`Uso de ${new Date().toISOString().slice(0, 7)}`);
    expect(detail.text).toMatch(/test\s+pending: 2/);
    expect(detail.text).toContain('Fichas debitadas en el mes: 0.');
    expect(detail.html).not.toMatch(/sk_(test|live)_/);
  });

  it('approves with a reason: the account is active, the owner told by e-mail, the audit log keeps it', async () => {
    const { owner, accountId } = await pendingAccount();
    const detail = await operator.get(`/operator/accounts/${accountId}`);
    const noReason = await operator.post(
      `/operator/accounts/${accountId}/decision`,
      { decision: 'approve', reason: ' ' },
      detail,
    );
    expect(noReason.status).toBe(422);
    const approved = await operator.post(
      `/operator/accounts/${accountId}/decision`,
      { decision: 'approve', reason: 'Datos verificados' },
      detail,
    );
    expect(approved.status).toBe(303);
    expect((await operator.get(approved.location!)).text).toContain('Cuenta aprobada');
    expect((await dashboard.platform.call('getAccount', { id: accountId })).status).toBe('active');
    const mail = await dashboard.smtp.mailTo(owner.email, 2); // the first was the confirmation link
    expect(mail.raw).toContain('Datos verificados');
    const { rows } = await dashboard.pool.query('SELECT action, target FROM audit_log WHERE account_id = $1 ORDER BY id', [
      accountId,
    ]);
    expect(rows).toContainEqual({ action: 'account.approved', target: 'Datos verificados' });

    const suspended = await operator.post(
      `/operator/accounts/${accountId}/decision`,
      { decision: 'suspend', reason: 'Uso no permitido' },
      await operator.get(`/operator/accounts/${accountId}`),
    );
    expect(suspended.status).toBe(303);
    expect((await dashboard.platform.call('getAccount', { id: accountId })).status).toBe('suspended');
    expect((await dashboard.smtp.mailTo(owner.email, 3)).raw).toContain('Uso no permitido');
  });

  it('credits tokens with a reason once, however many copies of the form arrive at once', async () => {
    const { accountId } = await pendingAccount();
    const detail = await operator.get(`/operator/accounts/${accountId}`);
    const fields = {
      tokens: '250',
      reason: 'Crédito de bienvenida',
      nonce: /name="nonce" value="([^"]+)"/.exec(detail.html)![1]!,
    };
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => operator.post(`/operator/accounts/${accountId}/credit`, fields, detail)),
    );
    expect(answers.filter((answer) => answer.status === 303)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(5);
    expect((await dashboard.platform.call('getBalance', { id: accountId })).balance).toBe(250);
    const bad = await operator.post(
      `/operator/accounts/${accountId}/credit`,
      { ...fields, tokens: '-5', nonce: 'x'.repeat(20) },
      detail,
    );
    expect(bad.status).toBe(422);
  });
});
