import type express from 'express';
import { parseAuditFilter } from '../domain/audit';
import { auditPage as entriesOf, exportAudit } from '../use-cases/audit';
import type { DashboardPorts } from '../use-cases/ports';
import { sendHtml } from './respond';
import { stateOf, type PageTools, type SignedInRoute } from './page-tools';
import { auditPage } from './views/audit';

/** The account's audit log for its owners: filtered pages of entries, and the same entries as CSV. */
export function mountAuditPages(router: express.Router, ports: DashboardPorts, tools: PageTools, signedIn: SignedInRoute): void {
  const { csrfToken, page, forbidden } = tools;

  router.get(
    '/audit',
    page(
      signedIn(async (req, res, viewer) => {
        const { locale, messages } = stateOf(res);
        const { filter, invalid } = parseAuditFilter(req.query);
        // The entries (the dashboard's database) and the account (the keys service) at once, as the tokens page does.
        const [found, account] = await Promise.all([
          entriesOf(ports, viewer, filter),
          ports.platform.call('getAccount', { id: viewer.accountId }),
        ]);
        if (found.kind === 'forbidden') return forbidden(res);
        sendHtml(
          res,
          invalid.length > 0 ? 400 : 200,
          auditPage({ locale, messages, csrfToken: csrfToken(req, res), account, filter, invalid, ...found }),
        );
      }),
    ),
  );

  router.get(
    '/audit.csv',
    page(
      signedIn(async (req, res, viewer) => {
        const { filter } = parseAuditFilter(req.query);
        const exported = await exportAudit(ports, viewer, filter, stateOf(res).address, res, () => {
          res.status(200);
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('Content-Type', 'text/csv; charset=utf-8');
          res.setHeader('Content-Disposition', `attachment; filename="audit-${viewer.accountId}.csv"`);
        });
        if (exported === 'forbidden') return forbidden(res);
        res.end();
      }),
    ),
  );
}
