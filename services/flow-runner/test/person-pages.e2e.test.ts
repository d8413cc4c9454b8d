import { buildTenant, testEnv } from '@idv/testkit';
import { CHOICE_STEP, FORM_STEP, buildConfig, createSession, eventually } from './fixtures';
import { Person, h1Of, inputValue, statusOf, type Page } from './person';

/**
 * What the person reads on the pages that frame the flow: the consent (what is collected, why, for
 * how long, the integrator's privacy text), the test-mode banner, and the rejection page (what went
 * wrong in their words, and what to do).
 */
const flowUrl = () => testEnv().flowUrl;

async function openFlow(steps: unknown[], options: Record<string, unknown> = {}, acceptLanguage?: string) {
  const tenant = await buildTenant({ config: buildConfig(steps, options), modes: ['test'] });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const person = new Person(flowUrl(), acceptLanguage);
  const consent = await person.get(session.url);
  return { tenant, session, person, consent };
}

const listItems = (page: Page, list: string) =>
  [...(new RegExp(`<ul class="${list}">([\\s\\S]*?)</ul>`).exec(page.text)?.[1] ?? '').matchAll(/<li>([^<]*)<\/li>/g)].map(
    (match) => match[1]!.trim(),
  );

describe('the consent page', () => {
  test('when the flow reads a document with the registry, judges the face against it and asks for codes and a form, then the consent names each, the purpose, the retention and the privacy text', async () => {
    const { consent } = await openFlow(
      [
        { id: 'doc', type: 'document_ar', documents: ['dni'], registryCheck: true },
        { id: 'face', type: 'face_liveness' },
        CHOICE_STEP,
        FORM_STEP,
      ],
      { privacyPolicyUrl: 'https://acme.example/privacidad' },
    );

    expect(h1Of(consent)).toBe('Antes de empezar');
    expect(listItems(consent, 'collects')).toEqual([
      expect.stringContaining('Fotos de tu documento'),
      expect.stringContaining('Registro Nacional de las Personas'),
      expect.stringContaining('Fotos de tu cara'),
      expect.stringContaining('comparación biométrica'),
      expect.stringContaining('correo electrónico'),
      expect.stringContaining('WhatsApp'),
      expect.stringContaining('formulario'),
    ]);
    expect(consent.text).toContain('solo para esta verificación');
    expect(consent.text).toContain('se borran de nuestros sistemas a los 30 días');
    expect(consent.text).toMatch(
      /<a href="https:\/\/acme\.example\/privacidad" rel="noopener noreferrer"[^>]*>Leé la política de privacidad/,
    );
  });

  test('when the flow is only a form and the browser prefers English, then the consent names the form alone and no privacy link', async () => {
    const { consent } = await openFlow([FORM_STEP], {}, 'en-US,en;q=0.9');

    expect(h1Of(consent)).toBe('Before you start');
    expect(listItems(consent, 'collects')).toEqual(['Your answers to a form.']);
    expect(consent.text).not.toContain('privacy policy');
    expect(consent.text).toContain('deleted from our systems after 30 days');
  });

  test('when a privacy text is not an https page, then the configuration is refused at publication', async () => {
    await expect(
      buildTenant({ config: buildConfig([FORM_STEP], { privacyPolicyUrl: 'http://acme.example/p' }), modes: ['test'] }),
    ).rejects.toThrow(/privacyPolicyUrl/);
  });
});

describe('the test-mode banner', () => {
  test('when the flow has no code step, then the banner does not mention the test code; with one, it does', async () => {
    const withoutCode = await openFlow([FORM_STEP]);
    const withCode = await openFlow([CHOICE_STEP]);

    expect(withoutCode.consent.text).toContain('Modo de prueba');
    expect(withoutCode.consent.text).not.toContain('000000');
    expect(withCode.consent.text).toContain('el código 000000 es válido');
  });
});

describe('the rejection page', () => {
  test('when the consent is declined, then the page says so and how to start again, never the reason code', async () => {
    const { person } = await openFlow([FORM_STEP]);

    const final = await person.submit({ action: 'decline' });

    expect(statusOf(final)).toBe('rejected');
    expect(listItems(final, 'reasons')).toEqual(['No aceptaste que usemos tus datos, así que no pudimos seguir.']);
    expect(final.text).toContain('Si cambiaste de idea, pedile a quien te mandó el enlace uno nuevo.');
    expect(final.text).not.toContain('consent_declined');
  });

  test('when a sample passport is expired, then the page says the document expired and to use a valid one, and says it again on reload', async () => {
    const { session, person } = await openFlow([{ id: 'doc', type: 'document_ar', documents: ['passport'] }]);
    await person.submit({ action: 'accept' });

    for (const side of ['front', 'front_angle']) {
      await person.submit({ action: 'sample', side, sample: 'passport-expired' });
      await eventually(async () => {
        const page = await person.get(`/s/${session.id}`);
        return page.text.includes('http-equiv="refresh"') ? undefined : page;
      }, 30_000);
      if (statusOf(person.last!) === 'rejected') break;
      expect(inputValue(person.last!.text, 'side')).toBe('front_angle');
    }
    const final = await person.get(`/s/${session.id}`);

    expect(statusOf(final)).toBe('rejected');
    expect(listItems(final, 'reasons')).toEqual(['Tu documento está vencido.']);
    expect(final.text).toContain('Si tenés un documento vigente');
    expect(final.text).not.toContain('document_expired');
  });
});

describe('the progress line', () => {
  test('when the person is on a document side, then the line counts the photos of the step as well as the steps', async () => {
    const dni = await openFlow([{ id: 'doc', type: 'document_ar', documents: ['dni'] }, FORM_STEP]);
    const passport = await openFlow([{ id: 'doc', type: 'document_ar', documents: ['passport'] }]);

    const dniFront = await dni.person.submit({ action: 'accept' });
    const passportFront = await passport.person.submit({ action: 'accept' });

    const progressOf = (page: Page) => /<p class="progress">([\s\S]*?)<\/p>/.exec(page.text)?.[1]?.replace(/\s+/g, ' ').trim();
    expect(progressOf(dniFront)).toBe('Paso 2 de 3 · foto 1 de 3');
    expect(progressOf(passportFront)).toBe('Paso 2 de 2 · foto 1 de 2');
  });
});

describe('the test-mode samples', () => {
  test('when the page is in English, then the sample documents and face sequences are labelled in English', async () => {
    const { person } = await openFlow(
      [
        { id: 'doc', type: 'document_ar', documents: ['passport'] },
        { id: 'face', type: 'face_liveness' },
      ],
      {},
      'en-US,en;q=0.9',
    );
    const documentPage = await person.submit({ action: 'accept' });

    expect(documentPage.text).toContain('Valid passport');
    expect(documentPage.text).not.toContain('Pasaporte válido');
  });
});
