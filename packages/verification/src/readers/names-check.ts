import sharp from 'sharp';
import { decodeGrey } from '../image/raster';
import type { MrzFormat } from '../parsers/mrz.parser';
import { FILLER_GLYPH_THRESHOLD } from '../calibration/mrz';
import { fillerLikeness } from './filler-glyphs';
import { MRZ_WHITELIST, OcrTimeoutError, recognise, type OcrBox, type OcrLine } from './ocr';

// Names hold letters and filler only; without digits the engine cannot read an O as 0.
const NAMES_WHITELIST = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ<';

/**
 * The names of a valid MRZ, read a second time by another engine. Check digits cover every field of an
 * MRZ but the names; two crops of the zone read by the legacy engine agree on its own confusions (a
 * blurred M read as H at letter confidence 78, seed 7: two names given back wrong with every check
 * passing). The LSTM engine is another classifier: it reads the names line alone, and the names are
 * given back only when each of their words is in its text, in order. It reads the filler '<' as C, K, L or N,
 * so only the words are looked for, never the filler between them.
 */
export type NamesSecondRead = 'agreed' | 'disagreed' | 'unread';

interface NameWord {
  word: string;
  /** Where the word ends in the names line: the index of the character after it. */
  end: number;
}

function nameWordsAt(namesLine: string, format: MrzFormat): NameWord[] {
  // TD3 and TD2: type (2), issuing state (3), then the names; TD1: the third line is the names alone.
  const offset = format === 'TD1' ? 0 : 5;
  return [...namesLine.slice(offset).matchAll(/[^<]+/g)].map((match) => ({
    word: match[0],
    end: offset + (match.index ?? 0) + match[0].length,
  }));
}

/** The words of an MRZ's names field: surname and given names, split at their '<' separators. */
export function mrzNameWords(namesLine: string, format: MrzFormat): string[] {
  return nameWordsAt(namesLine, format).map(({ word }) => word);
}

// What the LSTM engine makes of a filler '<' (seed 42 read `ROCIO<<` as `ROCIONKK`).
export const FILLER_READS: ReadonlySet<string> = new Set(['<', 'C', 'K', 'L', 'N']);

/**
 * Whether `text` (another engine's read of the names line) holds every word, in order, each ending where
 * the first engine's word ends: a word the first engine cut short (`MARTINE` for `MARTINEZ`) is then not
 * found in the longer one. What may follow a word:
 * - with `fillerSeenAfter` (per word, whether the photo shows a filler glyph right after it:
 *   `filler-glyphs.ts`): the end, a '<', or, where the glyph is a filler, whatever the other engine made
 *   of it (the LSTM engine reads a filler as C, K, L, N, S, D or E);
 * - without (the glyphs could not be measured): the end or what the LSTM engine reads a filler as
 *   (`FILLER_READS`), which would also let through a word cut short before a final C, K, L or N.
 */
export function namesAgree(words: readonly string[], text: string, fillerSeenAfter: readonly boolean[] | null = null): boolean {
  const squeezed = text.toUpperCase().replace(/\s+/g, '');
  const endsWord = (index: number, next: string | undefined): boolean => {
    if (next === undefined || next === '<') return true;
    return fillerSeenAfter === null ? FILLER_READS.has(next) : fillerSeenAfter[index] === true;
  };
  let from = 0;
  for (const [index, word] of words.entries()) {
    let at = squeezed.indexOf(word, from);
    while (at >= 0 && !endsWord(index, squeezed[at + word.length])) at = squeezed.indexOf(word, at + 1);
    if (at < 0) return false;
    from = at + word.length;
  }
  return true;
}

/**
 * The second read's verdict on names that other variants of the zone read otherwise (`rivals`, the words
 * of each): it agrees only if it reads the chosen names and none of the rivals, read as leniently as it
 * can be (fillers from the text alone). A rival with the same words is no rival.
 */
export function verdictAmongRivals(
  second: { verdict: NamesSecondRead; text: string | null },
  words: readonly string[],
  rivals: readonly (readonly string[])[],
): NamesSecondRead {
  if (second.verdict !== 'agreed' || second.text === null) return second.verdict;
  const chosen = words.join('<');
  const text = second.text;
  const rivalRead = rivals.some((rival) => rival.join('<') !== chosen && namesAgree(rival, text));
  return rivalRead ? 'disagreed' : 'agreed';
}

/**
 * Where the second engine disagreed with the chosen names (`chosen`): the one other names line of the
 * zone, as some variant of the first engine read it (`rivals`), whose words its text holds; null when
 * none does, or when two lines do (the chosen one among them, read as leniently as the others). Two
 * engines then still agree on the names given back, as when the chosen names are: the first engine's
 * variants split on a blurred M (`HUNOZ<<HARTINA` three times, `MUNOZ<<MARTINA` four: corpus seed 6001),
 * the other engine reads it, and the variant that read it right is taken.
 */
