import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type express from 'express';
import type { Request, Response } from 'express';
import { can } from '../domain/roles';
import { monthNeighbours, parseMonth, type MonthChoice } from '../domain/usage';
import type { DashboardPorts } from '../use-cases/ports';
import type { Viewer } from '../use-cases/sign-in';
import { exportUsage, usagePage as usageOf } from '../use-cases/usage';
import { sendHtml } from './respond';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { usagePage } from './views/usage';

/** The account's usage per month (every role): the month's sessions per mode and status, a year's chart, the CSV. */
export function mountUsagePages(router: express.Router, ports: DashboardPorts, tools: PageTools, signedIn: SignedInRoute): void {
  const { csrfToken, page, forbidden } = tools;

  const frameOf = (req: Request, res: Response, viewer: Viewer) => {
    const { locale, messages } = stateOf(res);
    return { locale, messages, csrfToken: csrfToken(req, res), team: can(viewer.role, 'members.manage') };
  };

  /** A month that is not one (400) or has no usage yet (422): the picker says why, and nothing is asked of the services but the account. */
  const badMonth = async (
    req: Request,
    res: Response,
    viewer: Viewer,
    invalid: Exclude<MonthChoice, { kind: 'month' }>,
    now: Date,
  ) => {
    const account = await ports.platform.call('getAccount', { id: viewer.accountId });
    sendHtml(res, invalid.kind === 'malformed' ? 400 : 422, usagePage({ ...frameOf(req, res, viewer), account, invalid, now }));
  };

  router.get(
    '/usage',
    page(
      signedIn(async (req, res, viewer) => {
        if (!can(viewer.role, 'billing.read')) return forbidden(res);
        const now = new Date();
        const choice = parseMonth(req.query.month, now);
        if (choice.kind !== 'month') return badMonth(req, res, viewer, choice, now);
        // The usage (the sessions service) and the account (the keys service) at once, as the tokens page does.
        const [found, account] = await Promise.all([
          usageOf(ports, viewer, choice.month),
          ports.platform.call('getAccount', { id: viewer.accountId }),
        ]);
        if (found.kind === 'forbidden') return forbidden(res);
        const shown = { month: choice.month, usage: found.usage, months: found.months, ...monthNeighbours(choice.month, now) };
        sendHtml(res, 200, usagePage({ ...frameOf(req, res, viewer), account, now, shown }));
      }),
    ),
  );

  router.get(
    '/usage.csv',
    page(
      signedIn(async (req, res, viewer) => {
        if (!can(viewer.role, 'billing.read')) return forbidden(res);
        const now = new Date();
        const choice = parseMonth(req.query.month, now);
        if (choice.kind !== 'month') return badMonth(req, res, viewer, choice, now);
        const file = await exportUsage(ports, viewer, choice.month, stateOf(res).address);
        if (file.kind === 'forbidden') return forbidden(res);
        res.status(200);
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Content-Type', file.contentType);
        res.setHeader('Content-Disposition', file.disposition);
        try {
          // As the bytes come: a slow browser holds the sessions service's export back, and one that leaves
          // stops it. Cut short, the download is left unfinished (never a short file that looks whole).
          await pipeline(Readable.fromWeb(file.body as NodeReadableStream<Uint8Array>), res);
        } catch (error) {
          ports.logger.warn({ err: error, request_id: res.locals.requestId as string | undefined }, 'usage export cut short');
        }
      }),
    ),
  );
}
