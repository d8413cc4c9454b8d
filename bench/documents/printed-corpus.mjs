// The DNI photos the print benchmarks read: the corpus's documents under the easy degradations, half with
// the printed surname altered, each side photographed up to `--retakes` more times. One set of arguments
// and one generation, so that printed.mjs and camera-measure.mjs read the same photos from one cache.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const RESULTS = path.join(ROOT, 'bench', 'results');
export const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));

/** `parseArgs` options of the photo set. */
export const PHOTO_SET_ARGS = {
  seed: { type: 'string', default: '31' },
  count: { type: 'string', default: '120' },
  retakes: { type: 'string', default: '2' },
  variants: { type: 'string', default: 'dni_2012_8,dni_2012_9,dni_2009' },
  profiles: { type: 'string', default: 'clean,tilt,blur,jpeg,low_light,glare' },
  'altered-rate': { type: 'string', default: '0.5' },
};

/** The corpus's generation options for the parsed arguments. */
export function photoSetOptions(args) {
  return {
    ...corpus.DEFAULT_GENERATE_OPTIONS,
    seed: Number(args.seed),
    variants: args.variants.split(','),
    profiles: args.profiles.split(','),
    defectRate: Number(args['altered-rate']),
    defects: ['printed_surname_altered'],
  };
}

/** The images of document `index`'s photo number `photo` (0: the first; cached under bench/results/corpus). */
export function photosOf(index, options, photo) {
  return corpus.cachedDocumentImages(path.join(RESULTS, 'corpus'), index, options, photo);
}
