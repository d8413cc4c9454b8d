import { rotateRaster, type GreyRaster } from '../image/raster';
import { overBudget, startSearch, type SearchContext } from './mrz-search/context';
import { finishSearch, voteCells } from './mrz-search/end-stages';
import type { MrzSearchOptions, MrzZoneSearch } from './mrz-search/reading';
import { openZone, readZone } from './mrz-search/zone-stages';
import { zoneCrops, zonePixels, type ZoneCrop } from './mrz-search/zones';

export type { MrzReading, MrzSearch, MrzSearchOptions, MrzZoneSearch } from './mrz-search/reading';

/**
 * Reads the machine readable zone by OCR. The MRZ is the bottom of the page when the page is upright
 * (TD3 passports: about the bottom quarter; TD1 cards, the 2009 DNI front and the card backs: about the
 * bottom third), so only a bottom band is read (150 ms instead of 1.6 s for the whole image), upscaled or
 * downscaled to a width at which OCR-B characters are 20–40 px tall, with the histogram stretched.
 *
 * For each orientation tried (a clockwise turn, possibly including a small deskew), one OCR pass of the
 * zone comes first, straightened by its own lines (`rectify.ts`) when they can be traced; only if it
 * shows the filler runs an MRZ has are more variants tried (the plain crop, binarised, at a larger
 * width). A block whose first pass shows no MRZ is read once more turned the other way (its half of the
 * photo only guessed the page's orientation), and a noisy zone's crops are smoothed (`NOISY_ZONE_SIGMA`).
 * The search stops at the first read whose check digits all hold and whose names a second variant read
 * the same; a valid read whose names no other variant confirms goes on through the zone's variants.
 * Otherwise the best attempt is reported, invalid, for the checks to name. Names the other engine reads
 * otherwise than the chosen read are arbitrated among every variant of the zone (`finishSearch`).
 *
 * The stages, over one shared context (`mrz-search/context.ts`): `startSearch`; per turn `locateZones`;
 * per zone `openZone` then `readZone` (each variant: `readVariant`, `weighPass` with `considerRead` and
 * `corroborateNames`), then `voteCells`; at the end `finishSearch` (`repairDataLine`, then `judgeNames`
 * beside the caller's work).
 */
export async function searchMrzZone(raster: GreyRaster, options: MrzSearchOptions): Promise<MrzZoneSearch> {
  const search = await startSearch(raster, options);
  for (const [angleIndex, angle] of options.angles.entries()) {
    if (overBudget(search, angleIndex)) return finishSearch(search, true);
    const located = await locateZones(search, angle);
    if (located === null) continue;
    const { turned, crops } = located;
    // A crop read turned back is read next (`weighPass`), so the list grows as it is walked.
    for (let cropIndex = 0; cropIndex < crops.length; cropIndex += 1) {
      const crop = crops[cropIndex];
      if (crop === undefined) break;
      const zone = await openZone(search, { angleIndex, angle, turned, crop });
      const outcome = await readZone(zone);
      if (outcome.next === 'finish') return finishSearch(search, outcome.budgetExhausted);
      if (outcome.turnedBack !== null) crops.splice(cropIndex + 1, 0, outcome.turnedBack);
      voteCells(search);
      if (search.best?.scored.mrz.valid === true) return finishSearch(search, false);
    }
  }
  return finishSearch(search, false);
}

/**
 * The zones located in the image turned by `angle`, as crops of the full-resolution turned image (turned
 * only when a zone was found there), or null when none was.
 */
export async function locateZones(
  search: SearchContext,
  angle: number,
): Promise<{ turned: GreyRaster; crops: ZoneCrop[] } | null> {
  const zones = await zoneCrops(search.analysis, angle);
  if (zones.length === 0) return null;
  const turned = await rotateRaster(search.raster, angle);
  return { turned, crops: zones.map((zone) => zonePixels(zone, turned)) };
}
