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

function asBuffer(bytes: ImageBytes): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export default async function runVerificationTask(task: VerificationTask): Promise<VerificationResult> {
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
