import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  counter<L extends string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  histogram<L extends string>(name: string, help: string, labelNames?: readonly L[], buckets?: number[]): Histogram<L>;
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    collect?: (this: Gauge<L>) => void | Promise<void>,
  ): Gauge<L>;
}

export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  return {
    registry,
    httpDuration,
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers: [registry] }),
    histogram: (name, help, labelNames = [], buckets) =>
      new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) }),
    gauge: (name, help, labelNames = [], collect) =>
      new Gauge({ name, help, labelNames, registers: [registry], ...(collect ? { collect } : {}) }),
  };
}
