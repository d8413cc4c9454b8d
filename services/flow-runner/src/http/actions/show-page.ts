import { isId } from '@idv/contracts';
import type { PageAction } from '../page-context';
import { sendJson, sendNotFound, sendShow } from '../respond';
import { bindingCookieName, handoverCookieName, parseCookies } from '../security';

/** `GET /s/:sessionId`: the current step, or the page that says why the flow cannot go on. */
export const showFlowPage: PageAction = async (ctx, { req, res, params, locale }) => {
  const sessionId = params.sessionId ?? '';
  if (!isId('session', sessionId)) return sendNotFound(res, locale);
  const cookies = parseCookies(req.headers.cookie);
  const shown = await ctx.flows.show(
    sessionId,
    cookies[bindingCookieName(sessionId)],
    locale,
    cookies[handoverCookieName(sessionId)],
  );
  await sendShow(res, shown, locale, ctx);
};

/**
 * `GET /s/:sessionId/version`: what a waiting page polls (progress.js). Only this browser's flow answers;
 * anything else is the same 404, so the endpoint tells no one whether a session exists.
 */
export const flowVersionPage: PageAction = async (ctx, { req, res, params }) => {
  const sessionId = params.sessionId ?? '';
  const cookies = parseCookies(req.headers.cookie);
  const version = isId('session', sessionId) ? await ctx.flows.version(sessionId, cookies[bindingCookieName(sessionId)]) : null;
  sendJson(res, version === null ? 404 : 200, version === null ? { error: 'not_found' } : { version });
};
