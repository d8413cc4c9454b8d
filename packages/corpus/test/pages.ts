import { DEFAULT_GENERATE_OPTIONS, generateDocumentImages } from '../src';

/** The first image (the front) of a benchmark corpus document, as `bench/documents` generates it. */
export async function corpusPage(seed: number, index: number) {
  const [page] = await generateDocumentImages(index, { ...DEFAULT_GENERATE_OPTIONS, seed });
  if (page === undefined) throw new Error('the corpus gave no image');
  return page;
}
