import type { FaceTask, FaceTaskResult } from '@idv/faces';
import runFaceTask from '@idv/faces/dist/worker';

/**
 * The face pool's thread entry: @idv/faces' worker, with the per-frame analyses (each face's 1024-value
 * embedding among them) dropped before the answer leaves the thread. Embeddings exist only inside a
 * worker thread, for the length of one task; the service receives verdicts and scores.
 */
export type FacePoolResult =
  | Exclude<FaceTaskResult, { kind: 'face_liveness' } | { kind: 'face_detect' }>
  | (Extract<FaceTaskResult, { ok: true; kind: 'face_liveness' }> & { outcome: { frames: [] } })
  | Extract<FaceTaskResult, { ok: false }>;

export default async function runFacePoolTask(task: FaceTask): Promise<FacePoolResult> {
  if (task.kind === 'face_detect') throw new Error('face_detect is not used by the service: it returns embeddings');
  const result = await runFaceTask(task);
  if (result.ok && result.kind === 'face_liveness')
    return { ...result, outcome: { verdict: result.outcome.verdict, frames: [] } };
  if (result.ok && result.kind === 'face_detect') throw new Error('unexpected face_detect result');
  return result;
}
