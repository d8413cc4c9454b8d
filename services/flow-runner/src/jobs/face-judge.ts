import { DOMAIN_EVENTS, FaceFramesStoredDataSchema, type DomainEvent } from '@idv/contracts';
import type { HandlerOutcome } from '@idv/kit';
import { judgeFace, type FaceJudgingDeps } from '../use-cases/judge-face';

export const FACE_CHECKS_QUEUE = 'flow-runner.face-checks';
export const FACE_CHECKS_BINDING = DOMAIN_EVENTS.faceFramesStored;

/** A face attempt's judging job: judged, decided on the flow, acked; a malformed job dead-lettered. */
export function faceJudge(deps: FaceJudgingDeps) {
  return async (event: DomainEvent): Promise<HandlerOutcome> => {
    const job = FaceFramesStoredDataSchema.safeParse(event.data);
    if (!job.success) return 'dead';
    await judgeFace(deps, job.data);
    return 'ack';
  };
}
