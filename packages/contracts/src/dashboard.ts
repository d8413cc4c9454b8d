import { idSchema } from './ids';
import { z } from './zod';

/** An owner added to an existing account by an operator (the demo account's, or an account moved in). */
export const CreateAccountOwnerBodySchema = z.strictObject({
  email: z.email().max(254),
  name: z.string().trim().min(1).max(200),
  /** Checked against the dashboard's password rules (length, common passwords, not the e-mail). */
  password: z.string().min(10).max(128),
});

export const DashboardUserSchema = z.object({
  object: z.literal('dashboard_user'),
  id: idSchema('user'),
  account_id: idSchema('account'),
  email: z.string(),
  name: z.string(),
  role: z.enum(['owner', 'developer', 'viewer']),
});
export type DashboardUser = z.infer<typeof DashboardUserSchema>;

/** An operator of the service (the operator console), created with the CLI; TOTP is enrolled at the first sign-in. */
export const CreateOperatorBodySchema = CreateAccountOwnerBodySchema;

export const OperatorSchema = z.object({
  object: z.literal('operator'),
  id: idSchema('user'),
  email: z.string(),
  name: z.string(),
});
