import fc from 'fast-check';
import type { TestBrowser } from './support/browser';
import { newOwner, startDashboard, type Dashboard } from './support/harness';

let dashboard: Dashboard;
let member: TestBrowser;
let projectId: string;

beforeAll(async () => {
  dashboard = await startDashboard();
  const owner = newOwner('fuzz');
  member = dashboard.browser();
  await member.post('/sign-up', owner, await member.get('/sign-up'));
  await member.post('/sign-in', { email: owner.email, password: owner.password }, await member.get('/sign-in'));
  const list = await member.get('/projects');
  const created = await member.post(
    '/projects',
    { name: 'Fuzz', nonce: /name="nonce" value="([^"]+)"/.exec(list.html)![1]! },
    list,
  );
  projectId = created.location!.split('/').at(-1)!;
});
afterAll(async () => {
  await dashboard?.stop();
});

/** Text a hostile or clumsy person types: any Unicode, control characters, NUL, very long, or nothing. */
const hostileText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '<script>alert(1)</script>',
    '"><img src=x>',
    '../../etc/passwd',
    '%00',
    '\uFEFF',
    '🙂'.repeat(50),
  ),
  fc.integer({ min: 150, max: 3000 }).map((n) => 'x'.repeat(n)),
);

/** A form posted with any values in its fields (and a stray one), from a page of the same browser. */
const forms: { name: string; page: string; action: () => string; fields: string[]; browser: () => TestBrowser }[] = [
  {
    name: 'sign-up',
    page: '/sign-up',
    action: () => '/sign-up',
    fields: ['organisation', 'name', 'email', 'password'],
    browser: () => dashboard.browser(),
  },
  {
    name: 'sign-in',
    page: '/sign-in',
    action: () => '/sign-in',
    fields: ['email', 'password'],
    browser: () => dashboard.browser(),
  },
  { name: 'forgot', page: '/forgot', action: () => '/forgot', fields: ['email'], browser: () => dashboard.browser() },
  {
    name: 'operator sign-in',
    page: '/operator/sign-in',
    action: () => '/operator/sign-in',
    fields: ['email', 'password'],
    browser: () => dashboard.browser(),
  },
  { name: 'new key', page: '/keys', action: () => '/keys', fields: ['name', 'mode', 'scopes', 'nonce'], browser: () => member },
  { name: 'new project', page: '/projects', action: () => '/projects', fields: ['name', 'nonce'], browser: () => member },
  {
    name: 'draft',
    page: '/projects',
    action: () => `/projects/${projectId}/draft`,
    fields: ['config', 'then', 'nonce'],
    browser: () => member,
  },
  {
    name: 'flow editor',
    page: '/projects',
    action: () => `/projects/${projectId}/editor`,
    fields: [
      'steps.0.type',
      'steps.0.id',
      'steps.0.fields.0.type',
      'steps.0.fields.0.options.0.value',
      'steps.1.type',
      'steps.1.options.0.type',
      'steps.1.maxAttempts',
      'options.privacyPolicyUrl',
      'op',
      'then',
    ],
    browser: () => member,
  },
  {
    name: 'publish',
    page: '/projects',
    action: () => `/projects/${projectId}/publish`,
    fields: ['mode', 'source', 'against'],
    browser: () => member,
  },
  {
    name: 'new organisation',
    page: '/organisations',
    action: () => '/organisations',
    fields: ['organisation', 'nonce'],
    browser: () => member,
  },
  {
    name: 'switch organisation',
    page: '/organisations',
    action: () => '/organisations/switch',
    fields: ['account_id'],
    browser: () => member,
  },
  {
    name: 'join with an invitation',
    page: '/home',
    action: () => '/invitations/join',
    fields: ['token'],
    browser: () => member,
  },
  { name: 'rename', page: '/projects', action: () => `/projects/${projectId}/name`, fields: ['name'], browser: () => member },
  {
    name: 'reset',
    page: '/forgot',
    action: () => '/reset-password',
    fields: ['token', 'password'],
    browser: () => dashboard.browser(),
  },
];

describe('every form, fuzzed: a page with a clear answer, never a 500', () => {
  it.each(forms.map((form) => [form.name, form] as const))('%s', async (_name, form) => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(hostileText, { minLength: form.fields.length, maxLength: form.fields.length }),
        hostileText,
        async (values, stray) => {
          const browser = form.browser();
          const page = await browser.get(form.page);
          const fields = Object.fromEntries(form.fields.map((name, i) => [name, values[i]!]));
          const answer = await browser.post(form.action(), { ...fields, [`x${stray.length}`]: stray }, page);
          statuses.add(answer.status);
          expect(answer.status).toBeLessThan(500);
          expect(answer.headers.get('content-type') ?? 'text/html').toMatch(/text\/html/);
          expect(answer.html).not.toMatch(/at .*\(.*\.js:\d+:\d+\)/); // no stack trace
        },
      ),
      { numRuns: 12, seed: 20261130 },
    );
    // The forms were judged on their fields, not all turned away at the CSRF check.
    expect([...statuses].some((status) => status !== 403)).toBe(true);
  });
});
