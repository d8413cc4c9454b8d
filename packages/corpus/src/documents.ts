import { emptyDocumentFields, type DocumentFields, type DocumentReasonCode } from '@idv/verification/tooling';
import { addDays, addYears, toPrintedBilingual, toPrintedSpanish } from './dates';
import { generatePerson, issueDateFor, settleSexForIssueDate, type Sex } from './identity';
import {
  cuilFor,
  encodeDni2009Payload,
  encodeDni2012Payload,
  encodeLicencePayload,
  encodeTd1,
  encodeTd3,
  type Cuil,
  type DniBarcodeContent,
} from './payloads';
import type { Random } from './random';

/**
 * The documents of the corpus and everything they carry, before any image is drawn. A document is one
 * holder's card or passport page, with one or two sides; each side says what it prints, and which
 * barcode or MRZ it carries with the exact payload, so that a label can say what a reader must find.
 */
export const DOCUMENT_VARIANTS = [
  /** The 2012+ DNI whose PDF417 has 8 fields (no CUIL). TD1 MRZ on the back. */
  'dni_2012_8',
  /** The same card with the 9th field (CUIL prefix and check digit). */
  'dni_2012_9',
  /** The 2009 card: TD1 MRZ on the front, the 17-field PDF417 on the back. */
  'dni_2009',
  /** An Argentine passport's data page (TD3). */
  'passport_arg',
  /** A foreign passport's data page (TD3). */
  'passport_foreign',
  /** Licencia Nacional de Conducir: printed front, PDF417 (corpus layout, see README) and QR on the back. */
  'licence',
] as const;
export type DocumentVariant = (typeof DOCUMENT_VARIANTS)[number];

/**
 * Faults put on purpose into a document, each with the reason code a correct verdict gives.
 * `printed_surname_altered` changes one letter of the printed surname (DNI fronts, a passport's visual
 * zone) while the barcode and the MRZ keep the true name: the forgery a glance at the print does not
 * show. It is drawn only when asked for (`DocumentOptions.defects`), so the corpora of earlier seeds stay
 * as they were.
 */
export const DEFECTS = ['cuil_check_digit', 'mrz_check_digit', 'printed_data_mismatch', 'printed_surname_altered'] as const;
export type Defect = (typeof DEFECTS)[number];

/** The defects drawn unless others are asked for. */
export const DEFAULT_DEFECTS: readonly Defect[] = ['cuil_check_digit', 'mrz_check_digit', 'printed_data_mismatch'];

const DEFECT_REASON: Record<Defect, DocumentReasonCode> = {
  cuil_check_digit: 'document_cuil_invalid',
  mrz_check_digit: 'document_mrz_invalid',
  printed_data_mismatch: 'document_data_mismatch',
  printed_surname_altered: 'document_data_mismatch',
};

export type SideName = 'front' | 'back';

export type SideLayout =
  | 'dni_2012_front'
  | 'dni_2012_back'
  | 'dni_2009_front'
  | 'dni_2009_back'
  | 'passport_data_page'
  | 'licence_front'
  | 'licence_back';

export type BarcodeLayout = 'new_2012' | 'old_2009' | 'corpus_licence_v1';

export interface BarcodeContent {
  symbology: 'PDF417';
  layout: BarcodeLayout;
  field_count: number;
  /** The text as meant (what a reader should end with after any encoding repair). */
  payload: string;
  /** How the text is turned into the symbol's bytes: Latin-1, or UTF-8 bytes (which a Latin-1 reader sees as mojibake). */
  encoding: 'latin1' | 'utf8';
}

export interface MrzContentLabel {
  format: 'TD1' | 'TD3';
  lines: string[];
  /** False when a check digit is wrong on purpose. */
  valid: boolean;
}

/** What a side prints, by name: model field names (as printed, e.g. '01 NOV/ NOV 1969') plus extras. */
export type PrintedFields = Partial<Record<keyof DocumentFields, string>> & {
  address?: string;
  birth_place?: string;
  office_code?: string;
  classes?: string;
  jurisdiction?: string;
  authority?: string;
  personal_number?: string;
  country_name?: string;
};

