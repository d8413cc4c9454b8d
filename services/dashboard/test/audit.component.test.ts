import fs from 'node:fs';
import path from 'node:path';
import { signedInOwner as signedIn, startDashboard, type Dashboard } from './support/harness';
import { invitedMember } from './support/members';
import { enrolledOperator } from './support/operators';

let dashboard: Dashboard;

beforeAll(async () => {
  dashboard = await startDashboard();
});
afterAll(async () => {
  await dashboard?.stop();
});

const signedInOwner = () => signedIn(dashboard, 'audit');

/** The rows of the audit table: who and what, in the page's order. */
const rowsOf = (html: string) =>
  [...html.matchAll(/<tr><td><time[^>]*>[^<]*<\/time><\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map((match) => ({
    who: match[1]!.replace(/&#x27;|&#39;/g, "'"),
    what: match[2]!,
  }));

describe("the account's audit log", () => {
  it("shows its owner every member's actions, newest first, and the failed sign-ins of its members", async () => {
    const owner = await signedInOwner();
    const developer = await invitedMember(dashboard, owner, 'developer');
    const wrong = dashboard.browser();
    await wrong.post('/sign-in', { email: owner.owner.email, password: 'no es la contraseña' }, await wrong.get('/sign-in'));

    const page = await owner.browser.get('/audit');
    expect(page.status).toBe(200);
    expect(page.html).toContain('href="/audit" aria-current="page"');
    const rows = rowsOf(page.html);
    const ownerLabel = `${owner.owner.name} (${owner.owner.email})`;
    expect(rows[0]).toEqual({ who: ownerLabel, what: 'Falló un ingreso' });
    expect(rows).toContainEqual({ who: ownerLabel, what: 'Invitó a alguien' });
    expect(rows).toContainEqual({ who: `Miembro (${developer.email})`, what: 'Se sumó al equipo' });
    expect(rows).toContainEqual({ who: ownerLabel, what: 'Ingresó' });
    expect(rows[rows.length - 1]).toEqual({ who: ownerLabel, what: 'Creó la cuenta' });

    // Nobody else's entries: another organisation's owner sees only their own.
    const other = await signedInOwner();
    const theirs = rowsOf((await other.browser.get('/audit')).html);
    expect(theirs.every((row) => row.who.includes(other.owner.email))).toBe(true);
  });

  it('is for owners only: a developer and a viewer get 403 for the page and the export, and no link to it', async () => {
    const owner = await signedInOwner();
    for (const role of ['developer', 'viewer'] as const) {
      const { member } = await invitedMember(dashboard, owner, role);
      expect((await member.get('/audit')).status).toBe(403);
      expect((await member.get('/audit.csv')).status).toBe(403);
      expect((await member.get('/home')).html).not.toContain('href="/audit"');
    }
  });

  it("names the service's operator, never the operator's own name, and filters by who and by kind of action", async () => {
    const owner = await signedInOwner();
    const { browser: operator } = await enrolledOperator(dashboard);
    const detail = await operator.get(`/operator/accounts/${owner.accountId}`);
    const approved = await operator.post(
      `/operator/accounts/${owner.accountId}/decision`,
      { decision: 'approve', reason: 'Datos verificados' },
      detail,
    );
    expect(approved.status).toBe(303);

    const byOperator = await owner.browser.get('/audit?actor=operator');
    expect(rowsOf(byOperator.html)).toEqual([{ who: 'El operador del servicio', what: 'Aprobó la cuenta' }]);
    expect(byOperator.html).toContain('<option value="operator" selected>');
    // The operator's address is the service's, not the account's to know.
    expect(byOperator.html).not.toContain(operator.address);

    const signIns = rowsOf((await owner.browser.get('/audit?group=sign_in')).html);
    expect(signIns.length).toBeGreaterThan(0);
    expect(signIns.every((row) => ['Ingresó', 'Confirmó su correo'].includes(row.what))).toBe(true);
    const keys = await owner.browser.get('/audit?group=keys');
    expect(keys.text).toContain('No hay acciones con estos filtros.');

    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date());
    expect(rowsOf((await owner.browser.get(`/audit?from=${today}&to=${today}`)).html).length).toBeGreaterThan(2);
    expect(rowsOf((await owner.browser.get('/audit?to=2001-01-01')).html)).toEqual([]);
  });

  it('pages older entries by a cursor, 50 at a time, with the filters kept', async () => {
    const owner = await signedInOwner();
    await Promise.all(
      Array.from({ length: 55 }, async () => {
        const browser = dashboard.browser();
        await browser.post('/sign-in', { email: owner.owner.email, password: 'otra equivocada' }, await browser.get('/sign-in'));
      }),
    );
    const first = await owner.browser.get('/audit?group=sign_in');
    expect(rowsOf(first.html)).toHaveLength(50);
    const older = /href="(\/audit\?group=sign_in&amp;before=\d+)"/.exec(first.html)![1]!.replace(/&amp;/g, '&');
    const second = await owner.browser.get(older);
    // 55 failures and the owner's sign-in: 56 sign-in entries in all.
    const rest = rowsOf(second.html);
    expect(rest.length).toBe(6);
    expect(rest[rest.length - 1]!.what).toBe('Ingresó');
    expect(second.html).toContain('href="/audit?group=sign_in">Volver a las más recientes');
  });

  it('exports the entries the filters keep as CSV, a name that looks like a formula kept inert, and logs the export', async () => {
    const owner = await signedInOwner();
    await dashboard.pool.query('UPDATE users SET name = $2 WHERE id = $1', [owner.userId, '=HYPERLINK("http://x","y")']);
    const csv = await owner.browser.get('/audit.csv?group=sign_in');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="audit-${owner.accountId}.csv"`);
    const lines = csv.html.trim().split('\r\n');
    expect(lines[0]).toBe('at,actor_kind,actor_name,actor_email,action,target,address');
    expect(lines.slice(1).every((line) => line.includes(',user.'))).toBe(true);
    expect(lines[1]).toContain(`member,"'=HYPERLINK(""http://x"",""y"")",${owner.owner.email},user.signed_in`);
    expect(rowsOf((await owner.browser.get('/audit?group=account')).html)[0]!.what).toBe('Descargó la auditoría');
  });

  it('says which filter it did not take rather than failing, and never answers 500', async () => {
    const owner = await signedInOwner();
    for (const query of [
      'group=nada',
      'actor=alguien',
      'from=2026-13-40',
      'to=ayer',
      'before=-1',
      'group=a&group=b',
      `from=${'9'.repeat(200)}`,
    ]) {
      const page = await owner.browser.get(`/audit?${query}`);
      expect(page.status).toBe(400);
      expect(page.html).toContain('class="error-summary"');
      expect(rowsOf(page.html).length).toBeGreaterThan(0);
    }
  });
});

describe('the audit log is append-only', () => {
  it('refuses an update or a delete in the database itself', async () => {
    await expect(
      dashboard.pool.query("UPDATE audit_log SET action = 'x' WHERE id = (SELECT min(id) FROM audit_log)"),
    ).rejects.toThrow('append-only');
    await expect(dashboard.pool.query('DELETE FROM audit_log WHERE id = (SELECT min(id) FROM audit_log)')).rejects.toThrow(
      'append-only',
    );
  });

  it('has no route or query in the service that updates or deletes an entry', () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/\.(ts|tsx|sql)$/.test(entry.name)) sources.push(full);
      }
    };
    walk(path.join(__dirname, '..', 'src'));
    walk(path.join(__dirname, '..', 'migrations'));
    const writes = sources.filter((file) => {
      const text = fs.readFileSync(file, 'utf8').replace(/-- Down Migration[\s\S]*$/, '');
      return /\b(UPDATE\s+audit_log|DELETE\s+FROM\s+audit_log|TRUNCATE\s+(TABLE\s+)?audit_log)\b/i.test(text);
    });
    expect(writes).toEqual([]);
  });
});
