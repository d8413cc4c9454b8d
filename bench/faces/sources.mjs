#!/usr/bin/env node
// Measures the face corpus's source faces once (then `pnpm --filter @idv/corpus build` and run it again
// so that the second pass measures the warp of the first's meshes): `node bench/faces/sources.mjs` (after the build) writes
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

const engine = await faces.faceEngine();
// The mesh is not part of DetectedFace (the service never needs it): read it from human directly.
const human = engine.human;
const out = { model: 'human 3.3.6 facemesh', width: 1600, triangles: human.faceTriangulation, faces: [] };
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
const file = path.join(ROOT, 'packages/corpus/src/faces/sources.json');
fs.writeFileSync(file, `${JSON.stringify(out)}\n`);

// Second pass, on the corpus's own warp (built from the file just written): how much yaw the model
// reads per degree of mesh rotation, each way, for each face.
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
const options = { seed: 0, readPhoto: (name) => fs.readFileSync(path.join(DEMO, name)) };
const yawOf = async (index, rotationDeg) => {
  const result = await faces.detectFaces(await corpus.renderFaceFrame(options, index, { mirrored: false, rotationDeg }));
  return result.faces[0]?.pose?.yaw ?? null;
};
for (const [index, face] of out.faces.entries()) {
  const [still, plus, minus] = [await yawOf(index, 0), await yawOf(index, 45), await yawOf(index, -45)];
  const per = (turned) => (still === null || turned === null ? 0 : Math.round((Math.abs(turned - still) / 45) * 100) / 100);
  face.yawPerDegree = { positive: per(plus), negative: per(minus) };
  console.log(face.id, 'yaw', still, '+45°', plus, '−45°', minus, JSON.stringify(face.yawPerDegree));
}
fs.writeFileSync(file, `${JSON.stringify(out)}\n`);
console.log(`${out.faces.length} faces → ${path.relative(ROOT, file)} (${fs.statSync(file).size} bytes)`);