export interface SideContent {
  side: SideName;
  layout: SideLayout;
  barcode: BarcodeContent | null;
  mrz: MrzContentLabel | null;
  qr: { payload: string } | null;
  printed: PrintedFields;
}

export interface DocumentContent {
  document_id: string;
  variant: DocumentVariant;
  /** The date against which `expired` and the reason codes hold. */
  reference_date: string;
  /** The holder's data as the document's machine-readable source states it (or as printed, for what only the print carries). */
  fields: DocumentFields;
  defects: Defect[];
  expired: boolean;
  cuil_valid: boolean | null;
  /** What a correct verdict reports for this document (empty: it should be approved). */
  expected_reason_codes: DocumentReasonCode[];
  sides: SideContent[];
}

export interface DocumentOptions {
  referenceDate: string;
  /** Probability that a document carries one deliberate defect. */
  defectRate: number;
  /** Probability that a document is expired at the reference date. */
  expiredRate: number;
  /** The defects that may be drawn (`DEFAULT_DEFECTS` when absent). */
  defects?: readonly Defect[];
}

const STREETS = [
  'AV. CORRIENTES',
  'SAN MARTÍN',
  'BELGRANO',
  'RIVADAVIA',
  'AV. DE MAYO',
  'PELLEGRINI',
  'MORENO',
  'URQUIZA',
  'ESPAÑA',
  'PEÑALOZA',
];
const CITIES: readonly (readonly [string, string])[] = [
  ['CIUDAD AUTÓNOMA DE BUENOS AIRES', 'CABA'],
  ['ROSARIO', 'SANTA FE'],
  ['CÓRDOBA', 'CÓRDOBA'],
  ['SAN MIGUEL DE TUCUMÁN', 'TUCUMÁN'],
  ['MENDOZA', 'MENDOZA'],
  ['NEUQUÉN', 'NEUQUÉN'],
  ['LA PLATA', 'BUENOS AIRES'],
  ['RESISTENCIA', 'CHACO'],
  ['USHUAIA', 'TIERRA DEL FUEGO'],
];

/** Foreign passports: issuing state, country name as printed, number shape, German transliteration. */
const FOREIGN_STATES: readonly {
  code: string;
  name: string;
  number: (random: Random) => string;
  german?: boolean;
  nationality: string;
}[] = [
  {
    code: 'BRA',
    name: 'REPÚBLICA FEDERATIVA DO BRASIL',
    nationality: 'BRASILEIRA',
    number: (r) => `F${r.pick(['A', 'B', 'C', 'Z'])}${r.digits(6)}`,
  },
  { code: 'CHL', name: 'REPÚBLICA DE CHILE', nationality: 'CHILENA', number: (r) => `F${r.digits(8)}` },
  { code: 'URY', name: 'REPÚBLICA ORIENTAL DEL URUGUAY', nationality: 'URUGUAYA', number: (r) => `C${r.digits(6)}` },
  {
    code: 'ESP',
    name: 'REINO DE ESPAÑA',
    nationality: 'ESPAÑOLA',
    number: (r) => `P${r.pick(['AA', 'AB', 'AC'])}${r.digits(6)}`,
  },
  {
    code: 'ITA',
    name: 'REPUBBLICA ITALIANA',
    nationality: 'ITALIANA',
    number: (r) => `Y${r.pick(['A', 'B', 'C'])}${r.digits(7)}`,
  },
  {
    code: 'D',
    name: 'BUNDESREPUBLIK DEUTSCHLAND',
    nationality: 'DEUTSCH',
    number: (r) => `C${r.digits(2)}X${r.digits(2)}T${r.digits(2)}`,
    german: true,
  },
  { code: 'PRY', name: 'REPÚBLICA DEL PARAGUAY', nationality: 'PARAGUAYA', number: (r) => r.digits(7) },
  { code: 'BOL', name: 'ESTADO PLURINACIONAL DE BOLIVIA', nationality: 'BOLIVIANA', number: (r) => `${r.digits(8)}` },
];

/** Foreign residents' nationalities as the DNI writes them, with their ICAO codes. */
const RESIDENT_NATIONALITIES: readonly (readonly [string, string])[] = [
  ['PARAGUAYA', 'PRY'],
  ['BOLIVIANA', 'BOL'],
  ['PERUANA', 'PER'],
  ['VENEZOLANA', 'VEN'],
];

