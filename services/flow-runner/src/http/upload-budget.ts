/** Which of the two bounds an upload's next bytes would pass. */
export type BudgetRefusal = 'process' | 'address';

export interface UploadBudgetLimits {
  /** Upload bytes held in memory by this process at once, over every request. */
  processBytes: number;
  /** Upload bytes held at once for one client address (a person, or a carrier's NAT of many). */
  addressBytes: number;
}

/**
 * The upload bytes this process holds in memory, by client address: every file part's bytes are taken
 * from the budget as they arrive and given back when the submission is over, so that many connections
 * sending large bodies at once meet a bound instead of the pod's memory limit.
 */
export class UploadBudget {
  private heldBytes = 0;
  private readonly heldByAddress = new Map<string, number>();

  constructor(private readonly limits: UploadBudgetLimits) {}

  get held(): number {
    return this.heldBytes;
  }

  /** A lease for one request's uploads from `address`; give it back with `release()` when they are dropped. */
  lease(address: string): UploadLease {
    return new UploadLease(this, address);
  }

  /** @internal Takes `bytes` for `address`, or says which bound it would pass (taking nothing). */
  take(address: string, bytes: number): BudgetRefusal | null {
    const byAddress = this.heldByAddress.get(address) ?? 0;
    if (this.heldBytes + bytes > this.limits.processBytes) return 'process';
    if (byAddress + bytes > this.limits.addressBytes) return 'address';
    this.heldBytes += bytes;
    this.heldByAddress.set(address, byAddress + bytes);
    return null;
  }

  /** @internal */
  give(address: string, bytes: number): void {
    this.heldBytes -= bytes;
    const left = (this.heldByAddress.get(address) ?? 0) - bytes;
    if (left > 0) this.heldByAddress.set(address, left);
    else this.heldByAddress.delete(address);
  }
}

export class UploadLease {
  private bytes = 0;

  constructor(
    private readonly budget: UploadBudget,
    private readonly address: string,
  ) {}

  take(bytes: number): BudgetRefusal | null {
    const refusal = this.budget.take(this.address, bytes);
    if (refusal === null) this.bytes += bytes;
    return refusal;
  }

  release(): void {
    this.budget.give(this.address, this.bytes);
    this.bytes = 0;
  }
}
