import type { ConsumerSpec, HandlerOutcome } from '@idv/kit';
import { NOTICE_BINDINGS } from '../domain/owner-notices';
import { notifyOwners } from '../use-cases/owner-notices';
import type { DashboardPorts } from '../use-cases/ports';

export const OWNER_NOTICES_QUEUE = 'dashboard.owner-notices';

/**
 * The owners' notices' consumer: the balance's and the webhook circuits' events, each mailed to the account's
 * owners and acked once SMTP took every mail (and the audit entry is committed); a malformed event is
 * dead-lettered; a mail that fails is retried by the kit's broker with a growing wait.
 */
export function ownerNoticesConsumer(
  ports: Pick<DashboardPorts, 'pool' | 'mailer' | 'baseUrl' | 'logger'>,
  options: { queue?: string; exclusive?: boolean } = {},
): ConsumerSpec {
  return {
    queue: options.queue ?? OWNER_NOTICES_QUEUE,
    ...(options.exclusive ? { exclusive: true } : {}),
    bindings: NOTICE_BINDINGS,
    // A handler holds a database connection while it mails: a few at a time per replica.
    prefetch: 4,
    handler: async (event): Promise<HandlerOutcome> => {
      const outcome = await notifyOwners(ports, event);
      if (outcome.kind === 'malformed') {
        ports.logger.error(
          { event_id: event.id, type: event.type, issues: outcome.issues },
          'malformed notice event; dead-lettered',
        );
        return 'dead';
      }
      if (outcome.kind === 'sent') {
        ports.logger.info({ event_id: event.id, type: event.type, owners: outcome.owners }, 'owners notified');
      }
      return 'ack';
    },
  };
}
