import type { SessionId } from '@idv/contracts';
import { position } from '../domain/engine';
import type { Locale } from '../domain/i18n';
import type { ShowResult } from '../domain/pages';
import { sameSecret } from '../domain/secrets';
import { notBoundPage, STATUS_PAGE_OF, verdictPage, type FlowCore } from './flow-core';

/**
 * The version of the stored flow, for a waiting page that asks whether anything changed (a reading or
 * a verdict arrived) instead of reloading itself on a timer; null for an unknown session or another
 * browser, which learn nothing here.
 */
export async function flowVersion(
  core: FlowCore,
  sessionId: SessionId,
  bindingSecret: string | undefined,
): Promise<number | null> {
  const record = await core.options.store.find(sessionId);
  if (!record || !sameSecret(bindingSecret, record.bindingHash)) return null;
  return record.version;
}

/** `handoverToken`: the hand-over token this browser was last shown (a camera page shows it again while alive). */
export async function showPage(
  core: FlowCore,
  sessionId: SessionId,
  bindingSecret: string | undefined,
  locale: Locale,
  handoverToken?: string,
): Promise<ShowResult> {
  const record = await core.options.store.find(sessionId);
  if (!record) return { kind: 'status', page: 'not_found', testMode: false };
  if (!sameSecret(bindingSecret, record.bindingHash)) {
    return { kind: 'status', page: notBoundPage(record, bindingSecret), testMode: false };
  }
  const testMode = record.mode === 'test';
  if (record.status !== 'active') return verdictPage(record, record.status);
  const at = position(record.config, record.state);
  if (at.kind === 'finished') {
    // The verdict is stored but the sessions service has not taken it yet (a failure right after
    // the store): deliver it now rather than leave the session hanging.
    return core.submissionsOfFlow.run(sessionId, () => core.deliverStored(sessionId));
  }
  if (!core.confirmedForNextView.take(sessionId)) {
    const session = await core.options.sessions.get(sessionId);
    const ended = session ? STATUS_PAGE_OF[session.status] : 'not_found';
    // A verdict is usually this flow's own, delivered by a background job (a document read, a face
    // judged) after the record above was read: the stored flow, read again, names it.
    if (ended === 'finished') return core.submissionsOfFlow.run(sessionId, () => core.deliverStored(sessionId));
    if (ended) return { kind: 'status', page: ended, testMode, sessionId };
  }
  const page = await core.render(record, locale, {});
  await core.offerHandover(record, page, handoverToken);
  return page;
}
