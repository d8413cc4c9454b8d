import { SESSION_EVENT_TYPES, type SessionEventType } from '@idv/contracts';

export function isSessionEventType(type: string): type is SessionEventType {
  return (SESSION_EVENT_TYPES as readonly string[]).includes(type);
}

/**
 * Spec "Two subscription layers": the frozen config fires the type AND the endpoint subscribes to it.
 * The consumer checks the first layer with this module and the second in SQL (`fanOut`), the same rule.
 */
export function subscribed(
  type: string,
  configEvents: readonly string[],
  endpoint: { events: readonly string[]; status: string },
) {
  return endpoint.status === 'active' && configEvents.includes(type) && endpoint.events.includes(type);
}
