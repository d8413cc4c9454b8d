import { newId } from '@idv/contracts';
import type { Logger, Pool } from '@idv/kit';
import { feedCircuit } from '../adapters/endpoints.repository';
import { cancelMessage, recordAttempt } from '../adapters/messages.repository';
import {
  decideDelivery,
  type AttemptPlan,
  type CircuitFeed,
  type DeferDecision,
  type DropDecision,
  type ReceiverResponse,
  type RecordDecision,
  type RecordSuccessDecision,
  type SkipDecision,
} from '../domain/delivery-decision';
import { buildEnvelope } from '../domain/envelope';
import type { ClaimedMessage } from '../domain/message';
import type { DeliveryMetrics, EvidenceLinksSource, ReceiverClient, SecretSealer, SuccessRecorder } from '../domain/ports';
import { CIRCUIT_FAILURE_THRESHOLD, type Timings } from '../domain/schedule';
import { signatureHeader } from '../domain/signature';

export interface DeliverMessageDeps {
  /** The dispatcher's pool (its bookkeeping commits without waiting for the WAL flush: main.ts). */
  pool: Pool;
  sender: ReceiverClient;
  secrets: SecretSealer;
  evidence: EvidenceLinksSource;
  successes: SuccessRecorder;
  timings: Timings;
  metrics: DeliveryMetrics;
  logger: Logger;
  userAgent: string;
}

type Settled = DropDecision | SkipDecision | DeferDecision | RecordSuccessDecision | RecordDecision;

/**
 * One attempt of one claimed message: the policy (`decideDelivery`) says what to do at each step,
 * this carries it out (evidence links, signing, the POST, the records, the circuit, the metrics).
 */
export class DeliverMessage {
  constructor(private readonly deps: DeliverMessageDeps) {}

  async run(message: ClaimedMessage): Promise<void> {
    const { timings } = this.deps;
    const claimed = decideDelivery(message, { step: 'claimed' }, timings);
    if (claimed.action !== 'send') return this.settle(message, claimed);
    let object = message.eventData;
    if (claimed.withEvidenceLinks) {
      const sessionId = String(object.id);
      try {
        const links = await this.deps.evidence.linksFor([sessionId]);
        object = { ...object, evidence_links: links[sessionId] ?? [] };
      } catch (error) {
        this.log(message).warn({ err: error }, 'evidence links unavailable; attempt deferred');
        return this.settle(message, decideDelivery(message, { step: 'evidence_unavailable' }, timings));
      }
    }
    const response = await this.send(message, object);
    return this.settle(message, decideDelivery(message, { step: 'sent', response }, timings));
  }

  /** The signed envelope, POSTed; the envelope's `created_at` and the signature's time are the moment of sending. */
  private send(message: ClaimedMessage, object: Record<string, unknown>): Promise<ReceiverResponse> {
    const now = new Date();
    const body = buildEnvelope({ eventId: message.eventId, type: message.eventType, object }, now);
    const secrets = [this.deps.secrets.open(message.secretEnc)];
    if (message.previousSecretEnc) secrets.push(this.deps.secrets.open(message.previousSecretEnc));
    return this.deps.sender.send(
      message.url,
      {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': this.deps.userAgent,
        'x-service-signature': signatureHeader(secrets, Math.floor(now.getTime() / 1000), body),
        'x-service-event-id': message.eventId,
        'x-service-event-type': message.eventType,
      },
      body,
    );
  }

  private async settle(message: ClaimedMessage, decision: Settled): Promise<void> {
    const { pool, metrics } = this.deps;
    switch (decision.action) {
      case 'drop':
        await cancelMessage(pool, message.id, message.claimToken);
        this.log(message).info('message dropped: endpoint deleted or disabled');
        return;
      case 'defer':
        return;
      case 'skip_open_circuit':
        await this.record(message, decision.plan);
        metrics.recordAttempt({ kind: message.kind, outcome: 'failed', error: 'circuit_breaker_open' }, null);
        return;
      case 'record_success':
        // The circuit is fed before the attempt is recorded, so a message retried right after this
        // attempt already sees the circuit this attempt may have opened.
        await this.feed(message, decision.circuit);
        await this.deps.successes.add({
          messageId: message.id,
          claimToken: message.claimToken,
          deliveryId: newId('webhookDelivery'),
          eventType: message.eventType,
          attempt: decision.attempt,
          httpStatus: decision.httpStatus,
          durationMs: decision.durationMs,
        });
        metrics.recordAttempt({ kind: message.kind, outcome: 'succeeded', error: null }, decision.durationMs / 1000);
        return;
      case 'record': {
        const { plan } = decision;
        await this.feed(message, decision.circuit);
        if (!(await this.record(message, plan))) {
          this.log(message).warn('claim lost before the attempt was recorded; another replica owns the message now');
        }
        metrics.recordAttempt(
          { kind: message.kind, outcome: plan.deliveryStatus, error: plan.error },
          plan.durationMs === null ? null : plan.durationMs / 1000,
        );
        if (plan.deliveryStatus !== 'succeeded') {
          this.log(message).info(
            { attempt: plan.attemptsUsed, error: plan.error, http_status: plan.httpStatus, status: plan.messageStatus },
            'delivery attempt failed',
          );
        }
        return;
      }
    }
  }

  private record(message: ClaimedMessage, plan: AttemptPlan): Promise<boolean> {
    return recordAttempt(this.deps.pool, {
      messageId: message.id,
      claimToken: message.claimToken,
      deliveryId: newId('webhookDelivery'),
      eventType: message.eventType,
      ...plan,
    });
  }

  private async feed(message: ClaimedMessage, circuit: CircuitFeed): Promise<void> {
    if (circuit === 'none') return;
    const opened = await feedCircuit(this.deps.pool, message.endpointId, {
      succeeded: circuit === 'success',
      threshold: CIRCUIT_FAILURE_THRESHOLD,
      openMs: this.deps.timings.circuitOpenMs,
    });
    if (opened) this.log(message).warn('circuit opened after consecutive failures');
  }

  private log(message: ClaimedMessage): Logger {
    return this.deps.logger.child({ message_id: message.id, endpoint_id: message.endpointId, event_id: message.eventId });
  }
}
