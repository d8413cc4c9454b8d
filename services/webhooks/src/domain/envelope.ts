import { randomBytes } from 'node:crypto';
import type { EventId, WebhookEventType } from '@idv/contracts';

export const API_VERSION = 'v1';

export interface EnvelopeSource {
  eventId: string;
  type: WebhookEventType;
  object: Record<string, unknown>;
}

/** The body POSTed to receivers (spec "Envelope"); `created_at` is the moment of sending. */
export function buildEnvelope(source: EnvelopeSource, now: Date): string {
  return JSON.stringify({
    id: source.eventId,
    object: 'event',
    api_version: API_VERSION,
    type: source.type,
    created_at: now.toISOString(),
    data: { object: source.object },
  });
}

/** A `test` event has its own random id: each test is a distinct logical event. */
export function testEventId(): EventId {
  return `evt_${randomBytes(16).toString('hex')}`;
}

/** `data.object` of a `test` event (documented in docs/webhooks.md). */
export function testEventObject(endpointId: string): Record<string, unknown> {
  return {
    object: 'webhook_test',
    endpoint_id: endpointId,
    message: 'This is a test event sent by POST /v1/webhook-endpoints/{id}/test. It carries no session.',
  };
}
