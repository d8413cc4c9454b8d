import { shiftMonth } from '@idv/contracts';
import { api, testEnv } from '@idv/testkit';
import pg from 'pg';
import { argentinaMonth } from '../src/domain/usage';
import { approvedAccount } from './support/accounts';
import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';

let dashboard: Dashboard;
let db: pg.Client;

beforeAll(async () => {
  dashboard = await startDashboard();
  db = new pg.Client({ connectionString: testEnv().databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await dashboard?.stop();
});

/** The usage's months are UTC's, as the public API's: the month the sessions made now fall in. */
const thisMonth = () => new Date().toISOString().slice(0, 7);

/**
 * An approved account with a flow published to both modes, tokens, and a key of each mode (every scope,
 * `usage:read` among them): 3 live sessions (one canceled) and 2 test ones made through the gateway, and
 * one more live session moved to the month before (its debit with it, as the usage counts by the session's month).
 */
async function accountWithSessions() {
  const { owner, project, keys } = await approvedAccount(dashboard, 'usage', {
    config: { steps: [{ id: 'correo', type: 'otp_email' }] },
    keys: { live: 'live', test: 'test' },
    tokens: { count: 20, reason: 'Para el uso' },
  });
  const create = async (mode: 'live' | 'test') => {
    const answer = await api('POST', '/v1/verification-sessions', { key: keys[mode]!, body: { project_id: project.id } });
    expect(answer.status).toBe(201);
    return answer.body.id as string;
  };
  const live = [await create('live'), await create('live'), await create('live'), await create('live')];
  await create('test');
  await create('test');
  expect((await api('POST', `/v1/verification-sessions/${live[1]}/cancel`, { key: keys.live })).status).toBe(200);
  const moved = await db.query(
    `UPDATE sessions.sessions SET created_at = date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day'
      WHERE id = $1 AND account_id = $2`,
    [live[3], owner.accountId],
  );
  expect(moved.rowCount).toBe(1);
  return { owner, keys };
}

/** The month table's row of a status: its live and test counts. */
const rowOf = (html: string, status: string) => {
  const found = new RegExp(
    `<tr><th scope="row">${status}</th><td class="number">([^<]*)</td><td class="number">([^<]*)</td></tr>`,
  ).exec(html);
  return found ? [found[1], found[2]] : null;
};

describe("the account's usage", () => {
  it('when sessions were made this month and the one before, then the page counts them per mode and status as the public usage does, with the chart’s months', async () => {
    const { owner, keys } = await accountWithSessions();
    const month = thisMonth();
    const before = shiftMonth(month, -1);
    const page = await owner.browser.get(`/usage?month=${month}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('href="/usage" aria-current="page"');

    const publicUsage = await api('GET', `/v1/usage?month=${month}`, { key: keys.live });
    expect(publicUsage.status).toBe(200);
    expect(publicUsage.body.sessions.live).toMatchObject({ pending: 2, canceled: 1, total: 3 });
    expect(publicUsage.body.sessions.test).toMatchObject({ pending: 2, total: 2 });
    expect(publicUsage.body.tokens_debited).toBe(3);
    expect(rowOf(page.html, 'Sin abrir')).toEqual(['2', '2']);
    expect(rowOf(page.html, 'Canceladas')).toEqual(['1', '0']);
    expect(rowOf(page.html, 'Aprobadas')).toEqual(['0', '0']);
    expect(page.html).toMatch(
      /<tfoot><tr><th scope="row">Total<\/th><td class="number">3<\/td><td class="number">2<\/td><\/tr><\/tfoot>/,
    );
    expect(page.text).toContain('Usaron 3 fichas');

    // The chart's range in one call, each month the public usage of that month; the month before holds the moved session.
    const range = await dashboard.platform.call('getAccountUsageMonths', { id: owner.accountId }, undefined, {
      from: shiftMonth(month, -11),
      to: month,
    });
    expect(range.data.map((usage) => usage.month)).toEqual(
      Array.from({ length: 12 }, (_, index) => shiftMonth(month, index - 11)),
    );
    for (const usage of [range.data[10]!, range.data[11]!]) {
      expect(usage).toEqual((await api('GET', `/v1/usage?month=${usage.month}`, { key: keys.test })).body);
    }
    expect(range.data[10]).toMatchObject({ month: before, sessions: { live: { pending: 1, total: 1 } }, tokens_debited: 1 });
    expect(range.data.slice(0, 10).every((usage) => usage.sessions.live.total === 0 && usage.tokens_debited === 0)).toBe(true);

    // The live chart's table: a row a month, the month before with its one session.
    const liveTable = page.html.slice(page.html.indexOf('id="chart-live-heading"'), page.html.indexOf('id="chart-test-heading"'));
    expect([...liveTable.matchAll(/<tr><th scope="row">/g)]).toHaveLength(12);
    expect(liveTable).toMatch(/<svg[^>]* role="img" aria-labelledby="chart-live-title chart-live-desc"/);
    expect(liveTable.match(/<rect class="s-[a-z_]+"/g)).toEqual([
      '<rect class="s-pending"',
      '<rect class="s-canceled"',
      '<rect class="s-pending"',
    ]);

    // The picker: the month before links back to this one, this one has no next month.
    expect(page.html).toContain(`<a href="/usage?month=${before}" rel="prev">`);
    expect(page.html).not.toContain('rel="next"');
    const previous = await owner.browser.get(`/usage?month=${before}`);
    expect(rowOf(previous.html, 'Sin abrir')).toEqual(['1', '0']);
    expect(previous.html).toContain(`<a href="/usage?month=${month}" rel="next">`);
  });

  it('when no month is asked for, then the page shows Argentina’s current month', async () => {
    const owner = await signedIn(dashboard, 'usage');
    const page = await owner.browser.get('/usage');
    expect(page.status).toBe(200);
    expect(page.html).toContain(`href="/usage.csv?month=${argentinaMonth(new Date())}"`);
    expect(page.text).toContain('Usaron 0 fichas');
  });

  it('when the CSV is downloaded, then it is the public export of the month, byte for byte, with its headers, and the download is audited', async () => {
    const { owner, keys } = await accountWithSessions();
    const month = thisMonth();
    const viaApi = await api('GET', `/v1/usage/sessions.csv?month=${month}`, { key: keys.live });
    expect(viaApi.status).toBe(200);
    const download = await owner.browser.get(`/usage.csv?month=${month}`);
    expect(download.status).toBe(200);
    expect(download.html).toBe(viaApi.text);
    expect(download.html.split('\r\n')).toHaveLength(1 + 5 + 1);
    for (const name of ['content-type', 'content-disposition', 'cache-control']) {
      expect(download.headers.get(name)).toBe(viaApi.headers[name]);
    }
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="sessions-${month}.csv"`);
    // Streamed as it comes, not gathered first: no length is known ahead.
    expect(download.headers.get('transfer-encoding')).toBe('chunked');
    expect(download.headers.get('content-length')).toBeNull();
    const before = shiftMonth(month, -1);
    const older = await owner.browser.get(`/usage.csv?month=${before}`);
    expect(older.html).toBe((await api('GET', `/v1/usage/sessions.csv?month=${before}`, { key: keys.test })).text);
    expect(older.html.split('\r\n')).toHaveLength(1 + 1 + 1);

    const { rows } = await dashboard.pool.query<{ action: string; target: string; actor_id: string }>(
      "SELECT action, target, actor_id FROM audit_log WHERE account_id = $1 AND action = 'usage.exported' ORDER BY id",
      [owner.accountId],
    );
    expect(rows).toEqual([
      { action: 'usage.exported', target: month, actor_id: owner.userId },
      { action: 'usage.exported', target: before, actor_id: owner.userId },
    ]);
    const audit = await owner.browser.get('/audit?group=account');
    expect(audit.text).toContain('Descargó el uso de un mes (CSV)');
  });

  it('when a developer or a viewer opens it, then they see the account’s usage and download its CSV; another account sees none of it', async () => {
    const { owner, keys } = await accountWithSessions();
    const month = thisMonth();
    const csv = (await api('GET', `/v1/usage/sessions.csv?month=${month}`, { key: keys.live })).text;
    for (const role of ['developer', 'viewer'] as const) {
      const { member } = await invitedMember(dashboard, owner, role);
      const page = await member.get(`/usage?month=${month}`);
      expect(page.status).toBe(200);
      expect(rowOf(page.html, 'Sin abrir')).toEqual(['2', '2']);
      expect(page.html).toContain('<a href="/usage"');
      const download = await member.get(`/usage.csv?month=${month}`);
      expect(download.status).toBe(200);
      expect(download.html).toBe(csv);
    }
    const other = await signedIn(dashboard, 'usage');
    const theirs = await other.browser.get(`/usage?month=${month}`);
    expect(rowOf(theirs.html, 'Sin abrir')).toEqual(['0', '0']);
    expect((await other.browser.get(`/usage.csv?month=${month}`)).html).toBe(
      'session_id,mode,project_id,config_version,status,outcome,created_at,completed_at,tokens_debited\r\n',
    );
    const anonymous = await dashboard.browser().get(`/usage?month=${month}`);
    expect(anonymous.status).toBe(303);
    expect((await dashboard.browser().get(`/usage.csv?month=${month}`)).location).toBe('/sign-in');
  });

  it('when the month is not one, then 400, and when it is after the current one or before 2000, then 422: a page that says so, never a 500, and no download', async () => {
    const owner = await signedIn(dashboard, 'usage');
    const later = shiftMonth(thisMonth(), 1);
    const cases: [string, number, string][] = [
      ['month=2026-13', 400, '“2026-13” no es un mes'],
      ['month=noviembre', 400, '“noviembre” no es un mes'],
      ['month=2026-11&month=2026-10', 400, 'Escribí el mes como AAAA-MM'],
      [`month=${later}`, 422, `No hay uso de ${later}`],
      ['month=1999-12', 422, 'No hay uso de 1999-12'],
      ['month=%3Cscript%3E', 400, '“<script>” no es un mes'],
    ];
    for (const [query, status, message] of cases) {
      for (const path of ['/usage', '/usage.csv']) {
        const page = await owner.browser.get(`${path}?${query}`);
        expect([query, path, page.status]).toEqual([query, path, status]);
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(page.text.replace(/&lt;/g, '<')).toContain(message);
        expect(page.html).toContain('<a href="#f-month">');
        expect(page.html).toMatch(/<input id="f-month" name="month" type="month".*? aria-invalid="true"\/>/);
        expect(page.html).not.toContain('<script>');
        expect(page.html).not.toContain('<svg');
      }
    }
    const { rows } = await dashboard.pool.query("SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'usage.exported'", [
      owner.accountId,
    ]);
    expect(rows).toEqual([]);
  });
});
