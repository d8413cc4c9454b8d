import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import {
  ROOT_DIR,
  api,
  axeViolations,
  launchBrowser,
  newPerson,
  startServiceFromEnv,
  startSmtp,
  testEnv,
  waitFor,
} from '@idv/testkit';

/** Kept by the test run: each page at a phone's and a desktop's size. */
const SCREENSHOTS = path.join(ROOT_DIR, '.run', 'screenshots', 'dashboard');

let browser: Browser;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let dashboard: Awaited<ReturnType<typeof startServiceFromEnv>>;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  smtp = await startSmtp();
  // A dashboard process of this test's own, sending its mail to this test's SMTP server.
  dashboard = await startServiceFromEnv('dashboard', {
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    SMTP_SECURE: 'false',
    SECURE_COOKIES: 'false',
    TRUSTED_PROXIES: '127.0.0.1,::1',
    DASHBOARD_BASE_URL: 'http://dashboard.test',
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.stop();
  await smtp?.close();
});

const seen: string[] = [];

/** Every page the journey meets: axe (no serious or critical violation), and two screenshots. */
async function check(page: Page, name: string): Promise<void> {
  expect(await axeViolations(page, ['serious', 'critical'])).toEqual([]);
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-desktop.png`), fullPage: true });
  if (size) await page.setViewportSize(size);
  seen.push(name);
}

const totp = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

test('an integrator signs up, is approved by an operator, publishes a flow, gets a key, and a person completes a session', async () => {
  const tag = Math.random().toString(36).slice(2, 8);
  const owner = {
    organisation: `Journey ${tag} S.A.`,
    name: 'Ana Journey',
    email: `ana-${tag}@journey.example`,
    password: 'una frase larga de prueba',
  };
  const integrator = await newPerson(browser);
  const page = await integrator.newPage();

  // Sign up, and confirm the e-mail from the link the SMTP server received.
  await page.goto(`${dashboard.url}/sign-up`);
  await check(page, 'sign-up');
  await page.getByRole('button', { name: 'Crear cuenta' }).click();
  await page.getByRole('alert').first().waitFor();
  await check(page, 'sign-up-errors');
  await page.getByLabel('Nombre de la organización').fill(owner.organisation);
  await page.getByLabel('Tu nombre').fill(owner.name);
  await page.getByLabel('Correo electrónico').fill(owner.email);
  await page.getByLabel('Contraseña').fill(owner.password);
  await page.getByRole('button', { name: 'Crear cuenta' }).click();
  await page.getByRole('heading', { name: 'Revisá tu correo' }).waitFor();
  const mail = (await smtp.mailTo(owner.email)).raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const link = /http:\/\/dashboard\.test(\/confirm-email\?token=[A-Za-z0-9_-]+)/.exec(mail)![1]!;
  await page.goto(`${dashboard.url}${link}`);
  await check(page, 'confirm-email');
  await page.getByRole('button', { name: 'Confirmar correo' }).click();
  await page.getByRole('heading', { name: 'Correo confirmado' }).waitFor();

  // Sign in: the account waits for approval.
  await page.goto(`${dashboard.url}/sign-in`);
  await check(page, 'sign-in');
  await page.getByLabel('Correo electrónico').fill(owner.email);
  await page.getByLabel('Contraseña').fill(owner.password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await page.getByRole('heading', { name: 'Tu cuenta espera aprobación' }).waitFor();
  await check(page, 'home-pending');

  // An operator (created as the CLI does) enrols TOTP and approves the account in the console.
  const operatorCredentials = { email: `ops-${tag}@idv.example`, name: 'Olga Ops', password: 'otra frase larga de operadora' };
  const created = await fetch(`${dashboard.url}/internal/operators`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-idv-internal-token': testEnv().internalToken },
    body: JSON.stringify(operatorCredentials),
  });
  expect(created.status).toBe(201);
  const operatorContext = await newPerson(browser);
  const console = await operatorContext.newPage();
  await console.goto(`${dashboard.url}/operator/sign-in`);
  await console.getByLabel('Correo electrónico').fill(operatorCredentials.email);
  await console.getByLabel('Contraseña').fill(operatorCredentials.password);
  await console.getByRole('button', { name: 'Ingresar' }).click();
  await console.getByRole('heading', { name: 'Configurá tu segundo factor' }).waitFor();
  await check(console, 'operator-enrol');
  const secret = (await console.locator('.secret-text').textContent())!.trim();
  await console.getByLabel('Código').fill(totp(secret));
  await console.getByRole('button', { name: 'Confirmar' }).click();
  await console.getByRole('heading', { name: 'Tus códigos de recuperación' }).waitFor();
  await check(console, 'operator-recovery-codes');
  await console.getByRole('link', { name: 'Ya los guardé' }).click();
  await console.getByRole('link', { name: owner.organisation }).waitFor();
  await check(console, 'operator-pending');
  await console.getByRole('link', { name: owner.organisation }).click();
  await check(console, 'operator-account');
  await console.getByLabel('Motivo').first().fill('Datos de la organización verificados');
  await console.getByRole('button', { name: 'Aprobar' }).click();
  await console.getByText('Cuenta aprobada').waitFor();

  // The integrator builds the flow in the editor (the starter's form and e-mail code, and a DNI step moved
  // first by drag and drop; consent is implicit) and publishes it to test.
  await page.goto(`${dashboard.url}/home`);
  await page.getByRole('heading', { name: 'Tu cuenta está activa' }).waitFor();
  await page.getByRole('link', { name: 'Proyectos' }).click();
  await check(page, 'projects');
  await page.getByLabel('Nombre del proyecto').fill('Alta de clientes');
  await page.getByRole('button', { name: 'Crear proyecto' }).click();
  await page.getByRole('heading', { name: 'Alta de clientes' }).waitFor();
  await check(page, 'project-draft');
  await page.getByRole('button', { name: 'Agregar: Documento argentino' }).click();
  const documentStep = page.locator('li.step', { hasText: 'Paso 4: Documento argentino' });
  await documentStep.waitFor();
  await documentStep.getByLabel('Pasaporte').uncheck();
  await documentStep.getByLabel('Licencia de conducir').uncheck();
  // A problem shows at its input as it is typed (the save as you go answers it), and goes when fixed.
  const stepId = documentStep.getByLabel('Identificador del paso');
  await stepId.fill('Mi DNI');
  await documentStep.getByText('must start with a lowercase letter').waitFor();
  expect(await stepId.getAttribute('aria-invalid')).toBe('true');
  await check(page, 'flow-editor-problem');
  await stepId.fill('dni');
  await page.getByText('El borrador es válido: se puede publicar.').waitFor();
  await page.getByText('Borrador guardado.').waitFor();
  // Dragged by its handle onto the first step, as a hand does: press, move in small steps, release (on a
  // screen tall enough to show both steps).
  await page.setViewportSize({ width: 1280, height: 3000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const from = (await documentStep.locator('.drag-handle').boundingBox())!;
  const onto = (await page.locator('li.step', { hasText: 'Paso 2: Formulario' }).boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 20, { steps: 5 });
  await page.mouse.move(onto.x + onto.width / 2, onto.y + 20, { steps: 10 });
  await page.mouse.up();
  await page.locator('li.step', { hasText: 'Paso 2: Documento argentino' }).waitFor();
  await check(page, 'flow-editor');
  // "Try it": the draft as it stands, without publishing it, on this screen (a QR beside it for a phone);
  // the person's pages say it is a try, and the dashboard's page follows the session.
  await page.getByRole('button', { name: 'Probar el borrador' }).click();
  await page.getByRole('heading', { name: 'Prueba del borrador' }).waitFor();
  await check(page, 'try');
  const tryUrl = await page.getByRole('link', { name: 'Abrir el flujo en esta pantalla' }).getAttribute('href');
  const tester = await newPerson(browser);
  const tryPage = await tester.newPage();
  await tryPage.goto(tryUrl!);
  await tryPage.getByText(/Prueba del borrador: el resultado se ve solo en el panel/).waitFor();
  await tryPage.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
  await tryPage.getByRole('heading', { name: 'Frente del documento', exact: true }).waitFor({ timeout: 30_000 });
  await tester.close();
  await page.getByRole('link', { name: 'Actualizar el estado' }).click();
  await page.locator('[data-status="in_progress"]').waitFor();
  await page.getByRole('link', { name: /Volver al editor/ }).click();
  await page.getByRole('button', { name: 'Publicar en prueba' }).click();
  await page.getByRole('heading', { name: /Publicar en Prueba/ }).waitFor();
  await check(page, 'publish-preview');
  await page.getByRole('button', { name: 'Confirmar y publicar' }).click();
  await page.getByText('Publicaste cfg_00000001 en Prueba').waitFor();

  // A test key, its secret shown once.
  await page.getByRole('link', { name: 'Claves de API' }).click();
  await check(page, 'keys');
  await page.getByLabel('Nombre (para reconocerla)').fill('backend');
  await page.getByRole('button', { name: 'Crear clave' }).click();
  await page.getByRole('heading', { name: 'Tu clave nueva' }).waitFor();
  await check(page, 'key-created');
  const key = await page.getByLabel('Clave secreta').inputValue();
  expect(key).toMatch(/^sk_test_/);

  // A session over the public API with that key; the person completes the flow in test mode.
  const projectId = /prj_[0-9A-Z]{26}/.exec(await (await integrator.request.get(`${dashboard.url}/projects`)).text())![0];
  const session = await waitFor(async () => {
    const answer = await api('POST', '/v1/verification-sessions', { key, body: { project_id: projectId } });
    return answer.status === 201 ? answer.body : undefined;
  }, 5000);
  const person = await (await newPerson(browser)).newPage();
  await person.goto(session.url);
  await person.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
  // The DNI step in test mode: the sample card's three photos, each read as a real photo is.
  for (const side of ['Frente del documento', 'Dorso del documento', 'Frente, inclinado']) {
    await person.getByRole('heading', { name: side, exact: true }).waitFor({ timeout: 30_000 });
    await person.getByRole('button', { name: 'Usar: DNI válido' }).click();
  }
  await person.getByLabel(/Nombre y apellido/).waitFor({ timeout: 30_000 });
  await person.getByLabel(/Nombre y apellido/).fill('Juana Pérez');
  await person.getByRole('button', { name: 'Continuar' }).click();
  await person.getByLabel('Correo electrónico').fill(`juana-${tag}@example.com`);
  await person.getByRole('button', { name: 'Enviar código' }).click();
  await person.getByLabel('Código de 6 dígitos').fill('000000');
  await person.getByRole('button', { name: 'Verificar' }).click();
  await person.getByRole('heading', { name: '¡Listo!' }).waitFor();
  const verdict = await waitFor(async () => {
    const answer = await api('GET', `/v1/verification-sessions/${session.id}`, { key });
    return answer.body.status === 'approved' ? answer.body : undefined;
  }, 15_000);
  expect(verdict.mode).toBe('test');

  // Publish the same flow to live: the diff against nothing, then the live pointer.
  await page.goto(`${dashboard.url}/projects/${projectId}`);
  await page.getByRole('button', { name: 'Publicar en real' }).click();
  await page.getByRole('button', { name: 'Confirmar y publicar' }).click();
  await page.getByText('Publicaste cfg_00000002 en Real').waitFor();
  await page.getByRole('link', { name: 'Historial de versiones' }).click();
  await check(page, 'history');

  // The checklist says what is still missing before live traffic: a live key, tokens and a tested webhook.
  await page.goto(`${dashboard.url}/home`);
  const checklist = page.locator('.checklist');
  const done = (await checklist.locator('li.done').allTextContents()).join(' | ');
  const missing = (await checklist.locator('li.missing').allTextContents()).join(' | ');
  for (const item of ['Cuenta aprobada', 'Un flujo publicado en real']) expect(done).toContain(item);
  for (const item of ['Una clave real', 'Fichas disponibles', 'Un webhook que recibe los veredictos'])
    expect(missing).toContain(item);
  await check(page, 'home-checklist');

  // The audit log names what the journey did, the operator's approval as the service's operator's.
  await page.getByRole('link', { name: 'Auditoría' }).click();
  await page.getByRole('cell', { name: 'Publicó un flujo en real' }).first().waitFor();
  await page.getByRole('cell', { name: 'El operador del servicio' }).first().waitFor();
  await check(page, 'audit');

  // No tokens were credited: the tokens page says live sessions would be refused.
  await page.getByRole('link', { name: 'Fichas' }).click();
  await page.getByText('No quedan fichas').waitFor();
  await check(page, 'balance');

  // The month's usage: the sessions the journey made, per mode and status, with the year's chart.
  await page.getByRole('link', { name: 'Uso', exact: true }).click();
  await page.getByRole('img', { name: /^Sesiones en modo prueba por mes y estado/ }).waitFor();
  await page.getByRole('link', { name: 'Descargar CSV' }).waitFor();
  await check(page, 'usage');

  // The test session the person went through: in the list, its timeline, its personal data behind an audited show.
  await page.getByRole('link', { name: 'Sesiones', exact: true }).click();
  await page.getByLabel('Modo').selectOption('test');
  await page.getByRole('button', { name: 'Filtrar' }).click();
  await check(page, 'sessions');
  await page.getByRole('link', { name: session.id }).click();
  await page.getByText('Abrió el enlace').waitFor();
  await page.getByText('Decidida: Aprobada').waitFor();
  expect(await page.getByText('Juana Pérez').count()).toBe(0);
  await check(page, 'session');
  await page.getByRole('button', { name: 'Mostrar los datos personales' }).click();
  await page.getByText('Juana Pérez').waitFor();
  await check(page, 'session-personal-data');
  await page.getByRole('link', { name: 'Quién vio los datos personales' }).click();
  await page.getByRole('cell', { name: 'Mostró los datos personales de una sesión' }).waitFor();
  await check(page, 'session-access-trail');

  expect(seen.length).toBeGreaterThanOrEqual(21);
}, 180_000);
