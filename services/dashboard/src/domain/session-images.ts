import { EVIDENCE_ARTIFACTS, type AccountSession, type EvidenceArtifact } from '@idv/contracts';
import { can, type Role } from './roles';

/**
 * Whether a session's captured images are offered: only where its frozen configuration opted into
 * evidence (`options.evidenceLinks`, the same opt-in as the API's evidence links), and only to a role with
 * `sessions.personal`.
 */
export function optedIntoImages(session: AccountSession): boolean {
  const options = (session.config as { options?: { evidenceLinks?: unknown } }).options;
  return options?.evidenceLinks === true;
}

/** What the session page says of the images: a "show" for a role that may, a refusal for one that may not, nothing when not opted in. */
export function imagesOffer(role: Role, session: AccountSession): 'show' | 'forbidden' | null {
  if (!optedIntoImages(session)) return null;
  return can(role, 'sessions.personal') ? 'show' : 'forbidden';
}

export const isEvidenceArtifact = (value: string): value is EvidenceArtifact =>
  (EVIDENCE_ARTIFACTS as readonly string[]).includes(value);
