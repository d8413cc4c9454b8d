import type { EvidenceLink } from '@idv/contracts';
import type { ReceiverResponse } from './delivery-decision';
import type { DeliveryError, MessageKind, SuccessRecord } from './message';

/** POSTs one signed body to a receiver (adapters/http-sender.ts). */
export interface ReceiverClient {
  send(url: string, headers: Record<string, string>, body: string): Promise<ReceiverResponse>;
}

/** Seals signing secrets at rest and opens them to sign (adapters/secret-box.ts). */
export interface SecretSealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** The flow-runner's link builder: sessions whose configuration opted in carry links made per attempt. */
export interface EvidenceLinksSource {
  linksFor(sessionIds: readonly string[]): Promise<Record<string, EvidenceLink[]>>;
}

/** Records successful automatic attempts, many per statement (adapters/success-batcher.ts). */
export interface SuccessRecorder {
  add(record: SuccessRecord): Promise<void>;
}

/** Counts attempts by kind, outcome and error, and times those that sent a request (adapters/webhook-metrics.ts). */
export interface DeliveryMetrics {
  recordAttempt(labels: { kind: MessageKind; outcome: string; error: DeliveryError | null }, seconds: number | null): void;
  /** An event reached its endpoint for the first time (a 2xx), `seconds` after the event occurred. */
  recordFirstSuccess(seconds: number): void;
}
