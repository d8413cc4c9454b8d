import type express from 'express';
import type { Request, Response } from 'express';
import { ledgerCursor } from '../domain/balance';
import { can } from '../domain/roles';
import { balancePage as balanceOf, setLowBalanceThreshold } from '../use-cases/balance';
import type { DashboardPorts } from '../use-cases/ports';
import type { Viewer } from '../use-cases/sign-in';
import { redirect, sendHtml } from './respond';
import { stateOf, viewFrame, type PageTools, type SignedInRoute } from './page-tools';
import { balancePage, type ThresholdForm } from './views/balance';

/** The account's tokens: its balance, how long it lasts, and its ledger, for every role; the low-balance alert for owners. */
export function mountBalancePages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  signedIn: SignedInRoute,
): void {
  const { page, post, forbidden } = tools;

  const view = async (req: Request, res: Response, viewer: Viewer, status: number, form: ThresholdForm) => {
    const before = ledgerCursor(req.query.before);
    const [found, account] = await Promise.all([
      balanceOf(ports, viewer, before),
      ports.platform.call('getAccount', { id: viewer.accountId }),
    ]);
    if (found.kind === 'forbidden') return forbidden(res);
    sendHtml(
      res,
      status,
      balancePage({
        ...viewFrame(tools, req, res, viewer),
        account,
        ledger: found.ledger,
        daysLeft: found.daysLeft,
        before,
        threshold: { ...form, editable: can(viewer.role, 'account.settings') },
      }),
    );
  };

  router.get(
    '/balance',
    page(
      signedIn(async (req, res, viewer) => {
        await view(req, res, viewer, 200, { saved: req.query.threshold === 'saved' });
      }),
    ),
  );
  router.post(
    '/balance/threshold',
    ...post(
      signedIn(async (req, res, viewer) => {
        const { address } = stateOf(res);
        const value = (req.body as Record<string, unknown> | undefined)?.threshold;
        const result = await setLowBalanceThreshold(ports, viewer, value, address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'invalid') {
          return view(req, res, viewer, 422, { invalid: true, value: typeof value === 'string' ? value.slice(0, 40) : '' });
        }
        redirect(res, '/balance?threshold=saved');
      }),
    ),
  );
}
