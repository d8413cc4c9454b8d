import pg from 'pg';
import { Pool as UndiciPool } from 'undici';
import { api, buildTenant } from '@idv/testkit';
import type { Browser } from 'playwright-core';
import { axeViolations, launchBrowser, newPerson } from './browser';
import { CHOICE_STEP, FORM_STEP, VALID_FORM, buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, h1Of, statusOf } from './person';
import { signatureValid, startPrivateStack, startReceiver, startSmtp, startWhatsapp } from './providers';

/**
 * Live sessions through a stack of this file's own, wired to a real SMTP server and a WhatsApp Cloud
 * API stand-in on 127.0.0.1; then the whole flow in headless Chromium.
 */
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let whatsapp: Awaited<ReturnType<typeof startWhatsapp>>;
let privateStack: Awaited<ReturnType<typeof startPrivateStack>>;

const WHATSAPP_PHONE_NUMBER_ID = '106540352242922';
const WHATSAPP_TOKEN = 'EAAtest-token';

beforeAll(async () => {
  smtp = await startSmtp();
  whatsapp = await startWhatsapp();
  privateStack = await startPrivateStack({
    database: 'idv_test_flow_channels',
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_SECURE: 'false',
      SMTP_FROM: 'IDV <no-reply@idv.test>',
      WHATSAPP_API_URL: whatsapp.url,
      WHATSAPP_PHONE_NUMBER_ID,
      WHATSAPP_TOKEN,
      LOG_LEVEL: 'warn',
    },
  });
}, 90_000);

afterAll(async () => {
  await privateStack?.stop();
  await smtp?.close();
  await whatsapp?.close();
});

const flowUrl = () => privateStack.stack.url('flow-runner');

