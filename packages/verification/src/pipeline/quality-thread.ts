import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { assessQuality, type QualityAssessment, type QualityInput } from './quality-port';

/**
 * The quality assessment on a helper thread, so that a side's reading runs it beside its first stages
 * (decoding, the skew estimate, the first barcode search), which need nothing of it, instead of before
 * them: about 0.2 s of a side's wall time on this machine. One helper per reading thread, started on first
 * use and kept; a side waits for it only where the MRZ search begins (its OCR cap and variants depend on
 * whether the photo looks recaptured). The helper runs the same function on the same bytes, so the
 * assessment is the same as in the reading thread; where the helper cannot run (the package run from its
 * TypeScript sources, as jest does) or fails, the assessment is made in the reading thread.
 */
const HELPER_FILE = path.join(__dirname, 'quality-thread.worker.js');
const HELPER_BUILT = fs.existsSync(HELPER_FILE);

interface HelperReply {
  id: number;
  assessment?: QualityAssessment;
  error?: string;
}

interface Helper {
  worker: Worker;
  pending: Map<number, { resolve: (value: QualityAssessment) => void; reject: (error: Error) => void }>;
  nextId: number;
}

let helper: Helper | null = null;

function startHelper(): Helper {
  const worker = new Worker(HELPER_FILE);
  // A reading thread or a CLI ends whether or not its helper is idle.
  worker.unref();
  const started: Helper = { worker, pending: new Map(), nextId: 1 };
  const failAll = (error: Error) => {
    if (helper === started) helper = null;
    for (const { reject } of started.pending.values()) reject(error);
    started.pending.clear();
  };
  worker.on('message', (reply: HelperReply) => {
    const waiting = started.pending.get(reply.id);
    if (waiting === undefined) return;
    started.pending.delete(reply.id);
    if (reply.assessment !== undefined) waiting.resolve(reply.assessment);
    else waiting.reject(new Error(reply.error ?? 'quality helper gave no assessment'));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`quality helper exited with code ${code}`)));
  return started;
}

function assessOnHelper(image: QualityInput): Promise<QualityAssessment> {
  helper ??= startHelper();
  const current = helper;
  const id = current.nextId;
  current.nextId += 1;
  return new Promise((resolve, reject) => {
    current.pending.set(id, { resolve, reject });
    current.worker.postMessage({ id, jpeg: image.jpeg, width: image.width, height: image.height });
  });
}

/** `assessQuality` on the helper thread where it can run, else in this thread. */
export function assessQualityBeside(image: QualityInput): Promise<QualityAssessment> {
  if (!HELPER_BUILT) return assessQuality(image);
  return assessOnHelper(image).catch(() => assessQuality(image));
}

/** Starts the helper thread ahead of the first photo, where the build has it (engines.ts). */
export function startQualityThread(): void {
  if (HELPER_BUILT) helper ??= startHelper();
}

export async function stopQualityThread(): Promise<void> {
  const current = helper;
  helper = null;
  if (current !== null) await current.worker.terminate();
}
