import type { FlowState } from './engine';

/**
 * A flow's state once its retention period is over: without what was read from the person's document
 * (the flow's `document`, each document step's registry query and the document it would pass with).
 * What the decision was stays: step statuses, reasons, the names and verdicts of the checks, the capture
 * bookkeeping (artefact ids, attempts, problems), so support can still say why a session was rejected.
 */
export function withoutDocumentData(state: FlowState): FlowState {
  const { document: _read, ...rest } = state;
  const steps: FlowState['steps'] = {};
  for (const [id, step] of Object.entries(state.steps)) {
    if (!step.document?.registry) {
      steps[id] = step;
      continue;
    }
    const { registry: _query, ...progress } = step.document;
    steps[id] = { ...step, document: progress };
  }
  return { ...rest, steps };
}
