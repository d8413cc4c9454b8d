import type { FaceFrameSet } from './steps/face-state';

/**
 * A face attempt's frames as one artefact (`face_frames`): a 4-byte big-endian length, a JSON header
 * with the challenge, the submitted nonce, the server's receipt time, the comparison to make and each
 * frame's time and length, then the frames' bytes one after the other. The job reads everything it
 * needs from it, so any replica can judge it, once, whatever happened to the flow meanwhile.
 */
export const FACE_FRAMES_CONTENT_TYPE = 'application/vnd.idv.face-frames';

interface Header extends Omit<FaceFrameSet, 'frames'> {
  v: 1;
  frames: { atMs: number; bytes: number }[];
}

export function encodeFaceFrames(set: FaceFrameSet): Buffer {
  const header: Header = {
    v: 1,
    challenge: set.challenge,
    nonce: set.nonce,
    receivedAt: set.receivedAt,
    compareWithDocument: set.compareWithDocument,
    documentFront: set.documentFront,
    frames: set.frames.map((frame) => ({ atMs: frame.atMs, bytes: frame.image.length })),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  return Buffer.concat([length, json, ...set.frames.map((frame) => frame.image)]);
}

export function decodeFaceFrames(bytes: Buffer): FaceFrameSet {
  const length = bytes.readUInt32BE(0);
  const header = JSON.parse(bytes.subarray(4, 4 + length).toString('utf8')) as Header;
  if (header.v !== 1) throw new Error(`unknown face frames version ${String(header.v)}`);
  let offset = 4 + length;
  const frames = header.frames.map((frame) => {
    const image = bytes.subarray(offset, offset + frame.bytes);
    offset += frame.bytes;
    return { image, atMs: frame.atMs };
  });
  if (offset !== bytes.length) throw new Error('face frames artefact is truncated or has trailing bytes');
  return {
    challenge: header.challenge,
    nonce: header.nonce,
    receivedAt: header.receivedAt,
    compareWithDocument: header.compareWithDocument,
    documentFront: header.documentFront,
    frames,
  };
}
