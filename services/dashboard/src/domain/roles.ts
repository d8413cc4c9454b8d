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
  | 'billing.read'
  /** The sessions list and a session's timeline (no personal data). */
  | 'sessions.read'
  /** A session's personal data and images, behind an audited "show" (never a viewer). */
  | 'sessions.personal'
  /** Cancel a session that is not decided yet. */
  | 'sessions.cancel'
  /** Webhook endpoints, their delivery log (bodies only with `sessions.personal`) and health; never a secret. */
  | 'webhooks.read'
  /** Create, edit, rotate, test, disable and delete endpoints; redeliver and retry. */
  | 'webhooks.write';

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
    'sessions.read',
    'sessions.personal',
    'sessions.cancel',
    'webhooks.read',
    'webhooks.write',
  ]),
  developer: new Set([
    'keys.read',
    'keys.write',
    'projects.read',
    'projects.write',
    'billing.read',
    'sessions.read',
    'sessions.personal',
    'sessions.cancel',
    'webhooks.read',
    'webhooks.write',
  ]),
  viewer: new Set(['keys.read', 'projects.read', 'billing.read', 'sessions.read', 'webhooks.read']),
};

/** Checked on the server for every page and action; hiding a button is only a courtesy. */
export const can = (role: Role, action: Action): boolean => ALLOWED[role].has(action);