async function liveFlow(steps: unknown[]) {
  const tenant = await buildTenant({ config: buildConfig(steps), modes: ['live'], tokens: 10 });
  const session = await createSession(tenant.liveKey, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  await person.submit({ action: 'accept' });
  return { tenant, session, person };
}

describe('codes through real providers (live mode)', () => {
  test('when an e-mail code is requested, then it arrives over SMTP, only its hash is stored, and entering it verifies the address', async () => {
    const { tenant, session, person } = await liveFlow([{ id: 'mail', type: 'otp_email' }]);
    const address = `p-${Date.now()}@example.com`;

    const codePage = await person.submit({ action: 'send', destination: address });
    const code = await smtp.codeFor(address);

    expect(codePage.text).not.toContain('Modo de prueba');
    expect(code).toMatch(/^\d{6}$/);
    const db = new pg.Client({ connectionString: privateStack.stack.env.DATABASE_URL });
    await db.connect();
    const { rows } = await db.query('SELECT state FROM flow.flows WHERE session_id = $1', [session.id]);
    await db.end();
    const stored = rows[0].state.steps.mail.otp;
    expect(stored.codeHash).toMatch(/^[0-9a-f]{32}:[0-9a-f]{64}$/);
    expect(stored.codeHash).not.toContain(code);
    expect(Object.keys(stored)).not.toContain('code');
    const wrong = await person.submit({ action: 'verify', code: code === '000000' ? '111111' : '000000' });
    expect(wrong.status).toBe(422);
    const final = await person.submit({ action: 'verify', code });
    expect(statusOf(final)).toBe('approved');
    expect((await getSession(tenant.liveKey, session.id)).result.verified_channels).toEqual({ email: address });
  });

  test('when a new code is requested after the cooldown, then a second mail arrives and only the newest code is accepted', async () => {
    const { person } = await liveFlow([{ id: 'mail', type: 'otp_email' }]);
    const address = `r-${Date.now()}@example.com`;
    await person.submit({ action: 'send', destination: address });
    const first = await smtp.codeFor(address, 1);

    await eventually(
      async () => (await person.submit({ action: 'resend' })).text.includes('Te enviamos un código nuevo.'),
      10_000,
      'resend',
    );
    const second = await smtp.codeFor(address, 2);

    if (first !== second) expect((await person.submit({ action: 'verify', code: first })).status).toBe(422);
    expect(statusOf(await person.submit({ action: 'verify', code: second }))).toBe('approved');
  });

  test('when a WhatsApp code is requested, then the Cloud API gets an authentication template for the +54 9 number', async () => {
    const { person } = await liveFlow([{ id: 'phone', type: 'otp_whatsapp' }]);
    const before = whatsapp.requests.length;

    await person.submit({ action: 'send', destination: '(0351) 15-555-1234' });

    const sent = await eventually(() => whatsapp.requests[before], 5000, 'whatsapp request');
    expect(sent.path).toBe(`/v21.0/${WHATSAPP_PHONE_NUMBER_ID}/messages`);
    expect(sent.authorization).toBe(`Bearer ${WHATSAPP_TOKEN}`);
    expect(sent.body).toMatchObject({ messaging_product: 'whatsapp', to: '5493515551234', type: 'template' });
    const code: string = sent.body.template.components[0].parameters[0].text;
    expect(code).toMatch(/^\d{6}$/);
    expect(statusOf(await person.submit({ action: 'verify', code }))).toBe('approved');
  });

  test('when the WhatsApp provider fails, then the person is told it could not be sent and can try again', async () => {
    const { person } = await liveFlow([{ id: 'phone', type: 'otp_whatsapp' }]);
    whatsapp.failWith(500);
    try {
      const failed = await person.submit({ action: 'send', destination: '11 4444-5555' });
      expect(failed.status).toBe(200);
      expect(failed.text).toContain('No pudimos enviar el código. Intentá de nuevo en unos momentos.');
      expect(failed.text).toContain('value="11 4444-5555"');
    } finally {
      whatsapp.failWith(null);
    }
    const before = whatsapp.requests.length;
    const retried = await person.submit({ action: 'send', destination: '11 4444-5555' });
    expect(retried.text).toContain('+54 9 11 4444-5555');
    const code: string = (await eventually(() => whatsapp.requests[before], 5000, 'retry')).body.template.components[0]
      .parameters[0].text;
    expect(statusOf(await person.submit({ action: 'verify', code }))).toBe('approved');
  });

  test('when a test-mode session sends a code, then nothing reaches SMTP or WhatsApp', async () => {
    const tenant = await buildTenant({ config: buildConfig([CHOICE_STEP]), modes: ['test'] });
    const session = await createSession(tenant.testKey, tenant.project.id);
    const person = new Person(flowUrl());
    await person.get(session.url);
    await person.submit({ action: 'accept' });
    await person.submit({ option: 'phone' });
    const mailsBefore = smtp.mails.length;
    const whatsappBefore = whatsapp.requests.length;

    await person.submit({ action: 'send', destination: '11 2222-3333' });
    const final = await person.submit({ action: 'verify', code: '000000' });

    expect(statusOf(final)).toBe('approved');
    expect(smtp.mails.length).toBe(mailsBefore);
    expect(whatsapp.requests.length).toBe(whatsappBefore);
  });
});

describe('submissions racing each other', () => {
  const RACERS = 10;
  let connections: UndiciPool;

  beforeAll(() => {
    connections = new UndiciPool(flowUrl(), { connections: RACERS });
  });
  afterAll(() => connections.close());

  /** A person whose next submissions really race: one connection each, opened beforehand. */
  async function racingFlow() {
    const { tenant, session, person } = await liveFlow([{ id: 'mail', type: 'otp_email' }]);
    const racer = new Person(flowUrl(), person.acceptLanguage, connections);
    for (const [name, value] of person.cookies) racer.cookies.set(name, value);
    await Promise.all(Array.from({ length: RACERS }, () => racer.get(`/s/${session.id}`)));
    return { tenant, session, person: racer };
  }

  async function storedOtp(sessionId: string) {
    const db = new pg.Client({ connectionString: privateStack.stack.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT state FROM flow.flows WHERE session_id = $1', [sessionId]);
      return rows[0].state.steps.mail.otp as { sends: number; attempts: number };
    } finally {
      await db.end();
    }
  }

  test('when the same code request is submitted ten times at once, then exactly one code is sent and counted', async () => {
    const { session, person } = await racingFlow();
    const address = `race-${Date.now()}@example.com`;

    const pages = await Promise.all(
      Array.from({ length: RACERS }, () => person.submit({ action: 'send', destination: address })),
    );

    expect(pages.every((page) => page.status === 200)).toBe(true);
    expect(smtp.mails.filter((mail) => mail.to.includes(address))).toHaveLength(1);
    expect((await storedOtp(session.id)).sends).toBe(1);
    expect(pages.filter((page) => page.text.includes('antes de pedir otro código')).length).toBeGreaterThan(0);
  });

  test('when ten wrong codes are submitted at once, then every code that was checked is counted and the step fails at five', async () => {
    const { tenant, session, person } = await racingFlow();
    const address = `guess-${Date.now()}@example.com`;
    await person.submit({ action: 'send', destination: address });
    const code = await smtp.codeFor(address);
    const wrong = code === '123456' ? '654321' : '123456';

    const pages = await Promise.all(Array.from({ length: RACERS }, () => person.submit({ action: 'verify', code: wrong })));

    const told = pages.filter((page) => page.status === 422).length;
    const rejected = pages.filter((page) => statusOf(page) === 'rejected').length;
    const attempts = (await storedOtp(session.id)).attempts;
    expect(attempts).toBeLessThanOrEqual(5);
    // A refused guess either told the person (422) or ended the step; a guess never checked was not counted.
    expect(attempts).toBe(told + Math.min(rejected, 1));
    if (attempts === 5) expect((await getSession(tenant.liveKey, session.id)).status).toBe('rejected');
  });
});

describe('when the sessions service is down', () => {
  test('then opening a link and submitting a step show the "try again" page (503), and the flow goes on once it is back', async () => {
    const { tenant, session, person } = await liveFlow([FORM_STEP]);
    const unopened = await createSession(tenant.liveKey, tenant.project.id);
    const formPage = person.last!;

    await privateStack.stack.kill('sessions');
    let submitted, opened;
    try {
      submitted = await person.submit(VALID_FORM);
      opened = await new Person(flowUrl()).get(unopened.url);
    } finally {
      await privateStack.stack.startService('sessions');
    }

    for (const page of [submitted, opened]) {
      expect(page.status).toBe(503);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toContain('data-page="error"');
      expect(page.text).not.toMatch(/\.js:\d+|Error:/);
    }
    expect(submitted.text).toContain(`href="/s/${session.id}"`);
    person.last = formPage;
    expect(statusOf(await person.submit(VALID_FORM))).toBe('approved');
    expect(h1Of(await new Person(flowUrl()).get(unopened.url))).toBe('Antes de empezar');
    expect((await getSession(tenant.liveKey, unopened.id)).status).toBe('in_progress');
  });
});

describe('the flow in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  test('when a person completes consent, e-mail OTP and the form, then the session is approved, the signed webhook arrives, and every page passes axe', async () => {
    const receiver = await startReceiver();
    try {
      const tenant = await buildTenant({ config: buildConfig([CHOICE_STEP, FORM_STEP]), modes: ['live'], tokens: 10 });
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        key: tenant.liveKey,
        body: {
          url: receiver.url,
          events: ['verification_session.approved', 'verification_session.completed'],
          description: 'e2e',
        },
      });
      expect(endpoint.status).toBe(201);
      const session = await createSession(tenant.liveKey, tenant.project.id);
      const context = await newPerson(browser);
      const page = await context.newPage();
      const violations: string[] = [];
      const check = async () => violations.push(...(await axeViolations(page)).map((v) => `${page.url()}: ${v}`));

      await page.goto(session.url);
      expect(page.url()).toBe(`${flowUrl()}/s/${session.id}`);
      await check();
      await page.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
      await page.getByRole('heading', { name: 'Elegí cómo continuar' }).waitFor();
      await check();
      await page.getByRole('button', { name: 'Verificar mi correo electrónico' }).click();
      const address = `e2e-${Date.now()}@example.com`;
      await page.getByLabel('Correo electrónico').fill(address);
      await check();
      await page.getByRole('button', { name: 'Enviar código' }).click();
      await page.getByLabel('Código de 6 dígitos').fill(await smtp.codeFor(address));
      await check();
      await page.getByRole('button', { name: 'Verificar' }).click();
      await page.getByRole('heading', { name: 'Completá tus datos' }).waitFor();
      await page.getByRole('button', { name: 'Continuar' }).click(); // native validation stops an empty form
      await page.getByLabel(/Ocupación/).fill('Ingeniera');
      await page.getByLabel(/Provincia/).selectOption('caba');
      await page.getByLabel(/Fecha de nacimiento/).fill('1985-03-02');
      await page.getByLabel(/Acepto los términos/).check();
      await check();
      await page.getByRole('button', { name: 'Continuar' }).click();
      await page.getByRole('heading', { name: '¡Listo!' }).waitFor();
      await check();
      await context.close();

      expect(violations).toEqual([]);
      const resolved = await getSession(tenant.liveKey, session.id);
      expect(resolved.status).toBe('approved');
      const delivered = await eventually(
        () => receiver.events.find((e) => e.body.type === 'verification_session.approved'),
        20_000,
        'the approved webhook',
      );
      expect(delivered.body.data.object.id).toBe(session.id);
      expect(signatureValid(delivered.headers['x-service-signature'] as string, delivered.raw, endpoint.body.secret)).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  test('when the browser runs no JavaScript, then consent, a WhatsApp code (test mode) and the form still take the session to approved', async () => {
    const tenant = await buildTenant({ config: buildConfig([CHOICE_STEP, FORM_STEP]), modes: ['test'] });
    const session = await createSession(tenant.testKey, tenant.project.id);
    const whatsappRequestsBefore = whatsapp.requests.length;
    const context = await newPerson(browser, 'es-AR', { javaScript: false });
    const page = await context.newPage();
    await page.goto(session.url);
    await page.getByText('Modo de prueba').first().waitFor();
    await page.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
    await page.getByRole('button', { name: 'Verificar mi celular por WhatsApp' }).click();
    await page.getByLabel('Número de celular').fill('11 2345-6789');
    await page.getByRole('button', { name: 'Enviar código' }).click();
    await page.getByLabel('Código de 6 dígitos').fill('000000');
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByLabel(/Ocupación/).fill('Docente');
    await page.getByLabel(/Provincia/).selectOption('cordoba');
    await page.getByLabel(/Fecha de nacimiento/).fill('1990-05-17');
    await page.getByLabel(/Acepto los términos/).check();
    await page.getByRole('button', { name: 'Continuar' }).click();
    await page.getByRole('heading', { name: '¡Listo!' }).waitFor();
    await context.close();

    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.status).toBe('approved');
    expect(whatsapp.requests).toHaveLength(whatsappRequestsBefore);
  });

  test('when five wrong codes are entered, then the person sees the neutral failure page and the session is rejected', async () => {
    const tenant = await buildTenant({ config: buildConfig([{ id: 'mail', type: 'otp_email' }]), modes: ['live'], tokens: 10 });
    const session = await createSession(tenant.liveKey, tenant.project.id);
    const context = await newPerson(browser);
    const page = await context.newPage();
    await page.goto(session.url);
    await page.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
    const address = `wrong-${Date.now()}@example.com`;
    await page.getByLabel('Correo electrónico').fill(address);
    await page.getByRole('button', { name: 'Enviar código' }).click();
    const code = await smtp.codeFor(address);
    const wrong = code === '123123' ? '321321' : '123123';

    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Código de 6 dígitos').fill(wrong);
      await page.getByRole('button', { name: 'Verificar' }).click();
      if (i === 0) {
        await page.getByText('Te quedan 4 intentos.').first().waitFor();
        expect(await axeViolations(page)).toEqual([]); // the page with an error summary and an inline error
      }
    }

    await page.getByRole('heading', { name: 'No pudimos verificarte' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await context.close();
    const resolved = await getSession(tenant.liveKey, session.id);
    expect(resolved.status).toBe('rejected');
    expect(resolved.result.reason_codes).toEqual(['email_code_attempts_exceeded']);
  });

  test('when a second browser context opens a link already opened, then it is refused, and the QR answers 410', async () => {
    const tenant = await buildTenant({ config: buildConfig([FORM_STEP]), modes: ['test'] });
    const session = await createSession(tenant.testKey, tenant.project.id);
    const first = await newPerson(browser);
    const second = await newPerson(browser);
    const firstPage = await first.newPage();
    const opened = await firstPage.goto(session.url);
    if (opened?.status() !== 200) throw new Error(`first open: ${opened?.status()} ${await firstPage.content()}`);
    await firstPage.getByRole('heading', { name: 'Antes de empezar' }).waitFor();
    expect(await firstPage.getByText('Modo de prueba').count()).toBe(1);
    expect(await axeViolations(firstPage)).toEqual([]);

    const secondPage = await second.newPage();
    const response = await secondPage.goto(session.url);

    expect(response?.status()).toBe(403);
    await secondPage.getByRole('heading', { name: 'Este enlace ya se usó' }).waitFor();
    expect(await axeViolations(secondPage)).toEqual([]);
    expect((await api('GET', new URL(session.qr.svg).pathname)).status).toBe(410);
    await firstPage.reload();
    await firstPage.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
    await firstPage.getByLabel(/Ocupación/).fill(VALID_FORM.occupation);
    expect(await axeViolations(firstPage)).toEqual([]);
    await first.close();
    await second.close();
  });

  test('when the remaining pages are drawn (WhatsApp, face step, canceled, CSRF refusal, English), then axe finds no violation', async () => {
    const tenant = await buildTenant({
      config: buildConfig([
        { id: 'phone', type: 'otp_whatsapp' },
        { id: 'face', type: 'face_liveness' },
      ]),
      modes: ['test'],
    });
    const violations: string[] = [];
    const context = await newPerson(browser, 'en-US');
    const page = await context.newPage();
    const check = async (what: string) => violations.push(...(await axeViolations(page)).map((v) => `${what}: ${v}`));

    const first = await createSession(tenant.testKey, tenant.project.id);
    await page.goto(first.url);
    await page.getByRole('button', { name: 'I agree and want to continue' }).click();
    await page.getByLabel('Mobile number').fill('11 2345-6789');
    await check('phone entry (en)');
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('6-digit code').fill('000000');
    await check('phone code (en)');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Verify your face' }).waitFor();
    await check('face step (en)');

    const second = await createSession(tenant.testKey, tenant.project.id);
    const spanish = await newPerson(browser);
    const other = await spanish.newPage();
    await other.goto(second.url);
    await other.locator('input[name="_csrf"]').evaluate((input) => input.setAttribute('value', 'forged'));
    await other.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
    await other.getByRole('heading', { name: 'La página se desactualizó' }).waitFor();
    violations.push(...(await axeViolations(other)).map((v) => `csrf: ${v}`));
    await api('POST', `/v1/verification-sessions/${second.id}/cancel`, { key: tenant.testKey });
    await other.getByRole('link', { name: 'Volver a la verificación' }).click();
    await other.getByRole('heading', { name: 'La verificación fue cancelada' }).waitFor();
    violations.push(...(await axeViolations(other)).map((v) => `canceled: ${v}`));
    await context.close();
    await spanish.close();

    expect(violations).toEqual([]);
  });
});
