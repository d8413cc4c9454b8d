import { buildTenant } from '@idv/testkit';
import type { Browser } from 'playwright-core';
import { axeViolations, launchBrowser, newPerson } from './browser';
import { FORM_STEP, VALID_FORM, buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, statusOf } from './person';
import { startPrivateStack } from './providers';

/**
 * Link expiry and abandonment are timers of the sessions service; with TIME_SCALE 0.002 a one-hour
 * link expires in 7.2 s and a flow idle for "30 minutes" is abandoned after 3.6 s.
 */
const TIME_SCALE = 0.002;
let privateStack: Awaited<ReturnType<typeof startPrivateStack>>;
let browser: Browser;
/** Created first so that its link expires while the abandonment test runs. */
let expiring: Promise<{ key: string; session: Awaited<ReturnType<typeof createSession>> }>;

beforeAll(async () => {
  // Both are waited for and kept, so that afterAll stops the stack even when the browser fails to start.
  const [stack, launched] = await Promise.allSettled([
    startPrivateStack({ database: 'idv_test_flow_timeouts', env: { TIME_SCALE: String(TIME_SCALE), LOG_LEVEL: 'warn' } }),
    launchBrowser(),
  ]);
  if (stack.status === 'fulfilled') privateStack = stack.value;
  if (launched.status === 'fulfilled') browser = launched.value;
  for (const started of [stack, launched]) if (started.status === 'rejected') throw started.reason;
  expiring = (async () => {
    const tenant = await buildTenant({ config: buildConfig([FORM_STEP]), modes: ['test'] });
    return { key: tenant.testKey, session: await createSession(tenant.testKey, tenant.project.id, { expires_in_hours: 1 }) };
  })();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await privateStack?.stop();
});

const flowUrl = () => privateStack.stack.url('flow-runner');

test('when the person leaves the flow idle, then the session is abandoned and the page says the verification expired', async () => {
  const tenant = await buildTenant({ config: buildConfig([FORM_STEP]), modes: ['test'] });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const context = await newPerson(browser);
  const page = await context.newPage();
  await page.goto(session.url);
  await page.getByRole('button', { name: 'Acepto y quiero continuar' }).click();
  await page.getByRole('heading', { name: 'Completá tus datos' }).waitFor();

  await eventually(async () => (await getSession(tenant.testKey, session.id)).status === 'abandoned', 20_000, 'abandonment');
  await page.getByLabel(/Ocupación/).fill(VALID_FORM.occupation);
  await page.getByLabel(/Provincia/).selectOption('caba');
  await page.getByLabel(/Fecha de nacimiento/).fill('1985-03-02');
  await page.getByLabel(/Acepto los términos/).check();
  await page.getByRole('button', { name: 'Continuar' }).click();

  await page.getByRole('heading', { name: 'La verificación venció' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await page.reload();
  await page.getByRole('heading', { name: 'La verificación venció' }).waitFor();
  await context.close();
  const abandoned = await getSession(tenant.testKey, session.id);
  expect(abandoned.result.outcome).toBe('abandoned');
});

test('when a link is opened after it expired, then the person gets the expired page; an unknown link gets the invalid-link page', async () => {
  const { key, session } = await expiring;
  await eventually(async () => (await getSession(key, session.id)).status === 'expired', 30_000, 'link expiry');
  const context = await newPerson(browser);
  const page = await context.newPage();

  const expired = await page.goto(session.url);
  await page.getByRole('heading', { name: 'El enlace venció' }).waitFor();
  const expiredViolations = await axeViolations(page);
  const unknown = await page.goto(`${flowUrl()}/l/lt_${'x'.repeat(32)}`);
  await page.getByRole('heading', { name: 'Enlace no válido' }).waitFor();
  const unknownViolations = await axeViolations(page);
  await context.close();

  expect(expired?.status()).toBe(410);
  expect(unknown?.status()).toBe(404);
  expect([...expiredViolations, ...unknownViolations]).toEqual([]);
  expect(statusOf(await new Person(flowUrl()).get(session.url))).toBe('expired');
});
