import { DEFAULT_GENERATE_OPTIONS, generateDocumentImages } from '../src';

/** One side of a benchmark corpus document (the front by default), as `bench/documents` generates it. */
export async function corpusPage(seed: number, index: number, side: 'front' | 'back' = 'front') {
  const pages = await generateDocumentImages(index, { ...DEFAULT_GENERATE_OPTIONS, seed });
  const page = pages.find((candidate) => candidate.label.side === side);
  if (page === undefined) throw new Error(`the corpus gave no ${side}`);
  return page;
}
