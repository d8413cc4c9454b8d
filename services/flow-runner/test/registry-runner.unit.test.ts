import { createLogger, createMetrics } from '@idv/kit';
import { RegistryCheckRunner } from '../src/jobs/registry-checks';
import type { RegistryCheckRow, RegistryChecksRepository } from '../src/adapters/registry-checks.repository';
import type { FlowService } from '../src/use-cases/flow-service';
import type { RegistryAnswer, RegistryQuery } from '../src/domain/registry';
import type { RegistryPort } from '../src/domain/ports';

/** The runner's decisions over stand-ins of the flow and the table (the real ones run in registry-check.e2e). */
const NOW = new Date('2026-11-23T12:00:00.000Z');
const QUERY: RegistryQuery = {
  document_type: 'dni',
  number: '26756539',
  sex: 'M',
  surname: 'PEREZ',
  given_names: 'JUAN CARLOS',
  birth_date: '1978-03-15',
  tramite: null,
  series: null,
};

function buildCheck(overrides: Partial<RegistryCheckRow> = {}): RegistryCheckRow {
  return {
    sessionId: 'vs_01JZZZZZZZZZZZZZZZZZZZZZZZ',
    stepId: 'doc',
    id: 'rgc_01JZZZZZZZZZZZZZZZZZZZZZZZ',
    status: 'pending',
    attempts: 0,
    giveUpAt: new Date(NOW.getTime() + 3_600_000),
    ...overrides,
  };
}

function buildRunner(options: { registry: RegistryPort | null; hold?: 'ok' | 'terminal'; check?: RegistryCheckRow }) {
  const check = options.check ?? buildCheck();
  const calls = {
    claimed: [] as RegistryCheckRow[],
    rescheduled: [] as { attempts: number; next: Date; outcome: string }[],
    done: [] as (string | undefined)[],
    applied: [] as { answer: RegistryAnswer; attempts: number; retryLeft: boolean }[],
    settled: 0,
    holds: [] as (Date | null)[],
  };
  const checks = {
    claimDue: jest.fn(() => {
      calls.claimed.push(check);
      return Promise.resolve([check]);
    }),
    reschedule: jest.fn((_: RegistryCheckRow, attempts: number, next: Date, outcome: string) => {
      calls.rescheduled.push({ attempts, next, outcome });
      return Promise.resolve();
    }),
    markDone: jest.fn((_: RegistryCheckRow, outcome?: string) => {
      calls.done.push(outcome);
      return Promise.resolve();
    }),
    markDecided: jest.fn(() => Promise.resolve()),
    countOpen: jest.fn(() => Promise.resolve(0)),
  };
  const flows = {
    registryCheckState: jest.fn(() => Promise.resolve({ kind: 'ask' as const, query: QUERY })),
    applyRegistryAnswer: jest.fn(
      (_session: string, _step: string, answer: RegistryAnswer, attempts: number, retryLeft: boolean) => {
        calls.applied.push({ answer, attempts, retryLeft });
        return Promise.resolve(answer.kind === 'unavailable' && retryLeft ? 'retry' : 'decided');
      },
    ),
    settleRegistryCheck: jest.fn(() => {
      calls.settled += 1;
      return Promise.resolve();
    }),
  };
  const runner = new RegistryCheckRunner(
    {
      checks: checks as unknown as RegistryChecksRepository,
      flows: flows as unknown as FlowService,
      registry: options.registry,
      sessions: {
        hold: (_id, until) => {
          calls.holds.push(until);
          return Promise.resolve(options.hold ?? 'ok');
        },
      },
      logger: createLogger({ service: 'flow-runner-test', level: 'silent' }),
      metrics: createMetrics('flow-runner-test'),
    },
    { timeScale: 1, timeoutMs: 1000, now: () => NOW },
  );
  return { runner, calls };
}

const answering = (answer: RegistryAnswer): RegistryPort & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    verify: (_query, checkId) => {
      asked.push(checkId);
      return Promise.resolve(answer);
    },
  };
};

test('when no registry is configured, then the check is decided unavailable at its first attempt, without retries', async () => {
  const { runner, calls } = buildRunner({ registry: null });
  await runner.runOnce();
  expect(calls.applied).toEqual([{ answer: { kind: 'unavailable', cause: 'not_configured' }, attempts: 1, retryLeft: false }]);
  expect(calls.rescheduled).toEqual([]);
  expect(calls.settled).toBe(1);
  expect(calls.done).toHaveLength(1);
});

test('when the registry does not answer and time is left, then the check is held, counted and asked again 30 s later', async () => {
  const registry = answering({ kind: 'unavailable', cause: 'status_503' });
  const { runner, calls } = buildRunner({ registry });
  await runner.runOnce();
  expect(registry.asked).toEqual(['rgc_01JZZZZZZZZZZZZZZZZZZZZZZZ']);
  // Held until the deadline plus the grace for delivering the verdict.
  expect(calls.holds).toEqual([new Date(NOW.getTime() + 3_600_000 + 30 * 60_000)]);
  expect(calls.rescheduled).toHaveLength(1);
  expect(calls.rescheduled[0]!.attempts).toBe(1);
  const wait = calls.rescheduled[0]!.next.getTime() - NOW.getTime();
  expect(wait).toBeGreaterThanOrEqual(24_000);
  expect(wait).toBeLessThanOrEqual(36_000);
  expect(calls.settled).toBe(0);
});

test('when the deadline has passed, then an unavailable answer decides the check', async () => {
  const registry = answering({ kind: 'unavailable', cause: 'UND_ERR_HEADERS_TIMEOUT' });
  const { runner, calls } = buildRunner({ registry, check: buildCheck({ attempts: 53, giveUpAt: NOW }) });
  await runner.runOnce();
  expect(calls.applied).toEqual([
    { answer: { kind: 'unavailable', cause: 'UND_ERR_HEADERS_TIMEOUT' }, attempts: 54, retryLeft: false },
  ]);
  expect(calls.settled).toBe(1);
});

test('when the session already ended (canceled), then the registry is not called and the check is done', async () => {
  const registry = answering({ kind: 'match' });
  const { runner, calls } = buildRunner({ registry, hold: 'terminal' });
  await runner.runOnce();
  expect(registry.asked).toEqual([]);
  expect(calls.applied).toEqual([]);
  expect(calls.done).toEqual(['session_ended']);
});

test('when a decided check is claimed again (a replica died before delivering), then only the delivery is retried', async () => {
  const registry = answering({ kind: 'match' });
  const { runner, calls } = buildRunner({ registry, check: buildCheck({ status: 'decided', attempts: 2 }) });
  await runner.runOnce();
  expect(registry.asked).toEqual([]);
  expect(calls.settled).toBe(1);
  expect(calls.done).toHaveLength(1);
});
