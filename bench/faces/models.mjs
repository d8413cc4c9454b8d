#!/usr/bin/env node
// Face model choice: `node bench/faces/models.mjs [--runs 3]` (after `pnpm exec turbo run build`).
//
// Runs each candidate that ships its weights inside its npm package, in a process of its own so its memory
// is measured alone, on the same faces:
//   - human: @vladmandic/human on tfjs-backend-wasm through @idv/faces (the service's own code path:
//     decode, detector, mesh for the pose, faceres embedding, antispoof, liveness);
//   - face-api: @vladmandic/face-api on the same wasm backend (SSD MobileNet detector, 68-point landmarks,
//     128-d recognition; no pose, no antispoof).
// The faces: every face human finds in face-api's six demo photos (MIT, docs/faces.md), cropped square at
// 1.6× the box and 320 px. "Same person" pairs are a crop against altered copies of itself (mirrored;
// half size and JPEG q50; darker; turned 8°): easier than two real photos of one person, so an upper
// bound. "Different people" pairs are two faces of one photo (certainly different people).
// Prints load time, ms and CPU ms per face (p50/p99), memory, and the similarity ranges; writes JSON to
// bench/results/faces-models.json.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineReference } from '../machine-reference.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const FACES_PKG = path.join(ROOT, 'packages/faces');
const require = createRequire(path.join(FACES_PKG, 'package.json'));
const sharp = require('sharp');
const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..', 'demo');

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string' },
    dir: { type: 'string' },
    runs: { type: 'string', default: '3' },
  },
});

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function rssMb() {
  return Math.round(process.memoryUsage().rss / 1e6);
}

