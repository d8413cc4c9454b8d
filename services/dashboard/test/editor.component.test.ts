import { FlowConfigSchema } from '@idv/contracts';
import type { Page, TestBrowser } from './support/browser';
import { formFieldsOf } from './support/form-fields';
import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { draftOf, newProject } from './support/projects';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'editor');

/** Sends the editor's form as a browser without scripts does, with a button pressed and some inputs changed. */
async function press(
  browser: TestBrowser,
  projectId: string,
  page: Page,
  button: Record<string, string>,
  changes: Record<string, string | null> = {},
): Promise<Page> {
  const fields = formFieldsOf(page.html, 'flow-editor').filter(([name]) => !(name in changes));
  for (const [name, value] of Object.entries(changes)) if (value !== null) fields.push([name, value]);
  fields.push(...Object.entries(button));
  const body = new URLSearchParams(fields).toString();
  return browser.request('POST', `/projects/${projectId}/editor`, body, { 'content-type': 'application/x-www-form-urlencoded' });
}

async function savedDraft(browser: TestBrowser, projectId: string): Promise<any> {
  return JSON.parse(draftOf((await browser.get(`/projects/${projectId}/json`)).html));
}

/** A configuration with every step type and every parameter, each given explicitly. */
const EVERYTHING = {
  steps: [
    {
      id: 'datos',
      type: 'form',
      title: 'Tus datos',
      fields: [
        { name: 'nombre', type: 'text', label: 'Nombre', required: true, minLength: 2, maxLength: 80 },
        {
          name: 'provincia',
          type: 'select',
          label: 'Provincia',
          required: false,
          options: [
            { value: 'caba', label: 'CABA' },
            { value: 'cordoba', label: 'Córdoba' },
          ],
        },
        { name: 'nacimiento', type: 'date', label: 'Nacimiento', required: true, min: '1900-01-01', max: '2010-12-31' },
        { name: 'ingresos', type: 'number', label: 'Ingresos', required: false, min: 0, max: 1000000, integer: true },
        { name: 'acepto', type: 'checkbox', label: 'Acepto', required: true },
      ],
    },
    { id: 'dni', type: 'document_ar', documents: ['dni', 'passport'], registryCheck: true, maxAttempts: 4 },
    { id: 'cara', type: 'face_liveness', compareWithDocument: true, allowUpload: false, maxAttempts: 2 },
    {
      id: 'contacto',
      type: 'choice',
      min: 1,
      options: [
        { id: 'correo', type: 'otp_email' },
        { id: 'whatsapp', type: 'otp_whatsapp' },
      ],
    },
  ],
  options: {
    documentData: true,
    verifiedChannels: true,
    formData: true,
    evidenceLinks: false,
    webhookEvents: ['verification_session.approved', 'verification_session.rejected'],
    privacyPolicyUrl: 'https://example.com/privacidad',
  },
};

