import type { AccountId } from '@idv/contracts';

export interface SubscriptionGateOptions {
  /** How long a seen subscriber is taken for granted (only a saving: the fan-out decides in SQL). */
  rememberMs: number;
  /** Bound on the remembered (account, type) pairs; the oldest go first. */
  maxEntries: number;
}

export const DEFAULT_SUBSCRIPTION_GATE: SubscriptionGateOptions = { rememberMs: 30_000, maxEntries: 10_000 };

/**
 * The endpoint layer asked before a session event is parsed in full: does any live endpoint of the
 * account subscribe to the type? It remembers only answers of "yes", never "no": a "no" is asked of the
 * database again at the next event, so an endpoint created or enabled a moment ago (by any replica) is
 * seen by the very next event, with no invalidation to miss. A remembered "yes" only sends the event down
 * the full path, where the fan-out statement picks the endpoints on the rows as they are then; an
 * endpoint disabled or deleted since costs one parse, never a delivery.
 */
export class SubscriptionGate {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly lookup: (accountId: AccountId, type: string) => Promise<boolean>,
    private readonly options: SubscriptionGateOptions = DEFAULT_SUBSCRIPTION_GATE,
    private readonly now: () => number = Date.now,
  ) {}

  async mayDeliver(accountId: AccountId, type: string): Promise<boolean> {
    const key = `${accountId} ${type}`;
    const until = this.seen.get(key);
    if (until !== undefined && until > this.now()) return true;
    this.seen.delete(key);
    const subscribes = await this.lookup(accountId, type);
    if (subscribes) this.remember(key);
    return subscribes;
  }

  private remember(key: string): void {
    this.seen.delete(key);
    if (this.seen.size >= this.options.maxEntries) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    this.seen.set(key, this.now() + this.options.rememberMs);
  }
}
