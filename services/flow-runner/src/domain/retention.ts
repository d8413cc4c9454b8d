import type { FlowState } from './engine';
import type { DocumentProgress } from './steps/document-state';

/**
 * A flow's state once its retention period is over: without what was read from the person's document
 * (the flow's `document`, each document step's registry query and the document it would pass with, the
 * print a front's photos settled).
 * What the decision was stays: step statuses, reasons, the names and verdicts of the checks, the capture
 * bookkeeping (artefact ids, attempts, problems), so support can still say why a session was rejected.
 */
export function withoutDocumentData(state: FlowState): FlowState {
  const { document: _read, ...rest } = state;
  const steps: FlowState['steps'] = {};
  for (const [id, step] of Object.entries(state.steps)) {
    if (!step.document) {
      steps[id] = step;
      continue;
    }
    const { registry: _query, captures, ...progress } = step.document;
    steps[id] = { ...step, document: { ...progress, captures: withoutSettledPrint(captures) } };
  }
  return { ...rest, steps };
}

/** The captures' bookkeeping without the print a front's photos settled (names, dates). */
function withoutSettledPrint(captures: DocumentProgress['captures']): DocumentProgress['captures'] {
  return Object.fromEntries(
    Object.entries(captures).map(([side, capture]) => {
      if (capture === undefined) return [side, capture];
      const { settledPrint: _print, ...bookkeeping } = capture;
      return [side, bookkeeping];
    }),
  );
}
