/**
 * How much a search may try, counted in work (zxing decodes weighted by the pixels they covered, OCR
 * passes), not in milliseconds.
 *
 * Budgets in wall-clock time made a photo's reading depend on the machine's load: on a shared 2-core
 * machine the same photo read on one run and not on the next, because a loaded run reached fewer rungs
 * of the tilt ladder (bench/documents, 2026-11-23). A count spent the same way on every run gives the
 * same reading for the same photo whatever the load; the time it takes then varies, the result does not.
 *
 * Wall-clock time is kept only as a safety cap (`SafetyClock`) against pathological inputs (the OCR
 * engine reading a screen's moiré for tens of seconds): generous enough that an ordinary photo never
 * meets it even on a loaded machine.
 */
export class WorkBudget {
  private used = 0;

  /**
   * @param limit units that may be spent; an attempt starts while fewer have been spent, so the last
   *   one may overrun the limit by its own cost (attempts are not cut in the middle).
   * @param clock the side's safety cap: once it has run out no attempt starts either.
   */
  constructor(
    readonly limit: number,
    private readonly clock: SafetyClock | null = null,
  ) {}

  spend(units: number): void {
    this.used += units;
  }

  get spent(): number {
    return this.used;
  }

  /** No further attempt may start: the count is reached, or the safety cap ran out. */
  get exhausted(): boolean {
    return this.used >= this.limit || (this.clock?.expired ?? false);
  }

  /** The count alone, for reports: whether the safety cap rather than the count stopped a search. */
  get countReached(): boolean {
    return this.used >= this.limit;
  }
}

/** A wall-clock limit meant never to decide an ordinary reading (see `WorkBudget`). */
export class SafetyClock {
  private readonly end: number;

  constructor(
    readonly ms: number,
    private readonly now: () => number = Date.now,
  ) {
    this.end = now() + ms;
  }

  get expired(): boolean {
    return this.now() > this.end;
  }
}

/** A zxing attempt's cost in budget units: megapixels decoded. */
export function megapixels(width: number, height: number): number {
  return (width * height) / 1_000_000;
}
