import { newOwner, type Dashboard } from './harness';
import { codeAt, secretOn } from './totp';

const internal = (dashboard: Dashboard, path: string, body: unknown) =>
  fetch(`${dashboard.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-idv-internal-token': process.env.INTERNAL_TOKEN! },
    body: JSON.stringify(body),
  });

/** An operator created as the CLI does, signed in with the password only. */
export async function operatorWithPassword(dashboard: Dashboard) {
  const credentials = { ...newOwner('op'), password: 'una frase de operador segura' };
  const created = await internal(dashboard, '/internal/operators', {
    email: credentials.email,
    name: credentials.name,
    password: credentials.password,
  });
  expect(created.status).toBe(201);
  const browser = dashboard.browser();
  const answer = await browser.post(
    '/operator/sign-in',
    { email: credentials.email, password: credentials.password },
    await browser.get('/operator/sign-in'),
  );
  return { browser, credentials, answer };
}

/** Through the enrolment: the TOTP secret read off the page, as a person would type it into an app. */
export async function enrolledOperator(dashboard: Dashboard) {
  const { browser, credentials, answer } = await operatorWithPassword(dashboard);
  expect(answer.location).toBe('/operator/enroll');
  const enrol = await browser.get('/operator/enroll');
  const secret = secretOn(enrol);
  const enrolledAt = Date.now();
  const done = await browser.post('/operator/enroll', { code: codeAt(secret, 0, enrolledAt) }, enrol);
  expect(done.status).toBe(200);
  const codes = [...done.html.matchAll(/<code>([a-z0-9]{5}-[a-z0-9]{5})<\/code>/g)].map((match) => match[1]!);
  return { browser, credentials, secret, codes, enrolledAt };
}
