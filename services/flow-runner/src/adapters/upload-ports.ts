import { prepareUpload } from '@idv/verification';
import { FRAME_LIMITS, IMAGE_LIMITS } from '@idv/faces/pure';
import type { Locale } from '../domain/i18n';
import type { UploadPorts } from '../domain/ports';
import type { CaptureKind, DocumentKind } from '../domain/steps/document-state';
import type { PreparedFrame, StoredChallenge } from '../domain/steps/face-state';
import type { PreparedCapture } from '../domain/steps/types';
import type { FaceSampleCatalog } from './face-samples';
import type { SampleCatalog } from './samples';
import type { SampleSignatures } from './sample-signatures';

/** Uploads at most this big; the HTTP layer refuses larger ones before reading them (413). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

/** The upload checks and test-mode samples, over the verification engine's upload preparation and the sample catalogues. */
export class EngineUploadPorts implements UploadPorts {
  constructor(
    private readonly samplesCatalog: SampleCatalog,
    private readonly faceSamplesCatalog?: FaceSampleCatalog,
    private readonly sampleSignatures?: SampleSignatures,
  ) {}

  isTestSample(images: readonly Buffer[]): Promise<boolean> {
    return this.sampleSignatures?.anyIsSample(images) ?? Promise.resolve(false);
  }

  /**
   * A face frame: the same checks and re-encoding as a document photo (no EXIF or GPS is kept), within
   * the face library's limits, and big enough for a face to be found in.
   */
  async prepareFrame(bytes: Buffer): Promise<PreparedFrame> {
    const prepared = await prepareUpload(bytes, {
      maxBytes: FRAME_LIMITS.maxFrameBytes,
      maxPixels: IMAGE_LIMITS.maxPixels,
      maxSide: IMAGE_LIMITS.maxSide,
    });
    if (!prepared.ok) {
      const reason =
        prepared.reason === 'empty' ? 'corrupt' : prepared.reason === 'unsupported_type' ? 'unsupported' : prepared.reason;
      return { ok: false, reason };
    }
    if (Math.min(prepared.width, prepared.height) < IMAGE_LIMITS.minSide) return { ok: false, reason: 'too_small' };
    return { ok: true, jpeg: prepared.jpeg };
  }

  faceSamples(locale: Locale) {
    return this.faceSamplesCatalog?.list(locale) ?? [];
  }

  faceSample(sampleId: string, challenge: StoredChallenge, now: number) {
    return this.faceSamplesCatalog?.frames(sampleId, challenge, now) ?? Promise.resolve(null);
  }

  async prepare(bytes: Buffer): Promise<PreparedCapture> {
    const prepared = await prepareUpload(bytes, { maxBytes: MAX_UPLOAD_BYTES });
    return prepared.ok ? { ok: true, jpeg: prepared.jpeg, width: prepared.width, height: prepared.height } : prepared;
  }

  samples(type: DocumentKind, side: CaptureKind, locale: Locale) {
    return this.samplesCatalog.list(type, side, locale);
  }

  sampleImage(type: DocumentKind, side: CaptureKind, sampleId: string): Promise<Buffer | null> {
    return this.samplesCatalog.image(type, side, sampleId);
  }
}
