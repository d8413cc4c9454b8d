import { spawnSync } from 'node:child_process';
import { createMetrics } from '@idv/kit';
import { api, behaviours, buildTenant, receiversOfThisFile, testEnv, waitFor } from '@idv/testkit';

/**
 * Every service's /metrics, after some traffic, read by Prometheus' own checker (`promtool check
 * metrics`, installed in CI by scripts/ensure-promtool.sh). The only complaints let through are those
 * about prom-client's default gauges named `…_total` (TOOLING.md), and only those exact lines.
 */

const receiver = receiversOfThisFile(() => behaviours.ok());

/**
 * prom-client's own gauges whose names end in `_total` (nodejs_active_handles_total, …), as the library
 * registers them in a fresh registry of the kit (which holds nothing of ours but the HTTP histogram).
 */
async function defaultTotalGauges(): Promise<Set<string>> {
  const metrics = await createMetrics('promtool-test').registry.getMetricsAsJSON();
  return new Set(metrics.filter((m) => String(m.type) === 'gauge' && m.name.endsWith('_total')).map((m) => m.name));
}

function promtool(text: string): string[] {
  const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  expect(checked.error).toBeUndefined();
  return `${checked.stdout}\n${checked.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

function servicesUrls(): Record<string, string> {
  const env = testEnv();
  return {
    gateway: env.gatewayUrl,
    keys: env.keysUrl,
    sessions: env.sessionsUrl,
    webhooks: env.webhooksUrl,
    'flow-runner': env.flowUrl,
    dashboard: env.dashboardUrl,
  };
}

/** Metrics of issue 42 each service must expose (docs/operations.md "Metrics"). */
const EXPECTED: Record<string, string[]> = {
  gateway: ['http_request_duration_seconds', 'amqp_messages_unacked'],
  keys: ['outbox_pending_messages', 'outbox_oldest_pending_age_seconds', 'db_pool_connections', 'db_pool_max_connections'],
  sessions: ['outbox_pending_messages', 'db_pool_waiting_requests', 'amqp_messages_consumed_total', 'token_ledger_anomalies'],
  webhooks: [
    'outbox_pending_messages',
    'db_pool_connections',
    'amqp_messages_consumed_total',
    'amqp_queue_messages_ready',
    'amqp_queue_consumers',
    'webhook_event_to_delivery_seconds',
    'webhook_endpoints_enabled',
  ],
  'flow-runner': [
    'outbox_pending_messages',
    'db_pool_connections',
    'registry_checks_pending',
    'registry_checks_oldest_pending_age_seconds',
  ],
  dashboard: ['db_pool_connections', 'amqp_messages_redelivered_total'],
};

describe('metrics exposition', () => {
  it('when every service is scraped after traffic, then promtool finds nothing wrong but prom-client’s own _total gauges', async () => {
    // Traffic: a session created and canceled, its event delivered to a webhook endpoint.
    const tenant = await buildTenant({ modes: ['test'], tokens: 2 });
    const target = await receiver();
    const endpoint = await api('POST', '/v1/webhook-endpoints', {
      key: tenant.testKey,
      body: { url: target.url, events: ['verification_session.canceled'] },
    });
    expect(endpoint.status).toBe(201);
    const session = await api('POST', '/v1/verification-sessions', {
      key: tenant.testKey,
      body: { project_id: tenant.project.id },
    });
    expect(session.status).toBe(201);
    await api('POST', `/v1/verification-sessions/${session.body.id as string}/cancel`, { key: tenant.testKey });
    await waitFor(() => target.hits.length > 0, 15_000, 50, 'the canceled event delivered');
    await api('GET', '/v1/no-such-route', { key: tenant.testKey, contract: false });

    const allowed = await defaultTotalGauges();
    expect(allowed.size).toBeGreaterThan(0);
    // The checker does flag a gauge named like a counter: a clean answer below means something.
    expect(promtool('# HELP broken_total x\n# TYPE broken_total gauge\nbroken_total 1\n')).toEqual([
      'broken_total non-counter metrics should not have "_total" suffix',
    ]);
    for (const [service, url] of Object.entries(servicesUrls())) {
      // The delivery's histogram is observed once the success is recorded, just after the receiver answered.
      const text = await waitFor(
        async () => {
          const response = await fetch(`${url}/metrics`);
          expect(response.status).toBe(200);
          const body = await response.text();
          return EXPECTED[service]!.every((name) => body.includes(`# TYPE ${name} `)) ? body : undefined;
        },
        10_000,
        100,
        `${service}'s metrics`,
      ).catch(async (error: unknown) => {
        const body = await (await fetch(`${url}/metrics`)).text();
        const missing = EXPECTED[service]!.filter((name) => !body.includes(`# TYPE ${name} `));
        throw new Error(`${service} lacks ${missing.join(', ')}: ${String(error)}`);
      });
      const complaints = promtool(text).filter((line) => {
        const match = /^(\w+) non-counter metrics should not have "_total" suffix$/.exec(line);
        return !(match && allowed.has(match[1]!));
      });
      expect({ service, complaints }).toEqual({ service, complaints: [] });
    }
  });
});
