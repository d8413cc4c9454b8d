import { MAX_CANDIDATES, MAX_EXCESS, MAX_FILLER_ADJUSTMENT, MAX_TIED_CELLS } from '../calibration/mrz';
import { isStateCode } from '../parsers/icao-states';
import {
  computeMrzCheckDigit,
  documentTypeOfMrz,
  hasFormatDocumentCode,
  isMrzSex,
  parseMrz,
  type MrzData,
  type MrzFormat,
} from '../parsers/mrz.parser';

/**
 * From OCR lines to MRZ candidates, without an image: pure, so it is unit-tested on its own.
 *
 * OCR of a real MRZ band rarely gives clean lines of exactly 30, 36 or 44 characters: it splits a line
 * into words at wide '<' runs, adds a stray mark of the card's edge at the end, or drops one '<' of a
 * filler run. A candidate is therefore built, per OCR line, from every run of consecutive words whose
 * joined length is the format's, or one or two off where the last '<' run can absorb the difference
 * (only filler changes, no data character moves). Then, as a second candidate, characters are mapped
 * by what ICAO 9303 allows at each position: a digit where only letters may stand (country codes,
 * names, document code, sex) becomes the letter it is confused with (0→O, 1→I, 5→S, 8→B, 2→Z, 6→G), a
 * letter where only digits may stand (dates, check digits) the digit (O/Q/D→0, I/L→1, Z→2, S→5, B→8,
 * G→6). Fields that may hold both (document and personal numbers, optional data) are not touched, with
 * three exceptions: the Argentine DNI's number is digits only, an Argentine passport's number of the
 * current series ends in six digits, and a lone '0' inside optional data's filler run is a misread
 * '<'. An issuing state or nationality that is no state code becomes the one code a single look-alike
 * letter makes of it (`O<<` → `D<<`). Check digits still decide: a repair that makes a wrong read pass
 * is as unlikely as the same misread passing without it.
 */
export interface MrzCandidate {
  lines: string[];
  /** Indexes of the OCR lines it was built from. */
  source_lines: number[];
  /** Characters changed by the position-aware repair (0 for the text as read). */
  repaired_characters: number;
  /** '<' added or removed to reach the line length. */
  filler_adjustments: number;
}

const FORMATS: readonly { format: Exclude<MrzFormat, 'MRVA' | 'MRVB'>; count: number; length: number }[] = [
  { format: 'TD3', count: 2, length: 44 },
  { format: 'TD1', count: 3, length: 30 },
  { format: 'TD2', count: 2, length: 36 },
];

/**
 * Position classes: A letters (and '<'), N digits (and '<'), X anything, O optional data (anything, left
 * justified and padded with '<').
 */
type PositionClass = 'A' | 'N' | 'X' | 'O';

function classes(spec: readonly [PositionClass, number][]): PositionClass[] {
  return spec.flatMap(([kind, count]) => Array<PositionClass>(count).fill(kind));
}

const POSITION_CLASSES: Record<'TD1' | 'TD2' | 'TD3', PositionClass[][]> = {
  TD3: [
    classes([['A', 44]]),
    classes([
      ['X', 9],
      ['N', 1],
      ['A', 3],
      ['N', 7],
      ['A', 1],
      ['N', 7],
      ['O', 14],
      ['N', 2],
    ]),
  ],
  TD2: [
    classes([['A', 36]]),
    classes([
      ['X', 9],
      ['N', 1],
      ['A', 3],
      ['N', 7],
      ['A', 1],
      ['N', 7],
      ['O', 7],
      ['N', 1],
    ]),
  ],
  TD1: [
    classes([
      ['A', 5],
      ['X', 9],
      ['N', 1],
      ['O', 15],
    ]),
    classes([
      ['N', 7],
      ['A', 1],
      ['N', 7],
      ['A', 3],
      ['O', 11],
      ['N', 1],
    ]),
    classes([['A', 30]]),
  ],
};