/** `99.999.999`: the DNI number as printed. */
export function printedDniNumber(number: string): string {
  return number.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

function address(random: Random): { address: string; city: string; province: string } {
  const [city, province] = random.pick(CITIES);
  return { address: `${random.pick(STREETS)} ${random.int(10, 4999)}`, city, province };
}

/** One digit of `number` changed to another digit (a passport number's letters are left alone). */
function alterDigit(number: string, random: Random): string {
  const digitPositions = [...number].flatMap((character, index) => (/\d/.test(character) ? [index] : []));
  const position = digitPositions[random.int(0, digitPositions.length - 1)]!;
  const digit = Number(number.charAt(position));
  const replacement = String((digit + random.int(1, 9)) % 10);
  return `${number.slice(0, position)}${replacement}${number.slice(position + 1)}`;
}

function chooseDefect(random: Random, options: DocumentOptions, fits: readonly Defect[]): Defect | null {
  const wanted = options.defects ?? DEFAULT_DEFECTS;
  const allowed = fits.filter((defect) => wanted.includes(defect));
  if (allowed.length === 0 || !random.chance(options.defectRate)) return null;
  return random.pick(allowed);
}

/** One letter of a name (A–Z, never an accented one) changed to another. */
function alterLetter(name: string, random: Random): string {
  const positions = [...name].flatMap((character, index) => (/[A-Z]/.test(character) ? [index] : []));
  const position = positions[random.int(0, positions.length - 1)]!;
  const original = name.charCodeAt(position) - 65;
  const replacement = String.fromCharCode(65 + ((original + random.int(1, 25)) % 26));
  return `${name.slice(0, position)}${replacement}${name.slice(position + 1)}`;
}

function reasonCodes(defects: readonly Defect[], expired: boolean): DocumentReasonCode[] {
  const codes = new Set<DocumentReasonCode>(defects.map((defect) => DEFECT_REASON[defect]));
  if (expired) codes.add('document_expired');
  return [...codes].sort();
}

function sexForMrz(sex: Sex, issuer: string): Sex | '<' {
  // Argentina prints X in the MRZ of non-binary holders; ICAO's own "unspecified" is '<'.
  return sex === 'X' && issuer !== 'ARG' ? '<' : sex;
}

function tramiteNumber(random: Random): string {
  return `00${random.digits(9)}`;
}

function series(random: Random): string {
  return random.weighted([
    ['A', 0.55],
    ['B', 0.3],
    ['C', 0.1],
    ['D', 0.05],
  ]);
}

function dniDocument(
  random: Random,
  id: string,
  variant: 'dni_2012_8' | 'dni_2012_9' | 'dni_2009',
  options: DocumentOptions,
): DocumentContent {
  const foreignResident = random.chance(0.06);
  const drawn = generatePerson(random, options.referenceDate, { foreignResident });
  const expiredWanted = random.chance(options.expiredRate);
  const is2009 = variant === 'dni_2009';
  // 2009-model cards were issued from 2009 until the 2012 model replaced them; both last 15 years.
  const issueDate = issueDateFor(random, {
    referenceDate: options.referenceDate,
    birthDate: drawn.birth_date,
    validityYears: 15,
    expired: expiredWanted,
    notBefore: is2009 ? '2009-01-01' : '2012-11-01',
    notAfter: is2009 ? '2012-10-31' : undefined,
  });
  const person = settleSexForIssueDate(random, drawn, issueDate);
  const expiryDate = addYears(issueDate, 15);
  const expired = expiryDate < options.referenceDate;
  const defect = chooseDefect(random, options, [
    'cuil_check_digit',
    'mrz_check_digit',
    'printed_data_mismatch',
    'printed_surname_altered',
  ]);
  const cuil: Cuil = cuilFor(person.dni_number, person.sex, random.int(0, 1000), defect === 'cuil_check_digit');
  const tramite = tramiteNumber(random);
  const ejemplar = series(random);
  const home = address(random);
  const birthPlace = random.pick(CITIES)[0];
  const [nationalityText, nationalityCode] = foreignResident
    ? random.pick(RESIDENT_NATIONALITIES)
    : (['ARGENTINA', 'ARG'] as const);
  const printedNumber = defect === 'printed_data_mismatch' ? alterDigit(person.dni_number, random) : person.dni_number;
  const barcodeContent: DniBarcodeContent = {
    tramite,
    surname: person.surname,
    given_names: person.given_names,
    sex: person.sex,
    number: person.dni_number,
    series: ejemplar,
    birth_date: person.birth_date,
    issue_date: issueDate,
    ...(variant === 'dni_2012_9' ? { cuil } : {}),
    ...(is2009
      ? { expiry_date: expiryDate, nationality_text: nationalityText, office_code: String(random.int(1, 9) * 1000) }
      : {}),
  };
  const encoding: BarcodeContent['encoding'] = random.chance(0.15) ? 'utf8' : 'latin1';
  const barcode: BarcodeContent = is2009
    ? {
        symbology: 'PDF417',
        layout: 'old_2009',
        field_count: 17,
        payload: encodeDni2009Payload(barcodeContent, [
          String(random.int(100, 999)),
          '0',
          `ILR:2.01 C:${random.digits(6)}.01 (No Cap.)`,
          `UNIDAD #${random.digits(2)} || S/N: 00${random.digits(2)}>${2008 + random.int(0, 4)}>>00${random.digits(2)}`,
        ]),
        encoding,
      }
    : {
        symbology: 'PDF417',
        layout: 'new_2012',
        field_count: variant === 'dni_2012_9' ? 9 : 8,
        payload: encodeDni2012Payload(barcodeContent),
        encoding,
      };
  const mrzLines = encodeTd1({
    document_code: 'ID',
    issuing_state: 'ARG',
    document_number: person.dni_number,
    nationality: nationalityCode,
    birth_date: person.birth_date,
    sex: sexForMrz(person.sex, 'ARG'),
    expiry_date: expiryDate,
    surname: person.surname,
    given_names: person.given_names,
    broken_check:
      defect === 'mrz_check_digit'
        ? random.pick(['document_number', 'birth_date', 'expiry_date', 'composite'] as const)
        : undefined,
  });
  const mrz: MrzContentLabel = { format: 'TD1', lines: mrzLines, valid: defect !== 'mrz_check_digit' };
  const printDate = is2009 ? toPrintedSpanish : toPrintedBilingual;
  const frontPrinted: PrintedFields = {
    surname: defect === 'printed_surname_altered' ? alterLetter(person.surname, random) : person.surname,
    given_names: person.given_names,
    sex: person.sex,
    nationality: nationalityText,
    number: printedDniNumber(printedNumber),
    // The 2009 card prints the birth date on its back (the RENAPER specimen's front has none).
    ...(is2009 ? {} : { birth_date: printDate(person.birth_date) }),
    issue_date: printDate(issueDate),
    expiry_date: printDate(expiryDate),
    ...(is2009 ? {} : { series: ejemplar, tramite, office_code: barcodeContent.office_code ?? String(random.int(1, 9) * 1000) }),
  };
  const backPrinted: PrintedFields = {
    address: `${home.address} - ${home.city} - ${home.province}`,
    birth_place: birthPlace,
    cuil: cuil.formatted,
  };
  const front: SideContent = {
    side: 'front',
    layout: is2009 ? 'dni_2009_front' : 'dni_2012_front',
    barcode: is2009 ? null : barcode,
    mrz: is2009 ? mrz : null,
    qr: null,
    printed: frontPrinted,
  };
  const back: SideContent = {
    side: 'back',
    layout: is2009 ? 'dni_2009_back' : 'dni_2012_back',
    barcode: is2009 ? barcode : null,
    mrz: is2009 ? null : mrz,
    qr: null,
    printed: is2009
      ? { ...backPrinted, birth_date: printDate(person.birth_date), tramite, office_code: barcodeContent.office_code }
      : backPrinted,
  };
  const defects = defect === null ? [] : [defect];
  return {
    document_id: id,
    variant,
    reference_date: options.referenceDate,
    fields: {
      ...emptyDocumentFields(),
      doc_type: 'dni',
      series: ejemplar,
      number: person.dni_number,
      surname: person.surname,
      given_names: person.given_names,
      sex: person.sex,
      birth_date: person.birth_date,
      cuil: cuil.formatted,
      expiry_date: expiryDate,
      issue_date: issueDate,
      tramite,
      nationality: nationalityCode,
      issuing_state: 'ARG',
    },
    defects,
    expired,
    cuil_valid: cuil.valid,
    expected_reason_codes: reasonCodes(defects, expired),
    sides: [front, back],
  };
}

function passportDocument(
  random: Random,
  id: string,
  variant: 'passport_arg' | 'passport_foreign',
  options: DocumentOptions,
): DocumentContent {
  const foreign = variant === 'passport_foreign';
  const state = foreign ? random.pick(FOREIGN_STATES) : null;
  const drawn = generatePerson(random, options.referenceDate);
  if (state?.german === true && random.chance(0.5)) drawn.surname = 'MÜLLER';
  const issueDate = issueDateFor(random, {
    referenceDate: options.referenceDate,
    birthDate: drawn.birth_date,
    validityYears: 10,
    expired: random.chance(options.expiredRate),
    notBefore: '2008-01-01',
    minimumAge: 18,
  });
  const person = settleSexForIssueDate(random, drawn, issueDate);
  const expiryDate = addDays(addYears(issueDate, 10), -1);
  const expired = expiryDate < options.referenceDate;
  const defect = chooseDefect(random, options, ['mrz_check_digit', 'printed_data_mismatch', 'printed_surname_altered']);
  const issuer = state?.code ?? 'ARG';
  const passportNumber = state?.number(random) ?? `AA${random.pick(['A', 'B', 'C', 'D', 'E', 'F'])}${random.digits(6)}`;
  const personalNumber = foreign ? '' : person.dni_number;
  const lines = encodeTd3({
    document_code: 'P',
    issuing_state: issuer,
    document_number: passportNumber,
    nationality: issuer,
    birth_date: person.birth_date,
    sex: sexForMrz(person.sex, issuer),
    expiry_date: expiryDate,
    surname: person.surname,
    given_names: person.given_names,
    personal_number: personalNumber,
    german_transliteration: state?.german ?? false,
    broken_check:
      defect === 'mrz_check_digit'
        ? random.pick(['document_number', 'birth_date', 'expiry_date', 'composite'] as const)
        : undefined,
  });
  const printedNumber = defect === 'printed_data_mismatch' ? alterDigit(passportNumber, random) : passportNumber;
  const defects = defect === null ? [] : [defect];
  const birthPlace = foreign ? (state?.name.split(' ').slice(-1)[0] ?? 'EXTERIOR') : random.pick(CITIES)[0];
  return {
    document_id: id,
    variant,
    reference_date: options.referenceDate,
    fields: {
      ...emptyDocumentFields(),
      doc_type: 'passport',
      number: passportNumber,
      surname: person.surname,
      given_names: person.given_names,
      sex: person.sex,
      birth_date: person.birth_date,
      expiry_date: expiryDate,
      issue_date: issueDate,
      nationality: issuer,
      issuing_state: issuer,
    },
    defects,
    expired,
    cuil_valid: null,
    expected_reason_codes: reasonCodes(defects, expired),
    sides: [
      {
        side: 'front',
        layout: 'passport_data_page',
        barcode: null,
        mrz: { format: 'TD3', lines, valid: defect !== 'mrz_check_digit' },
        qr: null,
        printed: {
          country_name: state?.name ?? 'REPÚBLICA ARGENTINA',
          issuing_state: issuer,
          number: printedNumber,
          surname: defect === 'printed_surname_altered' ? alterLetter(person.surname, random) : person.surname,
          given_names: person.given_names,
          nationality: state?.nationality ?? 'ARGENTINA',
          birth_date: toPrintedBilingual(person.birth_date),
          sex: person.sex,
          birth_place: birthPlace,
          issue_date: toPrintedBilingual(issueDate),
          expiry_date: toPrintedBilingual(expiryDate),
          authority: foreign ? 'AUTORIDAD EMISORA' : 'RENAPER',
          ...(foreign ? {} : { personal_number: printedDniNumber(person.dni_number) }),
        },
      },
    ],
  };
}

const LICENCE_CLASSES = ['A.1.1', 'A.2.1', 'A.3', 'B.1', 'B.2', 'C.1', 'D.1', 'E.1', 'G.1'] as const;
const JURISDICTIONS = [
  'MUNICIPALIDAD DE ROSARIO',
  'CIUDAD DE BUENOS AIRES',
  'MUNICIPALIDAD DE CÓRDOBA',
  'MUNICIPALIDAD DE LA PLATA',
  'MUNICIPALIDAD DE MENDOZA',
];

function licenceDocument(random: Random, id: string, options: DocumentOptions): DocumentContent {
  const drawn = generatePerson(random, options.referenceDate);
  // Validity depends on age (5 years until 65, then shorter); the corpus uses 5 years throughout.
  const issueDate = issueDateFor(random, {
    referenceDate: options.referenceDate,
    birthDate: drawn.birth_date,
    validityYears: 5,
    expired: random.chance(options.expiredRate),
    notBefore: '2016-01-01',
    minimumAge: 17,
  });
  const person = settleSexForIssueDate(random, drawn, issueDate);
  const expiryDate = addYears(issueDate, 5);
  const expired = expiryDate < options.referenceDate;
  const defect = chooseDefect(random, options, ['printed_data_mismatch']);
  const classCount = random.int(1, 3);
  const classes = [...new Set(Array.from({ length: classCount }, () => random.pick(LICENCE_CLASSES)))].sort();
  const jurisdiction = random.pick(JURISDICTIONS);
  const control = random.digits(9);
  const payload = encodeLicencePayload({
    number: person.dni_number,
    surname: person.surname,
    given_names: person.given_names,
    sex: person.sex,
    birth_date: person.birth_date,
    issue_date: issueDate,
    expiry_date: expiryDate,
    classes,
    jurisdiction,
    control_number: control,
  });
  const printedNumber = defect === 'printed_data_mismatch' ? alterDigit(person.dni_number, random) : person.dni_number;
  const home = address(random);
  const defects = defect === null ? [] : [defect];
  const dmy = (iso: string): string => `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
  return {
    document_id: id,
    variant: 'licence',
    reference_date: options.referenceDate,
    fields: {
      ...emptyDocumentFields(),
      doc_type: 'licence',
      number: person.dni_number,
      surname: person.surname,
      given_names: person.given_names,
      sex: person.sex,
      birth_date: person.birth_date,
      expiry_date: expiryDate,
      issue_date: issueDate,
      nationality: 'ARG',
      issuing_state: 'ARG',
    },
    defects,
    expired,
    cuil_valid: null,
    expected_reason_codes: reasonCodes(defects, expired),
    sides: [
      {
        side: 'front',
        layout: 'licence_front',
        barcode: null,
        mrz: null,
        qr: null,
        printed: {
          jurisdiction,
          number: printedDniNumber(printedNumber),
          surname: person.surname,
          given_names: person.given_names,
          sex: person.sex,
          birth_date: dmy(person.birth_date),
          issue_date: dmy(issueDate),
          expiry_date: dmy(expiryDate),
          classes: classes.join(' '),
          address: `${home.address} - ${home.city}`,
          nationality: 'ARGENTINA',
        },
      },
      {
        side: 'back',
        layout: 'licence_back',
        barcode: { symbology: 'PDF417', layout: 'corpus_licence_v1', field_count: 12, payload, encoding: 'latin1' },
        mrz: null,
        qr: { payload: `https://licencias.example.invalid/v/${control}` },
        printed: { classes: classes.join(' '), jurisdiction },
      },
    ],
  };
}

export function generateDocument(
  random: Random,
  id: string,
  variant: DocumentVariant,
  options: DocumentOptions,
): DocumentContent {
  switch (variant) {
    case 'dni_2012_8':
    case 'dni_2012_9':
    case 'dni_2009':
      return dniDocument(random, id, variant, options);
    case 'passport_arg':
    case 'passport_foreign':
      return passportDocument(random, id, variant, options);
    case 'licence':
      return licenceDocument(random, id, options);
  }
}
