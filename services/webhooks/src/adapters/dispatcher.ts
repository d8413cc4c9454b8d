import { randomUUID } from 'node:crypto';
import { newId, type EvidenceLink } from '@idv/contracts';
import type { Logger, Pool } from '@idv/kit';
import pg from 'pg';
import { buildEnvelope } from '../domain/envelope';
import { CIRCUIT_FAILURE_THRESHOLD, afterAttempt, circuitRequeueWait, type Timings } from '../domain/schedule';
import { signatureHeader } from '../domain/signature';
import type { HttpSender } from './http-sender';
import type { SecretBox } from './secret-box';
import type { WebhookMetrics } from './webhook-metrics';
import * as repo from './webhooks.repository';

export interface DispatcherOptions {
  pool: Pool;
  databaseUrl: string;
  schema: string;
  sender: HttpSender;
  secrets: SecretBox;
  timings: Timings;
  logger: Logger;
  metrics: WebhookMetrics;
  userAgent: string;
  concurrency: number;
  endpointConcurrency: number;
  pollMs: number;
  /** The flow-runner's link builder: sessions whose configuration opted in carry links made per attempt. */
  evidence: { linksFor(sessionIds: readonly string[]): Promise<Record<string, EvidenceLink[]>> };
}

/**
 * Records successful attempts in batches: while one write is under way the next ones accumulate, so
 * a busy replica writes many records per statement and an idle one writes each at once.
 */
