import { INTERNAL_HEADERS, contractPath, internalRoute, type AccountId, type ResolvedKey } from '@idv/contracts';
import type { Logger } from '@idv/kit';
import { Pool } from 'undici';

interface CacheEntry {
  value: ResolvedKey | null;
  expiresAt: number;
}

const NEGATIVE_TTL_MS = 2000;
const RESOLVE = internalRoute('resolveApiKey');
const RESOLVE_PATH = contractPath(RESOLVE);
const MAX_ENTRIES = 50_000;

export class BrokenContextError extends Error {}

/** The keys service could not answer (unreachable, 5xx): transient, the client should retry. */
export class KeysUnavailableError extends Error {}

/**
 * Resolves a key hash through the keys service, with a per-replica cache. Revocations and account
 * status changes arrive as domain events and evict entries at once; the TTL is only a safety net.
 */
export class KeyResolver {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly keys: Pool;

  constructor(
    keysUrl: string,
    private readonly internalToken: string,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {
    this.keys = new Pool(keysUrl, { connections: 32, headersTimeout: 5000, bodyTimeout: 5000 });
  }

  /** The cached answer for a key hash (null: known unknown), or undefined when it must be asked. */
  cached(secretHash: string): ResolvedKey | null | undefined {
    const cached = this.cache.get(secretHash);
    return cached && cached.expiresAt > Date.now() ? cached.value : undefined;
  }

  async resolve(secretHash: string): Promise<ResolvedKey | null> {
    const cached = this.cache.get(secretHash);
    if (cached && cached.expiresAt > Date.now()) return cached.value;
    const value = await this.fetch(secretHash);
    if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(secretHash, { value, expiresAt: Date.now() + (value ? this.ttlMs : Math.min(NEGATIVE_TTL_MS, this.ttlMs)) });
    return value;
  }

  private async fetch(secretHash: string): Promise<ResolvedKey | null> {
    const response = await this.keys.request({
      method: 'POST',
      path: RESOLVE_PATH,
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.token]: this.internalToken },
      body: JSON.stringify({ secret_hash: secretHash }),
    });
    const text = await response.body.text();
    if (response.statusCode === 404) return null;
    if (response.statusCode >= 500) {
      this.logger.error({ status: response.statusCode }, 'keys service failed to resolve a key');
      throw new KeysUnavailableError(`keys service answered ${response.statusCode}`);
    }
    if (response.statusCode !== 200) {
      this.logger.error({ status: response.statusCode }, 'keys service refused to resolve a key');
      throw new BrokenContextError(`keys service answered ${response.statusCode}`);
    }
    const parsed = RESOLVE.responses[200].schema.safeParse(JSON.parse(text));
    if (!parsed.success || parsed.data.secret_hash !== secretHash) {
      throw new BrokenContextError('keys service answered an unusable identity');
    }
    return parsed.data;
  }

  evictKey(secretHash: string): void {
    this.cache.delete(secretHash);
  }

  evictAccount(accountId: AccountId): void {
    for (const [hash, entry] of this.cache) {
      if (entry.value?.account_id === accountId) this.cache.delete(hash);
    }
  }

  clear(): void {
    this.cache.clear();
  }

  async check(): Promise<void> {
    const response = await this.keys.request({ method: 'GET', path: '/healthz' });
    await response.body.dump();
    if (response.statusCode !== 200) throw new Error(`keys service answered ${response.statusCode}`);
  }

  async close(): Promise<void> {
    await this.keys.close();
  }
}
