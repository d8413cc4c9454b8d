/**
 * What is kept of the person's captures: document sides; the face step's best live frame (`selfie`) and
 * an attempt's frames (`face_frames`, the face job's input); the face cropped from the document's front
 * when it was read (`document_portrait`, compared with the selfie).
 */
export const ARTEFACT_KINDS = ['front', 'back', 'front_angle', 'selfie', 'face_frames', 'document_portrait'] as const;
export type ArtefactKind = (typeof ARTEFACT_KINDS)[number];
