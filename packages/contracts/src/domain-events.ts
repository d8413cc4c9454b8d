import {
  AccountStatusChangedDataSchema,
  ApiKeyRevokedDataSchema,
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
}

/** A domain event of one type, its data typed. */
export type DomainEventOf<K extends DomainEventType> = DomainEvent<DomainEventDataByType[K], K>;

/** The schema of each type's `data`, for consumers: an event read from the broker is parsed with it. */
export const DOMAIN_EVENT_DATA_SCHEMAS: { readonly [K in DomainEventType]: z.ZodType<DomainEventDataByType[K]> } = {
  'api_key.revoked': ApiKeyRevokedDataSchema,
  'account.status_changed': AccountStatusChangedDataSchema,
  'capture.stored': CaptureStoredDataSchema,
  'face.frames_stored': FaceFramesStoredDataSchema,
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

  /**
   * A session's transition: the id is derived from the account, the session and the type, so it is the
   * same in every retry and for every webhook endpoint (receivers deduplicate on it).
   */
  sessionTransition: <K extends SessionEventType>(type: K, data: SessionEventData, occurredAt = new Date()): DomainEventOf<K> =>
    build(type, eventId(data.account_id, data.session.id, type), data, occurredAt),
};
