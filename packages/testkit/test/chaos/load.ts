import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';

/**
 * The steady load of the chaos suite: integrators creating live sessions through the gateway with an
 * Idempotency-Key and cancelling some of them, each retrying a failed call with the same key (network
 * error, 5xx, 409 in flight, 429) as the contract tells an integrator to, until it is answered.
 */

export interface Outcome {
  /** Idempotency-Key → the session the create was answered with (after however many attempts). */
  created: Map<string, string>;
  /** Sessions whose cancel was answered 200 (or found canceled after a lost answer). */
  canceled: Set<string>;
  /** Creates that were never answered 2xx before their deadline: each is a failure of the system. */
  unanswered: string[];
  /** Cancels never confirmed before their deadline. */
  uncanceled: string[];
  attempts: number;
  retries: number;
  /** Every 2xx create's time, to measure how long each disturbance kept creates from succeeding. */
  successes: number[];
  /** The first answer of each replayed create differs from the first one seen: must stay empty. */
  mismatches: string[];
}

const RETRIABLE = (status: number) => status >= 500 || status === 409 || status === 429;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SteadyLoad {
  private stopped = false;
  private readonly agent = new Agent({ headersTimeout: 10_000, bodyTimeout: 10_000, connect: { timeout: 2_000 } });
  readonly outcome: Outcome = {
    created: new Map(),
    canceled: new Set(),
    unanswered: [],
    uncanceled: [],
    attempts: 0,
    retries: 0,
    successes: [],
    mismatches: [],
  };
  private readonly running: Promise<void>[] = [];

  constructor(
    private readonly gatewayUrl: string,
    private readonly key: string,
    private readonly projectId: string,
    /** How long one call may be retried before it counts as unanswered. */
    private readonly callDeadlineMs = 90_000,
  ) {}

  start(clients: number): void {
    for (let i = 0; i < clients; i++) this.running.push(this.client(i));
  }

  /** Stops starting new calls and waits for the calls in flight to be answered (or to reach their deadline). */
  async stop(): Promise<Outcome> {
    this.stopped = true;
    await Promise.all(this.running);
    await this.agent.close();
    return this.outcome;
  }

  private async client(index: number): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const sessionId = await this.create();
      // Every other session is cancelled: a domain event, a webhook to deliver.
      if (sessionId && (n + index) % 2 === 0) await this.cancel(sessionId);
    }
  }

  private async call(method: 'POST' | 'GET', path: string, body?: unknown, idempotencyKey?: string) {
    this.outcome.attempts += 1;
    const response = await request(`${this.gatewayUrl}${path}`, {
      method,
      dispatcher: this.agent,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    return { status: response.statusCode, text };
  }

  private async create(): Promise<string | null> {
    const key = randomUUID();
    const deadline = Date.now() + this.callDeadlineMs;
    let first: string | null = null;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      if (attempt > 0) {
        this.outcome.retries += 1;
        await sleep(Math.min(50 * attempt, 500));
      }
      try {
        const { status, text } = await this.call('POST', '/v1/verification-sessions', { project_id: this.projectId }, key);
        if (status === 201 || status === 200) {
          const id = (JSON.parse(text) as { id: string }).id;
          if (first !== null && first !== id) this.outcome.mismatches.push(key);
          first ??= id;
          this.outcome.created.set(key, id);
          this.outcome.successes.push(Date.now());
          return id;
        }
        if (!RETRIABLE(status)) throw new Error(`create answered ${status}: ${text.slice(0, 200)}`);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('create answered')) throw error;
        // A network error or a timeout: the request may or may not have been done; the same key tells.
      }
    }
    this.outcome.unanswered.push(key);
    return null;
  }

  private async cancel(sessionId: string): Promise<void> {
    const deadline = Date.now() + this.callDeadlineMs;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      if (attempt > 0) {
        this.outcome.retries += 1;
        await sleep(Math.min(50 * attempt, 500));
      }
      try {
        const { status } = await this.call('POST', `/v1/verification-sessions/${sessionId}/cancel`);
        if (status === 200) {
          this.outcome.canceled.add(sessionId);
          return;
        }
        if (status === 409 || status === 422) {
          // An earlier attempt may have been done with its answer lost: the session's state tells.
          const read = await this.call('GET', `/v1/verification-sessions/${sessionId}`);
          if (read.status === 200 && (JSON.parse(read.text) as { status: string }).status === 'canceled') {
            this.outcome.canceled.add(sessionId);
            return;
          }
        }
      } catch {
        // Retried below, as for a create.
      }
    }
    this.outcome.uncanceled.push(sessionId);
  }
}