const TO_LETTER: Readonly<Record<string, string>> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B' };
const TO_DIGIT: Readonly<Record<string, string>> = { O: '0', Q: '0', D: '0', I: '1', L: '1', Z: '2', S: '5', G: '6', B: '8' };
// Where only a letter may stand, OCR-B's open-topped 4 is also an A read as a digit (s7-000058, a screen
// recapture: its nationality read `4RG`, which no check digit covers, beside every check digit holding).
// Not among a document number's look-alikes (`NUMBER_LOOKALIKES`): there both stand, and only the check
// digit and a second read decide.
const CLASS_TO_LETTER: Readonly<Record<string, string>> = { ...TO_LETTER, '4': 'A' };

// The Argentine DNI's TD1 document number is the DNI number, digits only (8 positions and a filler, or
// 7 and two): on those cards its positions take digits. Its check digits cannot tell 2 from Z and 5 from S
// together (Z=35 and S=28 weigh 7 and 3 in both the number's and the composite's sums, as 2 and 5 do,
// and 35·7 + 28·3 − 2·7 − 5·3 = 300): a corpus photo read 'ZS617151' for '25617151' with every check
// digit holding.
const DNI_NUMBER: PositionClass[] = classes([
  ['A', 5],
  ['N', 9],
  ['N', 1],
  ['O', 15],
]);

// Argentine passports issued since 2012 number three letters then six digits (before, the holder's DNI
// number and an N): where the issuing state is ARG and the number's first three characters are letters,
// its last six take digits. Both engines read s7-000041's `AAB058028` as `AABOS8028`, two look-alikes off,
// which no repair confirmed by the other engine reaches. Sources in docs/documents.md ("MRZ").
const ARG_PASSPORT_DATA_LINE: PositionClass[] = [
  ...classes([
    ['X', 3],
    ['N', 6],
  ]),
  ...(POSITION_CLASSES.TD3[1] ?? []).slice(9),
];

/**
 * A '0' alone inside the filler run of optional data is a misread '<' (glare or noise on a '<'): optional
 * data is left-justified, so nothing follows its filler, and no check digit can tell the two apart
 * ('0' and '<' both count 0).
 */
function fillerOf(line: string, index: number): string | undefined {
  if (line.charAt(index) !== '0') return undefined;
  return line.slice(Math.max(0, index - 2), index) === '<<' && (index + 1 >= line.length || line.charAt(index + 1) === '<')
    ? '<'
    : undefined;
}

/** The position classes of a candidate's lines; the DNI's own where its first line says it is one. */
function positionClasses(lines: readonly string[], format: 'TD1' | 'TD2' | 'TD3'): PositionClass[][] {
  const classesOfFormat = POSITION_CLASSES[format];
  const first = lines[0] ?? '';
  // Document code 'ID', issuing state 'ARG', each maybe read with a digit for a letter.
  if (format === 'TD1' && /^[I1][D0]AR[G6]/.test(first)) return [DNI_NUMBER, ...classesOfFormat.slice(1)];
  // Document code 'P' and any type letter, issuing state 'ARG'; a number of the current series.
  if (format === 'TD3' && /^P.AR[G6]/.test(first) && /^[A-Z]{3}/.test(lines[1] ?? ''))
    return [classesOfFormat[0] ?? [], ARG_PASSPORT_DATA_LINE];
  return classesOfFormat;
}

// Where the issuing state (line 1) and the nationality (line 2) stand: [line, first character].
const STATE_FIELDS: Record<'TD1' | 'TD2' | 'TD3', readonly (readonly [number, number])[]> = {
  TD1: [
    [0, 2],
    [1, 15],
  ],
  TD2: [
    [0, 2],
    [1, 10],
  ],
  TD3: [
    [0, 2],
    [1, 10],
  ],
};

// Letters OCR-B's shapes let an engine read for one another (O for D was seed 42's, s42-000031).
const LOOKALIKES: Readonly<Record<string, string>> = {
  O: 'DQ',
  D: 'O',
  Q: 'OD',
  C: 'G',
  G: 'C',
  I: 'LT',
  L: 'I',
  T: 'I',
  M: 'HN',
  H: 'MN',
  N: 'MH',
  W: 'M',
  U: 'V',
  V: 'U',
  E: 'F',
  F: 'E',
  P: 'R',
  R: 'P',
  K: 'X',
  X: 'K',
};

/**
 * A state code that is no state (`O<<`) is a misread: it becomes the one code a single look-alike letter
 * makes of it (`D<<`), and stays as read when none or several do. No check digit covers the issuing state
 * or the nationality, so only the list of codes can tell.
 */
