import type express from 'express';
import type { Request, Response } from 'express';
import { can } from '../domain/roles';
import { monthNeighbours, parseMonth, type MonthChoice } from '../domain/usage';
import type { DashboardPorts } from '../use-cases/ports';
import type { Viewer } from '../use-cases/sign-in';
import { exportUsage, usagePage as usageOf } from '../use-cases/usage';
import { passBody, sendHtml } from './respond';
import { stateOf, viewFrame, type PageTools, type SignedInRoute } from './page-tools';
import { usagePage } from './views/usage';

/** The account's usage per month (every role): the month's sessions per mode and status, a year's chart, the CSV. */
export function mountUsagePages(router: express.Router, ports: DashboardPorts, tools: PageTools, signedIn: SignedInRoute): void {
  const { page, forbidden } = tools;

  /** A month that is not one (400) or has no usage yet (422): the picker says why, and nothing is asked of the services but the account. */
  const badMonth = async (
    req: Request,
    res: Response,
    viewer: Viewer,
    invalid: Exclude<MonthChoice, { kind: 'month' }>,
    now: Date,
  ) => {
    const account = await ports.platform.call('getAccount', { id: viewer.accountId });
    sendHtml(
      res,
      invalid.kind === 'malformed' ? 400 : 422,
      usagePage({ ...viewFrame(tools, req, res, viewer), account, invalid, now }),
    );
  };

  /** A page of a month's usage: for the roles that read billing, the month asked for (`?month=`, this one when none); not a month, the picker. */
  const monthPage = (handler: (req: Request, res: Response, viewer: Viewer, month: string, now: Date) => Promise<void>) =>
    page(
      signedIn(async (req, res, viewer) => {
        if (!can(viewer.role, 'billing.read')) return forbidden(res);
        const now = new Date();
        const choice = parseMonth(req.query.month, now);
        if (choice.kind !== 'month') return badMonth(req, res, viewer, choice, now);
        await handler(req, res, viewer, choice.month, now);
      }),
    );

  router.get(
    '/usage',
    monthPage(async (req, res, viewer, month, now) => {
      // The usage (the sessions service) and the account (the keys service) at once, as the tokens page does.
      const [found, account] = await Promise.all([
        usageOf(ports, viewer, month),
        ports.platform.call('getAccount', { id: viewer.accountId }),
      ]);
      if (found.kind === 'forbidden') return forbidden(res);
      const shown = { month, usage: found.usage, months: found.months, ...monthNeighbours(month, now) };
      sendHtml(res, 200, usagePage({ ...viewFrame(tools, req, res, viewer), account, now, shown }));
    }),
  );

  router.get(
    '/usage.csv',
    monthPage(async (_req, res, viewer, month) => {
      const file = await exportUsage(ports, viewer, month, stateOf(res).address);
      if (file.kind === 'forbidden') return forbidden(res);
      res.status(200);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', file.contentType);
      res.setHeader('Content-Disposition', file.disposition);
      await passBody(res, file.body, ports.logger, 'usage export');
    }),
  );
}
