import type { UpstreamService } from '@idv/contracts';
import { Pool } from 'undici';

/** Keep-alive connection pools to each upstream service. */
export class Upstreams {
  private readonly pools: Map<UpstreamService, Pool>;

  constructor(urls: Partial<Record<UpstreamService, string>>) {
    this.pools = new Map(
      Object.entries(urls).map(([name, url]) => [
        name as UpstreamService,
        new Pool(url, { connections: 64, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 60_000, keepAliveTimeout: 30_000 }),
      ]),
    );
  }

  pool(service: UpstreamService): Pool {
    const pool = this.pools.get(service);
    if (!pool) throw new Error(`no upstream configured for ${service}`);
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }
}