/** The child: load one engine, embed every crop `runs` times, report. */
async function child(engine, dir, runs) {
  const files = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.jpg'))
    .sort();
  let peak = rssMb();
  const started = performance.now();
  let embed;
  if (engine === 'human') {
    const faces = require(path.join(FACES_PKG, 'dist/index.js'));
    await faces.faceEngine();
    embed = async (bytes) => {
      const result = await faces.detectFaces(bytes);
      return { count: result.faces.length, embedding: result.faces[0]?.embedding ?? null, pose: result.faces[0]?.pose ?? null };
    };
  } else {
    const tf = require('@tensorflow/tfjs');
    const wasm = require('@tensorflow/tfjs-backend-wasm');
    const faceapi = require(path.join(path.dirname(require.resolve('@vladmandic/face-api')), 'face-api.node-wasm.js'));
    wasm.setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`, false);
    await tf.setBackend('wasm');
    await tf.ready();
    const modelDir = path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..', 'model');
    const load = async (net, name) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(modelDir, `${name}-weights_manifest.json`), 'utf8'));
      const data = Buffer.concat(manifest.flatMap((group) => group.paths.map((p) => fs.readFileSync(path.join(modelDir, p)))));
      const weights = tf.io.decodeWeights(
        data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
        manifest.flatMap((group) => group.weights),
      );
      await net.loadFromWeightMap(weights);
    };
    await load(faceapi.nets.ssdMobilenetv1, 'ssd_mobilenetv1_model');
    await load(faceapi.nets.faceLandmark68Net, 'face_landmark_68_model');
    await load(faceapi.nets.faceRecognitionNet, 'face_recognition_model');
    const options = new faceapi.SsdMobilenetv1Options({ minConfidence: 0.5 });
    embed = async (bytes) => {
      const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const tensor = tf.tensor3d(new Uint8Array(data), [info.height, info.width, 3], 'int32');
      try {
        const found = await faceapi.detectAllFaces(tensor, options).withFaceLandmarks().withFaceDescriptors();
        found.sort((a, b) => b.detection.box.area - a.detection.box.area);
        return { count: found.length, embedding: found[0] ? Array.from(found[0].descriptor) : null, pose: null };
      } finally {
        tensor.dispose();
      }
    };
    // The first inference compiles the kernels; the service pays it at load, so the benchmark does too.
    await embed(fs.readFileSync(path.join(dir, files[0])));
  }
  const loadMs = Math.round(performance.now() - started);
  const afterLoad = rssMb();
  peak = Math.max(peak, afterLoad);
  const ms = [];
  const cpuMs = [];
  const results = {};
  for (let run = 0; run < runs; run += 1) {
    for (const file of files) {
      const bytes = fs.readFileSync(path.join(dir, file));
      const cpu = process.cpuUsage();
      const t0 = performance.now();
      const result = await embed(bytes);
      ms.push(performance.now() - t0);
      const used = process.cpuUsage(cpu);
      cpuMs.push((used.user + used.system) / 1000);
      peak = Math.max(peak, rssMb());
      if (run === 0) results[file] = result;
    }
  }
  process.send({
    engine,
    loadMs,
    rssAfterLoadMb: afterLoad,
    peakRssMb: peak,
    faces: files.length,
    runs,
    msP50: Math.round(percentile(ms, 50)),
    msP99: Math.round(percentile(ms, 99)),
    cpuMsP50: Math.round(percentile(cpuMs, 50)),
    results,
  });
}

function similarityHuman(a, b) {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] - b[i]) ** 2;
  if (sum === 0) return 1;
  return Math.min(1, Math.max(0, (1 - Math.sqrt(25 * sum) / 100 - 0.2) / 0.6));
}

function similarityFaceApi(a, b) {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] - b[i]) ** 2;
  // face-api's own convention: euclidean distance, 0.6 the usual match limit; shown as 1 − distance.
  return 1 - Math.sqrt(sum);
}

/** Crops every face human finds in the demo photos, and the altered copies. */
async function makeCrops(dir) {
  const faces = require(path.join(FACES_PKG, 'dist/index.js'));
  const list = [];
  for (const photo of fs
    .readdirSync(DEMO)
    .filter((name) => /^sample\d\.jpg$/.test(name))
    .sort()) {
    const page = await sharp(fs.readFileSync(path.join(DEMO, photo)))
      .resize(1600)
      .jpeg({ quality: 95 })
      .toBuffer();
    const meta = await sharp(page).metadata();
    const found = await faces.detectFaces(page);
    for (const [index, face] of found.faces.entries()) {
      const size = Math.max(face.box.width, face.box.height);
      const side = Math.round(size * 1.6);
      const left = Math.max(0, Math.round(face.box.x + face.box.width / 2 - side / 2));
      const top = Math.max(0, Math.round(face.box.y + face.box.height / 2 - side / 2));
      const crop = sharp(page).extract({
        left,
        top,
        width: Math.min(side, meta.width - left),
        height: Math.min(side, meta.height - top),
      });
      const base = await crop.resize(320, 320, { fit: 'cover' }).jpeg({ quality: 90 }).toBuffer();
      const id = `${photo.replace('.jpg', '')}-f${index}`;
      const variants = {
        orig: base,
        mirror: await sharp(base).flop().jpeg({ quality: 90 }).toBuffer(),
        small: await sharp(base).resize(160).jpeg({ quality: 50 }).toBuffer(),
        dark: await sharp(base).linear(0.55, 0).jpeg({ quality: 90 }).toBuffer(),
        turned: await sharp(base)
          .rotate(8, { background: '#808080' })
          .resize(320, 320, { fit: 'cover' })
          .jpeg({ quality: 90 })
          .toBuffer(),
      };
      for (const [variant, bytes] of Object.entries(variants)) fs.writeFileSync(path.join(dir, `${id}--${variant}.jpg`), bytes);
      list.push({ id, photo, yaw: face.pose?.yaw ?? null });
    }
  }
  return list;
}

function runChild(engine, dir, runs) {
  return new Promise((resolve, reject) => {
    const worker = fork(fileURLToPath(import.meta.url), ['--engine', engine, '--dir', dir, '--runs', String(runs)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let message;
    worker.on('message', (value) => (message = value));
    worker.on('exit', (code) => (message ? resolve(message) : reject(new Error(`${engine} exited ${code}`))));
  });
}

function range(values) {
  if (values.length === 0) return { n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const round = (value) => Math.round(value * 1000) / 1000;
  return { n: values.length, min: round(sorted[0]), p50: round(percentile(sorted, 50)), max: round(sorted.at(-1)) };
}

function pairs(list, results, similarity) {
  const same = { mirror: [], small: [], dark: [], turned: [] };
  const different = [];
  let missed = 0;
  for (const face of list) {
    const orig = results[`${face.id}--orig.jpg`]?.embedding;
    if (!orig) {
      missed += 1;
      continue;
    }
    for (const variant of Object.keys(same)) {
      const other = results[`${face.id}--${variant}.jpg`]?.embedding;
      if (other) same[variant].push(similarity(orig, other));
      else missed += 1;
    }
  }
  for (const [i, a] of list.entries())
    for (const b of list.slice(i + 1)) {
      if (a.photo !== b.photo) continue;
      const ea = results[`${a.id}--orig.jpg`]?.embedding;
      const eb = results[`${b.id}--orig.jpg`]?.embedding;
      if (ea && eb) different.push(similarity(ea, eb));
    }
  const allSame = Object.values(same).flat();
  return {
    same: Object.fromEntries(Object.entries(same).map(([key, values]) => [key, range(values)])),
    sameAll: range(allSame),
    different: range(different),
    margin: allSame.length && different.length ? Math.round((Math.min(...allSame) - Math.max(...different)) * 1000) / 1000 : null,
    missedCrops: missed,
  };
}

async function main() {
  if (args.engine) return child(args.engine, args.dir, Number(args.runs));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'faces-models-'));
  try {
    const list = await makeCrops(dir);
    const runs = Number(args.runs);
    const human = await runChild('human', dir, runs);
    const faceapi = await runChild('faceapi', dir, runs);
    const yardstick = await machineReference();
    const report = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((value) => Math.round(value * 10) / 10), yardstick },
      faces: list.length,
      crops: fs.readdirSync(dir).length,
      engines: [
        { ...human, results: undefined, pairs: pairs(list, human.results, similarityHuman), scale: 'human similarity 0–1' },
        {
          ...faceapi,
          results: undefined,
          pairs: pairs(list, faceapi.results, similarityFaceApi),
          scale: '1 − euclidean distance',
        },
      ],
      yaw: range(list.map((face) => face.yaw).filter((value) => value !== null)),
    };
    for (const engine of report.engines) {
      process.stdout.write(
        `${engine.engine}: load ${engine.loadMs} ms, ${engine.msP50}/${engine.msP99} ms per face (p50/p99), CPU ${engine.cpuMsP50} ms, ` +
          `RSS ${engine.rssAfterLoadMb} MB loaded, ${engine.peakRssMb} MB peak; same ${JSON.stringify(engine.pairs.sameAll)}, ` +
          `different ${JSON.stringify(engine.pairs.different)}, margin ${engine.pairs.margin}, missed ${engine.pairs.missedCrops}\n`,
      );
    }
    process.stdout.write(`machine: ${JSON.stringify(report.machine)}\n`);
    fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'bench/results/faces-models.json'), `${JSON.stringify(report, null, 2)}\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
