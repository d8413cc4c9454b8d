import type { AccountId, AccountStatus } from '@idv/contracts';

/** An integrator's account as the keys service keeps it. */
export interface AccountRecord {
  id: AccountId;
  name: string;
  email: string;
  status: AccountStatus;
  createdAt: Date;
  updatedAt: Date;
}
