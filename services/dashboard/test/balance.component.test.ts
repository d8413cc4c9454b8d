import { api } from '@idv/testkit';
import { approvedAccount } from './support/accounts';
import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'tokens');

/** An approved account with a flow published to live and a live key, credited `tokens` with `reason`. */
async function liveAccount(tokens: number, reason: string) {
  const { owner, project, keys } = await approvedAccount(dashboard, 'tokens', {
    projectName: 'Fichas',
    config: { steps: [{ id: 'correo', type: 'otp_email' }] },
    keys: { live: 'live' },
    tokens: { count: tokens, reason },
  });
  // As an integrator does: a 429 (the key's rate limit, 20/s after a burst of 40) is sent again after its Retry-After.
  const createSession = async () => {
    for (;;) {
      const answer = await api('POST', '/v1/verification-sessions', { key: keys.live!, body: { project_id: project.id } });
      if (answer.status !== 429) return answer;
      await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answer.headers['retry-after'] ?? 1)));
    }
  };
  return { owner, createSession };
}

/** The ledger's rows: the movement, the tokens and the detail. */
const rowsOf = (html: string) =>
  [...html.matchAll(/<tr><td><time[^>]*>[^<]*<\/time><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td><td>(.*?)<\/td><\/tr>/g)].map(
    (match) => [match[1], match[2], match[3]!.replace(/<\/?code>/g, '')],
  );

describe("the account's tokens", () => {
  it('shows the balance, how long it lasts at the last week’s pace, and each credit and debit, newest first', async () => {
    const { owner, createSession } = await liveAccount(10, 'Crédito de bienvenida');
    const empty = await owner.browser.get('/balance');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('10 fichas');
    expect(empty.text).toContain('no hay un ritmo para estimar');

    const sessions = [await createSession(), await createSession()];
    expect(sessions.map((session) => session.status)).toEqual([201, 201]);
    const page = await owner.browser.get('/balance');
    expect(page.text).toContain('8 fichas');
    // 2 tokens in 7 days: 8 last 28 days.
    expect(page.text).toContain('alcanzan para unos 28 días');
    expect(rowsOf(page.html)).toEqual([
      ['Sesión', '−1', sessions[1]!.body.id],
      ['Sesión', '−1', sessions[0]!.body.id],
      ['Crédito', '+10', 'Crédito de bienvenida'],
    ]);
    expect(page.html).toContain('href="/balance" aria-current="page"');
  });

  it('says when the tokens are spent: live sessions are refused until more are credited', async () => {
    const { owner, createSession } = await liveAccount(1, 'Una sola');
    expect((await createSession()).status).toBe(201);
    expect((await createSession()).status).toBe(402);
    expect((await owner.browser.get('/balance')).text).toContain('No quedan fichas');
  });

  it('pages the ledger 50 at a time by a cursor, and a cursor that is not one shows the newest page', async () => {
    const { owner, createSession } = await liveAccount(60, 'Para muchas');
    for (let created = 0; created < 52; created += 1) expect((await createSession()).status).toBe(201);
    const first = await owner.browser.get('/balance');
    expect(rowsOf(first.html)).toHaveLength(50);
    const older = /href="(\/balance\?before=\d+)"/.exec(first.html)![1]!;
    const second = await owner.browser.get(older);
    expect(rowsOf(second.html)).toEqual([
      ['Sesión', '−1', expect.stringMatching(/^vs_/)],
      ['Sesión', '−1', expect.stringMatching(/^vs_/)],
      ['Crédito', '+60', 'Para muchas'],
    ]);
    expect(second.html).toContain('<a href="/balance">Volver a los más recientes</a>');
    for (const cursor of ['abc', '-1', '0', '1e3']) {
      const page = await owner.browser.get(`/balance?before=${cursor}`);
      expect(page.status).toBe(200);
      expect(rowsOf(page.html)).toHaveLength(50);
    }
  });

  it('is read by every role, and another account’s ledger is never shown', async () => {
    const { owner } = await liveAccount(7, 'Siete');
    const viewer = await invitedMember(dashboard, owner, 'viewer');
    const seen = await viewer.member.get('/balance');
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('7 fichas');
    const other = await signedInOwner();
    const theirs = await other.browser.get('/balance');
    expect(theirs.text).toContain('0 fichas');
    expect(theirs.text).toContain('Todavía no hay movimientos.');
  });
});
