import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR, api, buildAccount, buildKey, serviceMain, waitFor } from '@idv/testkit';

describe('operations', () => {
  it('when a request carries a secret in its url, then the gateway log shows it redacted', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test');
    const leaked = 'sk_live_ThisMustNeverAppearInLogs0123456789abcdef';
    await api('GET', `/v1/verification-sessions?note=${leaked}`, { key: key.secret });
    const logFile = path.join(ROOT_DIR, '.run', 'logs', `${process.env.BROKER_NAMESPACE}-gateway.log`);
    const log = await waitFor(() => {
      const text = readFileSync(logFile, 'utf8');
      return text.includes('note=sk_live_[REDACTED]') ? text : undefined;
    }, 5000);
    expect(log).not.toContain(leaked);
    expect(log).not.toContain(key.secret);
  });

  it('when a service starts with a bad variable, then it exits 1 naming the variable, without a stack trace', () => {
    const result = spawnSync(process.execPath, [serviceMain('gateway')], {
      env: { PATH: process.env.PATH, INTERNAL_TOKEN: 'x'.repeat(20), REDIS_URL: 'not-a-url', AMQP_URL: process.env.AMQP_URL },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('REDIS_URL');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.each(['gateway', 'keys'])('when %s is probed, then healthz, readyz and metrics answer', async (service) => {
    const baseUrl = service === 'gateway' ? process.env.GATEWAY_URL : process.env.KEYS_URL;
    expect((await api('GET', '/healthz', { baseUrl })).status).toBe(200);
    const ready = await api('GET', '/readyz', { baseUrl });
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ok');
    const metrics = await api('GET', '/metrics', { baseUrl });
    expect(metrics.text).toContain('http_request_duration_seconds_bucket');
    expect(metrics.text).toContain('process_cpu_user_seconds_total');
  });
});
