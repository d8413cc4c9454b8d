import type { Queryable } from '@idv/kit';

/**
 * What is kept of the person's captures: document sides; the face step's best live frame (`selfie`) and
 * an attempt's frames (`face_frames`, the face job's input); the face cropped from the document's front
 * when it was read (`document_portrait`, compared with the selfie).
 */
export const ARTEFACT_KINDS = ['front', 'back', 'front_angle', 'selfie', 'face_frames', 'document_portrait'] as const;
export type ArtefactKind = (typeof ARTEFACT_KINDS)[number];

export interface StoredArtefact {
  id: string;
  sessionId: string;
  kind: ArtefactKind;
  contentType: string;
  bytes: Buffer;
  createdAt: Date;
}

/**
 * Where captures live, encrypted at rest (PostgreSQL by default). Only the latest capture of each kind
 * per session is kept: storing a new one replaces the previous one and what was read from it.
 */
export interface ArtefactStore {
  /** Stores a capture in the caller's transaction, replacing the session's previous one of that kind. */
  put(
    db: Queryable,
    input: { id: string; sessionId: string; kind: ArtefactKind; bytes: Buffer; contentType: string },
  ): Promise<void>;
  /** Stores a capture on its own (not with a flow change), replacing the session's previous one of that kind. */
  store(input: { id: string; sessionId: string; kind: ArtefactKind; bytes: Buffer; contentType: string }): Promise<void>;
  get(id: string): Promise<StoredArtefact | null>;
  latest(sessionId: string, kind: ArtefactKind): Promise<StoredArtefact | null>;
  /** Keeps what the readers made of an artefact; a second reading of the same artefact is ignored. */
  saveReading(artefactId: string, reading: unknown): Promise<void>;
  reading(artefactId: string): Promise<unknown>;
  deleteCapturedBefore(cutoff: Date, batch: number): Promise<number>;
}
