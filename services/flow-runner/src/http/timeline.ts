import { internalRoute } from '@idv/contracts';
import { AppError, route } from '@idv/kit';
import type { FlowTimelines } from '../use-cases/timeline';

/**
 * The dashboard's read of a session's timeline (`getFlowTimeline`, behind the internal token like every
 * `/internal` route): 404 for a session that is not the account's.
 */
export const timelineRoutes = [
  route(internalRoute('getFlowTimeline'), async ({ params, query, res }, { timelines }: { timelines: FlowTimelines }) => {
    const timeline = await timelines.of(params.id, params.sessionId, query);
    if (!timeline) throw new AppError('not_found', 'No such session of this account.');
    res.setHeader('Cache-Control', 'no-store');
    return { status: 200, body: timeline };
  }),
];
