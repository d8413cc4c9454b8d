import type { MessageState } from '../../src/domain/delivery-decision';

/** A claimed message's state: an automatic event, first attempt, healthy active endpoint. */
export function buildMessage(overrides: Partial<MessageState> = {}): MessageState {
  return {
    kind: 'event',
    attempts: 0,
    lastWaitMs: null,
    evidenceLinks: false,
    endpointStatus: 'active',
    endpointDeleted: false,
    circuitOpen: false,
    consecutiveFailures: 0,
    circuitTripped: false,
    ...overrides,
  };
}