export function namesPickedBySecondRead(
  second: SecondReadText,
  chosen: string,
  rivals: readonly string[],
  format: MrzFormat,
): string | null {
  // The glyphs seen after the chosen line's words are those after a line's with its fillers in the same
  // places (the variants differ in letters): the LSTM engine reads a lone filler between two surnames as S
  // (`DALESSANDROSGIMENEZ`), which only the glyph can tell from a letter.
  const fillers = (line: string) => line.replace(/[^<]/g, '.');
  const agreeing = [...new Set([chosen, ...rivals])].filter((line) => {
    const words = mrzNameWords(line, format);
    const seen = fillers(line) === fillers(chosen) ? second.fillerSeenAfter : null;
    return words.length > 0 && namesAgree(words, second.text, seen);
  });
  const picked = agreeing.length === 1 ? agreeing[0] : undefined;
  return picked === undefined || picked === chosen ? null : picked;
}

/**
 * Per word of the names line, whether the photo shows a filler glyph right after it; null when the first
 * engine's symbols are not the line the reading kept (a repaired or padded line has no glyph to look at).
 */
async function fillersSeenAfterWords(png: Buffer, line: OcrLine, namesLine: string, words: readonly NameWord[]) {
  const likeness = fillerLikeness(await decodeGrey(png), line);
  if (likeness === null || likeness.text !== namesLine) return null;
  return words.map(({ end }) => (likeness.likeness[end] ?? -1) >= FILLER_GLYPH_THRESHOLD);
}

/**
 * One line of the zone (its box in `png`, the crop the legacy engine read) read by the LSTM engine; null
 * when it could not be. The band is cut a fifth of a line above and below and a line's height beyond each
 * end: in one-line mode the LSTM engine garbles a line that shows the top of the next one or the page's
 * dark edge (seed 42: `LLERELUIS` for `MUELLER<<JOSE<LUIS` cut half a line high and the crop's whole width).
 */
async function readLineAgain(png: Buffer, line: OcrBox, whitelist: string): Promise<string | null> {
  const meta = await sharp(png).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const lineHeight = line.y1 - line.y0;
  const pad = Math.round(lineHeight / 5);
  const top = Math.max(0, line.y0 - pad);
  const bottom = Math.min(height, line.y1 + pad);
  const left = Math.max(0, line.x0 - lineHeight);
  const right = Math.min(width, line.x1 + lineHeight);
  if (right - left < 4 || bottom - top < 4) return null;
  const band = await sharp(png)
    .extract({ left, top, width: right - left, height: bottom - top })
    .png()
    .toBuffer();
  try {
    return (await recognise(band, { whitelist, mode: 'line', engine: 'lstm' })).text;
  } catch (error) {
    if (error instanceof OcrTimeoutError) return null;
    throw error;
  }
}

/**
 * Reads the names line with the LSTM engine and compares (`namesAgree`); what follows each word in its
 * text is judged by the glyph there in the photo when the line's glyphs can be measured. `rivals` are
 * the names lines other variants of the zone read otherwise: the verdict is then `verdictAmongRivals`.
 */
export async function secondReadOfNames(
  png: Buffer,
  line: OcrLine,
  namesLine: string,
  format: MrzFormat,
  rivals: readonly string[] = [],
): Promise<SecondReadOfNames> {
  const words = nameWordsAt(namesLine, format);
  if (words.length === 0) return { verdict: 'agreed', text: null, fillerSeenAfter: null };
  const text = await readLineAgain(png, line.bbox, NAMES_WHITELIST);
  if (text === null) return { verdict: 'unread', text: null, fillerSeenAfter: null };
  const plain = words.map(({ word }) => word);
  const fillerSeenAfter = await fillersSeenAfterWords(png, line, namesLine, words);
  const second = { verdict: namesAgree(plain, text, fillerSeenAfter) ? ('agreed' as const) : ('disagreed' as const), text };
  const rivalWords = rivals.map((rival) => mrzNameWords(rival, format));
  return { verdict: verdictAmongRivals(second, plain, rivalWords), text, fillerSeenAfter };
}

export interface SecondReadOfNames {
  verdict: NamesSecondRead;
  /** The other engine's text of the names line; null when it was not read. */
  text: string | null;
  /** Per word of the chosen names, whether the photo shows a filler glyph after it (null: not measured). */
  fillerSeenAfter: readonly boolean[] | null;
}

/** A second read that gave a text. */
export type SecondReadText = Pick<SecondReadOfNames, 'fillerSeenAfter'> & { text: string };

/** The LSTM engine's text of a data line of the zone (digits and letters), or null. */
export function secondReadOfDataLine(png: Buffer, line: OcrBox): Promise<string | null> {
  return readLineAgain(png, line, MRZ_WHITELIST);
}
