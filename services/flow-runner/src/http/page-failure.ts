import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerWithoutBody, type Logger } from '@idv/kit';
import { pickLocale } from '../domain/i18n';
import { BadRequest } from './bad-request';
import { UNREAD_UPLOAD_BOUNDS } from './multipart';
import { STATUS_CODE } from './pages';
import { renderErrorPage, renderStatusPage } from './views/pages';
import { sendHtml } from './respond';

/** Anything failing under the person's pages gets a page, not problem+json: the reader is a person. */
export function failPage(logger: Logger, req: IncomingMessage, res: ServerResponse, pathname: string, error: unknown): void {
  const locale = pickLocale(req.headers['accept-language']);
  const requestId = res.getHeader('x-request-id');
  if (res.headersSent) {
    logger.error({ err: error, request_id: requestId }, 'flow page failed after its headers were sent');
    res.destroy();
    return;
  }
  // raw-body's own errors (too large, aborted, bad length) carry a 4xx status like ours.
  const status = (error as { status?: number }).status;
  if (error instanceof BadRequest || (status !== undefined && status >= 400 && status < 500)) {
    const refusal = error instanceof BadRequest ? error : null;
    const page = refusal?.options.page;
    const tell = refusal?.tell?.(locale);
    // A refused submission's page links back to its flow.
    const back = req.method === 'POST' && /^\/s\/[^/]+$/.test(pathname) ? pathname : null;
    if (refusal?.options.retryAfterSeconds) res.setHeader('Retry-After', String(refusal.options.retryAfterSeconds));
    answerWithoutBody(
      req,
      res,
      () =>
        page
          ? sendHtml(
              res,
              STATUS_CODE[page],
              renderStatusPage(page, locale, { testMode: false, ...(back ? { sessionId: back.slice(3) } : {}) }),
            )
          : sendHtml(res, status ?? 400, renderErrorPage(locale, tell ? back : null, tell)),
      UNREAD_UPLOAD_BOUNDS,
    );
    return;
  }
  logger.error(
    {
      err: error,
      request_id: requestId,
      method: req.method,
      path: pathname.replace(/(lt|ho)_[A-Za-z0-9_-]+/, '$1_[REDACTED]'),
    },
    'flow page failed',
  );
  const retry = req.method === 'POST' ? pathname : (req.url ?? null);
  sendHtml(res, 503, renderErrorPage(locale, retry));
}
