import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { testEnv } from '@idv/testkit';
import { TestBrowser } from './support/browser';

const OPS_CLI = path.join(__dirname, '..', '..', '..', 'packages', 'ops', 'dist', 'cli.js');

/** The operator CLI as scripts/up.sh runs it, against the stack's services. */
async function ops(...args: string[]): Promise<Record<string, any>> {
  const { stdout } = await promisify(execFile)(process.execPath, [OPS_CLI, ...args, '--json'], { env: process.env });
  return JSON.parse(stdout) as Record<string, any>;
}

describe('the stack started for tests runs the dashboard', () => {
  it("prints the demo account's dashboard owner, who signs in and sees the active account", async () => {
    const demo = await ops('demo');
    expect(demo.dashboard_owner).toEqual({ email: expect.stringMatching(/@demo\.example$/), password: expect.any(String) });

    const browser = new TestBrowser(testEnv().dashboardUrl);
    const form = await browser.get('/sign-in');
    expect(form.status).toBe(200);
    const signedIn = await browser.post(
      '/sign-in',
      { email: demo.dashboard_owner.email, password: demo.dashboard_owner.password },
      form,
    );
    expect(signedIn.status).toBe(303);
    const home = await browser.get('/home');
    expect(home.text).toContain('Demo S.A.');
    expect(home.text).toContain('Tu cuenta está activa');
  });

  it('adds an owner to an account with owner:add, once', async () => {
    const account = await ops('account:create', '--name', 'Owner CLI S.A.', '--email', 'cli@example.com');
    const email = `cli-${account.id.toLowerCase()}@example.com`;
    const owner = await ops('owner:add', '--account', account.id, '--email', email, '--name', 'CLI owner');
    expect(owner).toMatchObject({ account_id: account.id, email, password: expect.any(String) });
    const again = await ops('owner:add', '--account', account.id, '--email', email, '--name', 'Again').catch(
      (error: { stdout: string }) => JSON.parse(error.stdout) as Record<string, unknown>,
    );
    expect(again).toMatchObject({ status: 409, body: { code: 'conflict' } });
  });
});
