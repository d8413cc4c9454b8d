/** Who may do what in an account: `owner` everything; `developer` all but members and account settings; `viewer` reads. */
export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export type Action =
  | 'keys.read'
  | 'keys.write'
  | 'projects.read'
  | 'projects.write'
  | 'members.manage'
  | 'account.settings'
  /** The account's audit log: who did what, from where (owners: it names every member's actions). */
  | 'audit.read'
  /** The token balance and its ledger: no secret and no personal data, so every role reads it. */
  | 'billing.read';

const ALLOWED: Record<Role, ReadonlySet<Action>> = {
  owner: new Set([
    'keys.read',
    'keys.write',
    'projects.read',
    'projects.write',
    'members.manage',
    'account.settings',
    'audit.read',
    'billing.read',
  ]),
  developer: new Set(['keys.read', 'keys.write', 'projects.read', 'projects.write', 'billing.read']),
  viewer: new Set(['keys.read', 'projects.read', 'billing.read']),
};

/** Checked on the server for every page and action; hiding a button is only a courtesy. */
export const can = (role: Role, action: Action): boolean => ALLOWED[role].has(action);
