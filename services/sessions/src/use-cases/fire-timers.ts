import { withTransaction, type Pool } from '@idv/kit';
import * as sessions from '../adapters/sessions.repository';
import { unreachedSteps } from '../domain/session';
import type { SessionsService } from './sessions.service';

export type TimerKind = 'expiry' | 'abandonment';
export const TIMER_KINDS: readonly TimerKind[] = ['expiry', 'abandonment'];

/**
 * Fires up to `batch` due timers of `kind` (link expiry or abandonment) in one transaction: the due
 * sessions are locked with `FOR UPDATE SKIP LOCKED` and moved on in the same transaction, so with several
 * replicas a timer fires exactly once. Returns how many fired.
 */
export function fireDueTimers(pool: Pool, service: SessionsService, kind: TimerKind, batch: number): Promise<number> {
  return withTransaction(pool, async (tx) => {
    const due = await sessions.lockDue(tx, kind, service.now(), batch);
    for (const session of due) {
      const config = await service.config(tx, session.projectId, session.configVersion);
      const steps = unreachedSteps(config);
      await service.apply(tx, session, kind === 'expiry' ? { kind: 'expire', steps } : { kind: 'abandon', steps });
    }
    return due.length;
  });
}
