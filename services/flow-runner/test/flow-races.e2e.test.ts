import { buildTenant, testEnv } from '@idv/testkit';
import pg from 'pg';
import { Pool as UndiciPool } from 'undici';
import { FORM_STEP, VALID_FORM, buildConfig, createSession, getSession } from './fixtures';
import { Person, statusOf, type Page } from './person';

/**
 * Bursts of parallel submissions of one flow (issue 9): every decision, and everything it causes
 * (resolving the session, sending a code, consuming an attempt), is taken only on the state it was
 * stored against; a submission that lost the race runs again on the newer state.
 */
const BURST = 30;
const flowUrl = () => testEnv().flowUrl;
let connections: UndiciPool;
let db: pg.Client;

beforeAll(async () => {
  connections = new UndiciPool(flowUrl(), { connections: BURST + 5 });
  db = new pg.Client({ connectionString: testEnv().databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await connections.close();
  await db.end();
});

interface StoredStep {
  status: string;
  otp?: { sends: number; attempts: number };
}

async function storedFlow(sessionId: string) {
  const { rows } = await db.query<{ state: { steps: Record<string, StoredStep>; formData: Record<string, string> } }>(
    'SELECT state FROM flow.flows WHERE session_id = $1',
    [sessionId],
  );
  return rows[0]!.state;
}

/** A person (test mode) whose submissions really race: one pre-opened connection each. */
async function racingPerson(steps: unknown[]) {
  const tenant = await buildTenant({ config: buildConfig(steps), modes: ['test'] });
  const session = await createSession(tenant.testKey, tenant.project.id);
  const person = new Person(flowUrl(), 'es-AR', connections);
  await person.get(session.url);
  await Promise.all(Array.from({ length: BURST }, () => person.get(`/s/${session.id}`)));
  return { tenant, session, person };
}

const burst = (count: number, submit: (i: number) => Promise<Page>) =>
  Promise.all(Array.from({ length: count }, (_, i) => submit(i)));

describe('a burst of parallel submissions of one flow', () => {
  test.each([1, 2, 3])(
    'when 30 wrong codes race on the last step and 000000 follows (round %i), then at most 5 are judged and the session is rejected',
    async () => {
      const { tenant, session, person } = await racingPerson([FORM_STEP, { id: 'mail', type: 'otp_email' }]);
      await person.submit({ action: 'accept' });
      await person.submit(VALID_FORM);
      await person.submit({ action: 'send', destination: 'race@example.com' });
      const codePage = person.last!;

      const pages = await burst(BURST, () => person.submit({ action: 'verify', code: '123456' }));
      person.last = codePage;
      const last = await person.submit({ action: 'verify', code: '000000' });

      const step = (await storedFlow(session.id)).steps.mail!;
      expect(step.otp!.attempts).toBe(5);
      expect(step.status).toBe('failed');
      expect(pages.filter((page) => page.status === 422)).toHaveLength(4);
      expect(statusOf(last)).toBe('rejected');
      const resolved = await getSession(tenant.testKey, session.id);
      expect(resolved.status).toBe('rejected');
      expect(resolved.result.reason_codes).toEqual(['email_code_attempts_exceeded']);
    },
  );

  test('when the right code races with wrong ones, then the session resolves once, with the verdict of the state it was stored on', async () => {
    const { tenant, session, person } = await racingPerson([{ id: 'mail', type: 'otp_email' }]);
    await person.submit({ action: 'accept' });
    await person.submit({ action: 'send', destination: 'race@example.com' });

    await burst(BURST, (i) => person.submit({ action: 'verify', code: i === BURST / 2 ? '000000' : '123456' }));

    const step = (await storedFlow(session.id)).steps.mail!;
    const resolved = await getSession(tenant.testKey, session.id);
    // Either the right code was judged before the fifth wrong one, or after the step had failed.
    if (step.status === 'passed') {
      expect(step.otp!.attempts).toBeLessThan(5);
      expect(resolved.status).toBe('approved');
    } else {
      expect(step.otp!.attempts).toBe(5);
      expect(resolved.status).toBe('rejected');
    }
  });

  test('when 30 code requests race, then one code is counted and the resend limit holds over further bursts', async () => {
    const { session, person } = await racingPerson([{ id: 'mail', type: 'otp_email' }]);
    await person.submit({ action: 'accept' });
    const destinationPage = person.last!;

    await burst(BURST, () => {
      person.last = destinationPage;
      return person.submit({ action: 'send', destination: 'burst@example.com' });
    });
    expect((await storedFlow(session.id)).steps.mail!.otp!.sends).toBe(1);

    const codePage = await person.get(`/s/${session.id}`);
    for (let round = 0; round < 6; round++) {
      // The resend cooldown (30 s scaled, on the service's clock) has to pass before each burst.
      await new Promise((resolve) => setTimeout(resolve, 30_000 * testEnv().timeScale + 50));
      await burst(BURST, () => {
        person.last = codePage;
        return person.submit({ action: 'resend' });
      });
    }
    // One first send and at most three resends, however many requests raced.
    expect((await storedFlow(session.id)).steps.mail!.otp!.sends).toBe(4);
  });

  test('when 30 different forms race, then exactly one is stored and it is the one the session reports', async () => {
    const { tenant, session, person } = await racingPerson([FORM_STEP]);
    await person.submit({ action: 'accept' });
    const formPage = person.last!;

    await burst(BURST, (i) => {
      person.last = formPage;
      return person.submit({ ...VALID_FORM, occupation: `Oficio ${i}` });
    });

    const resolved = await getSession(tenant.testKey, session.id);
    expect(resolved.status).toBe('approved');
    const stored = await storedFlow(session.id);
    expect(resolved.result.form_data).toEqual(stored.formData);
    expect(stored.formData.occupation).toMatch(/^Oficio \d+$/);
  });

  test('when 30 choices of different options race, then one option is active and the others stay open', async () => {
    const { session, person } = await racingPerson([
      {
        id: 'contact',
        type: 'choice',
        min: 1,
        options: [
          { id: 'mail', type: 'otp_email' },
          { id: 'phone', type: 'otp_whatsapp' },
        ],
      },
    ]);
    await person.submit({ action: 'accept' });
    const choicePage = person.last!;

    const pages = await burst(BURST, (i) => {
      person.last = choicePage;
      return person.submit({ option: i % 2 === 0 ? 'mail' : 'phone' });
    });

    const { rows } = await db.query<{ state: { activeOption: Record<string, string | null> } }>(
      'SELECT state FROM flow.flows WHERE session_id = $1',
      [session.id],
    );
    const active = rows[0]!.state.activeOption.contact;
    expect(['mail', 'phone']).toContain(active);
    // Every racer now sees the step of the option that was stored first, never a mix.
    const shown = new Set(pages.map((page) => /name="step" value="([a-z]+)"/.exec(page.text)?.[1]));
    expect(shown).toEqual(new Set([active]));
  });

  test('when consent is accepted and declined in one burst, then the first stored answer decides and the session agrees with it', async () => {
    const { tenant, session, person } = await racingPerson([FORM_STEP]);
    const consentPage = person.last!;

    await burst(BURST, (i) => {
      person.last = consentPage;
      return person.submit({ action: i % 2 === 0 ? 'accept' : 'decline' });
    });

    const consent = (await storedFlow(session.id)).steps.consent!;
    const resolved = await getSession(tenant.testKey, session.id);
    if (consent.status === 'passed') expect(resolved.status).toBe('in_progress');
    else {
      expect(consent.status).toBe('failed');
      expect(resolved.status).toBe('rejected');
      expect(resolved.result.reason_codes).toEqual(['consent_declined']);
    }
  });
});

describe("one person's bad input never fails another's submission", () => {
  test('when 20 people submit their forms at once and one form carries a NUL character, then 19 are approved and that one is asked to retype', async () => {
    const people = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const flow = await racingPerson([FORM_STEP]);
        await flow.person.submit({ action: 'accept' });
        return flow;
      }),
    );

    const pages = await Promise.all(
      people.map(({ person }, i) => person.submit({ ...VALID_FORM, occupation: i === 7 ? 'Doc\u0000ente' : 'Docente' })),
    );

    pages.forEach((page, i) => {
      if (i === 7) {
        expect(page.status).toBe(422);
        expect(page.text).toContain('caracteres que no podemos guardar');
      } else expect(statusOf(page)).toBe('approved');
    });
    const statuses = await Promise.all(people.map(({ tenant, session }) => getSession(tenant.testKey, session.id)));
    expect(statuses.filter((s) => s.status === 'approved')).toHaveLength(19);
  });
});
