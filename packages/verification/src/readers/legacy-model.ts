import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * The legacy engine's model: `@tesseract.js-data/eng`'s full English traineddata without the parts the legacy
 * engine, as ocr.ts starts it, never reads.
 *
 * A traineddata file is a table of components (tesseract's `TessdataType`: an int32 count, an int64 offset per
 * component, -1 when absent, then the components back to back). The full model is 23.5 MB, of which the
 * legacy engine uses 2.2: the rest is the LSTM engine's network, dictionaries and character set (5.2 MB, read
 * only by an LSTM engine) and the English word-bigram dictionary (16.1 MB). Tesseract reads the whole file into
 * the engine's WebAssembly memory to start, and that memory never shrinks: the full file cost a reading thread
 * ≈ 95 MiB more once its engines had started, ≈ 54 MiB more at its peak (docs/performance.md, "The legacy
 * engine's model without what it never reads").
 *
 * The bigram dictionary corrects a word by the English words that may follow it; ocr.ts turns it off
 * (`load_bigram_dawg`), because the printed fields of an Argentine card and a machine-readable zone are not
 * English prose, and so it is not read either. The readings with it off were compared field by field with
 * the readings with it on (docs/performance.md).
 */
const LEGACY_UNUSED = new Set([
  14, // TESSDATA_BIGRAM_DAWG
  17, // TESSDATA_LSTM
  18, // TESSDATA_LSTM_PUNC_DAWG
  19, // TESSDATA_LSTM_SYSTEM_DAWG
  20, // TESSDATA_LSTM_NUMBER_DAWG
  21, // TESSDATA_LSTM_UNICHARSET
  22, // TESSDATA_LSTM_RECODER
]);

/** The traineddata without the components of `drop`; the others byte for byte, in their order. */
export function withoutComponents(model: Buffer, drop: ReadonlySet<number>): Buffer {
  const count = model.readInt32LE(0);
  const tableEnd = 4 + 8 * count;
  if (count <= 0 || count > 64 || tableEnd > model.length) throw new Error('not a traineddata file');
  const offsets = Array.from({ length: count }, (_, index) => Number(model.readBigInt64LE(4 + 8 * index)));
  const table = Buffer.alloc(tableEnd);
  table.writeInt32LE(count, 0);
  const parts: Buffer[] = [];
  let at = tableEnd;
  for (let index = 0; index < count; index++) {
    const start = offsets[index]!;
    let kept = -1;
    if (start >= 0 && !drop.has(index)) {
      const next = offsets.slice(index + 1).find((offset) => offset >= 0);
      const end = next ?? model.length;
      if (start < tableEnd || end > model.length || end < start) throw new Error('not a traineddata file');
      parts.push(model.subarray(start, end));
      kept = at;
      at += end - start;
    }
    table.writeBigInt64LE(BigInt(kept), 4 + 8 * index);
  }
  return Buffer.concat([table, ...parts]);
}

const derivedFolders = new Map<string, string>();

/**
 * The folder holding the legacy engine's `eng.traineddata`, made once per machine from the packaged model (in
 * the system's temporary folder, an `emptyDir` in the Kubernetes deployment) and named by the packaged
 * model's hash, so another model version never reads an older file. Written under a name of its own and
 * renamed, so threads and processes starting together never read a half-written file.
 */
export function legacyModelFolder(packagedFolder: string, root = os.tmpdir()): string {
  const source = path.join(packagedFolder, 'eng.traineddata.gz');
  // The packaged file is read and hashed once per thread; an engine restarted after a timeout only checks
  // that the derived file is still there (a temporary folder can be cleaned).
  const key = `${source}\0${root}`;
  const known = derivedFolders.get(key);
  if (known !== undefined && existsSync(path.join(known, 'eng.traineddata'))) return known;
  const packaged = readFileSync(source);
  const hash = createHash('sha256').update(packaged).digest('hex').slice(0, 16);
  const folder = path.join(root, 'idv-ocr-models', `eng-legacy-${hash}`);
  derivedFolders.set(key, folder);
  const file = path.join(folder, 'eng.traineddata');
  if (existsSync(file)) return folder;
  mkdirSync(folder, { recursive: true });
  const partial = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    writeFileSync(partial, withoutComponents(gunzipSync(packaged), LEGACY_UNUSED));
    renameSync(partial, file);
  } finally {
    // Left only when the write or the rename failed (a full disk): the next start writes it again.
    rmSync(partial, { force: true });
  }
  return folder;
}
