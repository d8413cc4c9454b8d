import {
  CAPTURE_CONTENT_TYPES,
  InternalCallError,
  type AccountSession,
  type EvidenceArtifact,
  type SessionCapture,
  type SessionId,
} from '@idv/contracts';
import { appendAudit } from '../adapters/audit.repository';
import { can } from '../domain/roles';
import { isEvidenceArtifact, optedIntoImages } from '../domain/session-images';
import { auditBeforeServing } from './audit';
import type { DashboardPorts } from './ports';
import type { Outcome } from './projects';
import { findSession } from './sessions';
import type { Viewer } from './sign-in';

/**
 * A session's captured images (document sides, the face's best frame), as the flow-runner keeps them:
 * shown only where the frozen configuration opted into evidence (`options.evidenceLinks`), only to roles
 * with `sessions.personal`, and audited twice over: the "show" (`session.images_shown`, the session) and
 * every image opened (`session.image_opened`, the session and the artifact), each before anything is sent.
 */

/** The account's session when its images may be shown to this reader. */
async function imagesSession(
  ports: DashboardPorts,
  viewer: Viewer,
  id: string,
): Promise<{ kind: 'forbidden' } | { kind: 'not_found' } | { kind: 'session'; session: AccountSession }> {
  if (!can(viewer.role, 'sessions.personal')) return { kind: 'forbidden' };
  const session = await findSession(ports, viewer, id);
  // Not opted in: the session has no images to show here, as if it had none.
  if (!session || !optedIntoImages(session)) return { kind: 'not_found' };
  return { kind: 'session', session };
}

export interface ShownImages {
  kind: 'images';
  sessionId: SessionId;
  captures: SessionCapture[];
  /** When retention removed the session's captured data (nothing is left to show). */
  removedAt: string | null;
}

/** "Show the images": which captures there are, audited (`session.images_shown`) before the page is made. */
export async function showImages(
  ports: DashboardPorts,
  viewer: Viewer,
  id: string,
  address: string,
): Promise<Outcome<ShownImages>> {
  const found = await imagesSession(ports, viewer, id);
  if (found.kind !== 'session') return found;
  const { session } = found;
  let captures: SessionCapture[] = [];
  let removedAt: string | null = null;
  try {
    const answer = await ports.platform.call('listSessionCaptures', { id: viewer.accountId, sessionId: session.id });
    captures = answer.data;
    removedAt = answer.data_removed_at;
  } catch (error) {
    // The flow-runner never saw the session (a link never opened): nothing captured.
    if (!(error instanceof InternalCallError && error.status === 404)) throw error;
  }
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'session.images_shown',
    target: session.id,
    address,
  });
  return { kind: 'images', sessionId: session.id, captures, removedAt };
}

export interface OpenedImage {
  kind: 'image';
  sessionId: SessionId;
  artifact: EvidenceArtifact;
  contentType: (typeof CAPTURE_CONTENT_TYPES)[number];
  length: string | null;
  body: ReadableStream<Uint8Array>;
}

/**
 * One image, as the flow-runner decrypts it, streamed through unread. The role and the account are checked
 * again (an image's address is not a permission), and the opening is audited (`session.image_opened`, target
 * `{session}/{artifact}`) once the flow-runner has answered, before the first byte goes to the browser.
 */
export async function openImage(
  ports: DashboardPorts,
  viewer: Viewer,
  id: string,
  artifact: string,
  address: string,
): Promise<Outcome<OpenedImage>> {
  if (!can(viewer.role, 'sessions.personal')) return { kind: 'forbidden' };
  if (!isEvidenceArtifact(artifact)) return { kind: 'not_found' };
  const found = await imagesSession(ports, viewer, id);
  if (found.kind !== 'session') return found;
  const { session } = found;
  let file: Awaited<ReturnType<DashboardPorts['platform']['stream']>>;
  try {
    file = await ports.platform.stream('getSessionCapture', { id: viewer.accountId, sessionId: session.id, artifact });
  } catch (error) {
    // Never captured, or removed by retention.
    if (error instanceof InternalCallError && error.status === 404) return { kind: 'not_found' };
    throw error;
  }
  const contentType = (file.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  const safe = CAPTURE_CONTENT_TYPES.find((type) => type === contentType);
  if (!safe) {
    // Only images go to a browser, whatever was stored.
    await file.body.cancel();
    ports.logger.warn({ artifact, content_type: contentType }, 'a capture that is not an image was not served');
    return { kind: 'not_found' };
  }
  await auditBeforeServing(
    ports,
    {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'session.image_opened',
      target: `${session.id}/${artifact}`,
      address,
    },
    file.body,
  );
  return {
    kind: 'image',
    sessionId: session.id,
    artifact,
    contentType: safe,
    length: file.headers.get('content-length'),
    body: file.body,
  };
}