function repairStateCode(code: string): string | null {
  if (isStateCode(code)) return null;
  const found = new Set<string>();
  for (let index = 0; index < code.length; index += 1)
    for (const letter of LOOKALIKES[code.charAt(index)] ?? '') {
      const option = code.slice(0, index) + letter + code.slice(index + 1);
      if (isStateCode(option)) found.add(option);
    }
  return found.size === 1 ? ([...found][0] ?? null) : null;
}

// Where the sex stands: [line, character].
const SEX_FIELD: Record<'TD1' | 'TD2' | 'TD3', readonly [number, number]> = { TD1: [1, 7], TD2: [1, 20], TD3: [1, 20] };

/**
 * A sex that is no sex is a misread: it becomes the one sex its look-alikes hold (a blurred M read as H
 * or N, an F as E), and stays as read when none does. No check digit covers the sex: a blurred 2009 DNI
 * front read `5308217H2702113` for `5308217M2702113` with every check digit holding (corpus seed 6001,
 * three of 27 blurred photos), and its zone was then invalid for the H alone.
 */
function repairSex(sex: string): string | null {
  if (isMrzSex(sex)) return null;
  const options = [...(LOOKALIKES[sex] ?? '')].filter(isMrzSex);
  return options.length === 1 ? (options[0] ?? null) : null;
}

/** The position-aware repair of one candidate's lines; returns the lines and how many characters changed. */
export function repairByPosition(lines: readonly string[], format: 'TD1' | 'TD2' | 'TD3'): { lines: string[]; changed: number } {
  const byClass = repairByClass(lines, format);
  let changed = byClass.changed;
  const repaired = [...byClass.lines];
  const replace = (lineIndex: number, start: number, text: string) => {
    const line = repaired[lineIndex] ?? '';
    repaired[lineIndex] = line.slice(0, start) + text + line.slice(start + text.length);
    changed += 1;
  };
  for (const [lineIndex, start] of STATE_FIELDS[format]) {
    const line = repaired[lineIndex];
    if (line === undefined || line.length < start + 3) continue;
    const code = repairStateCode(line.slice(start, start + 3));
    if (code !== null) replace(lineIndex, start, code);
  }
  const [sexLine, sexAt] = SEX_FIELD[format];
  const sex = repairSex(repaired[sexLine]?.charAt(sexAt) ?? '<');
  if (sex !== null) replace(sexLine, sexAt, sex);
  return { lines: repaired, changed };
}

/** Digits where only letters may stand and letters where only digits may, by ICAO 9303's position classes. */
function repairByClass(lines: readonly string[], format: 'TD1' | 'TD2' | 'TD3'): { lines: string[]; changed: number } {
  let changed = 0;
  const formatClasses = positionClasses(lines, format);
  const repaired = lines.map((line, lineIndex) => {
    const lineClasses = formatClasses[lineIndex] ?? [];
    let out = '';
    for (let index = 0; index < line.length; index += 1) {
      const char = line.charAt(index);
      const kind = lineClasses[index] ?? 'X';
      const replacement =
        kind === 'A' ? CLASS_TO_LETTER[char] : kind === 'N' ? TO_DIGIT[char] : kind === 'O' ? fillerOf(line, index) : undefined;
      if (replacement !== undefined) {
        out += replacement;
        changed += 1;
      } else {
        out += char;
      }
    }
    return out;
  });
  return { lines: repaired, changed };
}

/** Adjusts the last run of '<' so the line has `length` characters, or null if it cannot. */
function fitLength(text: string, length: number): { text: string; adjustment: number } | null {
  const difference = length - text.length;
  if (difference === 0) return { text, adjustment: 0 };
  if (Math.abs(difference) > MAX_FILLER_ADJUSTMENT) return null;
  const runs = [...text.matchAll(/<{2,}/g)];
  const last = runs[runs.length - 1];
  if (last === undefined || last.index === undefined) return null;
  const runLength = last[0].length;
  if (runLength + difference < 1) return null;
  const fitted = text.slice(0, last.index) + '<'.repeat(runLength + difference) + text.slice(last.index + runLength);
  return { text: fitted, adjustment: Math.abs(difference) };
}

