import type { Logger, Metrics } from '@idv/kit';
import type { ClaimedRegistryCheck, RegistryCheckRow, RegistryChecksRepository } from '../adapters/registry-checks.repository';
import type { RegistryPort, SessionsPort } from '../domain/ports';
import { nextRegistryAttempt, registryHoldUntil, testModeRegistry, type RegistryAnswer } from '../domain/registry';
import type { FlowService } from './flow-service';

/** Checks claimed by one pass. */
export const REGISTRY_CHECK_BATCH = 16;

/** What the registry-check work runs on: its table, the flow, the registry, the sessions service's hold. */
export interface RegistryCheckDeps {
  checks: RegistryChecksRepository;
  flows: FlowService;
  registry: RegistryPort | null;
  sessions: Pick<SessionsPort, 'hold'>;
  logger: Logger;
  metrics: Metrics;
}

export interface RegistryCheckWorkOptions {
  timeScale: number;
  /** The registry client's timeout: a claimed check is leased for longer than one call can take. */
  timeoutMs: number;
  now?: () => Date;
}

/**
 * Works the due registry checks: claims them (each check leased to this replica), holds the session's
 * abandonment off, asks the registry, and hands the answer to the flow, which decides once. A failure
 * (database, sessions service) leaves the check leased: it comes due again when the lease ends. Document
 * numbers never reach the log: checks are named by session, step and check id. The job that runs it
 * (claims, concurrency, dead-letter) is `jobs/registry-checks.ts`.
 */
export class RegistryCheckWork {
  private readonly now: () => Date;
  private readonly leaseMs: number;
  private readonly calls;
  private readonly callDuration;
  private readonly decisions;

  constructor(
    private readonly deps: RegistryCheckDeps,
    private readonly options: RegistryCheckWorkOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.leaseMs = 2 * options.timeoutMs + 10_000;
    this.calls = deps.metrics.counter('flow_registry_calls_total', 'Calls to the national registry, by outcome', [
      'outcome',
    ] as const);
    this.callDuration = deps.metrics.histogram(
      'flow_registry_call_duration_seconds',
      'Duration of calls to the national registry, by outcome',
      ['outcome'] as const,
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    );
    this.decisions = deps.metrics.counter('flow_registry_checks_decided_total', 'Registry checks decided, by outcome', [
      'outcome',
    ] as const);
  }

  /** Leases up to `limit` due checks to this replica. */
  claim(limit: number): Promise<ClaimedRegistryCheck[]> {
    const now = this.now();
    return this.deps.checks.claimDue(now, new Date(now.getTime() + this.leaseMs), limit);
  }

  /**
   * While the session's hold on the check lasts, someone waits for its verdict: a failure then is taken
   * for an outage (the sessions service, the database) and tried again, never set aside.
   */
  heldForSession(check: RegistryCheckRow): boolean {
    return this.now() <= registryHoldUntil(check.giveUpAt, this.options.timeScale);
  }

  /** Checks due now and the oldest's due time, on this worker's clock. */
  backlog(): Promise<{ depth: number; oldestDueAt: Date | null }> {
    return this.deps.checks.dueBacklog(this.now());
  }

  /** Milliseconds until the next open check comes due, on this worker's clock; null when none is open. */
  nextDueInMs(): Promise<number | null> {
    return this.deps.checks.nextDueInMs(this.now());
  }

  /** Claims and works one batch of due checks at once, outside the job (a failed check waits for its lease); returns how many were claimed. */
  async runOnce(): Promise<number> {
    const due = await this.claim(REGISTRY_CHECK_BATCH);
    await Promise.all(
      due.map((check) =>
        this.work(check).catch((error: unknown) => {
          this.deps.logger.warn({ ...logKeys(check), err: error }, 'registry check failed; it is retried when its lease ends');
        }),
      ),
    );
    return due.length;
  }

  /** Works one claimed check; throws when it could not (the check then waits for its lease to end). */
  async work(check: RegistryCheckRow): Promise<void> {
    const log = logKeys(check);
    if (check.status === 'decided') {
      await this.settle(check);
      return;
    }
    const state = await this.deps.flows.registryCheckState(check.sessionId, check.stepId);
    if (state.kind === 'gone') {
      await this.deps.checks.markDone(check, 'gone');
      return;
    }
    if (state.kind === 'decided') {
      await this.deps.checks.markDecided(check);
      await this.settle(check);
      return;
    }
    // Before every attempt, so a hold that failed to reach the sessions service is placed later, and
    // a session canceled meanwhile costs no registry call.
    const holdUntil = registryHoldUntil(check.giveUpAt, this.options.timeScale);
    if ((await this.deps.sessions.hold(check.sessionId, holdUntil)) === 'terminal') {
      await this.deps.checks.markDone(check, 'session_ended');
      return;
    }
    // Test data never reaches the national registry.
    const registry = state.mode === 'test' ? testModeRegistry : this.deps.registry;
    const answer = await this.ask(registry, state.query, check);
    const attempts = check.attempts + 1;
    const next =
      answer.kind === 'unavailable' && registry !== null
        ? nextRegistryAttempt(this.now(), attempts, check.giveUpAt, this.options.timeScale)
        : null;
    const result = await this.deps.flows.applyRegistryAnswer(check.sessionId, check.stepId, answer, attempts, next !== null);
    if (result === 'retry') {
      const cause = answer.kind === 'unavailable' ? answer.cause : undefined;
      await this.deps.checks.reschedule(check, attempts, next!, answer.kind, cause);
      // A 4xx other than 429 is our credentials or request: the operator must act, the registry will not.
      const ours = cause !== undefined && /^status_4\d\d$/.test(cause) && cause !== 'status_429';
      this.deps.logger[ours ? 'error' : 'warn'](
        { ...log, attempts, cause, next_attempt_at: next!.toISOString() },
        'the registry gave no definite answer; the check will be retried',
      );
      return;
    }
    if (result === 'gone') {
      await this.deps.checks.markDone(check, 'gone');
      return;
    }
    this.decisions.inc({ outcome: answer.kind });
    this.deps.logger.info({ ...log, attempts, outcome: answer.kind }, 'registry check decided');
    await this.settle(check);
  }

  private async ask(
    registry: RegistryPort | null,
    query: Parameters<RegistryPort['verify']>[0],
    check: RegistryCheckRow,
  ): Promise<RegistryAnswer> {
    if (!registry) {
      this.calls.inc({ outcome: 'not_configured' });
      this.deps.logger.error(
        { session_id: check.sessionId, step_id: check.stepId },
        'a step asks for the registry check but no registry is configured (REGISTRY_URL)',
      );
      return { kind: 'unavailable', cause: 'not_configured' };
    }
    if (registry === testModeRegistry) return registry.verify(query, check.id);
    const started = process.hrtime.bigint();
    const answer = await registry.verify(query, check.id);
    this.calls.inc({ outcome: answer.kind });
    this.callDuration.observe({ outcome: answer.kind }, Number(process.hrtime.bigint() - started) / 1e9);
    return answer;
  }

  /** The flow holds its verdict: deliver it (or release the hold), then the check is done. */
  private async settle(check: RegistryCheckRow): Promise<void> {
    await this.deps.flows.settleRegistryCheck(check.sessionId);
    await this.deps.checks.markDone(check);
  }
}

/** How a check is named in logs: never by what is asked about the person. */
function logKeys(check: RegistryCheckRow) {
  return { session_id: check.sessionId, step_id: check.stepId, check_id: check.id };
}
