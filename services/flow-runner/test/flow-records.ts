import { newId } from '@idv/contracts';
import { initialState } from '../src/domain/engine';
import type { FlowRecord } from '../src/domain/ports';

/** A stored flow of a fresh session and account, for tests that write the flow store directly. */
export function buildFlowRecord(overrides: Partial<FlowRecord> = {}): FlowRecord {
  const sessionId = overrides.sessionId ?? newId('session');
  return {
    sessionId,
    accountId: newId('account'),
    mode: 'test',
    isTry: false,
    tokenHash: `hash-${sessionId}`,
    bindingHash: 'b'.repeat(64),
    csrfToken: 'csrf',
    config: { steps: [], options: {} } as unknown as FlowRecord['config'],
    state: initialState(),
    status: 'active',
    locale: 'es',
    version: 0,
    ...overrides,
  };
}
