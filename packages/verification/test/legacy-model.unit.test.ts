import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { legacyModelFolder, withoutComponents } from '../src/readers/legacy-model';

/** A traineddata file of the given components (absent ones as undefined), tesseract's layout. */
function traineddata(components: (Buffer | undefined)[]): Buffer {
  const table = Buffer.alloc(4 + 8 * components.length);
  table.writeInt32LE(components.length, 0);
  let at = table.length;
  components.forEach((component, index) => {
    table.writeBigInt64LE(BigInt(component ? at : -1), 4 + 8 * index);
    at += component?.length ?? 0;
  });
  return Buffer.concat([table, ...components.filter((component): component is Buffer => component !== undefined)]);
}

/** Component index → its bytes, read back through the table. */
function componentsOf(model: Buffer): Map<number, Buffer> {
  const count = model.readInt32LE(0);
  const offsets = Array.from({ length: count }, (_, index) => Number(model.readBigInt64LE(4 + 8 * index)));
  const found = new Map<number, Buffer>();
  offsets.forEach((start, index) => {
    if (start < 0) return;
    const end = offsets.slice(index + 1).find((offset) => offset >= 0) ?? model.length;
    found.set(index, model.subarray(start, end));
  });
  return found;
}

describe('the legacy engine model', () => {
  it('when components are dropped, then the others keep their bytes and their places in the table', () => {
    const parts = [
      Buffer.from('config'),
      undefined,
      Buffer.from('unicharset'),
      Buffer.from('bigram dictionary'),
      Buffer.from('v1'),
    ];
    const stripped = withoutComponents(traineddata(parts), new Set([3]));

    const kept = componentsOf(stripped);
    expect([...kept.keys()]).toEqual([0, 2, 4]);
    expect(kept.get(0)!.toString()).toBe('config');
    expect(kept.get(2)!.toString()).toBe('unicharset');
    expect(kept.get(4)!.toString()).toBe('v1');
    expect(stripped.length).toBe(4 + 8 * 5 + 'config'.length + 'unicharset'.length + 'v1'.length);
  });

  it('when the bytes are not a traineddata file, then it says so rather than writing a broken model', () => {
    expect(() => withoutComponents(Buffer.from('%PDF-1.7 not a model at all'), new Set())).toThrow('not a traineddata file');
    const lying = traineddata([Buffer.from('a'), Buffer.from('b')]);
    lying.writeBigInt64LE(BigInt(lying.length + 10), 4 + 8);
    expect(() => withoutComponents(lying, new Set())).toThrow('not a traineddata file');
  });

  it('when made from the packaged English model, then it holds every part the legacy engine reads, byte for byte, and no other', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const packaged = (require('@tesseract.js-data/eng') as { langPath: string }).langPath;
    const full = componentsOf(gunzipSync(readFileSync(path.join(packaged, 'eng.traineddata.gz'))));
    // A root of its own: the engines of other tests read the shared one meanwhile.
    const root = mkdtempSync(path.join(os.tmpdir(), 'legacy-model-test-'));
    const folder = legacyModelFolder(packaged, root);
    try {
      expect(folder.startsWith(root)).toBe(true);
      const legacy = componentsOf(readFileSync(path.join(folder, 'eng.traineddata')));

      // The unichar set, ambiguities, templates, normalisation and shape table, the word, punctuation, number
      // and frequency dictionaries, the version; not the bigram dictionary (14) nor the LSTM engine's (17–22).
      expect([...legacy.keys()]).toEqual([...full.keys()].filter((index) => index !== 14 && (index < 17 || index > 22)));
      for (const [index, bytes] of legacy) expect(bytes.equals(full.get(index)!)).toBe(true);
      // Made once: a second call finds the file.
      expect(legacyModelFolder(packaged, root)).toBe(folder);
      // A temporary folder cleaned under a running service: the next engine start makes the file again.
      rmSync(path.join(folder, 'eng.traineddata'));
      expect(legacyModelFolder(packaged, root)).toBe(folder);
      expect(componentsOf(readFileSync(path.join(folder, 'eng.traineddata'))).size).toBe(legacy.size);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
