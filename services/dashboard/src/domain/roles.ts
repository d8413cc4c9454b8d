/** Who may do what in an account: `owner` everything; `developer` all but members and account settings; `viewer` reads. */
export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
