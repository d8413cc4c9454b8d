import { linkInMail, newOwner, startDashboard, type Dashboard } from './support/harness';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard({ limits: { failedPassword: { perSecond: 1 / 3600, burst: 4 } } });
});
afterAll(async () => {
  await dashboard?.stop();
});

async function signUp(owner = newOwner()) {
  const browser = dashboard.browser();
  const form = await browser.get('/sign-up');
  const sent = await browser.post('/sign-up', owner, form);
  return { browser, owner, sent };
}

async function signIn(email: string, password: string, browser = dashboard.browser()) {
  const form = await browser.get('/sign-in');
  const answer = await browser.post('/sign-in', { email, password }, form);
  return { browser, answer };
}

describe('sign-up and the e-mailed confirmation', () => {
  it('creates the account pending with its owner, and confirms the address once by a link sent over SMTP', async () => {
    const { owner, sent, browser } = await signUp();
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('Revisá tu correo');
    expect(sent.text).toContain(owner.email);

    const link = await dashboard.confirmationLink(owner.email);
    const opened = await browser.get(link);
    expect(opened.status).toBe(200); // opening uses nothing: mail scanners fetch links
    expect((await browser.get(link)).status).toBe(200);

    const elsewhere = dashboard.browser(); // the link works on another device
    const confirmPage = await elsewhere.get(link);
    const confirmed = await elsewhere.post(
      '/confirm-email',
      { token: new URLSearchParams(link.split('?')[1]).get('token')! },
      confirmPage,
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('Correo confirmado');

    const again = await browser.post('/confirm-email', { token: new URLSearchParams(link.split('?')[1]).get('token')! }, opened);
    expect(again.status).toBe(410);
    expect((await browser.get(link)).status).toBe(410);

    const { answer, browser: signedIn } = await signIn(owner.email, owner.password);
    expect(answer.status).toBe(303);
    expect(answer.location).toBe('/home');
    const home = await signedIn.get('/home');
    expect(home.status).toBe(200);
    expect(home.text).toContain('Tu cuenta espera aprobación');
    expect(home.text).toContain(owner.organisation);
    expect(home.text).not.toContain('Confirmá tu correo');
  });

  it('tells a pending, unconfirmed owner what is missing, and sends the link again on request', async () => {
    const { owner } = await signUp();
    const { browser } = await signIn(owner.email, owner.password);
    const home = await browser.get('/home');
    expect(home.text).toContain('Tu cuenta espera aprobación');
    expect(home.text).toContain('suele tardar un día hábil');
    expect(home.text).toContain('Confirmá tu correo');
    const resent = await browser.post('/confirm-email/resend', {}, home);
    expect(resent.status).toBe(303);
    expect((await browser.get(resent.location!)).text).toContain('Te mandamos un enlace nuevo');
    const second = await dashboard.confirmationLink(owner.email, 2);
    expect(second).not.toBe(await dashboard.confirmationLink(owner.email, 1));
  });

  it('speaks English to a browser that asks for it', async () => {
    const browser = dashboard.browser();
    const page = await browser.get('/sign-up', { 'accept-language': 'en-GB,en;q=0.9' });
    expect(page.html).toContain('<html lang="en"');
    expect(page.text).toContain('Create an account');
  });

  it('creates one account when the same form is sent ten times at once', async () => {
    const owner = newOwner('burst');
    const browser = dashboard.browser();
    const form = await browser.get('/sign-up');
    const answers = await Promise.all(Array.from({ length: 10 }, () => browser.post('/sign-up', owner, form)));
    expect(answers.filter((page) => page.status === 200)).toHaveLength(1);
    expect(answers.filter((page) => page.status === 422 && page.text.includes('Ya hay una cuenta con este correo'))).toHaveLength(
      9,
    );
    const { rows } = await dashboard.pool.query('SELECT count(*)::int AS n FROM users WHERE lower(email) = lower($1)', [
      owner.email,
    ]);
    expect(rows[0].n).toBe(1);
    expect(dashboard.smtp.mails.filter((mail) => mail.to.includes(owner.email))).toHaveLength(1);
  });

  it('refuses an e-mail already used, whatever its case', async () => {
    const { owner } = await signUp();
    const { sent } = await signUp({ ...newOwner(), email: owner.email.toUpperCase() });
    expect(sent.status).toBe(422);
    expect(sent.text).toContain('Ya hay una cuenta con este correo');
  });
});

describe('bad input gets a clear message on the field, never a 500', () => {
  it.each([
    ['a missing organisation', { organisation: '' }, 'Completá este dato.'],
    ['an invalid e-mail', { email: 'ana@' }, 'Escribí un correo válido'],
    ['a short password', { password: 'corta1' }, 'al menos 10 caracteres'],
    ['a common password', { password: 'qwertyuiop' }, 'de las más usadas'],
    ['the e-mail as password', { password: 'EMAIL' }, 'no puede ser tu correo'],
    ['a NUL character', { name: 'Ana\u0000' }, 'caracteres que no se pueden usar'],
    ['an over-long name', { name: 'n'.repeat(5000) }, 'Es demasiado largo'],
  ])('%s', async (_label, change, message) => {
    const owner = newOwner();
    const fields = { ...owner, ...change };
    if (fields.password === 'EMAIL') fields.password = owner.email;
    const { sent } = await signUp(fields);
    expect(sent.status).toBe(422);
    expect(sent.text).toContain(message);
    expect(sent.html).toContain('aria-invalid="true"');
    expect(sent.html).not.toMatch(/name="password"[^>]*value=/); // a password is never sent back
  });

  it('answers a form over 64 kB with a page saying so', async () => {
    const browser = dashboard.browser();
    const form = await browser.get('/sign-up');
    const huge = await browser.post('/sign-up', { ...newOwner(), organisation: 'x'.repeat(70_000) }, form);
    expect(huge.status).toBe(413);
    expect(huge.text).toContain('demasiado grande');
  });

  it('answers an unknown page with a page, not JSON', async () => {
    const page = await dashboard.browser().get('/nowhere/%FF');
    expect([400, 404]).toContain(page.status);
    expect(page.headers.get('content-type')).toMatch(/text\/html|application\/problem\+json/);
  });
});

describe('CSRF', () => {
  it('refuses a form without its token, with a token of another browser, and after the visit cookie is gone', async () => {
    const victim = dashboard.browser();
    const attacker = dashboard.browser();
    const attackerForm = await attacker.get('/sign-up');
    await victim.get('/sign-up');
    const owner = newOwner();
    expect((await victim.post('/sign-up', owner)).status).toBe(403);
    expect((await victim.post('/sign-up', { ...owner, _csrf: attackerForm.csrfToken() })).status).toBe(403);
    const fresh = dashboard.browser();
    const form = await fresh.get('/sign-up');
    fresh.cookies.clear();
    const refused = await fresh.post('/sign-up', owner, form);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('El formulario venció');
  });
});

describe('sign-in', () => {
  it('answers a wrong password and an unknown e-mail alike', async () => {
    const { owner } = await signUp();
    const wrong = (await signIn(owner.email, 'no es esta contraseña')).answer;
    const unknown = (await signIn(`nobody-${owner.email}`, 'no es esta contraseña')).answer;
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text).toContain('El correo o la contraseña no son correctos');
    expect(unknown.text).toContain('El correo o la contraseña no son correctos');
  });

  it('gives a new cookie at sign-in: a value planted before it is never signed in (fixation)', async () => {
    const { owner } = await signUp();
    const browser = dashboard.browser();
    const planted = `dt_${'A'.repeat(43)}`;
    browser.cookies.set('__Host-idv_dash', planted);
    const { answer } = await signIn(owner.email, owner.password, browser);
    expect(answer.status).toBe(303);
    const cookie = browser.cookies.get('__Host-idv_dash');
    expect(cookie).toBeDefined();
    expect(cookie).not.toBe(planted);
    const attacker = dashboard.browser();
    attacker.cookies.set('__Host-idv_dash', planted);
    expect((await attacker.get('/home')).location).toBe('/sign-in');
  });

  it('sets the sign-in cookie __Host-, HttpOnly, Secure and SameSite=Lax', async () => {
    const { owner } = await signUp();
    const browser = dashboard.browser();
    const form = await browser.get('/sign-in');
    const response = await fetch(`${dashboard.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-for': browser.address,
        cookie: [...browser.cookies].map(([n, v]) => `${n}=${v}`).join('; '),
      },
      body: new URLSearchParams({ _csrf: form.csrfToken(), email: owner.email, password: owner.password }).toString(),
    });
    const signInCookie = response.headers.getSetCookie().find((line) => line.startsWith('__Host-idv_dash='));
    expect(signInCookie).toMatch(/; Path=\//);
    expect(signInCookie).toMatch(/HttpOnly/);
    expect(signInCookie).toMatch(/Secure/);
    expect(signInCookie).toMatch(/SameSite=Lax/);
    expect(signInCookie).not.toMatch(/Domain=/);
  });

  it('holds an e-mail whose passwords keep failing, from every address, the right password included', async () => {
    const { owner } = await signUp();
    for (let attempt = 0; attempt < 4; attempt += 1) {
      expect((await signIn(owner.email, `wrong guess ${attempt}`)).answer.status).toBe(401);
    }
    const held = (await signIn(owner.email, owner.password)).answer;
    expect(held.status).toBe(429);
    expect(held.text).toContain('Demasiados intentos');
  });

  it('signs out this browser, and every browser on request', async () => {
    const { owner } = await signUp();
    const first = (await signIn(owner.email, owner.password)).browser;
    const second = (await signIn(owner.email, owner.password)).browser;
    const third = (await signIn(owner.email, owner.password)).browser;

    const home = await first.get('/home');
    const out = await first.post('/sign-out', {}, home);
    expect(out.location).toBe('/sign-in');
    expect((await first.get('/home')).location).toBe('/sign-in');
    expect((await second.get('/home')).status).toBe(200);

    const secondHome = await second.get('/home');
    const everywhere = await second.post('/sign-out-everywhere', {}, secondHome);
    expect(everywhere.location).toBe('/sign-in?notice=signed_out_everywhere');
    expect((await second.get('/home')).location).toBe('/sign-in');
    expect((await third.get('/home')).location).toBe('/sign-in');
  });

  it('keeps the audit log append-only', async () => {
    const { owner } = await signUp();
    const { rows } = await dashboard.pool.query(
      `SELECT a.action FROM audit_log a JOIN users u ON u.id = a.actor_id WHERE lower(u.email) = lower($1) ORDER BY a.id`,
      [owner.email],
    );
    expect(rows.map((row) => row.action)).toEqual(['account.signed_up']);
    await expect(dashboard.pool.query('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    await expect(dashboard.pool.query(`UPDATE audit_log SET action = 'x'`)).rejects.toThrow(/append-only/);
  });

  it('keeps no password, only an argon2id hash', async () => {
    const { owner } = await signUp();
    const { rows } = await dashboard.pool.query('SELECT password_hash FROM users WHERE email = $1', [owner.email]);
    expect(rows[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(rows[0].password_hash).not.toContain(owner.password);
  });
});

describe('an owner added by an operator (the internal route the demo uses)', () => {
  const add = (accountId: string, body: unknown, token = process.env.INTERNAL_TOKEN!) =>
    fetch(`${dashboard.url}/internal/accounts/${accountId}/owners`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-idv-internal-token': token },
      body: JSON.stringify(body),
    });

  it('signs in with the given password, e-mail taken as confirmed; refuses a taken e-mail, a weak password, an unknown account', async () => {
    const account = await dashboard.platform.call('createAccount', {}, { name: 'Operator-made S.A.', email: 'ops@example.com' });
    const owner = newOwner('operator');
    const created = await add(account.id, { email: owner.email, name: owner.name, password: owner.password });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      object: 'dashboard_user',
      account_id: account.id,
      email: owner.email,
      role: 'owner',
    });

    const { browser, answer } = await signIn(owner.email, owner.password);
    expect(answer.status).toBe(303);
    const home = await browser.get('/home');
    expect(home.text).toContain('Operator-made S.A.');
    expect(home.text).not.toContain('Confirmá tu correo');

    const taken = await add(account.id, { email: owner.email.toUpperCase(), name: 'Another', password: 'otra frase bien larga' });
    expect(taken.status).toBe(409);
    expect(taken.headers.get('content-type')).toContain('application/problem+json');
    const weak = await add(account.id, { email: `x-${owner.email}`, name: 'Weak', password: 'password123' });
    expect(weak.status).toBe(422);
    expect((await weak.json()).code).toBe('validation_failed');
    const unknown = await add('acc_01HZZZZZZZZZZZZZZZZZZZZZZZ', {
      email: `y-${owner.email}`,
      name: 'Nobody',
      password: 'una frase bien larga',
    });
    expect(unknown.status).toBe(404);
    const unauthenticated = await add(
      account.id,
      { email: `z-${owner.email}`, name: 'Z', password: 'una frase bien larga' },
      'wrong-token-wrong-token',
    );
    expect(unauthenticated.status).toBe(401);
  });
});

describe('getting in by e-mail: a sign-in link and a password reset', () => {
  const askForLinks = async (email: string) => {
    const browser = dashboard.browser();
    const answer = await browser.post('/forgot', { email }, await browser.get('/forgot'));
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('Si hay una cuenta con ese correo, te mandamos los enlaces');
  };

  it('lets the real owner in by the e-mailed link while the password is held, once', async () => {
    const { owner } = await signUp();
    for (let attempt = 0; attempt < 4; attempt += 1) await signIn(owner.email, `adivinanza ${attempt}`);
    expect((await signIn(owner.email, owner.password)).answer.status).toBe(429);

    await askForLinks(owner.email);
    const link = linkInMail((await dashboard.smtp.mailTo(owner.email, 2)).raw, '/sign-in-link');
    const browser = dashboard.browser();
    const page = await browser.get(link);
    expect(page.status).toBe(200); // opening it uses nothing
    const signedIn = await browser.post('/sign-in-link', { token: new URLSearchParams(link.split('?')[1]).get('token')! }, page);
    expect(signedIn.location).toBe('/home');
    expect((await browser.get('/home')).status).toBe(200);
    expect((await browser.get(link)).status).toBe(410);
  });

  it('resets the password by its link once, ending every other sign-in', async () => {
    const { owner } = await signUp();
    const elsewhere = (await signIn(owner.email, owner.password)).browser;
    await askForLinks(owner.email);
    const link = linkInMail((await dashboard.smtp.mailTo(owner.email, 2)).raw, '/reset-password');
    const token = new URLSearchParams(link.split('?')[1]).get('token')!;
    const browser = dashboard.browser();
    const form = await browser.get(link);
    const weak = await browser.post('/reset-password', { token, password: 'password123' }, form);
    expect(weak.status).toBe(422);
    expect(weak.text).toContain('de las más usadas');
    const changed = await browser.post('/reset-password', { token, password: 'una contraseña nueva y larga' }, weak);
    expect(changed.location).toBe('/sign-in?notice=password_changed');
    expect((await elsewhere.get('/home')).location).toBe('/sign-in');
    expect((await signIn(owner.email, owner.password)).answer.status).toBe(401);
    expect((await signIn(owner.email, 'una contraseña nueva y larga')).answer.status).toBe(303);
    expect((await browser.post('/reset-password', { token, password: 'otra contraseña más larga' }, form)).status).toBe(410);
  });

  it('answers an unknown e-mail the same way, and sends nothing', async () => {
    const email = `nobody-${Date.now()}@example.com`;
    await askForLinks(email);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(dashboard.smtp.mails.filter((mail) => mail.to.includes(email))).toHaveLength(0);
  });
});
