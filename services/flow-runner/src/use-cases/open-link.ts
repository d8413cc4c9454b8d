import { FlowConfigSchema, type DeviceClass, type SessionId } from '@idv/contracts';
import { initialState } from '../domain/engine';
import type { Locale } from '../domain/i18n';
import type { OpenResult } from '../domain/pages';
import { randomToken, sameSecret, sha256 } from '../domain/secrets';
import { notBoundPage, type FlowCore } from './flow-core';

/**
 * First open redeems the token and binds the browser; the same browser reopening goes back to its flow.
 * `device`: the class of the device opening it (the timeline's first entry).
 */
export async function openLink(
  core: FlowCore,
  token: string,
  bindingSecret: (sessionId: SessionId) => string | undefined,
  locale: Locale,
  device: DeviceClass = 'unknown',
): Promise<OpenResult> {
  const tokenHash = sha256(token);
  const existing = await core.options.store.findByTokenHash(tokenHash);
  if (existing) {
    const presented = bindingSecret(existing.sessionId);
    return sameSecret(presented, existing.bindingHash)
      ? { kind: 'redirect', sessionId: existing.sessionId }
      : { kind: 'status', page: notBoundPage(existing, presented) };
  }
  const asked = core.now();
  const redeemed = await core.options.sessions.redeem(token);
  if (!redeemed.ok) {
    switch (redeemed.reason) {
      case 'link_redeemed':
        return { kind: 'status', page: 'used' };
      case 'link_expired':
        return { kind: 'status', page: 'expired' };
      case 'session_terminal':
        return { kind: 'status', page: 'finished' };
      case 'not_found':
        return { kind: 'status', page: 'not_found' };
    }
  }
  const session = redeemed.session;
  const sessionId = session.id;
  const config = FlowConfigSchema.parse(session.config);
  const secret = randomToken();
  await core.options.store.insert(
    {
      sessionId,
      accountId: session.account_id,
      mode: session.mode,
      isTry: session.try === true,
      tokenHash,
      bindingHash: sha256(secret),
      csrfToken: randomToken(),
      config,
      state: initialState(),
      status: 'active',
      locale,
      version: 0,
    },
    { device },
  );
  core.confirmedForNextView.add(sessionId, asked);
  return { kind: 'redirect', sessionId, bindingSecret: secret };
}
