import { shiftMonth } from '@idv/contracts';
import { api, buildTenant, testEnv } from '@idv/testkit';
import { createSession, internal } from './helpers';

/** The dashboard's usage routes: a range of months in one answer, and the month's CSV as the public export sends it. */
describe("an account's usage for the dashboard", () => {
  const month = new Date().toISOString().slice(0, 7);

  test('when a range of months is asked for, then each month is the public usage of that month, empty months included', async () => {
    const { account, project, testKey, liveKey } = await buildTenant({ tokens: 5 });
    expect((await createSession(liveKey, project.id)).status).toBe(201);
    expect((await createSession(testKey, project.id)).status).toBe(201);
    const from = shiftMonth(month, -2);
    const range = await internal('GET', `/internal/accounts/${account.id}/usage/months?from=${from}&to=${month}`);
    expect(range.status).toBe(200);
    expect(range.body.object).toBe('list');
    expect(range.body.data.map((usage: { month: string }) => usage.month)).toEqual([from, shiftMonth(month, -1), month]);
    for (const usage of range.body.data) {
      expect(usage).toEqual((await api('GET', `/v1/usage?month=${usage.month}`, { key: testKey })).body);
    }
    expect(range.body.data[2]).toMatchObject({ sessions: { live: { total: 1 }, test: { total: 1 } }, tokens_debited: 1 });
    expect(range.body.data[0]).toMatchObject({ sessions: { live: { total: 0 }, test: { total: 0 } }, tokens_debited: 0 });
  });

  test('when the range is backwards, longer than 24 months or not of months, then 422 and no query', async () => {
    const { account } = await buildTenant();
    const ask = (query: string) => internal('GET', `/internal/accounts/${account.id}/usage/months?${query}`);
    expect((await ask(`from=${month}&to=${shiftMonth(month, -1)}`)).body).toMatchObject({ code: 'validation_failed' });
    expect((await ask(`from=${shiftMonth(month, -24)}&to=${month}`)).status).toBe(422);
    expect((await ask(`from=${shiftMonth(month, -23)}&to=${month}`)).body.data).toHaveLength(24);
    expect((await ask(`from=2026-13&to=${month}`)).status).toBe(422);
    expect((await ask(`to=${month}`)).status).toBe(422);
  });

  test('when the CSV is asked for internally, then it is the public export, byte for byte and with its headers; without the token, refused', async () => {
    const { account, project, testKey, liveKey } = await buildTenant({ tokens: 2 });
    expect((await createSession(liveKey, project.id)).status).toBe(201);
    expect((await createSession(testKey, project.id)).status).toBe(201);
    const viaApi = await api('GET', `/v1/usage/sessions.csv?month=${month}`, { key: testKey });
    const viaInternal = await internal('GET', `/internal/accounts/${account.id}/usage/sessions.csv?month=${month}`);
    expect(viaInternal.status).toBe(200);
    expect(viaInternal.text).toBe(viaApi.text);
    expect(viaInternal.text.split('\r\n')).toHaveLength(4);
    for (const name of ['content-type', 'content-disposition', 'cache-control']) {
      expect(viaInternal.headers[name]).toBe(viaApi.headers[name]);
    }
    const refused = await api('GET', `/internal/accounts/${account.id}/usage/sessions.csv?month=${month}`, {
      baseUrl: testEnv().sessionsUrl,
    });
    expect(refused.status).toBe(401);
  });
});
