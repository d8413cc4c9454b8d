import { ARBITRATION_OCR_TIMEOUT_MS, DEFAULT_OCR_TIMEOUT_MS } from '../../calibration/budgets';
import { KEYSTONE_CHECK_DEG, MRZ_MIN_DEBLUR_SIGMA, NOISY_ZONE_SIGMA } from '../../calibration/mrz';
import { edgeBlurSigma, wienerDeblurBoth } from '../../image/deconvolve';
import { descreen } from '../../image/descreen';
import { noiseSigma } from '../../image/noise';
import { greyVariant, pngVariant, type GreyRaster } from '../../image/raster';
import { erasedCharacters } from '../mrz-erasure';
import { cellReadsIn, hasMrzSignal, namesKeyOf, namesLineOf, rivalNames, type ScoredMrz } from '../mrz-text';
import type { OcrLine, OcrResult } from '../ocr';
import { applyHomography, rectifyMrzBand } from '../rectify';
import {
  fittedRead,
  nameConfidence,
  nameLineIndex,
  namesReadIn,
  outranks,
  overBudget,
  type SearchContext,
  type ZoneContext,
} from './context';
import { glyphImage, levelGlyphImage } from './glyphs';
import { checkOf, DESCREENED, DESCREENED_WIDE, denoiseSigma, PLAIN, zoneVariants, type OcrVariant } from './variants';
import { cropToTurned, rectifiedZone, zoneQuad, type OcrImage, type ZoneCrop } from './zones';

/**
 * The stages of one zone's reading (`readZone` runs them over the zone's variants): each variant's
 * pixels (`zoneImage`), its OCR pass (`readVariant`), the read weighed against the best so far
 * (`considerRead`), and the pass that checks a valid read's names (`corroborateNames`).
 */

/** What is left to do after a zone's pass: its next variant, the next zone (this one maybe read turned back), or finishing. */
export type PassOutcome =
  { next: 'variant' } | { next: 'zone'; turnedBack: ZoneCrop | null } | { next: 'finish'; budgetExhausted: boolean };

/** The zone around a located block, measured before any OCR: its crops' geometry, noise and erased ink. */
export async function openZone(
  search: SearchContext,
  at: { angleIndex: number; angle: number; turned: GreyRaster; crop: ZoneCrop },
): Promise<ZoneContext> {
  const { turned, crop } = at;
  const recaptured = search.options.recaptured === true;
  const region = {
    left: crop.left / turned.width,
    top: crop.top / turned.height,
    width: crop.width / turned.width,
    height: crop.height / turned.height,
  };
  const rectified = await rectifiedZone(turned, crop);
  const variants = zoneVariants(rectified !== null, recaptured);
  const scale = PLAIN.width / crop.width;
  const zoneGrey = await greyVariant(turned, { region, scale, normalise: true, upsideDown: crop.flipped });
  const blockTop = (crop.block_top - crop.top) * scale;
  const blockBottom = (crop.block_bottom - crop.top) * scale;
  const zoneBlock = crop.flipped
    ? { top: zoneGrey.height - blockBottom, bottom: zoneGrey.height - blockTop, lines: crop.lines }
    : { top: blockTop, bottom: blockBottom, lines: crop.lines };
  // Three lines are a TD1's 30 characters; two a TD3's 44 (a TD2's 36 measures a fifth wider).
  if (crop.turned_back !== true)
    search.erased = Math.max(search.erased, erasedCharacters(zoneGrey, zoneBlock, crop.lines >= 3 ? 30 : 44));
  const zone: ZoneContext = {
    search,
    ...at,
    region,
    rectified,
    variants,
    zoneGrey,
    zoneBlock,
    noisy: noiseSigma(zoneGrey) >= NOISY_ZONE_SIGMA,
    zoneBlur: null,
    namesByVariant: new Map(),
    bestNamesByVariant: new Map(),
    readByVariant: new Map(),
    promoted: false,
    corroborationDone: false,
    firstReadLines: 0,
  };
  // A screen's grid can hide the zone's shape from the plain read altogether, or make the engine read
  // it as a field of characters until the recapture's safety cap cuts it short (s42-000058, s7-000018):
  // on a photo that looks recaptured, the zone is then read descreened before it is given up.
  if (recaptured && search.plainCutShort) {
    variants.splice(0, variants.length, DESCREENED, DESCREENED_WIDE);
    zone.promoted = true;
  }
  return zone;
}

