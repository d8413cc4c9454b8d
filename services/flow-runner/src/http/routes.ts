import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isId } from '@idv/contracts';
import type { Logger, Metrics } from '@idv/kit';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { FlowService, ShowResult, SubmitResult } from '../domain/flow-service';
import { pickLocale, type Locale } from '../domain/i18n';
import { STATUS_CODE, STYLESHEET_PATH, renderErrorPage, renderFlowPage, renderStatusPage } from './pages';
import { bindingCookie, bindingCookieName, isPreviewBot, parseCookies, securityHeaders } from './security';

const TOKEN_PATTERN = /^lt_[A-Za-z0-9_-]{8,200}$/;
const STYLESHEET = readFileSync(path.join(__dirname, '..', '..', 'assets', 'flow.css'), 'utf8');

export interface FlowRoutesOptions {
  flows: FlowService;
  logger: Logger;
  metrics: Metrics;
  secureCookies: boolean;
}

const localeOf = (req: Request): Locale => pickLocale(req.header('accept-language'));

function sendHtml(res: Response, status: number, body: string): void {
  res.status(status).setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept-Language, Cookie');
  res.type('text/html; charset=utf-8').send(body);
}

function sendShow(res: Response, result: ShowResult, locale: Locale): void {
  if (result.kind === 'flow') {
    sendHtml(res, result.hasErrors ? 422 : 200, renderFlowPage(result, locale));
    return;
  }
  const options = { testMode: result.testMode, ...(result.sessionId ? { sessionId: result.sessionId } : {}) };
  sendHtml(res, STATUS_CODE[result.page], renderStatusPage(result.page, locale, options));
}

/** The person's pages: `/l/:token` (the session url), `/s/:sessionId` (the flow), its stylesheet. */
export function flowRouter(options: FlowRoutesOptions): Router {
  const { flows, logger, metrics } = options;
  const router = Router();
  const submissions = metrics.histogram(
    'flow_step_submission_seconds',
    'Time to process one step submission',
    ['result'] as const,
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );

  router.use(securityHeaders);

  router.get(STYLESHEET_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.type('text/css; charset=utf-8').send(STYLESHEET);
  });
  router.get('/favicon.ico', (_req, res) => {
    res.status(204).end();
  });

  router.get('/l/:token', async (req, res) => {
    const locale = localeOf(req);
    const token = req.params.token ?? '';
    if (!TOKEN_PATTERN.test(token)) {
      sendHtml(res, 404, renderStatusPage('not_found', locale, { testMode: false }));
      return;
    }
    if (req.method === 'HEAD' || isPreviewBot(req.header('user-agent'))) {
      // A chat app unfurling the link (or any HEAD) gets a neutral page; the token stays unredeemed.
      sendHtml(
        res,
        200,
        renderStatusPage('not_found', locale, { testMode: false }).replace('data-page="not_found"', 'data-page="preview"'),
      );
      return;
    }
    const cookies = parseCookies(req.header('cookie'));
    const opened = await flows.openLink(token, (sessionId) => cookies[bindingCookieName(sessionId)], locale);
    if (opened.kind === 'status') {
      sendHtml(res, STATUS_CODE[opened.page], renderStatusPage(opened.page, locale, { testMode: false }));
      return;
    }
    if (opened.bindingSecret)
      res.append('Set-Cookie', bindingCookie(opened.sessionId, opened.bindingSecret, options.secureCookies));
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, `/s/${opened.sessionId}`);
  });

  router.get('/s/:sessionId', async (req, res) => {
    const locale = localeOf(req);
    const sessionId = req.params.sessionId ?? '';
    if (!isId('session', sessionId)) {
      sendHtml(res, 404, renderStatusPage('not_found', locale, { testMode: false }));
      return;
    }
    const secret = parseCookies(req.header('cookie'))[bindingCookieName(sessionId)];
    sendShow(res, await flows.show(sessionId, secret, locale), locale);
  });

  router.post('/s/:sessionId', express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 100 }), async (req, res) => {
    const started = process.hrtime.bigint();
    const locale = localeOf(req);
    const sessionId = req.params.sessionId ?? '';
    if (!isId('session', sessionId)) {
      sendHtml(res, 404, renderStatusPage('not_found', locale, { testMode: false }));
      return;
    }
    const secret = parseCookies(req.header('cookie'))[bindingCookieName(sessionId)];
    const input: Record<string, string> = {};
    for (const [name, value] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
      if (typeof value === 'string') input[name] = value;
      else if (Array.isArray(value) && typeof value[0] === 'string') input[name] = value[0];
    }
    const result: SubmitResult = await flows.submit(sessionId, secret, input, locale);
    submissions.observe(
      { result: result.kind === 'status' ? result.page : result.kind },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
    if (result.kind === 'redirect') {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, `/s/${result.sessionId}`);
      return;
    }
    sendShow(res, result, locale);
  });

  // Anything failing under these pages gets a page, not problem+json: the reader is a person.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const status = (error as { status?: number; type?: string }).status;
    if (status === 413 || status === 400) {
      sendHtml(res, status, renderErrorPage(localeOf(req), null));
      return;
    }
    logger.error(
      { err: error, method: req.method, path: req.path.replace(/lt_[A-Za-z0-9_-]+/, 'lt_[REDACTED]') },
      'flow page failed',
    );
    const retry = req.method === 'GET' ? req.originalUrl : req.path.startsWith('/s/') ? req.path : null;
    sendHtml(res, 503, renderErrorPage(localeOf(req), retry));
  });

  return router;
}
