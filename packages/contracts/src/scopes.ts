import { z } from './zod';

export const SCOPES = ['sessions:read', 'sessions:write', 'webhooks:read', 'webhooks:write', 'usage:read'] as const;
export type Scope = (typeof SCOPES)[number];
export const ScopeSchema = z.enum(SCOPES);

/** Write implies read on the same resource, never across resources (spec "Authentication" 6). */
export function scopeSatisfies(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  const [resource, action] = required.split(':');
  return action === 'read' && granted.includes(`${resource}:write`);
}
