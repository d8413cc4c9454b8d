import type { DocumentData } from '@idv/contracts';
import { combineSides, prepareUpload, type DocumentFields, type SideReading } from '@idv/verification';
import type { ArtefactStore } from '../domain/artefacts';
import type { CapturePorts } from '../domain/flow-service';
import type { Locale } from '../domain/i18n';
import type { DocumentVerdict } from '../domain/steps/document';
import { REASON_CODES, type ReasonCode } from '../domain/reason-codes';
import type { CaptureKind, DocumentKind, PreparedCapture } from '../domain/steps/types';
import type { RegistryQuery } from '../domain/registry';
import { problemsAgainstFront, todayInArgentina, type StoredSideReading } from './capture-reader';
import type { SampleSignatures } from './sample-signatures';
import type { CaptureProblem } from '../domain/steps/document';
import type { SampleCatalog } from './samples';
import type { FaceSampleCatalog } from './face-samples';
import type { PreparedFrame, StoredChallenge } from '../domain/steps/face';
import { FRAME_LIMITS, IMAGE_LIMITS } from '@idv/faces/pure';

/** Uploads at most this big; the HTTP layer refuses larger ones before reading them (413). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;

const DOCUMENT_REASONS = new Set<string>(Object.values(REASON_CODES));

/** `result.document` from what was read: every field the spec lists, empty where the document has none. */
export function toDocumentData(fields: DocumentFields): DocumentData {
  return {
    doc_type: fields.doc_type ?? '',
    series: fields.series ?? '',
    number: fields.number ?? '',
    surname: fields.surname ?? '',
    given_names: fields.given_names ?? '',
    sex: fields.sex ?? '',
    birth_date: fields.birth_date ?? '',
    cuil: fields.cuil ?? '',
    expiry_date: fields.expiry_date ?? '',
  };
}

/**
 * What the registry is asked about a document that passed its own checks; null when a field it needs
 * was not read (the readability check asks for them, so only an odd document gets here).
 */
export function toRegistryQuery(fields: DocumentFields, type: DocumentKind | undefined): RegistryQuery | null {
  const documentType =
    type ??
    (fields.doc_type === 'dni' || fields.doc_type === 'passport' || fields.doc_type === 'licence' ? fields.doc_type : null);
  if (!documentType || !fields.number || !fields.surname || !fields.given_names || !fields.birth_date) return null;
  return {
    document_type: documentType,
    number: fields.number,
    sex: fields.sex === 'M' || fields.sex === 'F' || fields.sex === 'X' ? fields.sex : null,
    surname: fields.surname,
    given_names: fields.given_names,
    birth_date: fields.birth_date,
    tramite: fields.tramite,
    series: fields.series,
  };
}

/** The document step's ports, over the verification engine and the artefact store. */
export class EngineCapturePorts implements CapturePorts {
  constructor(
    private readonly artefacts: ArtefactStore,
    private readonly samplesCatalog: SampleCatalog,
    private readonly faceSamplesCatalog?: FaceSampleCatalog,
    private readonly sampleSignatures?: SampleSignatures,
  ) {}

  isTestSample(images: readonly Buffer[]): Promise<boolean> {
    return this.sampleSignatures?.anyIsSample(images) ?? Promise.resolve(false);
  }

  async againstFront(input: { front: string; capture: string; side: 'back' | 'front_angle' }): Promise<CaptureProblem[]> {
    const front = (await this.artefacts.reading(input.front)) as StoredSideReading | null;
    const side = (await this.artefacts.reading(input.capture)) as StoredSideReading | null;
    // A reading gone (retention) leaves nothing to compare: the document's own checks still run.
    if (!front || !side) return [];
    return problemsAgainstFront(front, side, input.side);
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

  /** The cross-checks over the stored readings of every accepted side (no image is read again). */
  async decideDocument(input: Parameters<CapturePorts['decideDocument']>[0]): Promise<DocumentVerdict> {
    const readings: SideReading[] = [];
    for (const capture of Object.values(input.progress.captures)) {
      if (!capture) continue;
      const stored = (await this.artefacts.reading(capture.artefactId)) as StoredSideReading | null;
      if (!stored) throw new Error(`no reading stored for ${capture.artefactId}`);
      readings.push({ ...stored, face_crop: null });
    }
    const reading = combineSides(readings, {
      acceptedTypes: input.acceptedTypes,
      today: todayInArgentina(),
      ...(input.progress.type ? { expectedType: input.progress.type } : {}),
    });
    const checks = reading.checks.map((check) => ({
      name: check.name,
      verdict: check.verdict,
      ...(check.reason ? { reason: check.reason } : {}),
      ...(check.fields ? { fields: [...check.fields] } : {}),
    }));
    const reason = reading.reasons.find((code) => DOCUMENT_REASONS.has(code)) as ReasonCode | undefined;
    if (reason) return { kind: 'failed', reason, checks };
    return {
      kind: 'passed',
      document: toDocumentData(reading.fields),
      checks,
      registry: input.registryCheck ? toRegistryQuery(reading.fields, input.progress.type) : null,
    };
  }
}
