-- Up Migration
-- The face step's artefacts: `face_frames` (one attempt's frames with what is needed to judge them, the
-- job's input), `selfie` (the best live frame, evidence) and `document_portrait` (the face cropped from
-- the document's front when it was read, compared with the selfie). Same table, encryption and retention
-- as the document's sides.
ALTER TABLE artefacts DROP CONSTRAINT artefacts_kind_check;
ALTER TABLE artefacts ADD CONSTRAINT artefacts_kind_check
  CHECK (kind IN ('front', 'back', 'front_angle', 'selfie', 'face_frames', 'document_portrait'));

-- Down Migration
DELETE FROM artefacts WHERE kind IN ('face_frames', 'document_portrait');
ALTER TABLE artefacts DROP CONSTRAINT artefacts_kind_check;
ALTER TABLE artefacts ADD CONSTRAINT artefacts_kind_check CHECK (kind IN ('front', 'back', 'front_angle', 'selfie'));
