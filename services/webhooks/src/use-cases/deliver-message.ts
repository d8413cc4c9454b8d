import { newId, type EvidenceLink } from '@idv/contracts';
import type { Logger, Pool } from '@idv/kit';
import { cancelMessage, recordAttempt } from '../adapters/messages.repository';
import { postponeRetryUntilCircuitEnds } from '../adapters/retries.repository';
import { feedEndpointCircuit } from './circuit-alerts';
import {
  decideDelivery,
  type AttemptPlan,
  type CircuitFeed,
  type DeferDecision,
  type DropDecision,
  type PostponeDecision,
  type ReceiverResponse,
  type RecordDecision,
  type RecordSuccessDecision,
  type SkipDecision,
} from '../domain/delivery-decision';
import { sentBody, type AttemptExchange } from '../domain/exchange';
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
    let evidenceLinks: EvidenceLink[] | null = null;
    if (claimed.withEvidenceLinks) {
      const sessionId = String(message.eventData.id);
      try {
        const links = await this.deps.evidence.linksFor([sessionId]);
        evidenceLinks = links[sessionId] ?? [];
      } catch (error) {
        this.log(message).warn({ err: error }, 'evidence links unavailable; attempt deferred');
        return this.settle(message, decideDelivery(message, { step: 'evidence_unavailable' }, timings));
      }
    }
    const { response, exchange } = await this.send(message, evidenceLinks);
    return this.settleSent(message, decideDelivery(message, { step: 'sent', response }, timings), exchange);
  }

  /**
   * The signed envelope, POSTed; the envelope's `created_at` and the signature's time are the moment of
   * sending. The body is `sentBody` of what the exchange keeps, so the log rebuilds it byte for byte.
   */
  private async send(
    message: ClaimedMessage,
    evidenceLinks: EvidenceLink[] | null,
  ): Promise<{ response: ReceiverResponse; exchange: AttemptExchange }> {
    const sentAt = new Date();
    const body = sentBody({ id: message.eventId, type: message.eventType, data: message.eventData }, { sentAt, evidenceLinks });
    const secrets = [this.deps.secrets.open(message.secretEnc)];
    if (message.previousSecretEnc) secrets.push(this.deps.secrets.open(message.previousSecretEnc));
    const requestHeaders = {
      'content-type': 'application/json; charset=utf-8',
      'user-agent': this.deps.userAgent,
      'x-service-signature': signatureHeader(secrets, Math.floor(sentAt.getTime() / 1000), body),
      'x-service-event-id': message.eventId,
      'x-service-event-type': message.eventType,
    };
    const response = await this.deps.sender.send(message.url, requestHeaders, body);
    return { response, exchange: { sentAt, requestHeaders, evidenceLinks, reply: response.reply ?? null } };
  }

  private async settle(
    message: ClaimedMessage,
    decision: DropDecision | SkipDecision | PostponeDecision | DeferDecision,
  ): Promise<void> {
    const { pool, metrics } = this.deps;
    switch (decision.action) {
      case 'drop':
        await cancelMessage(pool, message.id, message.claimToken);
        this.log(message).info('message dropped: endpoint deleted or disabled');
        return;
      case 'postpone_retry':
        await postponeRetryUntilCircuitEnds(pool, message.id, message.claimToken);
        return;
      case 'defer':
        return;
      case 'skip_open_circuit':
        await this.record(message, decision.plan, null);
        metrics.recordAttempt({ kind: message.kind, outcome: 'failed', error: 'circuit_breaker_open' }, null);
        return;
    }
  }

  /** A request went out: the attempt is logged with what was sent and what came back. */
  private async settleSent(
    message: ClaimedMessage,
    decision: RecordSuccessDecision | RecordDecision,
    exchange: AttemptExchange,
  ): Promise<void> {
    const { metrics } = this.deps;
    switch (decision.action) {
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
          exchange,
        });
        metrics.recordAttempt({ kind: message.kind, outcome: 'succeeded', error: null }, decision.durationMs / 1000);
        // Only automatic deliveries succeed here, and once per message: its first 2xx.
        metrics.recordFirstSuccess((Date.now() - message.eventOccurredAt.getTime()) / 1000);
        return;
      case 'record': {
        const { plan } = decision;
        await this.feed(message, decision.circuit);
        if (!(await this.record(message, plan, exchange))) {
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

  private record(message: ClaimedMessage, plan: AttemptPlan, exchange: AttemptExchange | null): Promise<boolean> {
    return recordAttempt(this.deps.pool, {
      messageId: message.id,
      claimToken: message.claimToken,
      deliveryId: newId('webhookDelivery'),
      eventType: message.eventType,
      ...plan,
      exchange,
    });
  }

  private async feed(message: ClaimedMessage, circuit: CircuitFeed): Promise<void> {
    if (circuit === 'none') return;
    const { opened, transition } = await feedEndpointCircuit(this.deps.pool, message.endpointId, {
      succeeded: circuit === 'success',
      threshold: CIRCUIT_FAILURE_THRESHOLD,
      openMs: this.deps.timings.circuitOpenMs,
    });
    if (opened) this.log(message).warn('circuit opened after consecutive failures');
    if (transition?.kind === 'closed') this.log(message).info('circuit closed by a successful delivery');
  }

  private log(message: ClaimedMessage): Logger {
    return this.deps.logger.child({ message_id: message.id, endpoint_id: message.endpointId, event_id: message.eventId });
  }
}