/** The zone at a variant's width, stretched: what the deblurred and descreened variants start from. */
async function zoneGreyAt(zone: ZoneContext, width: number): Promise<GreyRaster> {
  const { turned, crop, region } = zone;
  return width === PLAIN.width
    ? zone.zoneGrey
    : greyVariant(turned, { region, scale: width / crop.width, normalise: true, upsideDown: crop.flipped });
}

/** The pixels a variant reads of the zone, or null where the variant says nothing of this zone. */
export async function zoneImage(zone: ZoneContext, variant: OcrVariant): Promise<OcrImage | null> {
  const { turned, crop, region, rectified, noisy } = zone;
  // Smoothing of an unthresholded crop `width` wide, where the zone is noisy.
  const smoothing = (width: number) => (noisy ? (denoiseSigma(crop.lines) * width) / PLAIN.width : undefined);
  if (variant.descreen === true) {
    return {
      png: await pngVariant(descreen(await zoneGreyAt(zone, variant.width)), { blur: smoothing(variant.width) }),
      toTurned: cropToTurned(crop, variant.width / crop.width),
    };
  }
  if (variant.deblur !== undefined) {
    const scale = variant.width / crop.width;
    const grey = await zoneGreyAt(zone, variant.width);
    zone.zoneBlur ??= edgeBlurSigma(grey).sigma;
    if (zone.zoneBlur < MRZ_MIN_DEBLUR_SIGMA) return null;
    const sigma = zone.zoneBlur * variant.deblur.sigmaFactor;
    const sharpened = wienerDeblurBoth(grey, sigma, variant.deblur.noise);
    return { png: await pngVariant(sharpened), toTurned: cropToTurned(crop, scale) };
  }
  if (variant.glyphs === true) {
    if (rectified !== null) return glyphImage(rectified);
    return levelGlyphImage(zone.zoneGrey, zone.zoneBlock, cropToTurned(crop, PLAIN.width / crop.width));
  }
  if (variant.name === 'rectified') {
    if (rectified === null) return null;
    const image = rectifyMrzBand(rectified.raster, rectified.geometry, variant.width);
    if (image === null) return null;
    const bandToTurned = cropToTurned(rectified.band, rectified.scale);
    return {
      png: await pngVariant(image.raster, { normalise: true, blur: smoothing(variant.width) }),
      toTurned: (point) => bandToTurned(applyHomography(image.toBand, point)),
    };
  }
  // A threshold turns a noisy zone's grain into specks the engine reads slowly, as letters.
  if (noisy && variant.threshold !== undefined) return null;
  const scale = variant.width / crop.width;
  return {
    png: await pngVariant(turned, {
      region,
      scale,
      normalise: true,
      threshold: variant.threshold,
      upsideDown: crop.flipped,
      blur: smoothing(variant.width),
    }),
    toTurned: cropToTurned(crop, scale),
  };
}

/**
 * One OCR pass of a variant (once per zone: a second ask is answered from the first), counted against
 * the budget; records the names lines it holds and its reads of every cell. Null where the variant says
 * nothing of this zone; `ocr` null where the pass was cut short.
 */
export async function readVariant(
  zone: ZoneContext,
  variant: OcrVariant,
  timeoutMs = zone.search.options.ocrTimeoutMs,
): Promise<{ image: OcrImage; ocr: OcrResult | null } | null> {
  const { search } = zone;
  const known = zone.readByVariant.get(variant.name);
  if (known !== undefined) return known;
  const image = await zoneImage(zone, variant);
  if (image === null) return null;
  search.attempts += 1;
  search.options.budget.spend(1);
  const result = { image, ocr: image.read ?? (await search.readers.zone(image.png, timeoutMs)) };
  zone.readByVariant.set(variant.name, result);
  if (result.ocr !== null) {
    const texts = result.ocr.lines.map((line) => line.text);
    zone.namesByVariant.set(variant.name, namesReadIn(texts));
    for (const cellRead of cellReadsIn(texts)) {
      const shape = cellRead.lines.map((line) => line.length).join('x');
      const group = search.cellReads.get(shape) ?? [];
      const { ocr } = result;
      group.push({ read: cellRead, consider: (scored) => considerRead(zone, variant.name, image, ocr, scored, true) });
      search.cellReads.set(shape, group);
    }
    const own = fittedRead(variant, texts);
    if (own !== null) {
      zone.bestNamesByVariant.set(variant.name, namesKeyOf(own.mrz.lines));
      search.namesReadInSearch.add(namesKeyOf(own.mrz.lines));
    }
  }
  return result;
}

