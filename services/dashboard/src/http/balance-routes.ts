import type express from 'express';
import { ledgerCursor } from '../domain/balance';
import { can } from '../domain/roles';
import { balancePage as balanceOf } from '../use-cases/balance';
import type { DashboardPorts } from '../use-cases/ports';
import { sendHtml } from './respond';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { balancePage } from './views/balance';

/** The account's tokens: its balance, how long it lasts, and its ledger, for every role. */
export function mountBalancePages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  signedIn: SignedInRoute,
): void {
  const { csrfToken, page, forbidden } = tools;

  router.get(
    '/balance',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        const before = ledgerCursor(req.query.before);
        const [found, account] = await Promise.all([
          balanceOf(ports, viewer, before),
          ports.platform.call('getAccount', { id: viewer.accountId }),
        ]);
        if (found.kind === 'forbidden') return forbidden(res);
        sendHtml(
          res,
          200,
          balancePage({
            locale,
            messages,
            csrfToken: csrfToken(req, res),
            account,
            team: can(viewer.role, 'members.manage'),
            ledger: found.ledger,
            daysLeft: found.daysLeft,
            before,
          }),
        );
      }),
    ),
  );
}
