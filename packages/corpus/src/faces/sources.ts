import sources from './sources.json';

/**
 * The faces the face corpus is made from: every face human finds in @vladmandic/face-api's six demo
 * photos (MIT; docs/faces.md lists them and why the other licensed images are not used here). Box, pose
 * and the 468-point mesh were measured once at 1600 px wide by `bench/faces/sources.mjs` and are data
 * here, so that generating the corpus runs no model and gives the same bytes everywhere.
 *
 * Identities: 22 faces, 22 people. Faces of one photo are certainly different people; across photos
 * they were compared by eye on a contact sheet and no one appears twice. There is no second photo of
 * any of them, so every same-person pair the corpus makes is an altered copy of one photo.
 */
export interface FaceSource {
  /** Also the identity: one face per person. */
  id: string;
  photo: `sample${number}.jpg`;
  /** The photo's height at 1600 px wide. */
  height: number;
  /** x, y, width, height at 1600 px wide. */
  box: readonly [number, number, number, number];
  /** As human measured it on the photo (degrees; yaw positive when the person turns to their right). */
  pose: { yaw: number; pitch: number; roll: number };
  /** 468 points, x and y in pixels at 1600 px wide, z in the model's depth units (about pixels). */
  mesh: readonly (readonly [number, number, number])[];
  /**
   * Model yaw per degree of mesh rotation for this face (positive and negative rotations), measured by
   * bench/faces/sources.mjs at ±45°: faces answer the same warp with 0.3–0.7° of yaw a degree.
   */
  yawPerDegree?: { positive: number; negative: number };
  /**
   * What the model read on the corpus's own render of this face (upright, unmirrored) at each mesh
   * rotation, measured by bench/faces/sources.mjs: yaw (null when it found no single face) and the
   * similarity of the turned face's embedding to the unturned one's. Where the warp tears is where the
   * face or its identity goes.
   */
  turnResponse?: readonly { rotationDeg: number; yaw: number | null; similarity: number | null }[];
}

export const FACE_SOURCE_WIDTH = 1600;

export const FACE_SOURCES: readonly FaceSource[] = sources.faces as unknown as FaceSource[];

/** human's facemesh triangulation: index triples into `FaceSource.mesh`. */
export const FACE_TRIANGLES: readonly number[] = sources.triangles;

/**
 * How far the head is tilted in the image, in radians: the angle from the image's vertical of the face's
 * midline (mesh point 10, the top of the forehead, to 152, the chin). The framing rotates by it so that
 * the head is upright and a turn about the frame's vertical axis is a turn about the head's own; the group
 * photos have heads tilted by up to 44°. (The line between the eye corners is skewed by yaw: on a face
 * turned 31° it read 25° of tilt where the model read 6°.)
 */
export function headTilt(mesh: FaceSource['mesh']): number {
  const [top, chin] = [mesh[10], mesh[152]];
  if (top === undefined || chin === undefined) return 0;
  return Math.atan2(chin[0] - top[0], chin[1] - top[1]);
}