/** The names other variants of the zone gave in their best readings, where they are not `key`'s. */
function rivalsOf(zone: ZoneContext, key: string): string[] {
  return [...zone.bestNamesByVariant.values()].filter((names) => rivalNames(key, names));
}

/**
 * Another variant read these names, and none read other names in its best reading of the zone: a
 * blurred M is read as H by some variants and not others, and two of four agreeing on H gave names back
 * wrong (seed 7). Where variants disagree, only the second engine can pick among them (`finishSearch`).
 */
export function readElsewhere(zone: ZoneContext, key: string, variant: OcrVariant['name']): boolean {
  return (
    [...zone.namesByVariant.entries()].some(([name, names]) => name !== variant && names.has(key)) &&
    rivalsOf(zone, key).length === 0
  );
}

/**
 * A read becomes the best one if it outranks it (`outranks`), or reads the same as surely with names
 * read surer. A read voted among several (`voteCells`) is never corroborated here: its names are the
 * vote's, which only the second engine confirms.
 */
export function considerRead(
  zone: ZoneContext,
  variantName: OcrVariant['name'],
  image: OcrImage,
  ocr: OcrResult,
  scored: ScoredMrz,
  voted = false,
): void {
  const { search } = zone;
  const { best } = search;
  const corroborated = !voted && scored.mrz.valid && readElsewhere(zone, namesKeyOf(scored.mrz.lines), variantName);
  const candidate = { scored, corroborated };
  // Between reads the check digits cannot tell apart, the one whose names were read surer wins:
  // the names are what no check digit covers (the 2009 specimen's M read as H by one variant only).
  // (Scores within 1 differ only by the '<' added or removed to fit the line length.)
  const surer =
    best !== null &&
    scored.mrz.valid === best.scored.mrz.valid &&
    corroborated === best.corroborated &&
    Math.abs(scored.score - best.scored.score) < 1 &&
    nameConfidence(scored, ocr.lines) > best.reading.name_confidence;
  if (best !== null && !outranks(candidate, best) && !surer) return;
  const zoneLines = scored.candidate.source_lines
    .map((lineIndex) => ocr.lines[lineIndex])
    .filter((line): line is OcrLine => line !== undefined);
  search.best = {
    scored,
    variant: variantName,
    corroborated,
    image,
    namesLine: ocr.lines[scored.candidate.source_lines[nameLineIndex(scored.mrz)] ?? -1],
    dataLine: ocr.lines[scored.candidate.source_lines[1] ?? -1],
    rivals: () => rivalsOf(zone, namesKeyOf(scored.mrz.lines)).map(namesLineOf),
    readWholeZone: async () => {
      // These passes can only give names back, never take the read away: each is cut short sooner than
      // a search's pass (a dim zone's binarised crop ran to the 10 s safety cap, s99-000057), and none
      // is made past one cut short.
      const timeoutMs = Math.min(search.options.ocrTimeoutMs ?? DEFAULT_OCR_TIMEOUT_MS, ARBITRATION_OCR_TIMEOUT_MS);
      for (const variant of zone.variants) if ((await readVariant(zone, variant, timeoutMs))?.ocr === null) return;
    },
    reading: {
      lines: scored.mrz.lines,
      data: scored.mrz,
      valid: scored.mrz.valid,
      repaired_characters: scored.candidate.repaired_characters,
      filler_adjustments: scored.candidate.filler_adjustments,
      angle: (zone.angle + (zone.crop.flipped ? 180 : 0)) % 360,
      quad: zoneQuad(zoneLines, image, zone.turned, search.raster, zone.angle),
      confidence: zoneLines.reduce((sum, line) => sum + line.confidence, 0) / Math.max(1, zoneLines.length),
      name_confidence: nameConfidence(scored, ocr.lines),
      names_corroborated: corroborated,
      names_second_read: null,
    },
  };
}

/**
 * The pass that checks a valid read's names, made whatever the budget (`checkOf`), once per zone; then
 * the best read's names count as corroborated where another variant read them the same. A later
 * variant may confirm them too.
 */
