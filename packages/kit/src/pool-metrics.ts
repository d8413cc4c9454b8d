import type pg from 'pg';
import type { Registry } from 'prom-client';
import type { Metrics } from './metrics';

/**
 * The connection pools of a process, read at each scrape from pg's own counters (no query): connections
 * in use and idle, callers waiting for one, and the pool's size. Labelled by `pool` (its application
 * name), since a service may run more than one (the webhooks dispatcher's own pool).
 */
const byRegistry = new WeakMap<Registry, Map<string, pg.Pool>>();

export function watchPool(metrics: Metrics, name: string, pool: pg.Pool): void {
  const existing = byRegistry.get(metrics.registry);
  if (existing) {
    existing.set(name, pool);
    return;
  }
  const pools = new Map<string, pg.Pool>([[name, pool]]);
  byRegistry.set(metrics.registry, pools);
  metrics.gauge(
    'db_pool_connections',
    'Connections of a PostgreSQL pool, by state (in_use, idle)',
    ['pool', 'state'] as const,
    function () {
      for (const [label, watched] of pools) {
        this.set({ pool: label, state: 'in_use' }, watched.totalCount - watched.idleCount);
        this.set({ pool: label, state: 'idle' }, watched.idleCount);
      }
    },
  );
  metrics.gauge(
    'db_pool_waiting_requests',
    'Queries waiting for a free connection of a PostgreSQL pool',
    ['pool'] as const,
    function () {
      for (const [label, watched] of pools) this.set({ pool: label }, watched.waitingCount);
    },
  );
  metrics.gauge('db_pool_max_connections', 'Most connections a PostgreSQL pool opens', ['pool'] as const, function () {
    for (const [label, watched] of pools) this.set({ pool: label }, watched.options.max ?? 10);
  });
}
