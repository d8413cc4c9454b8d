import sharp from 'sharp';
import type { DocumentType, Side } from './model';
import { readDocument, type DocumentReading } from './pipeline/read-document';
import { readSide, type SideReading } from './pipeline/read-side';

/**
 * The entry of a worker thread of the service's pool (piscina's `filename`): a default export taking one
 * serialisable task and returning a serialisable result. Images travel as Buffers or Uint8Arrays (a
 * pool may transfer their ArrayBuffers); results carry Buffers (the face crop), which structured clone
 * keeps. zxing's module and the OCR worker are created on a thread's first task and reused by the next.
 */
export type ImageBytes = Buffer | Uint8Array;

export type VerificationTask =
  | {
      kind: 'read_side';
      side: Side;
      image: ImageBytes;
      acceptedTypes: DocumentType[];
      today: string;
    }
  | {
      kind: 'read_document';
      sides: { side: Side; image: ImageBytes }[];
      acceptedTypes: DocumentType[];
      today: string;
      expectedType?: DocumentType;
    };

export type VerificationResult =
  { kind: 'read_side'; reading: SideReading } | { kind: 'read_document'; reading: DocumentReading };

/**
 * libvips' operation cache and thread count belong to the process, and every thread that loads sharp sets
 * them back to sharp's defaults (a 50 MB, 100-operation cache; a thread per core when MALLOC_ARENA_MAX is
 * set, as the flow-runner is deployed): the quality helper does when it starts, a face thread does. The
 * cache held its 100 operations' images for no CPU saved (a side's CPU was the same without it), and each
 * libvips thread holds buffers of its own. Settled again at every task, after any other thread's start;
 * neither changes what an operation returns (docs/performance.md, "where a reading thread's memory goes").
 */
function settleLibvips(): void {
  sharp.cache(false);
  sharp.concurrency(1);
}

settleLibvips();

function asBuffer(bytes: ImageBytes): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export default async function runVerificationTask(task: VerificationTask): Promise<VerificationResult> {
  settleLibvips();
  switch (task.kind) {
    case 'read_side':
      return {
        kind: 'read_side',
        reading: await readSide(asBuffer(task.image), {
          side: task.side,
          acceptedTypes: task.acceptedTypes,
          today: task.today,
        }),
      };
    case 'read_document':
      return {
        kind: 'read_document',
        reading: await readDocument(
          task.sides.map(({ side, image }) => ({ side, image: asBuffer(image) })),
          {
            acceptedTypes: task.acceptedTypes,
            today: task.today,
            ...(task.expectedType === undefined ? {} : { expectedType: task.expectedType }),
          },
        ),
      };
  }
}
