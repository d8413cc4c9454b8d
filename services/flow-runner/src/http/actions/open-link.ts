import { isLinkToken } from '@idv/contracts';
import { deviceClass } from '../../domain/timeline';
import { bindingCookie, bindingCookieName, isPreviewBot, parseCookies } from '../security';
import { STATUS_CODE } from '../pages';
import { renderStatusPage } from '../views/pages';
import { redirect, sendHtml, sendNotFound, sendPreview } from '../respond';
import type { PageAction } from '../page-context';

/** `GET /l/:token`, the session url: throttled per address, never redeemed by a preview robot. */
export const openLinkPage: PageAction = async (ctx, { req, res, params, locale }) => {
  const token = params.token ?? '';
  const decision = await ctx.throttle.take('link_open', ctx.clientAddresses.of(req));
  if (!decision.allowed) {
    res.setHeader('Retry-After', String(decision.retryAfterSeconds));
    return sendHtml(res, STATUS_CODE.throttled, renderStatusPage('throttled', locale, { testMode: false }));
  }
  if (!isLinkToken(token)) return sendNotFound(res, locale);
  // A chat app unfurling the link (or any HEAD) gets a neutral page; the token stays unredeemed.
  if (req.method === 'HEAD' || isPreviewBot(req.headers['user-agent'])) return sendPreview(res, locale);
  const cookies = parseCookies(req.headers.cookie);
  // The timeline keeps the device's class only, never the address or the User-Agent itself.
  const device = deviceClass(req.headers['user-agent']);
  const opened = await ctx.flows.openLink(token, (sessionId) => cookies[bindingCookieName(sessionId)], locale, device);
  if (opened.kind === 'status') {
    return sendHtml(res, STATUS_CODE[opened.page], renderStatusPage(opened.page, locale, { testMode: false }));
  }
  if (opened.bindingSecret) {
    res.setHeader('Set-Cookie', bindingCookie(opened.sessionId, opened.bindingSecret, ctx.secureCookies));
  }
  redirect(res, `/s/${opened.sessionId}`);
};