export async function corroborateNames(zone: ZoneContext): Promise<void> {
  const { search } = zone;
  const top = search.best;
  if (top?.scored.mrz.valid !== true || top.corroborated) return;
  if (!zone.corroborationDone) {
    zone.corroborationDone = true;
    const keystoned = (zone.rectified?.geometry.convergence_deg ?? 0) >= KEYSTONE_CHECK_DEG;
    const check = checkOf(top.variant, keystoned, zone.promoted);
    const second = await readVariant(zone, check);
    const secondScored =
      second?.ocr == null
        ? null
        : fittedRead(
            check,
            second.ocr.lines.map((line) => line.text),
          );
    if (second?.ocr != null && secondScored !== null) considerRead(zone, check.name, second.image, second.ocr, secondScored);
  }
  // The check may itself have become the best read.
  const now = search.best ?? top;
  if (readElsewhere(zone, namesKeyOf(now.scored.mrz.lines), now.variant)) {
    now.corroborated = true;
    now.reading.names_corroborated = true;
  }
}

/**
 * On a photo that looks recaptured, a plain crop that showed no MRZ or ran into the safety cap has the
 * zone's other variants replaced by the descreened ones: the other crops show the same grid, and each
 * would run to the safety cap as the plain one did. True when it did so.
 */
export function promoteDescreened(zone: ZoneContext, index: number): boolean {
  if (index !== 0 || zone.promoted || zone.search.options.recaptured !== true) return false;
  zone.variants.splice(1, zone.variants.length - 1, DESCREENED, DESCREENED_WIDE);
  zone.promoted = true;
  return true;
}

/**
 * A variant's pass weighed: its read considered and, when valid, its names checked. A valid read with its
 * names read twice the same ends the search; a valid read whose names no other variant confirmed goes on
 * through this zone's other variants (a rectified one reads the names a keystone garbled), but no further.
 * Other variants only where the zone's first read showed an MRZ: elsewhere they would read noise. A
 * candidate of the right shape is not enough (noise of the right length parses), two check digits are.
 */
export async function weighPass(
  zone: ZoneContext,
  index: number,
  variant: OcrVariant,
  pass: { image: OcrImage; ocr: OcrResult },
): Promise<PassOutcome> {
  const { search, crop } = zone;
  const { image, ocr } = pass;
  const texts = ocr.lines.map((line) => line.text);
  const sawMrz = hasMrzSignal(texts);
  search.signal ||= sawMrz;
  const scored = fittedRead(variant, texts);
  if (scored !== null) considerRead(zone, variant.name, image, ocr, scored);
  await corroborateNames(zone);
  const settled = search.best;
  if (settled?.scored.mrz.valid === true && settled.corroborated) return { next: 'finish', budgetExhausted: false };
  const checked = scored === null ? 0 : Object.values(scored.mrz.check_digits).filter(Boolean).length;
  if (index === 0) zone.firstReadLines = ocr.lines.length;
  const firstRead = index === 0 || (zone.promoted && variant === DESCREENED);
  if (!firstRead || sawMrz || checked >= 2) return { next: 'variant' };
  if (promoteDescreened(zone, index)) return { next: 'variant' };
  // Which half of the photo the block lies in is only a guess at the page's orientation (a card turned
  // by 90° and lying off-centre puts an upside-down zone in the bottom half: corpus seed 6001, 3 of 27
  // rotated DNI backs read as garbage and found no MRZ). Where the read gave the block's lines (an
  // upside-down zone reads as that many lines of garbage; noise or a page's print as many more: a dim
  // licence front's ten, whose pass turned around took 6 s), the crop is read once more, turned the
  // other way, before the block is given up.
  const linesFit = Math.abs(zone.firstReadLines - crop.lines) <= 1;
  const turnBack = linesFit && crop.turned_back !== true;
  return { next: 'zone', turnedBack: turnBack ? { ...crop, flipped: !crop.flipped, turned_back: true } : null };
}

/**
 * The zone's variants read in order (`zone.variants`, which a recaptured photo's zone may change as it is
 * read) until one pass ends the zone or the search. An OCR pass that had to be cut short read a screen's
 * moiré: the rest of the photo is no better, and the search ends.
 */
export async function readZone(zone: ZoneContext): Promise<Exclude<PassOutcome, { next: 'variant' }>> {
  for (const [index, variant] of zone.variants.entries()) {
    if (overBudget(zone.search, zone.angleIndex)) return { next: 'finish', budgetExhausted: true };
    const pass = await readVariant(zone, variant);
    if (pass === null) continue;
    const { image, ocr } = pass;
    if (ocr === null) {
      if (!promoteDescreened(zone, index)) return { next: 'finish', budgetExhausted: false };
      zone.search.plainCutShort = true;
      continue;
    }
    const outcome = await weighPass(zone, index, variant, { image, ocr });
    if (outcome.next !== 'variant') return outcome;
  }
  return { next: 'zone', turnedBack: null };
}
