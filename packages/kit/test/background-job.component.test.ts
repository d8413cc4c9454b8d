import { randomBytes } from 'node:crypto';
import { waitFor } from '@idv/testkit';
import pg from 'pg';
import { BackgroundJob, createLogger, createMetrics, createPool, type Metrics, type Pool } from '../src';

/**
 * The kit's background-job loop against the real PostgreSQL, in a schema of its own: items are rows
 * claimed with `FOR UPDATE SKIP LOCKED` and a lease, as every service's claimed work is.
 */
const logger = createLogger({ service: 'kit-test', level: 'silent' });
const schema = `kit_jobs_${randomBytes(4).toString('hex')}`;
const channel = `${schema}_due`;
let pool: Pool;
/** Stopped even when an assertion failed half-way. */
const stopAfter: BackgroundJob<Item>[] = [];
afterEach(async () => {
  await Promise.all(stopAfter.splice(0).map((job) => job.stop()));
});

interface Item {
  id: number;
  due_at: Date;
  /** Claims before this one that ended without an outcome (the store's count). */
  earlier: number;
}

beforeAll(async () => {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`CREATE TABLE ${schema}.items (
    id serial PRIMARY KEY, queue text NOT NULL, due_at timestamptz NOT NULL DEFAULT now(),
    claimed_until timestamptz, done_at timestamptz, dead_at timestamptz, handled int NOT NULL DEFAULT 0,
    unfinished_claims int NOT NULL DEFAULT 0)`);
  await admin.end();
  pool = createPool({ url: process.env.DATABASE_URL!, schema, max: 12 });
});

afterAll(async () => {
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
});

async function addItems(queue: string, count: number): Promise<void> {
  await pool.query('INSERT INTO items (queue) SELECT $1 FROM generate_series(1, $2)', [queue, count]);
}

/** Claims due items of `queue`, leased for `leaseMs` (0: due again at once when given back by failure). */
function claimFrom(queue: string, leaseMs: number) {
  return async (limit: number): Promise<Item[]> => {
    const { rows } = await pool.query<Item>(
      `UPDATE items SET claimed_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000),
              unfinished_claims = unfinished_claims + 1
        WHERE id IN (SELECT id FROM items
                      WHERE queue = $1 AND done_at IS NULL AND dead_at IS NULL
                        AND (claimed_until IS NULL OR claimed_until < clock_timestamp())
                      ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, due_at, unfinished_claims - 1 AS earlier`,
      [queue, limit, leaseMs],
    );
    return rows;
  };
}

const markDone = async (item: Item) => {
  await pool.query('UPDATE items SET done_at = now(), handled = handled + 1, unfinished_claims = 0 WHERE id = $1', [item.id]);
};

function claimedJob(
  queue: string,
  overrides: Partial<{
    handle: (item: Item) => Promise<void>;
    concurrency: number;
    leaseMs: number;
    idleMs: number;
    metrics: Metrics;
    deadLetter: (item: Item, error: unknown) => Promise<void>;
    maxFailures: number;
    claim: (limit: number) => Promise<Item[]>;
  }> = {},
): BackgroundJob<Item> {
  return new BackgroundJob<Item>({
    name: `test-${queue}`,
    logger,
    ...(overrides.metrics ? { metrics: overrides.metrics } : {}),
    idleMs: overrides.idleMs ?? 50,
    listen: { channel, payload: queue, url: process.env.DATABASE_URL! },
    backlog: async () => {
      const { rows } = await pool.query<{ depth: number; oldest: Date | null }>(
        `SELECT count(*)::int AS depth, min(due_at) AS oldest FROM items
          WHERE queue = $1 AND done_at IS NULL AND dead_at IS NULL`,
        [queue],
      );
      return { depth: rows[0]!.depth, oldestDueAt: rows[0]!.oldest };
    },
    work: {
      kind: 'claimed',
      concurrency: overrides.concurrency ?? 4,
      batch: 10,
      claim: overrides.claim ?? claimFrom(queue, overrides.leaseMs ?? 30_000),
      handle: overrides.handle ?? markDone,
      keyOf: (item) => String(item.id),
      dueAt: (item) => item.due_at,
      ...(overrides.deadLetter
        ? {
            deadLetter: {
              after: overrides.maxFailures ?? 3,
              earlierFailures: (item: Item) => item.earlier,
              move: overrides.deadLetter,
            },
          }
        : {}),
    },
  });
}