/** Every string of `length` (give or take the filler fit) made of consecutive words of one OCR line. */
function lineOptions(words: readonly string[], length: number): { text: string; adjustment: number }[] {
  const options: { text: string; adjustment: number }[] = [];
  const seen = new Set<string>();
  const add = (text: string) => {
    const fitted = fitLength(text, length);
    if (fitted !== null && /^[A-Z0-9<]+$/.test(fitted.text) && !seen.has(fitted.text)) {
      seen.add(fitted.text);
      options.push(fitted);
    }
  };
  for (let start = 0; start < words.length; start += 1) {
    let joined = '';
    for (let end = start; end < words.length; end += 1) {
      joined += words[end] ?? '';
      if (joined.length > length + MAX_EXCESS) break;
      add(joined);
      for (let offset = 1; joined.length - offset >= length; offset += 1) add(joined.slice(offset, offset + length));
      if (joined.length > length) add(joined.slice(0, length));
    }
  }
  return options;
}

function wordsOf(line: string): string[] {
  return line
    .toUpperCase()
    .split(/\s+/)
    .map((word) => word.replace(/[^A-Z0-9<]/g, ''))
    .filter((word) => word !== '');
}

/** The document number of an Argentine DNI (TD1) or current-series passport (TD3) holds a letter where only digits stand. */
function lettersWhereDigitsStand(lines: readonly string[], format: 'TD1' | 'TD2' | 'TD3'): boolean {
  const lineClasses = positionClasses(lines, format);
  if (format === 'TD1' && lineClasses[0] === DNI_NUMBER) return /[A-Z]/.test(lines[0]?.slice(5, 14) ?? '');
  if (format === 'TD3' && lineClasses[1] === ARG_PASSPORT_DATA_LINE) return /[A-Z]/.test(lines[1]?.slice(3, 9) ?? '');
  return false;
}

/** The MRZ candidates in OCR lines: consecutive lines fitting a format, as read and repaired. */
export function mrzCandidates(ocrLines: readonly string[]): MrzCandidate[] {
  const words = ocrLines.map(wordsOf);
  const candidates: MrzCandidate[] = [];
  for (const { format, count, length } of FORMATS) {
    const options = words.map((lineWords) => lineOptions(lineWords, length));
    for (let start = 0; start + count <= ocrLines.length; start += 1) {
      let combos: { lines: string[]; adjustment: number }[] = [{ lines: [], adjustment: 0 }];
      for (let offset = 0; offset < count; offset += 1) {
        const lineChoices = options[start + offset] ?? [];
        combos = combos
          .flatMap((combo) =>
            lineChoices.map((choice) => ({
              lines: [...combo.lines, choice.text],
              adjustment: combo.adjustment + choice.adjustment,
            })),
          )
          .slice(0, MAX_CANDIDATES);
      }
      const sourceLines = Array.from({ length: count }, (_, offset) => start + offset);
      for (const combo of combos) {
        // The repaired reading first: on equal check digits it wins, as a digit cannot stand where it was.
        const repaired = repairByPosition(combo.lines, format);
        if (repaired.changed > 0) {
          candidates.push({
            lines: repaired.lines,
            source_lines: sourceLines,
            repaired_characters: repaired.changed,
            filler_adjustments: combo.adjustment,
          });
        }
        // A DNI number read with letters is never right, even where its check digits hold (seed 7 read
        // 'S4236OS5' for '34236055', number and composite holding), nor the digits of an Argentine
        // passport's number (seed 99 read 'AADS71346' for 'AAD871346': S weighs 28, 8 weighs 8, and the
        // check digits, mod 10, cannot tell them apart): only the repaired reading stands.
        if (lettersWhereDigitsStand(combo.lines, format)) continue;
        candidates.push({
          lines: combo.lines,
          source_lines: sourceLines,
          repaired_characters: 0,
          filler_adjustments: combo.adjustment,
        });
      }
    }
  }
  return candidates.slice(0, MAX_CANDIDATES * 2);
}

export interface ScoredMrz {
  candidate: MrzCandidate;
  mrz: MrzData;
  /** Check digits that hold, minus problems; higher is better. */
  score: number;
}

