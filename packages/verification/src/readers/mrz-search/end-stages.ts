import { MIN_NAME_CONFIDENCE } from '../../calibration/mrz';
import { parseMrz } from '../../parsers/mrz.parser';
import {
  arbitrationRivals,
  bestMrz,
  completedByVote,
  dataLineFromSecondRead,
  documentNumberRepairs,
  namesKeyOf,
  numberReadIn,
  votedLines,
  type CellRead,
} from '../mrz-text';
import { FILLER_READS, namesPickedBySecondRead, type SecondReadText } from '../names-check';
import { nameLineIndex, searchOutcome, type Best, type SearchContext } from './context';
import type { MrzZoneSearch } from './reading';

/**
 * The stages that end the MRZ search (`finishSearch` runs them): the cells voted where no read was valid,
 * an invalid passport zone's data line read again, and the names judged by the second engine.
 */

/**
 * Where no read was valid, the zone's lines as most reads of every cell gave them: a screen's zone read
 * at three turns, each read with a few cells it could not name and none valid (s42-000058). Only a valid
 * vote is taken; the read nearest it stands for it (its crop and lines are what the names' second read
 * looks at).
 */
export function voteCells(search: SearchContext): void {
  if (search.best?.scored.mrz.valid === true) return;
  for (const group of search.cellReads.values()) {
    for (const lines of votedLines(group.map(({ read }) => read)) ?? []) {
      const scored = bestMrz(lines, lines[0]?.length);
      if (scored === null || !scored.mrz.valid) continue;
      const agreement = (read: CellRead) =>
        read.lines.reduce((sum, line, index) => sum + [...line].filter((c, cell) => c === lines[index]?.charAt(cell)).length, 0);
      const nearest = group.reduce((a, b) => (agreement(b.read) > agreement(a.read) ? b : a));
      for (const { read } of group) search.namesReadInSearch.add(namesKeyOf(completedByVote(read, lines)));
      nearest.consider({ ...scored, candidate: { ...scored.candidate, source_lines: nearest.read.source_lines } });
    }
  }
}

/**
 * A passport zone failing checks is read again by the LSTM engine, one data line: a number failing its
 * check digit by one look-alike character (S for 5) is repaired when that read holds exactly one of the
 * repairs (letters and digits both stand in such a number, and its check digit alone cannot pick among
 * the look-alikes: `documentNumberRepairs`); otherwise its failing fields are taken from that read
 * where its own fields pass their checks and the whole zone then does (`dataLineFromSecondRead`:
 * s99-000026 read `PABS173445` for `PAB5173448` by the legacy engine, exactly by the LSTM one).
 */
export async function repairDataLine(search: SearchContext, chosen: Best): Promise<void> {
  const { format } = chosen.scored.mrz;
  const repairs = documentNumberRepairs(chosen.reading.lines, format);
  if ((repairs.length === 0 && format !== 'TD3') || chosen.dataLine === undefined) return;
  search.attempts += 1;
  const text = await search.readers.dataLine(chosen.image.png, chosen.dataLine.bbox);
  if (text === null) return;
  const confirmed = repairs.filter((lines) => numberReadIn(lines[1] ?? '', text, FILLER_READS));
  const lines = confirmed.length === 1 ? confirmed[0] : dataLineFromSecondRead(chosen.reading.lines, format, text);
  if (lines === undefined || lines === null) return;
  const data = parseMrz(lines);
  if (!data.ok || !data.valid) return;
  const changed = [...(lines[1] ?? '')].filter((character, index) => character !== chosen.reading.lines[1]?.charAt(index)).length;
  chosen.scored = { ...chosen.scored, mrz: data };
  chosen.reading = {
    ...chosen.reading,
    lines: data.lines,
    data,
    valid: true,
    repaired_characters: chosen.reading.repaired_characters + changed,
  };
}

/**
 * The second engine disagreed with the chosen names: every variant of the zone is read (the search may
 * have ended before some), and the one names line among theirs that the second engine's text holds, if
 * there is exactly one, replaces the chosen (`namesPickedBySecondRead`). Names cover no check digit, so
 * the rest of the read stays valid.
 */
export async function pickNamesBySecondRead(
  search: SearchContext,
  chosen: Best,
  second: SecondReadText,
  namesLine: string,
): Promise<void> {
  await chosen.readWholeZone();
  const rivals = arbitrationRivals(namesKeyOf(chosen.scored.mrz.lines), chosen.rivals(), search.namesReadInSearch);
  const picked = namesPickedBySecondRead(second, namesLine, rivals, chosen.scored.mrz.format);
  if (picked === null) return;
  const index = nameLineIndex(chosen.scored.mrz);
  const lines = chosen.reading.lines.map((line, lineIndex) => (lineIndex === index ? picked : line));
  const data = parseMrz(lines);
  if (!data.ok || !data.valid) return;
  chosen.scored = { ...chosen.scored, mrz: data };
  chosen.reading = { ...chosen.reading, lines: data.lines, data, names_second_read: 'agreed' };
}

/**
 * Made whatever the budget, as the corroborating pass is: it decides whether names are given back. Names
 * no other variant read are asked of the second engine too: two engines agreeing is what gives them back
 * (`readSide`). Where a variant read other names, the second engine arbitrates: it must read the chosen
 * names and none of the others (a blurred M read as H by some variants: the engine that reads the M
 * decides; one that could be reading either decides nothing).
 */
export async function judgeNames(search: SearchContext, chosen: Best | null): Promise<void> {
  if (
    chosen === null ||
    !chosen.reading.valid ||
    chosen.reading.name_confidence < MIN_NAME_CONFIDENCE ||
    chosen.namesLine === undefined
  )
    return;
  search.attempts += 1;
  const { format } = chosen.scored.mrz;
  const namesLine = chosen.reading.lines[nameLineIndex(chosen.scored.mrz)] ?? '';
  const rivals = chosen.corroborated ? [] : chosen.rivals();
  const second = await search.readers.names(chosen.image.png, chosen.namesLine, namesLine, format, rivals);
  chosen.reading.names_second_read = second.verdict;
  if (second.verdict === 'disagreed' && second.text !== null)
    await pickNamesBySecondRead(search, chosen, { text: second.text, fillerSeenAfter: second.fillerSeenAfter }, namesLine);
}

/**
 * The search's end: the cells voted, an invalid best read's data line repaired, and the zone given back
 * as read while its names are judged (`namesJudged`, which only they may change).
 */
export async function finishSearch(search: SearchContext, budgetExhausted: boolean): Promise<MrzZoneSearch> {
  voteCells(search);
  const chosen = search.best;
  if (chosen !== null && !chosen.reading.valid) await repairDataLine(search, chosen);
  const zone = searchOutcome(search, chosen, budgetExhausted);
  const namesJudged = judgeNames(search, chosen).then(() => searchOutcome(search, chosen, budgetExhausted));
  // Awaited by the caller later; a failure is theirs to see then, not an unhandled rejection now.
  namesJudged.catch(() => undefined);
  return { ...zone, found: zone.found === null ? null : { ...zone.found }, namesJudged };
}
