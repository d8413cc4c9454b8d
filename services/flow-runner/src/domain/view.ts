import type { FormField, LeafStep } from '@idv/contracts';
import type { PoseStep } from '@idv/faces/pure';
import type { Messages } from './i18n';
import type { CaptureKind, DocumentKind } from './steps/document-state';
import type { FaceMethod } from './steps/face-state';

/**
 * What a step shows, as data: the step modules decide what the person sees and the views of
 * `http/views/` draw it (server-side JSX, every value escaped). No HTML is written here.
 */
export interface StepView {
  title: string;
  body: StepBody;
  /** The page reloads itself after this many seconds (a server-side wait, no script needed). */
  refreshSeconds?: number;
  /** The page captures a photo of this side: the camera script may enhance its file input. */
  capture?: { side: string };
  /** The page needs a camera: it offers to continue on another device by QR (`handover.ts`). */
  offersHandover?: boolean;
  /** Where the person is within a step of several photos (the document's sides): "photo 2 of 3". */
  photo?: { index: number; total: number };
}

/** Field-level messages keyed by input name, and the values to put back in the inputs. */
export interface FormFeedback {
  errors?: Record<string, string>;
  values?: Record<string, string>;
  /** A message about the whole step (e.g. "we could not send the code"). */
  alert?: string;
  /** A neutral confirmation (e.g. "we sent a new code"). */
  info?: string;
}

/** The test-mode samples offered on a capture page, and the hidden fields each sample's form posts. */
export interface SamplesView {
  copy: 'document' | 'face';
  hidden: Record<string, string>;
  samples: readonly { id: string; label: string }[];
}

/** What one page of each step shows. */
export type StepBody =
  | {
      kind: 'consent';
      collects: (keyof Messages['consentCollects'])[];
      retentionDays: number;
      privacyUrl: string | undefined;
    }
  | {
      kind: 'choice';
      /** An option failed while the choice can still be met. */
      optionFailed: boolean;
      min: number;
      options: { id: string; type: LeafStep['type']; open: boolean; passed: boolean }[];
    }
  | { kind: 'form'; fields: readonly FormField[]; feedback: FormFeedback }
  | { kind: 'otp_destination'; channel: 'email' | 'whatsapp'; label: string; hint: string; feedback: FormFeedback }
  | { kind: 'otp_code'; sentTo: string; feedback: FormFeedback }
  | { kind: 'document_type'; offered: DocumentKind[]; feedback: FormFeedback }
  /** A page that waits for the server (a reading, a face verdict, the registry), with a link to look again. */
  | { kind: 'waiting'; alert?: string; text: string; refresh: string }
  | {
      kind: 'document_side';
      side: Exclude<CaptureKind, 'selfie'>;
      sideName: keyof Messages['document']['sideHints'];
      alert: string | undefined;
      /** The offered type the photo looked like: a button switches to it. */
      switchTo: DocumentKind | null;
      /** Before any side is taken, a link back to the choice of document. */
      otherType: boolean;
      attemptsLeft: number | null;
      samples: SamplesView | null;
    }
  | { kind: 'face_intro'; alert: string | undefined; attemptsLeft: number | null; allowUpload: boolean }
  | {
      kind: 'face_camera';
      alert: string | undefined;
      attemptsLeft: number | null;
      allowUpload: boolean;
      challenge: {
        nonce: string;
        steps: readonly PoseStep[];
        holdMs: number;
        windowMs: number;
        issuedAgoMs: number;
        expiresInMs: number;
        method: FaceMethod;
      };
      limits: { maxFrames: number; maxFrameBytes: number; maxTotalBytes: number };
      samples: SamplesView | null;
    }
  | {
      kind: 'face_upload';
      alert: string | undefined;
      attemptsLeft: number | null;
      nonce: string;
      steps: readonly PoseStep[];
      turn: 'left' | 'right';
    };
