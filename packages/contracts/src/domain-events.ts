import {
  AccountStatusChangedDataSchema,
  ApiKeyRevokedDataSchema,
  BalanceAlertDataSchema,
  WebhookCircuitDataSchema,
  type BalanceAlertData,
  type WebhookCircuitData,
  CaptureStoredDataSchema,
  DOMAIN_EVENTS,
  FaceFramesStoredDataSchema,
  type AccountStatusChangedData,
  type ApiKeyRevokedData,
  type CaptureStoredData,
  type DomainEvent,
  type DomainEventType,
  type FaceFramesStoredData,
  type SessionEventType,
} from './events';
import { eventId, newId } from './ids';
import { SessionEventDataSchema, type SessionEventData } from './sessions';
import type { z } from './zod';

/** The `data` of each domain event type: what its constructor takes and what its consumers read. */
export interface DomainEventDataByType extends Record<SessionEventType, SessionEventData> {
  'api_key.revoked': ApiKeyRevokedData;
  'account.status_changed': AccountStatusChangedData;
  'capture.stored': CaptureStoredData;
  'face.frames_stored': FaceFramesStoredData;
  'balance.low': BalanceAlertData;
  'balance.depleted': BalanceAlertData;
  'webhook_endpoint.circuit_opened': WebhookCircuitData;
  'webhook_endpoint.circuit_closed': WebhookCircuitData;
}

/** A domain event of one type, its data typed. */
export type DomainEventOf<K extends DomainEventType> = DomainEvent<DomainEventDataByType[K], K>;

/** The schema of each type's `data`, for consumers: an event read from the broker is parsed with it. */
export const DOMAIN_EVENT_DATA_SCHEMAS: { readonly [K in DomainEventType]: z.ZodType<DomainEventDataByType[K]> } = {
  'api_key.revoked': ApiKeyRevokedDataSchema,
  'account.status_changed': AccountStatusChangedDataSchema,
  'capture.stored': CaptureStoredDataSchema,
  'face.frames_stored': FaceFramesStoredDataSchema,
  'balance.low': BalanceAlertDataSchema,
  'balance.depleted': BalanceAlertDataSchema,
  'webhook_endpoint.circuit_opened': WebhookCircuitDataSchema,
  'webhook_endpoint.circuit_closed': WebhookCircuitDataSchema,
  'verification_session.approved': SessionEventDataSchema,
  'verification_session.rejected': SessionEventDataSchema,
  'verification_session.completed': SessionEventDataSchema,
  'verification_session.expired': SessionEventDataSchema,
  'verification_session.canceled': SessionEventDataSchema,
  'verification_session.review_required': SessionEventDataSchema,
  'verification_session.created': SessionEventDataSchema,
};

function build<K extends DomainEventType>(
  type: K,
  id: string,
  data: DomainEventDataByType[K],
  occurredAt: Date,
): DomainEventOf<K> {
  return { id, type, occurred_at: occurredAt.toISOString(), data };
}

/**
 * One constructor per domain event type (the session events share one: same data, the type is theirs).
 * Each says how its event's id is made, which is what consumers deduplicate on: a fresh id for a fact
 * that happens once, a derived one where the same fact may be written again (a retried transition, a
 * job queued again for the same artefact).
 */
export const domainEvents = {
  apiKeyRevoked: (data: ApiKeyRevokedData, occurredAt = new Date()): DomainEventOf<'api_key.revoked'> =>
    build(DOMAIN_EVENTS.apiKeyRevoked, newId('event'), data, occurredAt),

  accountStatusChanged: (data: AccountStatusChangedData, occurredAt = new Date()): DomainEventOf<'account.status_changed'> =>
    build(DOMAIN_EVENTS.accountStatusChanged, newId('event'), data, occurredAt),

  /** A capture to read: one job per artefact, so the id is the artefact's. */
  captureStored: (data: CaptureStoredData, occurredAt = new Date()): DomainEventOf<'capture.stored'> =>
    build(DOMAIN_EVENTS.captureStored, `evt_${data.artefact_id}`, data, occurredAt),

  /** A face attempt's frames to judge: one job per artefact, so the id is the artefact's. */
  faceFramesStored: (data: FaceFramesStoredData, occurredAt = new Date()): DomainEventOf<'face.frames_stored'> =>
    build(DOMAIN_EVENTS.faceFramesStored, `evt_${data.artefact_id}`, data, occurredAt),

  /** A balance crossing, decided once under the balance's row lock: a fresh id. */
  balanceLow: (data: BalanceAlertData, occurredAt = new Date()): DomainEventOf<'balance.low'> =>
    build(DOMAIN_EVENTS.balanceLow, newId('event'), data, occurredAt),

  balanceDepleted: (data: BalanceAlertData, occurredAt = new Date()): DomainEventOf<'balance.depleted'> =>
    build(DOMAIN_EVENTS.balanceDepleted, newId('event'), data, occurredAt),

  /** A circuit's transition, decided once on the endpoint's locked row: a fresh id. */
  webhookCircuitOpened: (data: WebhookCircuitData, occurredAt = new Date()): DomainEventOf<'webhook_endpoint.circuit_opened'> =>
    build(DOMAIN_EVENTS.webhookCircuitOpened, newId('event'), data, occurredAt),

  webhookCircuitClosed: (data: WebhookCircuitData, occurredAt = new Date()): DomainEventOf<'webhook_endpoint.circuit_closed'> =>
    build(DOMAIN_EVENTS.webhookCircuitClosed, newId('event'), data, occurredAt),

  /**
   * A session's transition: the id is derived from the account, the session and the type, so it is the
   * same in every retry and for every webhook endpoint (receivers deduplicate on it).
   */
  sessionTransition: <K extends SessionEventType>(type: K, data: SessionEventData, occurredAt = new Date()): DomainEventOf<K> =>
    build(type, eventId(data.account_id, data.session.id, type), data, occurredAt),
};
