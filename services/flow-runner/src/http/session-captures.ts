import { internalRoute } from '@idv/contracts';
import { AppError, route } from '@idv/kit';
import type { SessionCaptureReader } from '../use-cases/session-captures';

type Deps = { captures: SessionCaptureReader };
const NOT_THE_ACCOUNTS = 'No such session of this account.';

/**
 * The dashboard's reads of a session's captures (behind the internal token like every `/internal` route):
 * which images are kept, one image's bytes, and the uses of the session's evidence links. 404 for a
 * session that is not the account's, and for an image there is not (never captured, or removed by retention).
 */
export const sessionCaptureRoutes = [
  route(internalRoute('listSessionCaptures'), async ({ params, res }, { captures }: Deps) => {
    const list = await captures.list(params.id, params.sessionId);
    if (!list) throw new AppError('not_found', NOT_THE_ACCOUNTS);
    res.setHeader('Cache-Control', 'no-store');
    return { status: 200, body: list };
  }),
  route(internalRoute('getSessionCapture'), async ({ params, res }, { captures }: Deps) => {
    const image = await captures.image(params.id, params.sessionId, params.artifact);
    if (!image) throw new AppError('not_found', `No ${params.artifact} image of this account's session.`);
    res.status(200);
    res.setHeader('Content-Type', image.contentType);
    res.setHeader('Content-Length', String(image.bytes.length));
    // Personal data: never kept by a cache, never read as anything but the image it says it is.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(image.bytes);
  }),
  route(internalRoute('listSessionEvidenceDownloads'), async ({ params, query, res }, { captures }: Deps) => {
    const downloads = await captures.downloads(params.id, params.sessionId, query.limit);
    if (!downloads) throw new AppError('not_found', NOT_THE_ACCOUNTS);
    res.setHeader('Cache-Control', 'no-store');
    return { status: 200, body: downloads };
  }),
];
