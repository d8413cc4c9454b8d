import type { DeviceClass, SessionId } from '@idv/contracts';
import { takeHandover } from '../domain/handover';
import type { HandOverResult } from '../domain/pages';
import { randomToken, sha256 } from '../domain/secrets';
import { SUBMISSION_ATTEMPTS, type FlowCore } from './flow-core';

/**
 * Opens a hand-over URL on another device: while its token is alive and unused, the flow is bound to
 * this browser instead (a fresh binding secret and CSRF token) and the token is spent, in one
 * versioned write, so of devices racing with one token exactly one gets the flow. The session's
 * status and timers are not touched: the redirect's page view reports like any view. `device`: the class of
 * the device the flow moves to (the timeline's entry).
 */
export async function handOver(
  core: FlowCore,
  sessionId: SessionId,
  token: string,
  device: DeviceClass = 'unknown',
): Promise<HandOverResult> {
  return core.submissionsOfFlow.run(sessionId, async () => {
    for (let attempt = 1; attempt <= SUBMISSION_ATTEMPTS; attempt++) {
      const record = await core.options.store.find(sessionId);
      if (!record) return { kind: 'status', page: 'handover_invalid' };
      if (record.status !== 'active') return { kind: 'status', page: 'finished' };
      if (!takeHandover(record.state, token, core.now().getTime(), record.bindingHash)) {
        return { kind: 'status', page: 'handover_invalid' };
      }
      const secret = randomToken();
      record.bindingHash = sha256(secret);
      record.csrfToken = randomToken();
      if (await core.options.store.rebind(record, device)) return { kind: 'moved', sessionId, bindingSecret: secret };
    }
    throw new Error(`the flow ${sessionId} kept changing while it was handed over`);
  });
}
