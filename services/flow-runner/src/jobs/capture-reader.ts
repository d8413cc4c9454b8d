import { CaptureStoredDataSchema, DOMAIN_EVENTS, type DomainEvent } from '@idv/contracts';
import type { HandlerOutcome } from '@idv/kit';
import { readCapture, type CaptureReadingDeps } from '../use-cases/read-capture';

export const CAPTURE_READINGS_QUEUE = 'flow-runner.capture-readings';
export const CAPTURE_READINGS_BINDING = DOMAIN_EVENTS.captureStored;

/** A stored capture's reading job: read, decided on the flow, acked; a malformed job dead-lettered. */
export function captureReader(deps: CaptureReadingDeps) {
  return async (event: DomainEvent): Promise<HandlerOutcome> => {
    const job = CaptureStoredDataSchema.safeParse(event.data);
    if (!job.success) return 'dead';
    await readCapture(deps, job.data);
    return 'ack';
  };
}
