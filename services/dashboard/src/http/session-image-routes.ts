import type express from 'express';
import type { DashboardPorts } from '../use-cases/ports';
import { openImage, showImages } from '../use-cases/session-images';
import { passBody, sendHtml } from './respond';
import { stateOf, viewFrame, type PageTools, type SignedInRoute } from './page-tools';
import { sessionImagesPage } from './views/session-images';

/**
 * A session's captured images: the audited "show" (a POST, never a link a crawler follows) answers a page of
 * `<img>` pointing at this origin's image route, which checks the role and the account again, audits each
 * image opened and passes the flow-runner's bytes through, never cached.
 */
export function mountSessionImagePages(
  router: express.Router,
  ports: DashboardPorts,
  tools: PageTools,
  signedIn: SignedInRoute,
): void {
  const { page, post, forbidden, notFound } = tools;

  router.post(
    '/sessions/:id/images',
    ...post(
      signedIn(async (req, res, viewer) => {
        const shown = await showImages(ports, viewer, String(req.params.id), stateOf(res).address);
        if (shown.kind === 'forbidden') return forbidden(res);
        if (shown.kind === 'not_found') return notFound(res);
        const account = await ports.platform.call('getAccount', { id: viewer.accountId });
        // Never kept by a cache nor offered again by the back button (sendHtml says no-store too).
        res.setHeader('Cache-Control', 'no-store');
        sendHtml(res, 200, sessionImagesPage({ ...viewFrame(tools, req, res, viewer), account, ...shown }));
      }),
    ),
  );

  router.get(
    '/sessions/:id/images/:artifact',
    page(
      signedIn(async (req, res, viewer) => {
        const image = await openImage(ports, viewer, String(req.params.id), String(req.params.artifact), stateOf(res).address);
        if (image.kind === 'forbidden') return forbidden(res);
        if (image.kind === 'not_found') return notFound(res);
        res.status(200);
        res.setHeader('Cache-Control', 'no-store');
        // Only an image type the contract allows, and never sniffed into anything else.
        res.setHeader('Content-Type', image.contentType);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        const extension = image.contentType === 'image/jpeg' ? 'jpg' : image.contentType.slice('image/'.length);
        res.setHeader('Content-Disposition', `inline; filename="${image.sessionId}-${image.artifact}.${extension}"`);
        if (image.length && /^\d+$/.test(image.length)) res.setHeader('Content-Length', image.length);
        // The browser left, or the flow-runner's answer was cut: the image is left unfinished.
        await passBody(res, image.body, ports.logger, 'session image');
      }),
    ),
  );
}
