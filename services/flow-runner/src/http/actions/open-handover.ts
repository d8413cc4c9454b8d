import { isId } from '@idv/contracts';
import { deviceClass } from '../../domain/timeline';
import { STATUS_CODE } from '../pages';
import { renderStatusPage } from '../views/pages';
import type { PageAction } from '../page-context';
import { redirect, sendHtml, sendPreview } from '../respond';
import { bindingCookie, isPreviewBot } from '../security';

/**
 * `GET /h/:sessionId/:token`, the hand-over URL of a camera page's QR code, opened on another device:
 * throttled and guarded against preview robots like a link open; when the token is alive and unused
 * the flow is bound to this browser, which lands on the current step.
 */
export const openHandoverPage: PageAction = async (ctx, { req, res, params, locale }) => {
  const sessionId = params.sessionId ?? '';
  const decision = await ctx.throttle.take('link_open', ctx.clientAddresses.of(req));
  if (!decision.allowed) {
    ctx.counters.handovers.inc({ outcome: 'throttled' });
    res.setHeader('Retry-After', String(decision.retryAfterSeconds));
    return sendHtml(res, STATUS_CODE.throttled, renderStatusPage('throttled', locale, { testMode: false }));
  }
  if (req.method === 'HEAD' || isPreviewBot(req.headers['user-agent'])) {
    ctx.counters.handovers.inc({ outcome: 'preview' });
    return sendPreview(res, locale);
  }
  const result = isId('session', sessionId)
    ? await ctx.flows.handOver(sessionId, params.token ?? '', deviceClass(req.headers['user-agent']))
    : ({ kind: 'status', page: 'handover_invalid' } as const);
  if (result.kind === 'status') {
    ctx.counters.handovers.inc({ outcome: result.page === 'finished' ? 'finished' : 'invalid' });
    return sendHtml(res, STATUS_CODE[result.page], renderStatusPage(result.page, locale, { testMode: false }));
  }
  ctx.counters.handovers.inc({ outcome: 'moved' });
  ctx.logger.info({ session_id: sessionId }, 'flow handed over to another device');
  res.setHeader('Set-Cookie', bindingCookie(sessionId, result.bindingSecret, ctx.secureCookies));
  redirect(res, `/s/${sessionId}`);
};
