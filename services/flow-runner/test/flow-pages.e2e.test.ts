import { api, buildTenant, testEnv } from '@idv/testkit';
import { CHOICE_STEP, FORM_STEP, VALID_FORM, buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, h1Of, inputValue, statusOf } from './person';

const flowUrl = () => testEnv().flowUrl;

function tenantWith(steps: unknown[], options: Record<string, unknown> = {}) {
  return buildTenant({ config: buildConfig(steps, options), modes: ['test'] });
}

/** Opens a fresh session's link as a new person and accepts consent. */
async function startFlow(steps: unknown[], options: Record<string, unknown> = {}) {
  const tenant = await tenantWith(steps, options);
  const session = await createSession(tenant.testKey, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  await person.submit({ action: 'accept' });
  return { tenant, session, person };
}

describe('flow-runner pages (test mode, shared stack)', () => {
  test('when the link is opened, then it is redeemed once, the browser is bound with a cookie and redirected without the token', async () => {
    const tenant = await tenantWith([FORM_STEP]);
    const session = await createSession(tenant.testKey, tenant.project.id);
    const person = new Person(flowUrl());
    const hops: Awaited<ReturnType<Person['get']>>[] = [];

    const page = await person.get(session.url, hops);

    expect(hops[0]!.status).toBe(303);
    expect(hops[0]!.location).toBe(`/s/${session.id}`);
    expect(hops[0]!.location).not.toContain('lt_');
    const cookie = hops[0]!.setCookies.find((c) => c.startsWith(`idv_${session.id}=`))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // NODE_ENV=test serves plain http
    expect(page.status).toBe(200);
    expect(h1Of(page)).toBe('Antes de empezar');
    expect(page.text).toContain('Modo de prueba');
    expect((await getSession(tenant.testKey, session.id)).status).toBe('in_progress');
    const qr = await api('GET', new URL(session.qr.png).pathname);
    expect(qr.status).toBe(410);
  });

  test('when the same browser reopens the link or reloads, then it continues where it was', async () => {
    const { session, person } = await startFlow([FORM_STEP]);
    expect(person.step()).toBe('extra');

    const again = await person.get(session.url);
    const reload = await person.get(`/s/${session.id}`);

    expect(inputValue(again.text, 'step')).toBe('extra');
    expect(inputValue(reload.text, 'step')).toBe('extra');
  });

  test('when another browser opens a used link or the flow url, then it gets the "link already used" page, never the flow', async () => {
    const { tenant, session, person } = await startFlow([FORM_STEP]);
    const other = new Person(flowUrl());

    const viaLink = await other.get(session.url);
    const viaFlow = await other.get(`/s/${session.id}`);
    const forged = await other.post(`/s/${session.id}`, {
      _csrf: inputValue(person.last!.text, '_csrf')!,
      step: 'extra',
      ...VALID_FORM,
    });

    for (const page of [viaLink, viaFlow, forged]) {
      expect(page.status).toBe(403);
      expect(statusOf(page)).toBe('used');
      expect(page.text).not.toContain('name="_csrf"');
    }
    expect((await getSession(tenant.testKey, session.id)).status).toBe('in_progress');
  });

  test('when consent is declined, then the session is rejected with consent_declined and the person sees a neutral page', async () => {
    const tenant = await tenantWith([FORM_STEP]);
    const session = await createSession(tenant.testKey, tenant.project.id);
    const person = new Person(flowUrl());
    await person.get(session.url);

    const final = await person.submit({ action: 'decline' });

    expect(statusOf(final)).toBe('rejected');
    expect(h1Of(final)).toBe('No pudimos verificarte');
    expect(final.text).not.toContain('consent_declined');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.status).toBe('rejected');
    expect(resolved.result.reason_codes).toEqual(['consent_declined']);
    expect(resolved.result.steps).toEqual([
      { id: 'consent', type: 'consent', verdict: 'rejected' },
      { id: 'extra', type: 'form', verdict: 'not_reached' },
    ]);
  });

  test('when the form is submitted with bad values, then each field says what is wrong; when corrected, then the session is approved with form_data', async () => {
    const { tenant, session, person } = await startFlow([FORM_STEP]);

    const bad = await person.submit({ occupation: 'x', province: 'mars', birth: '2031-02-30', income: '12.5' });

    expect(bad.status).toBe(422);
    expect(bad.text).toContain('Ingresá al menos 2 caracteres.');
    expect(bad.text).toContain('Elegí una de las opciones.');
    expect(bad.text).toContain('Ingresá una fecha válida (AAAA-MM-DD).');
    expect(bad.text).toContain('Ingresá un número entero.');
    expect(bad.text).toContain('Tenés que marcar esta casilla para continuar.');
    expect(bad.text).toContain('id="e-occupation"');
    expect(inputValue(bad.text, 'occupation')).toBe('x');

    const late = await person.submit({ ...VALID_FORM, birth: '2015-01-01' });
    expect(late.text).toContain('La fecha no puede ser posterior a 2010-12-31.');

    const final = await person.submit(VALID_FORM);

    expect(statusOf(final)).toBe('approved');
    expect(h1Of(final)).toBe('¡Listo!');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.status).toBe('approved');
    expect(resolved.result.reason_codes).toEqual([]);
    expect(resolved.result.form_data).toEqual({
      occupation: 'Docente',
      province: 'cordoba',
      birth: '1990-05-17',
      income: '150000',
      pep: 'false',
      terms: 'true',
    });
  });

  test('when a choice option passes with the test code 000000, then the other option is skipped and verified_channels carries the e-mail', async () => {
    const { tenant, session, person } = await startFlow([CHOICE_STEP]);
    expect(person.step()).toBe('contact');
    expect(person.last!.text).toContain('Modo de prueba');

    await person.submit({ option: 'mail' });
    expect(person.step()).toBe('mail');
    await person.submit({ action: 'send', destination: 'Persona@Example.COM' });
    expect(person.last!.text).toContain('Persona@example.com');
    const final = await person.submit({ action: 'verify', code: '000000' });

    expect(statusOf(final)).toBe('approved');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.result.steps).toEqual([
      { id: 'consent', type: 'consent', verdict: 'approved' },
      { id: 'contact', type: 'choice', verdict: 'approved' },
      { id: 'mail', type: 'otp_email', verdict: 'approved' },
      { id: 'phone', type: 'otp_whatsapp', verdict: 'skipped' },
    ]);
    expect(resolved.result.verified_channels).toEqual({ email: 'Persona@example.com' });
  });

  test('when an option runs out of attempts but the choice can still be met, then the person picks another; the phone is normalized to +54 9', async () => {
    const { tenant, session, person } = await startFlow([CHOICE_STEP]);
    await person.submit({ option: 'mail' });
    await person.submit({ action: 'send', destination: 'p@example.com' });

    for (let left = 4; left >= 1; left--) {
      const wrong = await person.submit({ action: 'verify', code: '123456' });
      expect(wrong.status).toBe(422);
      expect(wrong.text).toContain(left === 1 ? 'Te queda 1 intento.' : `Te quedan ${left} intentos.`);
    }
    const back = await person.submit({ action: 'verify', code: '123456' });

    expect(person.step()).toBe('contact');
    expect(back.text).toContain('Esa opción no se pudo completar. Elegí otra.');
    expect(back.text).not.toContain('value="mail"');
    await person.submit({ option: 'phone' });
    const invalid = await person.submit({ action: 'send', destination: '1234' });
    expect(invalid.text).toContain('Ingresá un celular argentino válido');
    await person.submit({ action: 'send', destination: '011 15 2345-6789' });
    expect(person.last!.text).toContain('+54 9 11 2345-6789');
    const final = await person.submit({ action: 'verify', code: '000000' });

    expect(statusOf(final)).toBe('approved');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.result.steps.find((s: { id: string }) => s.id === 'mail').verdict).toBe('rejected');
    expect(resolved.result.reason_codes).toEqual([]);
    expect(resolved.result.verified_channels).toEqual({ phone: '+5491123456789' });
  });

  test('when 5 wrong codes are entered on a step outside a choice, then the session is rejected with email_code_attempts_exceeded', async () => {
    const { tenant, session, person } = await startFlow([{ id: 'mail', type: 'otp_email' }, FORM_STEP]);
    await person.submit({ action: 'send', destination: 'p@example.com' });

    let page = person.last!;
    for (let i = 0; i < 5; i++) page = await person.submit({ action: 'verify', code: '999999' });

    expect(statusOf(page)).toBe('rejected');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.result.reason_codes).toEqual(['email_code_attempts_exceeded']);
    expect(resolved.result.steps.map((s: { verdict: string }) => s.verdict)).toEqual(['approved', 'rejected', 'not_reached']);
  });

  test('when a choice can no longer reach its minimum, then the session is rejected with the option reason and choice_not_satisfied', async () => {
    const { tenant, session, person } = await startFlow([{ ...CHOICE_STEP, min: 2 }]);
    await person.submit({ option: 'phone' });
    await person.submit({ action: 'send', destination: '+54 9 351 123 4567' });
    let page = person.last!;
    for (let i = 0; i < 5; i++) page = await person.submit({ action: 'verify', code: '111111' });

    expect(statusOf(page)).toBe('rejected');
    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.result.reason_codes).toEqual(['phone_code_attempts_exceeded', 'choice_not_satisfied']);
    expect(resolved.result.steps).toContainEqual({ id: 'mail', type: 'otp_email', verdict: 'skipped' });
  });

  test('when a code is resent too early, then the person is told to wait; after the cooldown three resends work and a fourth is refused', async () => {
    const { person } = await startFlow([{ id: 'mail', type: 'otp_email' }]);
    await person.submit({ action: 'send', destination: 'p@example.com' });

    const early = await person.submit({ action: 'resend' });
    expect(early.text).toMatch(/Esperá \d+ segundos antes de pedir otro código\./);

    for (let i = 0; i < 3; i++) {
      await eventually(
        async () => {
          const page = await person.submit({ action: 'resend' });
          return page.text.includes('Te enviamos un código nuevo.');
        },
        10_000,
        `resend ${i + 1}`,
      );
    }
    const refused = await person.submit({ action: 'resend' });
    expect(refused.text).toContain('Ya no se pueden enviar más códigos.');
    const accepted = await person.submit({ action: 'verify', code: '000000' });
    expect(statusOf(accepted)).toBe('approved');
  });

  test('when a POST comes without the flow CSRF token, then it is refused and nothing changes', async () => {
    const { tenant, session, person } = await startFlow([FORM_STEP]);

    const missing = await person.post(`/s/${session.id}`, { step: 'extra', ...VALID_FORM });
    const wrong = await person.post(`/s/${session.id}`, { _csrf: 'forged', step: 'extra', ...VALID_FORM });

    for (const page of [missing, wrong]) {
      expect(page.status).toBe(403);
      expect(statusOf(page)).toBe('csrf');
    }
    expect((await getSession(tenant.testKey, session.id)).status).toBe('in_progress');
    expect(inputValue((await person.get(`/s/${session.id}`)).text, 'step')).toBe('extra');
  });

  test('when the session is canceled, then the person sees the canceled page on reload and on submit', async () => {
    const { tenant, session, person } = await startFlow([FORM_STEP]);
    const flowPage = person.last!;
    const cancel = await api('POST', `/v1/verification-sessions/${session.id}/cancel`, { key: tenant.testKey });
    expect(cancel.status).toBe(200);

    // At once: the view that followed the redeem used up its confirmation.
    const reload = await person.get(`/s/${session.id}`);
    person.last = flowPage;
    const submit = await person.submit(VALID_FORM);

    for (const page of [reload, submit]) {
      expect(page.status).toBe(410);
      expect(statusOf(page)).toBe('canceled');
    }
  });

  test('when a canceled session link is opened for the first time, then the page says it is over', async () => {
    const tenant = await tenantWith([FORM_STEP]);
    const session = await createSession(tenant.testKey, tenant.project.id);
    await api('POST', `/v1/verification-sessions/${session.id}/cancel`, { key: tenant.testKey });

    const page = await new Person(flowUrl()).get(session.url);

    expect(page.status).toBe(410);
    expect(statusOf(page)).toBe('finished');
  });

  test('when the browser prefers English, then the pages are in English', async () => {
    const tenant = await tenantWith([FORM_STEP]);
    const session = await createSession(tenant.testKey, tenant.project.id);
    const person = new Person(flowUrl(), 'en-US,en;q=0.9,es;q=0.5');

    const page = await person.get(session.url);

    expect(page.text).toContain('<html lang="en">');
    expect(h1Of(page)).toBe('Before you start');
    expect(page.text).toContain('Test mode');
  });

  test('when a page is served, then it has a strict CSP, no scripts, no third-party URLs and weighs under 100 KB with its stylesheet', async () => {
    const tenant = await tenantWith([FORM_STEP]);
    const session = await createSession(tenant.testKey, tenant.project.id);
    const person = new Person(flowUrl());

    const page = await person.get(session.url);
    const css = await person.get('/assets/flow.css');

    const csp = page.headers['content-security-policy']!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).not.toMatch(/(src|href)="https?:/);
    expect(Buffer.byteLength(page.text) + Buffer.byteLength(css.text)).toBeLessThan(100 * 1024);
  });

  test('when a stale page posts for a step already done, then the current step is shown and nothing is applied twice', async () => {
    const { person, session } = await startFlow([FORM_STEP]);
    const consentCsrf = inputValue(person.last!.text, '_csrf')!;

    const stale = await person.post(`/s/${session.id}`, { _csrf: consentCsrf, step: 'consent', action: 'decline' });

    expect(inputValue(stale.text, 'step')).toBe('extra');
  });

  test('when a link preview robot fetches the link or a HEAD request comes, then the token is not redeemed', async () => {
    const tenant = await tenantWith([FORM_STEP]);
    const session = await createSession(tenant.testKey, tenant.project.id);
    const { request } = await import('undici');

    const preview = await request(session.url, { headers: { 'user-agent': 'WhatsApp/2.23.20.0 A' } });
    await preview.body.text();
    const head = await request(session.url, { method: 'HEAD' });
    await head.body.text();
    const person = new Person(flowUrl());
    const page = await person.get(session.url);

    expect(preview.statusCode).toBe(200);
    expect(h1Of(page)).toBe('Antes de empezar');
    await eventually(async () => (await getSession(tenant.testKey, session.id)).status === 'in_progress', 5000, 'in_progress');
  });

  test('when a submission is malformed (too big, too many fields, compressed, not a form, bad id), then the person gets a page with a 4xx and nothing changes', async () => {
    const { tenant, session, person } = await startFlow([FORM_STEP]);
    const csrf = inputValue(person.last!.text, '_csrf')!;
    const { request } = await import('undici');
    const url = `${flowUrl()}/s/${session.id}`;
    const headers = { cookie: [...person.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'accept-language': 'es-AR' };
    const post = async (body: string, extra: Record<string, string> = {}) => {
      const res = await request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', ...extra },
        body,
      });
      return { status: res.statusCode, type: res.headers['content-type'], text: await res.body.text() };
    };

    const tooBig = await post(`_csrf=${csrf}&step=extra&occupation=${'x'.repeat(40_000)}`);
    const tooMany = await post(`_csrf=${csrf}&step=extra&${Array.from({ length: 150 }, (_, i) => `f${i}=1`).join('&')}`);
    const compressed = await post(`_csrf=${csrf}&step=extra`, { 'content-encoding': 'gzip' });
    const notAForm = await post(JSON.stringify({ _csrf: csrf, step: 'extra' }), { 'content-type': 'application/json' });
    const badId = await request(`${flowUrl()}/s/not-a-session`, { method: 'POST', headers, body: 'a=1' });
    const badIdText = await badId.body.text();

    expect([tooBig.status, tooMany.status, compressed.status, notAForm.status, badId.statusCode]).toEqual([
      413, 413, 415, 403, 404,
    ]);
    for (const page of [tooBig, tooMany, compressed, notAForm]) expect(page.type).toBe('text/html; charset=utf-8');
    expect(notAForm.text).toContain('data-page="csrf"');
    expect(badIdText).toContain('data-page="not_found"');
    // The flow is where it was: the form step, submittable.
    const again = await person.get(`/s/${session.id}`);
    expect(inputValue(again.text, 'step')).toBe('extra');
    expect((await getSession(tenant.testKey, session.id)).status).toBe('in_progress');
  });
});