function score(mrz: MrzData, candidate: MrzCandidate): number {
  const holding = Object.values(mrz.check_digits).filter(Boolean).length;
  // Among equally checked reads, the one closest to what OCR saw wins.
  return holding * 10 - mrz.problems.length * 5 - candidate.filler_adjustments * 0.1;
}

/** A valid read beats any invalid one; then the higher score wins. */
export function better(a: ScoredMrz, b: ScoredMrz): boolean {
  if (a.mrz.valid !== b.mrz.valid) return a.mrz.valid;
  return a.score > b.score;
}

/**
 * The best-scoring candidate of some OCR lines, valid or not; null when nothing fits a format. With
 * `lineLength`, only candidates whose lines are that long: lines read cell by cell (`mrz-glyphs.ts`) are
 * as long as the format they were read as, and cutting them to another fits noise by chance (s99-000157: a
 * glyph read gone astray along a dim zone's lines, cut to TD2, held more check digits than the engine's
 * TD3 with one letter for a digit).
 */
export function bestMrz(ocrLines: readonly string[], lineLength?: number): ScoredMrz | null {
  let best: ScoredMrz | null = null;
  for (const candidate of mrzCandidates(ocrLines)) {
    if (lineLength !== undefined && candidate.lines.some((line) => line.length !== lineLength)) continue;
    // Every ICAO document code starts with a letter (P, I, A, C, V): a line starting with a filler is a
    // line whose first character was lost, and fitting it to a shorter format can pass by chance (seed
    // 7: a TD3 read cut to TD2 with every check digit holding).
    if (!/^[A-Z]/.test(candidate.lines[0] ?? '')) continue;
    const parsed = parseMrz(candidate.lines);
    if (!parsed.ok) continue;
    // A read whose every check digit holds but whose document code no document of its format has, or
    // whose issuing state is no code (it names no document: `documentTypeOfMrz`), is lines cut or shifted
    // that fit by chance, and standing on it would give back a stranger's fields as valid. A TD3's data
    // line cut to a TD2's 36 characters keeps its number, birth and expiry check digits where a TD2 has
    // them, so only the composite (one chance in ten) tells: s99-000178, a screen's passport read as a
    // TD2 of state `GSU`; from a wider crop of the same zone, as `SUAREZ<DE<LA…` (code `SU`, state `ARE`).
    if (parsed.valid && (!hasFormatDocumentCode(parsed) || documentTypeOfMrz(parsed) === null)) continue;
    const scored = { candidate, mrz: parsed, score: score(parsed, candidate) };
    if (best === null || better(scored, best)) best = scored;
  }
  return best;
}

/**
 * The key a zone's names are compared by: its line count and its names line (`<line count>:<names
 * line>`; the third line of a three-line TD1, the first otherwise).
 */
export function namesKeyOf(lines: readonly string[]): string {
  return `${lines.length}:${lines[lines.length === 3 ? 2 : 0] ?? ''}`;
}

/** The names line a names key (`namesKeyOf`) holds. */
export function namesLineOf(key: string): string {
  return key.slice(key.indexOf(':') + 1);
}

/**
 * Whether another names key reads the same zone's names otherwise: a line of the same shape, and on a
 * passport's line also of the same document code and issuing state (a line read with a stray mark
 * before it, `HP<URYNUNEZ…`, s7-000053, is misaligned, not a reading of other names).
 */
export function rivalNames(key: string, other: string): boolean {
  return other !== key && other.startsWith(key.slice(0, key.startsWith('3:') ? 2 : 7));
}

/**
 * The names lines the second engine may pick from when it disagrees with the chosen ones (`key`): those
 * the zone's variants read (`zoneRivals`, lines), and the rival ones among every names key read in the
 * search (`seen`), at the other turns and crops of the same zone: a screen's passport read `HARTINEZ` by
 * every variant at −4°, `MARTINEZ` by one at −5° (s7-000048), and the second engine, reading `MARTINEZ`,
 * picks it. Only lines as long as the chosen one: another format's (a passport's names cut to a TD2's 36
 * characters) could never replace it, and the second engine holding the same names in both made the pick
 * ambiguous (s42-000058).
 */
