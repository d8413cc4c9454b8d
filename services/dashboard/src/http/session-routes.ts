import type express from 'express';
import type { Request, Response } from 'express';
import { parseSessionsFilter } from '../domain/sessions';
import type { DashboardPorts } from '../use-cases/ports';
import { accessTrail, cancelSession, exportAccessTrail, sessionPage, sessionsPage } from '../use-cases/sessions';
import type { Viewer } from '../use-cases/sign-in';
import { redirect, sendHtml } from './respond';
import { stateOf, viewFrame, type PageTools, type SignedInRoute } from './page-tools';
import { accessTrailPage, sessionDetailPage, sessionsListPage } from './views/sessions';

/**
 * The account's sessions: the filtered list, a session's page (its timeline; its personal data behind an
 * audited "show"; cancel) and who saw its personal data.
 */
export function mountSessionPages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  signedIn: SignedInRoute,
): void {
  const { page, post, forbidden, notFound } = tools;
  const accountOf = (viewer: Viewer) => ports.platform.call('getAccount', { id: viewer.accountId });

  router.get(
    '/sessions',
    page(
      signedIn(async (req, res, viewer) => {
        const { filter, invalid } = parseSessionsFilter(req.query);
        const [found, account] = await Promise.all([sessionsPage(ports, viewer, filter), accountOf(viewer)]);
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind === 'not_found') return notFound(res);
        sendHtml(
          res,
          invalid.length > 0 ? 400 : 200,
          sessionsListPage({ ...viewFrame(tools, req, res, viewer), account, filter, invalid, ...found }),
        );
      }),
    ),
  );

  const detail = async (req: Request, res: Response, viewer: Viewer, show: boolean, status = 200) => {
    const { locale, address } = stateOf(res);
    const [found, account] = await Promise.all([
      sessionPage(ports, viewer, String(req.params.id), show ? { address } : null, locale),
      accountOf(viewer),
    ]);
    if (found.kind === 'forbidden') return forbidden(res);
    if (found.kind === 'not_found') return notFound(res);
    // A page that shows personal data is never kept by a cache nor offered again by the back button.
    if (found.personalDataShown) res.setHeader('Cache-Control', 'no-store');
    sendHtml(res, status, sessionDetailPage({ ...viewFrame(tools, req, res, viewer), account, ...found }));
  };

  router.get('/sessions/:id', page(signedIn((req, res, viewer) => detail(req, res, viewer, false))));
  // "Show" is a POST: opening personal data is an action with an audit entry, never a link a crawler follows.
  router.post('/sessions/:id/personal-data', ...post(signedIn((req, res, viewer) => detail(req, res, viewer, true))));

  router.post(
    '/sessions/:id/cancel',
    ...post(
      signedIn(async (req, res, viewer) => {
        const result = await cancelSession(ports, viewer, String(req.params.id), stateOf(res).address);
        if (result.kind === 'forbidden') return forbidden(res);
        if (result.kind === 'not_found') return notFound(res);
        redirect(res, `/sessions/${result.kind === 'canceled' ? result.session.id : result.sessionId}`);
      }),
    ),
  );

  router.get(
    '/sessions/:id/access.csv',
    page(
      signedIn(async (req, res, viewer) => {
        const found = await exportAccessTrail(ports, viewer, String(req.params.id), stateOf(res).address);
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind === 'not_found') return notFound(res);
        res.status(200);
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Content-Type', 'text/csv; charset=utf-8');
        res.setHeader('Content-Disposition', `attachment; filename="access-${found.sessionId}.csv"`);
        res.end(found.csv);
      }),
    ),
  );

  router.get(
    '/sessions/:id/access',
    page(
      signedIn(async (req, res, viewer) => {
        const [found, account] = await Promise.all([accessTrail(ports, viewer, String(req.params.id)), accountOf(viewer)]);
        if (found.kind === 'forbidden') return forbidden(res);
        if (found.kind === 'not_found') return notFound(res);
        sendHtml(res, 200, accessTrailPage({ ...viewFrame(tools, req, res, viewer), account, ...found }));
      }),
    ),
  );
}
