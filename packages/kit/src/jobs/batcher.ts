/** An answer that fails one request of a batch and leaves the others theirs. */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

interface Queued<Req, Res> {
  key: string;
  request: Req;
  waiters: Waiter<Res>[];
}

export interface BatcherOptions<Req> {
  /** What makes two requests the same (a session id); without it every request is distinct. */
  keyOf?: (request: Req) => string;
  /**
   * `share`: a request whose key is already waiting takes that one's answer (reads, reports).
   * `next-batch`: it waits for the next batch, so a batch never holds two of one key and one
   * statement can say which of them took (versioned writes).
   */
  sameKey?: 'share' | 'next-batch';
  maxBatch: number;
  maxInFlight: number;
}

/**
 * The one batcher of the services (flow-runner reads and writes, webhooks' success records).
 * Batches concurrent requests DataLoader-style without a timer: a request goes out at once while
 * fewer than `maxInFlight` batches are on their way; otherwise it waits and leaves with the others
 * as soon as one comes back. `send` answers each request of a batch in order (`undefined`: no
 * answer, an `ItemFailure`: that request's own error; either fails that request only). A batch whose
 * `send` rejects fails every request in it.
 */
export class Batcher<Req, Res> {
  private queued: Queued<Req, Res>[] = [];
  private inFlight = 0;
  private sequence = 0;

  constructor(
    private readonly send: (requests: Req[]) => Promise<(Res | ItemFailure | undefined)[]>,
    private readonly options: BatcherOptions<Req>,
  ) {}

  submit(request: Req): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      const key = this.options.keyOf ? this.options.keyOf(request) : `#${this.sequence++}`;
      const same = this.options.sameKey === 'share' ? this.queued.find((entry) => entry.key === key) : undefined;
      if (same) same.waiters.push({ resolve, reject });
      else this.queued.push({ key, request, waiters: [{ resolve, reject }] });
      this.flush();
    });
  }

  private flush(): void {
    while (this.queued.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch: Queued<Req, Res>[] = [];
      const keys = new Set<string>();
      const later: Queued<Req, Res>[] = [];
      for (const entry of this.queued) {
        if (batch.length >= this.options.maxBatch || keys.has(entry.key)) later.push(entry);
        else {
          keys.add(entry.key);
          batch.push(entry);
        }
      }
      this.queued = later;
      this.inFlight++;
      void this.send(batch.map((entry) => entry.request))
        .then(
          (answers) =>
            batch.forEach((entry, i) => {
              const answer = answers[i];
              for (const waiter of entry.waiters) {
                if (answer === undefined) waiter.reject(new Error(`no answer for ${entry.key}`));
                else if (answer instanceof ItemFailure) waiter.reject(answer.error);
                else waiter.resolve(answer);
              }
            }),
          (error: unknown) => {
            for (const entry of batch) for (const waiter of entry.waiters) waiter.reject(error);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.flush();
        });
    }
  }
}