export function arbitrationRivals(key: string, zoneRivals: readonly string[], seen: Iterable<string>): string[] {
  const length = namesLineOf(key).length;
  const elsewhere = [...seen].filter((other) => rivalNames(key, other)).map(namesLineOf);
  return [...new Set([...zoneRivals, ...elsewhere])].filter((line) => line.length === length);
}

/** Whether OCR text looks like an MRZ band at all: filler runs are what no other printed text has. */
export function hasMrzSignal(ocrLines: readonly string[]): boolean {
  return ocrLines.some((line) => /<{3,}/.test(line.replace(/\s+/g, '')) || (line.match(/<</g) ?? []).length >= 2);
}

// A document number's characters OCR-B lets an engine read for one another (letters and digits both
// stand in a passport number: S for 5 was seed 99's, s99-000004 and -000015): the digit–letter pairs of
// `TO_LETTER` both ways, and D for 0.
const NUMBER_LOOKALIKES: Readonly<Record<string, string>> = (() => {
  const pairs = [...Object.entries(TO_LETTER), ['0', 'D']];
  const lookalikes: Record<string, string> = {};
  for (const [digit = '', letter = ''] of pairs) {
    lookalikes[digit] = (lookalikes[digit] ?? '') + letter;
    lookalikes[letter] = (lookalikes[letter] ?? '') + digit;
  }
  return lookalikes;
})();

/**
 * The zones one look-alike character in a passport's (TD3, TD2) document number away from `lines` that
 * pass every check: the repairs of a zone whose only failing checks are the number's and the composite's.
 * Empty when the zone fails other checks too. The number's check digit is the only evidence here (the
 * composite starts where the number does, with the same weights, so it holds exactly when the number's
 * does): the caller must confirm a repair by another reading, never take one because it is alone.
 */
export function documentNumberRepairs(lines: readonly string[], format: MrzFormat): string[][] {
  if (format !== 'TD3' && format !== 'TD2') return [];
  const parsed = parseMrz(lines);
  if (!parsed.ok || parsed.valid) return [];
  const failing = parsed.problems.map((problem) => `${problem.field}:${problem.problem}`);
  if (!failing.includes('document_number:check_digit_mismatch')) return [];
  if (failing.some((problem) => !['document_number:check_digit_mismatch', 'composite:check_digit_mismatch'].includes(problem)))
    return [];
  const [first = '', second = ''] = lines;
  const repairs: string[][] = [];
  for (let index = 0; index < 9; index += 1)
    for (const replacement of NUMBER_LOOKALIKES[second.charAt(index)] ?? '') {
      const repaired = [first, second.slice(0, index) + replacement + second.slice(index + 1)];
      const checked = parseMrz(repaired);
      if (checked.ok && checked.valid) repairs.push(repaired);
    }
  return repairs;
}

/**
 * Whether another engine's text of the data line holds the zone's document number and its check digit
 * (the first ten characters), its '<' fillers read as any of what that engine makes of one.
 */
export function numberReadIn(dataLine: string, text: string, fillerReads: ReadonlySet<string>): boolean {
  const squeezed = text.toUpperCase().replace(/\s+/g, '');
  const wanted = dataLine.slice(0, 10);
  for (let start = 0; start + wanted.length <= squeezed.length; start += 1) {
    let matches = true;
    for (let offset = 0; offset < wanted.length && matches; offset += 1) {
      const expected = wanted.charAt(offset);
      const seen = squeezed.charAt(start + offset);
      matches = expected === '<' ? fillerReads.has(seen) : expected === seen;
    }
    if (matches) return true;
  }
  return false;
}

// A passport data line's fields that another engine's read can stand in for: each with its check digit
// (the sex has none; it is taken only where the first read's is no sex at all).
const TD3_DATA_FIELDS = [
  { field: 'document_number', from: 0, to: 10 },
  { field: 'birth_date', from: 13, to: 20 },
  { field: 'sex', from: 20, to: 21 },
  { field: 'expiry_date', from: 21, to: 28 },
] as const;

/**
 * Whether two reads of a field differ somewhere a check digit cannot see: characters whose values are
 * equal modulo 10 (G and 6, I and 8, '<' and 0 …) weigh the same in every check digit (the weights 7, 3
 * and 1 are prime to 10), so a field read with one for the other passes the same checks.
 */
