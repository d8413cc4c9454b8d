#!/usr/bin/env node
// Measures the face corpus's source faces once (then `pnpm --filter @idv/corpus build` and run it again
// so that the second pass measures the warp of the first's meshes; `--response-only` re-measures only the
// warp, after a change to it): `node bench/faces/sources.mjs` (after the build) writes
// packages/corpus/src/faces/sources.json: for every face human finds in face-api's six demo photos (MIT,
// docs/faces.md) at 1600 px wide, its box, pose and 468-point mesh, plus human's mesh triangulation.
// The corpus warps faces with these meshes, so that generating it needs no model and gives the same
// bytes on every machine; this script is how the file was made and how to remake it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FACES_PKG = path.join(ROOT, 'packages/faces');
const require = createRequire(path.join(FACES_PKG, 'package.json'));
const faces = require(path.join(FACES_PKG, 'dist/index.js'));
const tf = require('@tensorflow/tfjs-core');
const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..', 'demo');

const responseOnly = process.argv.includes('--response-only');
const file = path.join(ROOT, 'packages/corpus/src/faces/sources.json');
const engine = await faces.faceEngine();
let out;
if (responseOnly) {
  // The boxes, poses and meshes as they are: only the warp's response is measured again.
  out = JSON.parse(fs.readFileSync(file, 'utf8'));
} else {
  // The mesh is not part of DetectedFace (the service never needs it): read it from human directly.
  const human = engine.human;
  out = { model: 'human 3.3.6 facemesh', width: 1600, triangles: human.faceTriangulation, faces: [] };
  for (let photo = 1; photo <= 6; photo += 1) {
    const name = `sample${photo}.jpg`;
    const image = await faces.decodeImage(fs.readFileSync(path.join(DEMO, name)));
    const tensor = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    const result = await human.detect(tensor);
    tf.dispose(tensor);
    const found = result.face.filter((face) => Math.min(face.box[2], face.box[3]) >= 40).sort((a, b) => a.box[0] - b.box[0]);
    found.forEach((face, index) => {
      const deg = (value) => Math.round(((value * 180) / Math.PI) * 10) / 10;
      out.faces.push({
        id: `faceapi-s${photo}-${index}`,
        photo: name,
        height: image.height,
        box: face.box.map((value) => Math.round(value)),
        pose: { yaw: deg(face.rotation.angle.yaw), pitch: deg(face.rotation.angle.pitch), roll: deg(face.rotation.angle.roll) },
        mesh: face.mesh.map((point) => point.map((value) => Math.round(value * 10) / 10)),
      });
    });
  }
  fs.writeFileSync(file, `${JSON.stringify(out)}\n`);
}

// Second pass, on the corpus's own warp (built from the file just written, or as it is with
// --response-only): what the model reads at each mesh rotation, each way, for each face (yaw, and how
// similar the turned face stays to the unturned one), and the yaw per degree at ±30°.
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
const options = { seed: 0, readPhoto: (name) => fs.readFileSync(path.join(DEMO, name)) };
const ROTATIONS = [-60, -50, -40, -30, -20, -10, 0, 10, 20, 30, 40, 50, 60];
const round = (value, digits) => (value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits);
for (const [index, face] of out.faces.entries()) {
  const measured = [];
  for (const rotationDeg of ROTATIONS) {
    const result = await faces.detectFaces(await corpus.renderFaceFrame(options, index, { mirrored: false, rotationDeg }));
    const only = result.faces.length === 1 ? result.faces[0] : null;
    measured.push({ rotationDeg, yaw: only?.pose?.yaw ?? null, embedding: only?.embedding ?? null });
  }
  const still = measured.find((point) => point.rotationDeg === 0);
  face.turnResponse = measured.map((point) => ({
    rotationDeg: point.rotationDeg,
    yaw: round(point.yaw, 1),
    similarity:
      point.embedding === null || !still?.embedding ? null : round(faces.faceSimilarity(still.embedding, point.embedding), 3),
  }));
  const at = (rotation) => measured.find((point) => point.rotationDeg === rotation)?.yaw ?? null;
  const per = (turned) =>
    still?.yaw === null || turned === null ? 0 : Math.round((Math.abs(turned - still.yaw) / 30) * 100) / 100;
  face.yawPerDegree = { positive: per(at(30)), negative: per(at(-30)) };
  console.log(face.id, JSON.stringify(face.turnResponse.map((point) => [point.rotationDeg, point.yaw, point.similarity])));
}
fs.writeFileSync(file, `${JSON.stringify(out)}\n`);
console.log(`${out.faces.length} faces → ${path.relative(ROOT, file)} (${fs.statSync(file).size} bytes)`);
