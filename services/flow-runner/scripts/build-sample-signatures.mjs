#!/usr/bin/env node
// Computes the likeness signature (@idv/verification's perceptualSignature) of every test-mode sample
// image shipped in assets/samples and assets/face-samples into assets/sample-signatures.json: live mode
// refuses a document photo or a face frame that is one of them, or a copy of one (src/adapters/
// sample-signatures.ts). build-samples.mjs and build-face-samples.mjs run it after writing their images;
// run it alone after changing the signature (`pnpm build` first):
//   node services/flow-runner/scripts/build-sample-signatures.mjs
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS = path.join(HERE, '..', 'assets');
const require = createRequire(import.meta.url);
const { perceptualSignature } = require('@idv/verification');
const { isFlatSignature, SAMPLE_FOLDERS } = require('../dist/adapters/sample-signatures.js');

const samples = [];
const flat = [];
for (const folder of SAMPLE_FOLDERS) {
  for (const name of readdirSync(path.join(ASSETS, folder))
    .filter((file) => file.endsWith('.jpg'))
    .sort()) {
    const file = `${folder}/${name}`;
    const signature = await perceptualSignature(readFileSync(path.join(ASSETS, file)));
    // A blank frame (the `face-none` sequence) is like any other blank frame: it cannot be told apart.
    if (isFlatSignature(signature)) {
      flat.push(file);
      continue;
    }
    const same = samples.find((sample) => sample.signature === signature);
    if (same) same.files.push(file);
    else samples.push({ files: [file], signature });
  }
}
const out = path.join(ASSETS, 'sample-signatures.json');
const json = JSON.stringify({
  about:
    'perceptualSignature of each test-mode sample image (64×48 grey thumbnail, base64), built by scripts/build-sample-signatures.mjs',
  flat_images_left_out: flat,
  samples,
});
// Written as the repository's formatter writes it, so that a rebuild that changed nothing changes no byte.
const prettier = await import('prettier');
writeFileSync(out, await prettier.format(json, { ...(await prettier.resolveConfig(out)), filepath: out }));
process.stdout.write(
  `${samples.length} signatures (${flat.length} blank images left out) in ${path.relative(process.cwd(), out)}\n`,
);