function differsUnseen(first: string, other: string): boolean {
  return [...first].some(
    (character, index) =>
      character !== other.charAt(index) && computeMrzCheckDigit(character) === computeMrzCheckDigit(other.charAt(index)),
  );
}

function failingFields(lines: readonly string[]): Set<string> {
  const parsed = parseMrz(lines);
  return new Set(parsed.ok ? parsed.problems.map((problem) => problem.field) : ['format']);
}

/**
 * A passport zone (TD3) whose data line fails checks, with each failing field (document number, birth
 * date, expiry date, each with its check digit; the sex) taken from another engine's read of that line
 * (`text`) where that read's field passes the check the first read's failed. Null unless the result
 * passes every check, the composite included: a field taken from the other read must agree with the
 * rest of the first read through it. The composite adds less than it seems: a number that passes its
 * own check digit weighs in it only through that digit, so a field is not taken where the two reads
 * differ in a way no check digit sees (`differsUnseen`: G for 6 in a passport number). The fields sit at
 * the start of the line, so the other read must hold them at the same positions (an engine that drops
 * a character there fails their checks). One that read a mark before the line (`BFC171371<9BRA…`,
 * s7-000037) is read from past it, where the nationality then stands where the first read has it.
 */
export function dataLineFromSecondRead(lines: readonly string[], format: MrzFormat, text: string): string[] | null {
  if (format !== 'TD3') return null;
  const second = lines[1] ?? '';
  const other = text.toUpperCase().replace(/\s+/g, '');
  const nationality = second.slice(10, 13);
  for (let skip = 0; skip === 0 || skip <= other.length - second.length; skip += 1) {
    const aligned = other.slice(skip);
    if (skip > 0 && aligned.slice(10, 13) !== nationality) continue;
    const merged = mergedDataLine(lines, aligned);
    if (merged !== null) return merged;
  }
  return null;
}

function mergedDataLine(lines: readonly string[], other: string): string[] | null {
  const [first = '', second = ''] = lines;
  let merged = second;
  let failing = failingFields([first, merged]);
  for (const { field, from, to } of TD3_DATA_FIELDS) {
    if (!failing.has(field) || other.length < to) continue;
    const taken = other.slice(from, to);
    if (field !== 'sex' && differsUnseen(merged.slice(from, to), taken)) continue;
    const candidate = merged.slice(0, from) + taken + merged.slice(to);
    const after = failingFields([first, candidate]);
    if (after.has(field)) continue;
    merged = candidate;
    failing = after;
  }
  if (merged === second || failing.size > 0) return null;
  return [first, merged];
}

/**
 * One read of a zone whose every line came back as long as the format's, each cell a character or a
 * space where the engine saw a character and could not name it: the legacy engine does that on a
 * screen's descreened zone (s42-000058: three turns' reads, every line 44 cells, none valid alone).
 */
export interface CellRead {
  /** The zone's lines as read, spaces included, upper case. */
  lines: string[];
  /** Indexes of those lines among the read's OCR lines. */
  source_lines: number[];
}

/** Every run of consecutive OCR lines that gives a format's line count, each line its cell count. */
export function cellReadsIn(ocrLines: readonly string[]): CellRead[] {
  const reads: CellRead[] = [];
  const texts = ocrLines.map((line) => line.toUpperCase());
  for (const { count, length } of FORMATS) {
    for (let start = 0; start + count <= texts.length; start += 1) {
      const lines = texts.slice(start, start + count);
      if (lines.every((line) => line.length === length && /^[A-Z0-9< ]+$/.test(line) && line.trim() !== '')) {
        reads.push({ lines, source_lines: lines.map((_, offset) => start + offset) });
      }
    }
  }
  return reads;
}

// What a read's cell may vote for: a digit where only letters stand (names, codes) is a misread of a
// letter or a filler, which the other reads name better (s42-000058 read fillers as 4 after the names).
const CELL_CHARACTERS: Record<PositionClass, RegExp> = { A: /^[A-Z<]$/, N: /^[0-9<]$/, X: /^[A-Z0-9<]$/, O: /^[A-Z0-9<]$/ };