describe('the flow editor without scripts: every button is a form post the server applies', () => {
  it('builds a flow with the buttons alone, then publishes it to test after the diff', async () => {
    const { browser } = await signedInOwner();
    const projectId = await newProject(browser);
    let page = await browser.get(`/projects/${projectId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Paso 1: Consentimiento');
    expect(page.text).toContain('Paso 2: Formulario');
    expect(page.text).toContain('Paso 3: Código por correo');

    page = await press(browser, projectId, page, { op: 'add:document_ar@steps' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Paso 4: Documento argentino');
    page = await press(browser, projectId, page, { op: 'field:select@steps.0.fields' });
    page = await press(browser, projectId, page, { op: 'option@steps.0.fields.1.options' });
    page = await press(browser, projectId, page, { op: 'up@steps.2' }, { 'steps.0.fields.1.label': 'Provincia' });
    page = await press(browser, projectId, page, { op: 'add:choice@steps' });
    page = await press(browser, projectId, page, { op: 'add:otp_whatsapp@steps.3.options' });
    page = await press(browser, projectId, page, { op: 'remove@steps.2' });

    const draft = await savedDraft(browser, projectId);
    expect(draft.steps.map((step: { type: string }) => step.type)).toEqual(['form', 'document_ar', 'choice']);
    expect(draft.steps[0].fields[1]).toMatchObject({
      type: 'select',
      label: 'Provincia',
      options: [{ value: 'opcion_1' }, { value: 'opcion_2' }],
    });
    expect(draft.steps[1]).toMatchObject({ documents: ['dni', 'passport', 'licence'], registryCheck: false, maxAttempts: 3 });
    expect(draft.steps[2].options.map((option: { type: string }) => option.type)).toEqual(['otp_email', 'otp_whatsapp']);

    // Labels are required: the page says which, at each input, and publication waits for them.
    expect(page.html).toMatch(/id="f-steps\.0\.fields\.1\.options\.0\.label"[^>]*aria-invalid="true"/);
    const refused = await press(browser, projectId, page, { then: 'publish_test' }, { 'steps.0.fields.1.options.0.label': '' });
    expect(refused.status).toBe(422);
    const fixed = await press(
      browser,
      projectId,
      refused,
      { then: 'publish_test' },
      { 'steps.0.fields.1.options.0.label': 'CABA', 'steps.0.fields.1.options.1.label': 'Córdoba' },
    );
    expect(fixed.status).toBe(200);
    expect(fixed.text).toContain('Este modo no tiene versión publicada todavía');
    const published = await browser.post(
      `/projects/${projectId}/publish`,
      { mode: 'test', source: 'draft', against: 'none' },
      fixed,
    );
    expect(published.status).toBe(303);
    const versions = await dashboard.platform.call('listConfigVersions', { id: projectId });
    const frozen = versions.data[0]!.config as { steps: { type: string }[] };
    expect(frozen.steps.map((step) => step.type)).toEqual(['form', 'document_ar', 'choice']);
  });

  it('shows each problem at its input and in the summary, and the save as you go answers them as JSON', async () => {
    const { browser } = await signedInOwner();
    const projectId = await newProject(browser);
    const page = await browser.get(`/projects/${projectId}`);
    expect(page.html).toMatch(/id="no-problems"[^>]*>/);

    const wrong = await press(browser, projectId, page, { then: 'save' }, { 'steps.0.id': 'Mal Id', 'steps.1.id': 'datos' });
    expect(wrong.status).toBe(422);
    expect(wrong.html).toMatch(/id="f-steps\.0\.id"[^>]*aria-invalid="true"/);
    expect(wrong.html).toContain('must start with a lowercase letter');
    expect(wrong.html).not.toMatch(/id="f-steps\.1\.id"[^>]*aria-invalid/);
    expect(wrong.text).toContain('El borrador tiene 1 problema');

    const duplicate = await press(browser, projectId, wrong, { then: 'save' }, { 'steps.0.id': 'datos', 'steps.1.id': 'datos' });
    expect(duplicate.html).toMatch(/id="f-steps\.1\.id"[^>]*aria-invalid="true"/);
    expect(duplicate.html).toContain('duplicate step id');

    const autosave = await fetch(`${dashboard.url}/projects/${projectId}/draft`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-autosave': '1',
        'x-forwarded-for': browser.address,
        cookie: [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
      },
      body: new URLSearchParams({
        _csrf: duplicate.csrfToken(),
        config: JSON.stringify({ steps: [{ id: 'x', type: 'otp_sms' }] }),
      }),
    });
    expect(autosave.status).toBe(200);
    const answer = (await autosave.json()) as { saved: boolean; problems: { path: string; message: string }[] };
    expect(answer.saved).toBe(true);
    expect(answer.problems.map((problem) => problem.path)).toContain('steps.0.type');
    expect((await savedDraft(browser, projectId)).steps[0].type).toBe('otp_sms');
  });

  it('round-trips a configuration with every step type and parameter through the form unchanged', async () => {
    const { browser } = await signedInOwner();
    const projectId = await newProject(browser);
    expect(FlowConfigSchema.safeParse(EVERYTHING).success).toBe(true);
    const json = await browser.get(`/projects/${projectId}/json`);
    await browser.post(`/projects/${projectId}/draft`, { config: JSON.stringify(EVERYTHING, null, 2) }, json);

    const page = await browser.get(`/projects/${projectId}`);
    expect(page.text).toContain('El borrador es válido');
    const saved = await press(browser, projectId, page, { then: 'save' });
    expect(saved.status).toBe(200);
    expect(await savedDraft(browser, projectId)).toEqual(EVERYTHING);
  });

  it('warns when no verdict event is sent to webhooks', async () => {
    const { browser } = await signedInOwner();
    const projectId = await newProject(browser);
    const page = await browser.get(`/projects/${projectId}`);
    expect(page.html).toMatch(/id="no-verdict-warning"[^>]*hidden/);
    const none = await press(
      browser,
      projectId,
      page,
      { then: 'save' },
      {
        'options.webhookEvents~verification_session.approved': null,
        'options.webhookEvents~verification_session.rejected': null,
        'options.webhookEvents~verification_session.completed': null,
      },
    );
    expect(none.html).not.toMatch(/id="no-verdict-warning"[^>]*hidden/);
    expect(none.text).toContain('tu sistema no se va a enterar del resultado');
    expect((await savedDraft(browser, projectId)).options.webhookEvents).toEqual([]);
  });

  it('answers a button that names nothing with a page, and applies a burst of the same button once', async () => {
    const { browser } = await signedInOwner();
    const projectId = await newProject(browser);
    const page = await browser.get(`/projects/${projectId}`);
    for (const op of [
      'remove@steps.9',
      'move@steps.0>7',
      'add:consent@steps',
      'field:file@steps.0.fields',
      'drop@steps',
      'x'.repeat(300),
    ]) {
      const answer = await press(browser, projectId, page, { op });
      expect(answer.status).toBe(422);
      expect(answer.text).toContain('Ese botón ya no corresponde al borrador');
    }

    // Six presses sent at once from the same page: the form is the state, so one step is added, not six.
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => press(browser, projectId, page, { op: 'add:otp_whatsapp@steps' })),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect((await savedDraft(browser, projectId)).steps.map((step: { type: string }) => step.type)).toEqual([
      'form',
      'otp_email',
      'otp_whatsapp',
    ]);
  });

  it("keeps another account's editor out of reach and a viewer's read-only", async () => {
    const first = await signedInOwner();
    const projectId = await newProject(first.browser);
    const page = await first.browser.get(`/projects/${projectId}`);
    const stranger = await signedInOwner();
    expect((await stranger.browser.get(`/projects/${projectId}`)).status).toBe(404);
    const strangerPage = await stranger.browser.get('/projects');
    const fields = new URLSearchParams([...formFieldsOf(page.html, 'flow-editor'), ['then', 'save']]);
    fields.set('_csrf', strangerPage.csrfToken());
    const foreign = await stranger.browser.request('POST', `/projects/${projectId}/editor`, fields.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(foreign.status).toBe(404);

    await dashboard.pool.query('UPDATE memberships SET role = $2 WHERE user_id = $1', [first.userId, 'viewer']);
    const asViewer = await first.browser.get(`/projects/${projectId}`);
    expect(asViewer.status).toBe(200);
    expect(asViewer.html).toContain('readonly');
    expect(asViewer.html).not.toContain('name="op"');
    expect(asViewer.html).not.toContain('/assets/editor.js');
    expect((await press(first.browser, projectId, asViewer, { op: 'add:form@steps' })).status).toBe(403);
  });

  it('serves its script from this origin, small, and the page allows it and its saves only', async () => {
    const { browser } = await signedInOwner();
    const projectId = await newProject(browser);
    const page = await browser.get(`/projects/${projectId}`);
    expect(page.html).toContain('<script src="/assets/editor.js" defer>');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const script = await fetch(`${dashboard.url}/assets/editor.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    const bytes = (await script.arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(1000);
    expect(bytes).toBeLessThan(50 * 1024);
  });
});
