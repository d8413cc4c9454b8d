import { randomBytes } from 'node:crypto';
import { newId } from '@idv/contracts';
import { createLogger, createMetrics, createPool, type Pool } from '@idv/kit';
import { waitFor } from '@idv/testkit';
import { RegistryChecksRepository } from '../src/adapters/registry-checks.repository';
import { RegistryCheckRunner } from '../src/jobs/registry-checks';
import type { FlowService } from '../src/use-cases/flow-service';
import { privateFlowDatabase } from './private-database';

/**
 * The registry-check job's poison handling against a real PostgreSQL database of the test's own (no
 * running flow-runner claims these checks). The flow itself is out of the picture: its store fails
 * every time, as a check whose flow state cannot be read would.
 */
let database: Awaited<ReturnType<typeof privateFlowDatabase>>;
let pool: Pool;
const HOUR = 3_600_000;

beforeAll(async () => {
  database = await privateFlowDatabase('registry_dead_letter');
  pool = createPool({ url: database.url, schema: 'flow', max: 6 });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** A flow with one pending registry check, due now, given up at `giveUpAt`, after `unfinishedClaims` claims without an outcome. */
async function pendingCheck(giveUpAt: Date, unfinishedClaims: number): Promise<string> {
  const sessionId = newId('session');
  await pool.query(
    `INSERT INTO flows (session_id, account_id, mode, token_hash, binding_hash, csrf_token, config, state)
     VALUES ($1, $2, 'test', $3, 'b', 'c', '{}', '{}')`,
    [sessionId, newId('account'), randomBytes(16).toString('hex')],
  );
  await pool.query(
    `INSERT INTO registry_checks (session_id, step_id, id, next_attempt_at, give_up_at, unfinished_claims)
     VALUES ($1, 'doc', $2, now(), $3, $4)`,
    [sessionId, `rgc_${randomBytes(8).toString('hex')}`, giveUpAt, unfinishedClaims],
  );
  return sessionId;
}

async function checkOf(sessionId: string) {
  const { rows } = await pool.query<{ status: string; last_outcome: string | null; unfinished_claims: number }>(
    'SELECT status, last_outcome, unfinished_claims FROM registry_checks WHERE session_id = $1',
    [sessionId],
  );
  return rows[0]!;
}

function runner(readsOfState: string[]): RegistryCheckRunner {
  const flows = {
    registryCheckState: (sessionId: string) => {
      readsOfState.push(sessionId);
      return Promise.reject(new Error('flow state unreadable'));
    },
  };
  return new RegistryCheckRunner(
    {
      checks: new RegistryChecksRepository(pool),
      flows: flows as unknown as FlowService,
      registry: null,
      sessions: { hold: () => Promise.resolve('ok') },
      logger: createLogger({ service: 'registry-test', level: 'silent' }),
      metrics: createMetrics('registry-test'),
    },
    // Short lease: a failed check comes due again within the test.
    { timeScale: 1, timeoutMs: 1, intervalMs: 20 },
  );
}

describe('registry checks that keep failing', () => {
  test('when a check failed too often and its session no longer waits for it, then it is set aside without being worked again', async () => {
    const abandoned = await pendingCheck(new Date(Date.now() - 2 * HOUR), 5);
    const reads: string[] = [];
    const job = runner(reads);
    await job.start();
    try {
      await waitFor(async () => (await checkOf(abandoned)).status === 'done', 10_000, 10, 'set aside');
    } finally {
      await job.stop();
    }
    expect(await checkOf(abandoned)).toEqual({ status: 'done', last_outcome: 'dead_lettered', unfinished_claims: 0 });
    expect(reads).not.toContain(abandoned);
  });

  test('when a check fails while its session still waits for it, then it is tried again however often, never set aside', async () => {
    const waiting = await pendingCheck(new Date(Date.now() + 2 * HOUR), 5);
    const reads: string[] = [];
    const job = runner(reads);
    await job.start();
    try {
      // Two more failed claims past the cap.
      await waitFor(() => reads.filter((id) => id === waiting).length >= 2, 30_000, 20, 'worked again');
    } finally {
      await job.stop();
    }
    const check = await checkOf(waiting);
    expect(check.status).toBe('pending');
    expect(check.unfinished_claims).toBeGreaterThanOrEqual(7);
  });
});