/** Whether a read's character may vote for a cell (`CELL_CHARACTERS` of the cell's position class). */
function cellAllows(lineClasses: readonly PositionClass[][], lineIndex: number, cell: number, character: string): boolean {
  return CELL_CHARACTERS[lineClasses[lineIndex]?.[cell] ?? 'X'].test(character);
}

/** The format whose line count and length lines of these lengths have. */
function formatOfShape(lengths: readonly number[]): (typeof FORMATS)[number] | undefined {
  return FORMATS.find(({ count, length }) => lengths.length === count && lengths.every((cells) => cells === length));
}

// A vote needs this many reads of the zone: with two, every cell they read differently is a tie.
const MIN_CELL_READS = 3;

/**
 * The zone's lines voted cell by cell among reads of one shape (`CellRead`, a format's line count and
 * length): each cell the character most reads gave it, a space, or a character its position cannot
 * hold (`CELL_CHARACTERS`), counting for none. A cell no read named is a filler between fillers (two on
 * each side: the run after the names); elsewhere, or with fewer than `MIN_CELL_READS` reads, there is no
 * vote (null). A cell two characters tie on is tried both ways (at most `MAX_TIED_CELLS` such cells;
 * null beyond). A character is only ever one the reads gave the cell, and the check digits still judge
 * the lines: a tie is settled by them as a look-alike repair is, as likely to pass wrong as the same
 * misread read once.
 */
export function votedLines(reads: readonly CellRead[]): string[][] | null {
  const shape = reads[0]?.lines.map((line) => line.length) ?? [];
  const format = formatOfShape(shape);
  const sameShape = reads.every(
    (read) => read.lines.length === shape.length && read.lines.every((line, index) => line.length === shape[index]),
  );
  if (format === undefined || !sameShape || reads.length < MIN_CELL_READS) return null;
  const lineClasses = POSITION_CLASSES[format.format];
  // Per line and cell, the characters most reads gave it (one, two when tied, none).
  const winners = shape.map((length, lineIndex) =>
    Array.from({ length }, (_, cell) => {
      const counts = new Map<string, number>();
      for (const read of reads) {
        const character = read.lines[lineIndex]?.charAt(cell) ?? ' ';
        if (cellAllows(lineClasses, lineIndex, cell, character)) counts.set(character, (counts.get(character) ?? 0) + 1);
      }
      const most = Math.max(0, ...counts.values());
      return [...counts.entries()].filter(([, count]) => count === most).map(([character]) => character);
    }),
  );
  const isFiller = (line: readonly string[][], cell: number) => line[cell]?.length === 1 && line[cell]?.[0] === '<';
  let outcomes: string[][] = [shape.map(() => '')];
  let ties = 0;
  for (const [lineIndex, line] of winners.entries()) {
    for (const [cell, tied] of line.entries()) {
      let characters = tied;
      if (characters.length === 0) {
        const betweenFillers = [cell - 2, cell - 1, cell + 1, cell + 2].every((other) => isFiller(line, other));
        if (!betweenFillers) return null;
        characters = ['<'];
      }
      if (characters.length > 2 || (characters.length === 2 && (ties += 1) > MAX_TIED_CELLS)) return null;
      outcomes = outcomes.flatMap((lines) =>
        characters.map((character) => lines.map((text, index) => (index === lineIndex ? text + character : text))),
      );
    }
  }
  return outcomes;
}

/**
 * A read's lines with every cell it did not name (a space, or a character its position cannot hold)
 * taken from the vote (`voted`, of the same shape): what that read says of the zone's names once its
 * gaps are filled. Where the vote's names differ from a read's, the second engine picks among them
 * (s42-000058: two of three reads `ATELEN`, one `AYELEN`, the LSTM engine `AYELEN`).
 */
export function completedByVote(read: CellRead, voted: readonly string[]): string[] {
  const format = formatOfShape(voted.map((line) => line.length));
  const lineClasses = format === undefined ? [] : POSITION_CLASSES[format.format];
  return voted.map((line, lineIndex) =>
    [...line]
      .map((votedCharacter, cell) => {
        const own = read.lines[lineIndex]?.charAt(cell) ?? ' ';
        return cellAllows(lineClasses, lineIndex, cell, own) ? own : votedCharacter;
      })
      .join(''),
  );
}
