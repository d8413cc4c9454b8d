import { api, axeViolations, launchBrowser, newPerson } from '@idv/testkit';
import { signedInOwner, startDashboard } from './support/harness';

it('axe on the usage page (temporary check)', async () => {
  const dashboard = await startDashboard();
  const browser = await launchBrowser();
  try {
    const owner = await signedInOwner(dashboard, 'axe');
    await dashboard.platform.call('approveAccount', { id: owner.accountId });
    const project = await dashboard.platform.call('createProject', {}, { account_id: owner.accountId, name: 'Altas' });
    await dashboard.platform.call('publishConfig', { id: project.id }, { mode: 'test', config: { steps: [{ id: 'correo', type: 'otp_email' }] } });
    const key = (await dashboard.platform.call('createApiKey', {}, { account_id: owner.accountId, mode: 'test', name: 't' })).secret;
    for (let i = 0; i < 3; i++) await api('POST', '/v1/verification-sessions', { key, body: { project_id: project.id } });
    const context = await newPerson(browser);
    const url = new URL(dashboard.url);
    await context.addCookies([...owner.browser.cookies].map(([name, value]) => ({ name, value, domain: url.hostname, path: '/', secure: true, httpOnly: true })));
    await context.setExtraHTTPHeaders({ 'x-forwarded-for': owner.browser.address });
    const page = await context.newPage();
    for (const path of ['/usage', '/usage?month=2026-13', '/usage?month=2099-01']) {
      await page.goto(`${dashboard.url}${path}`);
      console.log(path, await page.title(), JSON.stringify(await axeViolations(page), null, 1));
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: `/tmp/usage${path.replace(/[^a-z0-9]/gi, '_')}-phone.png`, fullPage: true });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.screenshot({ path: `/tmp/usage${path.replace(/[^a-z0-9]/gi, '_')}-desktop.png`, fullPage: true });
    }
  } finally {
    await browser.close();
    await dashboard.stop();
  }
}, 120_000);
