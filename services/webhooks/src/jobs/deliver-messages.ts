import { withTraceHeaders, type Metrics } from '@idv/kit';
import { Dispatcher } from '../adapters/dispatcher';
import { SuccessBatcher } from '../adapters/success-batcher';
import { DeliverMessage, type DeliverMessageDeps } from '../use-cases/deliver-message';

export interface DeliveryJobOptions extends Omit<DeliverMessageDeps, 'successes'> {
  /** For the dispatcher's LISTEN connection. */
  databaseUrl: string;
  concurrency: number;
  endpointConcurrency: number;
  pollMs: number;
  /** The process's registry, for the kit's job_* metrics. */
  jobMetrics?: Metrics;
}

/** The dispatcher loop: every due message it claims is one run of the deliver use case. */
export function deliveryJob(options: DeliveryJobOptions): Dispatcher {
  const deliver = new DeliverMessage({ ...options, successes: new SuccessBatcher(options.pool) });
  return new Dispatcher({
    pool: options.pool,
    databaseUrl: options.databaseUrl,
    logger: options.logger,
    ...(options.jobMetrics ? { metrics: options.jobMetrics } : {}),
    concurrency: options.concurrency,
    endpointConcurrency: options.endpointConcurrency,
    pollMs: options.pollMs,
    leaseMs: options.timings.leaseMs,
    // Each attempt continues the trace of what queued its message (the consumed event, the API call).
    handle: (message) => withTraceHeaders(message.traceContext, () => deliver.run(message)),
  });
}