async function countWhere(queue: string, condition: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE queue = $1 AND ${condition}`, [
    queue,
  ]);
  return rows[0]!.n;
}

/** The value of the sample `name` whose labels include `labels` (in any order), or NaN. */
function valueOf(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = new Set(match[2]!.split(','));
    if (Object.entries(labels).every(([key, value]) => have.has(`${key}="${value}"`))) return Number(match[3]);
  }
  return Number.NaN;
}

/** A promise the test resolves when it chooses. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('background job', () => {
  test('when three replicas claim the same queue at once, then every item is worked exactly once', async () => {
    await addItems('race', 300);
    const replicas = [claimedJob('race'), claimedJob('race'), claimedJob('race')];
    await Promise.all(replicas.map((job) => job.start()));
    await waitFor(async () => (await countWhere('race', 'done_at IS NOT NULL')) === 300, 30_000, 25, 'all items done');
    await Promise.all(replicas.map((job) => job.stop()));
    expect(await countWhere('race', 'handled = 1')).toBe(300);
    expect(await countWhere('race', 'handled <> 1')).toBe(0);
  });

  test('when the job is stopped while items are being worked, then stop waits for them and claims nothing more', async () => {
    await addItems('stop', 20);
    const release = gate();
    let started = 0;
    const job = claimedJob('stop', {
      concurrency: 2,
      handle: async (item) => {
        started += 1;
        await release.opened;
        await markDone(item);
      },
    });
    await job.start();
    await waitFor(() => started === 2, 10_000, 10, 'two items in flight');
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    // Stop cannot finish while the two handlers hold their items.
    await waitFor(() => job.inFlightCount === 2 && !stopped, 1_000, 10, 'stop waiting on work in flight');
    release.open();
    await stopping;
    expect(await countWhere('stop', 'done_at IS NOT NULL')).toBe(2);
    // The rest were never claimed: they wait, unleased, for the next replica.
    expect(await countWhere('stop', 'claimed_until IS NULL')).toBe(18);
    expect(started).toBe(2);
  });

  test('when an item fails every time, then it is dead-lettered after the cap and the others are done', async () => {
    await addItems('poison', 5);
    const { rows } = await pool.query<{ id: number }>("SELECT min(id) AS id FROM items WHERE queue = 'poison'");
    const poisonId = rows[0]!.id;
    let poisonAttempts = 0;
    const metrics = createMetrics('kit-test');
    const job = claimedJob('poison', {
      metrics,
      // Short, so a failed item comes due again soon; longer than one attempt, so it is never in flight twice.
      leaseMs: 300,
      maxFailures: 3,
      handle: async (item) => {
        if (item.id === poisonId) {
          poisonAttempts += 1;
          throw new Error('poison');
        }
        await markDone(item);
      },
      deadLetter: async (item) => {
        await pool.query('UPDATE items SET dead_at = now() WHERE id = $1', [item.id]);
      },
    });
    await job.start();
    await waitFor(async () => (await countWhere('poison', 'dead_at IS NOT NULL')) === 1, 10_000, 10, 'poison dead-lettered');
    await job.stop();
    expect(poisonAttempts).toBe(3);
    expect(await countWhere('poison', 'done_at IS NOT NULL')).toBe(4);
    const text = await metrics.registry.metrics();
    expect(valueOf(text, 'job_items_total', { job: 'test-poison', outcome: 'dead_lettered' })).toBe(1);
    expect(valueOf(text, 'job_items_total', { job: 'test-poison', outcome: 'failed' })).toBe(2);
    expect(valueOf(text, 'job_errors_total', { job: 'test-poison' })).toBe(3);
  });

  test('when an item failed on other replicas, then the count is the one in the store: it is dead-lettered on the failure that reaches the cap', async () => {
    await addItems('shared', 1);
    let attempts = 0;
    const deadLetter = async (item: Item) => {
      await pool.query('UPDATE items SET dead_at = now() WHERE id = $1', [item.id]);
    };
    const failing = () =>
      claimedJob('shared', {
        leaseMs: 100,
        maxFailures: 3,
        deadLetter,
        handle: () => {
          attempts += 1;
          return Promise.reject(new Error('poison'));
        },
      });
    // Each attempt on a new replica (a restart): a count kept in memory would never reach the cap.
    for (let replica = 0; replica < 3; replica += 1) {
      const job = failing();
      stopAfter.push(job);
      await job.start();
      await waitFor(() => attempts === replica + 1, 10_000, 10, `attempt ${replica + 1}`);
      await job.stop();
    }
    expect(await countWhere('shared', 'dead_at IS NOT NULL')).toBe(1);
  });

  test('when the earlier claims of an item all ended without an outcome (its replicas died), then it is dead-lettered without being worked', async () => {
    await addItems('crash', 2);
    // Three replicas died holding the first item: the store counted their claims.
    await pool.query("UPDATE items SET unfinished_claims = 3 WHERE id = (SELECT min(id) FROM items WHERE queue = 'crash')");
    const worked: number[] = [];
    const job = claimedJob('crash', {
      maxFailures: 3,
      handle: async (item) => {
        worked.push(item.id);
        await markDone(item);
      },
      deadLetter: async (item) => {
        await pool.query('UPDATE items SET dead_at = now() WHERE id = $1', [item.id]);
      },
    });
    stopAfter.push(job);
    await job.start();
    await waitFor(
      async () => (await countWhere('crash', '(dead_at IS NOT NULL OR done_at IS NOT NULL)')) === 2,
      10_000,
      10,
      'both settled',
    );
    await job.stop();
    expect(worked).toHaveLength(1);
    expect(await countWhere('crash', 'dead_at IS NOT NULL AND handled = 0')).toBe(1);
  });

  test('when a NOTIFY arrives on its channel, then an idle job claims at once instead of at its next poll', async () => {
    let claims = 0;
    const claim = claimFrom('notify', 30_000);
    const job = claimedJob('notify', {
      idleMs: 120_000,
      claim: async (limit) => {
        const rows = await claim(limit);
        claims += 1;
        return rows;
      },
    });
    await job.start();
    await waitFor(() => claims >= 1, 10_000, 10, 'first (empty) pass');
    await pool.query("INSERT INTO items (queue) VALUES ('notify')");
    // Another queue's payload on the same channel does not wake it; its own does.
    await pool.query(`SELECT pg_notify('${channel}', 'elsewhere')`);
    await pool.query(`SELECT pg_notify('${channel}', 'notify')`);
    await waitFor(async () => (await countWhere('notify', 'done_at IS NOT NULL')) === 1, 10_000, 10, 'woken by NOTIFY');
    await job.stop();
  });

  test('when wake() is called, then a periodic job runs a pass at once; a failing pass backs off and recovers', async () => {
    let passes = 0;
    let failuresLeft = 3;
    const metrics = createMetrics('kit-test');
    const job = new BackgroundJob({
      name: 'test-periodic',
      logger,
      metrics,
      idleMs: 120_000,
      backoff: { minMs: 5, maxMs: 20 },
      work: {
        kind: 'periodic',
        pass: () => {
          passes += 1;
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            return Promise.reject(new Error('database away'));
          }
          return Promise.resolve({ done: 1, more: false });
        },
      },
    });
    await job.start();
    // Three failures, each retried after its backoff, then one success: then idle for two minutes.
    await waitFor(() => passes === 4, 10_000, 5, 'recovered after backoff');
    job.wake();
    await waitFor(() => passes === 5, 10_000, 5, 'woken by a call');
    await job.stop();
    const text = await metrics.registry.metrics();
    expect(valueOf(text, 'job_errors_total', { job: 'test-periodic' })).toBe(3);
    expect(valueOf(text, 'job_items_total', { job: 'test-periodic', outcome: 'done' })).toBe(2);
  });

  test('when metrics are scraped, then queue depth, the oldest item age and the lag are exposed per job', async () => {
    const metrics = createMetrics('kit-test');
    await pool.query(
      "INSERT INTO items (queue, due_at) SELECT 'metrics', now() - interval '90 seconds' FROM generate_series(1, 3)",
    );
    const release = gate();
    const job = claimedJob('metrics', {
      metrics,
      concurrency: 1,
      handle: async (item) => {
        await release.opened;
        await markDone(item);
      },
    });
    await job.start();
    stopAfter.push(job);
    await waitFor(() => job.inFlightCount === 1, 10_000, 10, 'one item in flight');
    try {
      const busy = await metrics.registry.metrics();
      // Three waiting (one claimed, not done), the oldest due 90 s ago; one in flight.
      expect(valueOf(busy, 'job_queue_depth', { job: 'test-metrics' })).toBe(3);
      const age = valueOf(busy, 'job_oldest_item_age_seconds', { job: 'test-metrics' });
      expect(age).toBeGreaterThanOrEqual(90);
      expect(valueOf(busy, 'job_in_flight', { job: 'test-metrics' })).toBe(1);
      // The item claimed had waited 90 s past its due time: it lands above the 60 s bucket.
      expect(valueOf(busy, 'job_lag_seconds_bucket', { le: '60', job: 'test-metrics' })).toBe(0);
      expect(valueOf(busy, 'job_lag_seconds_count', { job: 'test-metrics' })).toBe(1);
    } finally {
      release.open();
    }
    await waitFor(async () => (await countWhere('metrics', 'done_at IS NOT NULL')) === 3, 10_000, 10, 'drained');
    await job.stop();
    expect(valueOf(await metrics.registry.metrics(), 'job_queue_depth', { job: 'test-metrics' })).toBe(0);
  });
});