class SuccessBatcher {
  private queue: Array<{ record: repo.SuccessRecord; resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing = false;

  constructor(private readonly pool: Pool) {}

  add(record: repo.SuccessRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, 500);
        try {
          await repo.recordSuccesses(
            this.pool,
            batch.map((b) => b.record),
          );
          for (const b of batch) b.resolve();
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}

/**
 * Sends what PostgreSQL says is due. Woken by NOTIFY (new messages), by its own completions and by a
 * timer set to the next due time (capped by the poll interval). Bounded concurrency, with a cap per
 * endpoint so a hanging endpoint can never hold every slot and delay the others.
 */
export class Dispatcher {
  private running = false;
  private loop: Promise<void> | null = null;
  private listener: pg.Client | null = null;
  private wakeUp: (() => void) | null = null;
  private pendingWake = false;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly token = randomUUID();
  private readonly successes: SuccessBatcher;

  constructor(private readonly options: DispatcherOptions) {
    this.successes = new SuccessBatcher(options.pool);
  }

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    // Attempts under way finish (bounded by the receiver timeout) and are recorded.
    await Promise.allSettled([...this.inFlight]);
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }

  wake(): void {
    this.pendingWake = true;
    this.wakeUp?.();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl, application_name: 'webhooks-listener' });
    client.on('error', (error) => {
      this.options.logger.warn({ err: error }, 'schedule listener lost; polling until it reconnects');
      this.listener = null;
      client.end().catch(() => undefined);
    });
    client.on('notification', () => this.wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${repo.DUE_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'schedule listener unavailable; polling only');
      await client.end().catch(() => undefined);
    }
  }

  private saturatedEndpoints(): string[] {
    return [...this.perEndpoint].filter(([, n]) => n >= this.options.endpointConcurrency).map(([id]) => id);
  }

  private async run(): Promise<void> {
    const { pool, pollMs, concurrency } = this.options;
    while (this.running) {
      this.pendingWake = false;
      let delay = pollMs;
      try {
        const free = concurrency - this.inFlight.size;
        let claimedAll = false;
        let claimedAny = false;
        if (free > 0) {
          const batch = Math.min(free, 100);
          const claimed = await repo.claimDue(pool, {
            limit: batch,
            excludeEndpoints: this.saturatedEndpoints(),
            leaseMs: this.options.timings.leaseMs,
            token: this.token,
          });
          const overCap: string[] = [];
          for (const message of claimed) {
            const current = this.perEndpoint.get(message.endpoint_id) ?? 0;
            if (current >= this.options.endpointConcurrency) {
              overCap.push(message.id);
              continue;
            }
            this.perEndpoint.set(message.endpoint_id, current + 1);
            this.track(message);
          }
          await repo.releaseClaims(pool, overCap, this.token);
          claimedAll = claimed.length === batch && overCap.length === 0;
          claimedAny = claimed.length > overCap.length;
        }
        if (claimedAll) continue; // more may be due right now
        if (!this.listener && this.running) await this.listen();
        if (claimedAny) {
          // Busy: completions wake the loop; look again shortly anyway (saves a query per pass).
          delay = Math.min(pollMs, 20);
        } else {
          const next = await repo.nextDueInMs(pool);
          if (next !== null) delay = Math.min(pollMs, Math.max(next <= 0 ? 50 : next, 2));
        }
      } catch (error) {
        this.options.logger.warn({ err: error }, 'schedule pass failed; retrying');
        delay = Math.min(pollMs, 500);
      }
      if (!this.running || this.pendingWake) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = null;
    }
  }

  private track(message: repo.ClaimedMessage): void {
    const work = this.deliver(message)
      .catch((error: unknown) => {
        // Not recorded: the claim's lease runs out and the message is attempted again.
        this.options.logger.error({ err: error, message_id: message.id }, 'delivery bookkeeping failed');
      })
      .finally(() => {
        this.inFlight.delete(work);
        const left = (this.perEndpoint.get(message.endpoint_id) ?? 1) - 1;
        if (left <= 0) this.perEndpoint.delete(message.endpoint_id);
        else this.perEndpoint.set(message.endpoint_id, left);
        this.wake();
      });
    this.inFlight.add(work);
  }

  private async deliver(message: repo.ClaimedMessage): Promise<void> {
    const { pool, timings, logger } = this.options;
    const automatic = message.kind === 'event';
    const log = logger.child({ message_id: message.id, endpoint_id: message.endpoint_id, event_id: message.event_id });

    if (message.endpoint_deleted || (automatic && message.endpoint_status !== 'active')) {
      await repo.cancelMessage(pool, message.id, this.token);
      log.info('message dropped: endpoint deleted or disabled');
      return;
    }

    if (automatic && message.circuit_open) {
      // No POST; logged as failed and re-queued with the same wait, without using up an attempt.
      const waitMs = circuitRequeueWait(message.last_wait_ms, timings);
      await repo.recordAttempt(pool, {
        messageId: message.id,
        token: this.token,
        deliveryId: newId('webhookDelivery'),
        eventType: message.event_type,
        attempt: message.attempts + 1,
        attemptsUsed: message.attempts,
        messageStatus: 'pending',
        waitMs,
        deliveryStatus: 'failed',
        httpStatus: null,
        durationMs: null,
        error: 'circuit_breaker_open',
        failureReason: 'the endpoint circuit is open after consecutive failures; no request was sent',
      });
      this.options.metrics.recordAttempt({ kind: message.kind, outcome: 'failed', error: 'circuit_breaker_open' }, null);
      return;
    }

    let object = message.event_data;
    if (message.evidence_links) {
      const sessionId = String(object.id);
      try {
        const links = await this.options.evidence.linksFor([sessionId]);
        object = { ...object, evidence_links: links[sessionId] ?? [] };
      } catch (error) {
        // Not the receiver's fault: no attempt is used and the circuit is not fed; the claim runs out
        // and the message is tried again, with fresh links, after the lease.
        log.warn({ err: error }, 'evidence links unavailable; attempt deferred');
        return;
      }
    }
    const now = new Date();
    const body = buildEnvelope({ eventId: message.event_id, type: message.event_type, object }, now);
    const secrets = [this.options.secrets.open(message.secret_enc)];
    if (message.previous_secret_enc) secrets.push(this.options.secrets.open(message.previous_secret_enc));
    const timestamp = Math.floor(now.getTime() / 1000);
    const result = await this.options.sender.send(
      message.url,
      {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': this.options.userAgent,
        'x-service-signature': signatureHeader(secrets, timestamp, body),
        'x-service-event-id': message.event_id,
        'x-service-event-type': message.event_type,
      },
      body,
    );

    const attempt = message.attempts + 1;
    const decision = afterAttempt({ succeeded: result.succeeded, attemptsUsed: attempt, automatic }, timings);
    const status =
      decision.kind === 'done'
        ? 'succeeded'
        : decision.kind === 'dead'
          ? 'dead'
          : decision.kind === 'retry'
            ? 'pending'
            : 'failed';
    // The circuit is fed before the attempt is recorded, so a message retried right after this
    // attempt already sees the circuit this attempt may have opened.
    const circuitClean = message.consecutive_failures === 0 && !message.circuit_open;
    if (message.kind !== 'test' && !(result.succeeded && circuitClean)) {
      const opened = await repo.feedCircuit(pool, {
        endpointId: message.endpoint_id,
        succeeded: result.succeeded,
        threshold: CIRCUIT_FAILURE_THRESHOLD,
        openMs: timings.circuitOpenMs,
      });
      if (opened) log.warn('circuit opened after consecutive failures');
    }
    if (automatic && result.succeeded && result.httpStatus !== null) {
      await this.successes.add({
        messageId: message.id,
        token: this.token,
        deliveryId: newId('webhookDelivery'),
        eventType: message.event_type,
        attempt,
        httpStatus: result.httpStatus,
        durationMs: result.durationMs,
      });
      this.options.metrics.recordAttempt({ kind: message.kind, outcome: 'succeeded', error: null }, result.durationMs / 1000);
      return;
    }
    const recorded = await repo.recordAttempt(pool, {
      messageId: message.id,
      token: this.token,
      deliveryId: newId('webhookDelivery'),
      eventType: message.event_type,
      attempt: automatic ? attempt : 1,
      attemptsUsed: attempt,
      messageStatus: status,
      waitMs: decision.kind === 'retry' ? decision.waitMs : null,
      deliveryStatus: status === 'pending' ? 'failed' : status,
      httpStatus: result.httpStatus,
      durationMs: result.durationMs,
      error: result.error,
      failureReason: result.failureReason,
    });
    if (!recorded) log.warn('claim lost before the attempt was recorded; another replica owns the message now');
    this.options.metrics.recordAttempt(
      { kind: message.kind, outcome: status === 'pending' ? 'failed' : status, error: result.error },
      result.durationMs / 1000,
    );
    if (!result.succeeded)
      log.info({ attempt, error: result.error, http_status: result.httpStatus, status }, 'delivery attempt failed');
  }
}
