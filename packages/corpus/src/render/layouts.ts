import bwipjs from 'bwip-js';
import type { DocumentContent, SideContent } from '../documents';
import { rectQuad, type Quad } from '../geometry';
import type { Random } from '../random';
import { GREYSCALE_FILTER, coatOfArms, fingerprint, guilloche, portrait, rosette, seal, signature } from './art';
import { FONTS, escapeXml, fmt, nestSvg, rect, text } from './svg';

/**
 * Card and page layouts, in tenths of a millimetre: an ID-1 card is 856 × 540 (85.6 × 54 mm), a passport
 * data page (ID-3) 1250 × 880. Positions follow the public specimens (the 2012 DNI front with its PDF417
 * bottom right, the 2009 card with its TD1 MRZ under the fields, docs/design.md "Reference data").
 * The MRZ is OCR-B at ICAO's pitch of 2.54 mm per character.
 */
export const ID1 = { width: 856, height: 540 } as const;
export const ID3 = { width: 1250, height: 880 } as const;

export const REGION_NAMES = ['photo', 'barcode', 'mrz', 'qr', 'data'] as const;
export type RegionName = (typeof REGION_NAMES)[number];

export interface SideDrawing {
  width: number;
  height: number;
  /** Corner radius of the card (0 for a passport page). */
  cornerRadius: number;
  svgBody: string;
  regions: Partial<Record<RegionName, Quad>>;
}

// OCR-B's advance is 0.723 em (measured on Debian's fonts-ocr-b); ICAO 9303 sets 2.54 mm per character.
const OCR_B_ADVANCE_EM = 0.723;
const MRZ_PITCH = 25.4;
const MRZ_FONT_SIZE = MRZ_PITCH / OCR_B_ADVANCE_EM;

function mrzLines(
  lines: readonly string[],
  x: number,
  firstBaseline: number,
  lineSpacing: number,
): { svg: string; region: Quad } {
  const svg = lines
    .map((line, index) =>
      text(x, firstBaseline + index * lineSpacing, line, { size: MRZ_FONT_SIZE, font: FONTS.ocrB, fill: '#111111' }),
    )
    .join('');
  const width = Math.max(...lines.map((line) => line.length)) * MRZ_PITCH;
  const top = firstBaseline - MRZ_FONT_SIZE * 0.8;
  const bottom = firstBaseline + (lines.length - 1) * lineSpacing + MRZ_FONT_SIZE * 0.15;
  return { svg, region: rectQuad(x - 4, top, width + 8, bottom - top) };
}

function barcodeBytes(content: NonNullable<SideContent['barcode']>): string {
  // bwip-js takes one character per byte: UTF-8 bytes are passed as the Latin-1 characters they would be.
  return content.encoding === 'utf8' ? Buffer.from(content.payload, 'utf8').toString('latin1') : content.payload;
}

function pdf417(
  content: NonNullable<SideContent['barcode']>,
  x: number,
  y: number,
  width: number,
  height: number,
  columns: number,
): string {
  // BWIPP's symbology options (columns, error correction level, row height) are not in bwip-js's types.
  const options: bwipjs.RenderOptions & { columns: number; eclevel: number; rowmult: number } = {
    bcid: 'pdf417',
    text: barcodeBytes(content),
    columns,
    eclevel: 4,
    rowmult: 3,
  };
  const svg = bwipjs.toSVG(options);
  return nestSvg(svg, x, y, width, height);
}

function qrCode(payload: string, x: number, y: number, size: number): string {
  const options: bwipjs.RenderOptions & { eclevel: string } = { bcid: 'qrcode', text: payload, eclevel: 'M' };
  const svg = bwipjs.toSVG(options);
  return nestSvg(svg, x, y, size, size);
}

// The labels' grey on the RENAPER specimens: a neutral dark grey, lighter than the values' black.
const LABEL_GREY = '#3f4542';

/**
 * A bilingual label as the 2012 card prints it: the Spanish words upright, the English ones in italics
 * after the slash ("Apellido / *Surname*").
 */
function bilingualLabel(x: number, y: number, label: string, size: number): string {
  const [spanish, english] = label.split(' / ');
  if (english === undefined) return text(x, y, label, { size, fill: LABEL_GREY, font: FONTS.arial });
  return text(x, y, `${spanish} / `, { size, fill: LABEL_GREY, font: FONTS.arial }).replace(
    '</text>',
    `<tspan font-style="italic">${escapeXml(english)}</tspan></text>`,
  );
}

/**
 * A label in small type above a value, as cards print "Apellido / Surname" over the surname; the value's
 * baseline `gap` below the label's (the 2012 specimen: 32 tenths of a millimetre).
 */
function field(
  x: number,
  y: number,
  label: string,
  value: string,
  options: { labelSize?: number; valueSize?: number; bold?: boolean; gap?: number } = {},
): string {
  return (
    bilingualLabel(x, y, label, options.labelSize ?? 12) +
    text(x, y + (options.gap ?? (options.valueSize ?? 20) + 4), value, {
      size: options.valueSize ?? 20,
      font: FONTS.arial,
      weight: options.bold === true ? 'bold' : 'normal',
      fill: '#101010',
    })
  );
}

function background(random: Random, width: number, height: number, base: string, tints: readonly string[]): string {
  const gradientId = `bg${random.int(0, 1e6)}`;
  const [first = base, second = base] = tints;
  return [
    `<defs><linearGradient id="${gradientId}" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${base}"/><stop offset="0.55" stop-color="${first}"/><stop offset="1" stop-color="${second}"/></linearGradient>${GREYSCALE_FILTER}</defs>`,
    rect(0, 0, width, height, `url(#${gradientId})`),
    guilloche(random, width, height, tints, 0.85),
    rosette(
      random,
      width * random.uniform(0.62, 0.85),
      height * random.uniform(0.3, 0.6),
      height * random.uniform(0.2, 0.32),
      random.pick(tints),
      0.5,
    ),
  ].join('');
}

// Measured on the 2012 RENAPER specimen (the reference set of docs/design.md), in tenths of a millimetre:
// the labels' baselines at 123, 198, 277, 327, 377 and 428, each value's baseline 21–29 under its label's;
// labels' capitals 1 mm tall, values' 1.6 mm, the number's 3.2 mm; the round seal over the left end of
// the issue and expiry dates.
function dni2012Front(random: Random, doc: DocumentContent, side: SideContent): SideDrawing {
  const { width, height } = ID1;
  const p = side.printed;
  const photo = rectQuad(62, 135, 235, 295);
  const barcodeBox = { x: 512, y: 453, width: 312, height: 80 };
  const row = (gap: number) => ({ labelSize: 14, valueSize: 22, gap });
  const parts = [
    background(random, width, height, '#eef6f4', ['#d3ece9', '#e6e2f0', '#cfe3ee']),
    coatOfArms(62, 62, 62, '#2b3f6b'),
    text(110, 52, 'REPUBLICA ARGENTINA - MERCOSUR', { size: 17, weight: 'bold', fill: '#1d2b4a', font: FONTS.arial }),
    text(110, 74, 'REGISTRO NACIONAL DE LAS PERSONAS', { size: 13, fill: '#1d2b4a', font: FONTS.arial }),
    text(110, 93, 'MINISTERIO DEL INTERIOR', { size: 13, fill: '#1d2b4a', font: FONTS.arial }),
    text(845, 70, 'DOCUMENTO NACIONAL DE IDENTIDAD', {
      size: 19,
      fill: '#9fc8cf',
      anchor: 'end',
      weight: 'bold',
      font: FONTS.arial,
    }),
    portrait(random, 62, 135, 235, 295),
    portrait(random.fork('ghost'), 735, 150, 90, 115, true),
    text(35, 380, 'DONANTE: SI', { size: 13, rotate: -90, fill: '#1d2b4a' }),
    field(330, 123, 'Apellido / Surname', p.surname ?? '', row(26)),
    field(330, 198, 'Nombre / Name', p.given_names ?? '', row(29)),
    field(330, 277, 'Sexo / Sex', p.sex ?? '', row(21)),
    field(438, 277, 'Nacionalidad / Nationality', p.nationality ?? '', row(21)),
    field(650, 277, 'Ejemplar', p.series ?? '', row(21)),
    field(330, 327, 'Fecha de nacimiento / Date of birth', p.birth_date ?? '', row(23)),
    seal(random.fork('seal'), 380, 414, 58),
    field(330, 377, 'Fecha de emisión / Date of issue', p.issue_date ?? '', row(23)),
    field(330, 428, 'Fecha de vencimiento / Date of expiry', p.expiry_date ?? '', row(21)),
    bilingualLabel(330, 476, 'Trámite N° / Of. ident.', 13),
    text(330, 501, p.tramite ?? '', { size: 20, font: FONTS.arial }),
    text(330, 524, p.office_code ?? '', { size: 18, font: FONTS.arial }),
    signature(random, 600, 300, 180, 70),
    text(600, 392, 'FIRMA DEL IDENTIFICADO / SIGNATURE', { size: 10, fill: LABEL_GREY }),
    bilingualLabel(77, 476, 'Documento / Document', 14),
    text(77, 523, p.number ?? '', { size: 40, weight: 'bold', font: FONTS.arial }),
    rect(barcodeBox.x - 6, barcodeBox.y - 2, barcodeBox.width + 12, barcodeBox.height + 8, '#ffffff', 'opacity="0.92"'),
  ];
  if (side.barcode !== null) parts.push(pdf417(side.barcode, barcodeBox.x, barcodeBox.y, barcodeBox.width, barcodeBox.height, 6));
  return {
    width,
    height,
    cornerRadius: 32,
    svgBody: parts.join(''),
    regions: {
      photo,
      barcode: rectQuad(barcodeBox.x, barcodeBox.y, barcodeBox.width, barcodeBox.height),
      data: rectQuad(320, 100, 510, 430),
    },
  };
}

function dniBackText(side: SideContent, x: number, y: number): string {
  const p = side.printed;
  return [
    text(x, y, 'DOMICILIO:', { size: 12, fill: '#3d4a5c' }),
    text(x, y + 24, p.address ?? '', { size: 17, font: FONTS.arial }),
    text(x, y + 58, 'LUGAR DE NACIMIENTO:', { size: 12, fill: '#3d4a5c' }),
    text(x, y + 82, p.birth_place ?? '', { size: 17, font: FONTS.arial }),
    text(x, y + 122, `CUIL: ${p.cuil ?? ''}`, { size: 20, font: FONTS.arial, weight: 'bold' }),
  ].join('');
}

function dni2012Back(random: Random, _doc: DocumentContent, side: SideContent): SideDrawing {
  const { width, height } = ID1;
  const parts = [
    background(random, width, height, '#f1f6f2', ['#d9ebe4', '#ebe3ee', '#d6e6ef']),
    dniBackText(side, 40, 50),
    rect(640, 30, 180, 200, '#ffffff', 'opacity="0.85" stroke="#9aa5b1" stroke-width="2"'),
    fingerprint(random, 660, 45, 140, 160),
    text(730, 250, 'PULGAR DERECHO', { size: 11, anchor: 'middle', fill: '#3d4a5c' }),
    text(40, 232, 'MINISTRO DEL INTERIOR', { size: 11, fill: '#3d4a5c' }),
    signature(random, 40, 240, 150, 50),
    rect(0, 330, width, 210, '#ffffff', 'opacity="0.9"'),
  ];
  const zone = side.mrz === null ? null : mrzLines(side.mrz.lines, 47, 390, 58);
  if (zone !== null) parts.push(zone.svg);
  return {
    width,
    height,
    cornerRadius: 32,
    svgBody: parts.join(''),
    regions: { ...(zone === null ? {} : { mrz: zone.region }), data: rectQuad(30, 30, 600, 190) },
  };
}

// Measured on the 2009 RENAPER specimen (the reference set of docs/design.md), in tenths of a millimetre:
// Spanish labels in small bold capitals over each value in the left column (surname, given names, number,
// nationality, issue and expiry dates; the birth date is printed on the back), `SEXO: F` beside the
// number, the portrait on the right, the TD1 MRZ along the bottom.
function dni2009Front(random: Random, _doc: DocumentContent, side: SideContent): SideDrawing {
  const { width, height } = ID1;
  const p = side.printed;
  const labelled = (y: number, label: string, value: string): string =>
    text(42, y, label, { size: 11, weight: 'bold', fill: '#2b2b2b' }) +
    text(42, y + 25, value, { size: 20, weight: 'bold', font: FONTS.arial });
  const parts = [
    background(random, width, height, '#fbf7fb', ['#e9d5ea', '#d5e4f2', '#f0dfe6']),
    coatOfArms(55, 60, 58, '#30518a'),
    text(300, 26, 'REPUBLICA ARGENTINA - MERCOSUR', { size: 14, weight: 'bold', anchor: 'middle', font: FONTS.arial }),
    text(300, 46, 'DOCUMENTO NACIONAL DE IDENTIDAD', { size: 16, weight: 'bold', anchor: 'middle', font: FONTS.arial }),
    text(300, 64, 'REGISTRO NACIONAL DE LAS PERSONAS', { size: 12, anchor: 'middle', fill: '#6d6d88', font: FONTS.arial }),
    labelled(109, 'APELLIDO/S:', p.surname ?? ''),
    labelled(158, 'NOMBRE/S:', p.given_names ?? ''),
    labelled(207, 'NUMERO DE DOCUMENTO:', p.number ?? ''),
    text(376, 232, 'SEXO:', { size: 11, weight: 'bold', fill: '#2b2b2b' }) +
      text(418, 232, p.sex ?? '', { size: 18, weight: 'bold', font: FONTS.arial }),
    labelled(255, 'NACIONALIDAD:', p.nationality ?? ''),
    labelled(303, 'FECHA DE EXPEDICION:', p.issue_date ?? ''),
    labelled(352, 'FECHA DE VENCIMIENTO', p.expiry_date ?? ''),
    signature(random, 250, 315, 170, 40),
    text(288, 372, 'FIRMA DEL IDENTIFICADO', { size: 9, fill: '#2b2b2b' }),
    portrait(random, 495, 55, 235, 300),
    text(612, 384, 'NO VALIDO PARA VOTAR', { size: 13, weight: 'bold', anchor: 'middle' }),
  ];
  const zone = side.mrz === null ? null : mrzLines(side.mrz.lines, 47, 438, 44);
  if (zone !== null) parts.push(zone.svg);
  return {
    width,
    height,
    cornerRadius: 32,
    svgBody: parts.join(''),
    regions: {
      photo: rectQuad(495, 55, 235, 300),
      ...(zone === null ? {} : { mrz: zone.region }),
      data: rectQuad(30, 90, 450, 295),
    },
  };
}

function dni2009Back(random: Random, _doc: DocumentContent, side: SideContent): SideDrawing {
  const { width, height } = ID1;
  const box = { x: 40, y: 300, width: 560, height: 200 };
  const parts = [
    background(random, width, height, '#fbf8fb', ['#eadcec', '#dbe6f3', '#f1e3ea']),
    dniBackText(side, 40, 45),
    text(400, 103, 'FECHA DE NACIMIENTO:', { size: 12, fill: '#3d4a5c' }),
    text(400, 127, side.printed.birth_date ?? '', { size: 17, font: FONTS.arial }),
    text(40, 215, `TRÁMITE N° ${side.printed.tramite ?? ''}   OF. IDENT. ${side.printed.office_code ?? ''}`, {
      size: 13,
      font: FONTS.arial,
    }),
    rect(650, 40, 170, 190, '#ffffff', 'opacity="0.85" stroke="#9aa5b1" stroke-width="2"'),
    fingerprint(random, 665, 55, 140, 160),
    text(735, 250, 'PULGAR DERECHO', { size: 11, anchor: 'middle' }),
    rect(box.x - 8, box.y - 8, box.width + 16, box.height + 16, '#ffffff'),
  ];
  if (side.barcode !== null) parts.push(pdf417(side.barcode, box.x, box.y, box.width, box.height, 9));
  return {
    width,
    height,
    cornerRadius: 32,
    svgBody: parts.join(''),
    regions: { barcode: rectQuad(box.x, box.y, box.width, box.height), data: rectQuad(30, 30, 600, 200) },
  };
}

function passportPage(random: Random, _doc: DocumentContent, side: SideContent): SideDrawing {
  const { width, height } = ID3;
  const p = side.printed;
  const foreign = p.issuing_state !== 'ARG';
  const parts = [
    background(
      random,
      width,
      height,
      foreign ? '#f6f3ea' : '#f3f0f7',
      foreign ? ['#e6dcc4', '#d9e4d2', '#efe3d0'] : ['#ddd3ec', '#d3e3ee', '#ecdde7'],
    ),
    text(625, 60, p.country_name ?? '', { size: 30, weight: 'bold', anchor: 'middle', fill: '#2d2a55', font: FONTS.serif }),
    text(625, 98, 'PASAPORTE / PASSPORT', { size: 22, anchor: 'middle', fill: '#2d2a55', font: FONTS.serif }),
    portrait(random, 60, 150, 330, 420),
    field(430, 140, 'Tipo / Type', 'P'),
    field(580, 140, 'Código / Code', p.issuing_state ?? ''),
    field(800, 140, 'Pasaporte N° / Passport No.', p.number ?? '', { valueSize: 26, bold: true }),
    field(430, 210, 'Apellido / Surname', p.surname ?? '', { valueSize: 28 }),
    field(430, 285, 'Nombres / Given names', p.given_names ?? '', { valueSize: 28 }),
    field(430, 360, 'Nacionalidad / Nationality', p.nationality ?? ''),
    field(430, 420, 'Fecha de nacimiento / Date of birth', p.birth_date ?? ''),
    field(850, 420, 'Sexo / Sex', p.sex ?? ''),
    field(430, 480, 'Lugar de nacimiento / Place of birth', p.birth_place ?? ''),
    field(430, 540, 'Fecha de emisión / Date of issue', p.issue_date ?? ''),
    field(850, 540, 'Autoridad / Authority', p.authority ?? ''),
    field(430, 600, 'Fecha de vencimiento / Date of expiry', p.expiry_date ?? ''),
    ...(p.personal_number === undefined ? [] : [field(850, 600, 'Documento / Personal No.', p.personal_number)]),
    signature(random, 90, 600, 260, 80),
    rect(0, 720, width, 160, '#ffffff', 'opacity="0.9"'),
  ];
  const zone = side.mrz === null ? null : mrzLines(side.mrz.lines, 66, 790, 62);
  if (zone !== null) parts.push(zone.svg);
  return {
    width,
    height,
    cornerRadius: 0,
    svgBody: parts.join(''),
    regions: {
      photo: rectQuad(60, 150, 330, 420),
      ...(zone === null ? {} : { mrz: zone.region }),
      data: rectQuad(420, 120, 800, 520),
    },
  };
}

function licenceFront(random: Random, _doc: DocumentContent, side: SideContent): SideDrawing {
  const { width, height } = ID1;
  const p = side.printed;
  const parts = [
    background(random, width, height, '#eef4fa', ['#cfe0f1', '#dcefe2', '#e9e4f3']),
    rect(0, 0, width, 95, '#1f4e8c'),
    text(30, 42, 'LICENCIA NACIONAL DE CONDUCIR', { size: 26, weight: 'bold', fill: '#ffffff', font: FONTS.arial }),
    text(30, 72, `REPÚBLICA ARGENTINA - ${p.jurisdiction ?? ''}`, { size: 14, fill: '#e6eef8', font: FONTS.arial }),
    portrait(random, 35, 125, 220, 280),
    field(285, 112, 'N° de licencia', p.number ?? '', { valueSize: 26, bold: true }),
    field(285, 170, 'Apellido', p.surname ?? '', { valueSize: 22 }),
    field(285, 228, 'Nombre', p.given_names ?? '', { valueSize: 22 }),
    field(285, 286, 'Domicilio', p.address ?? '', { valueSize: 15 }),
    field(285, 336, 'Fecha de nacimiento', p.birth_date ?? '', { valueSize: 18 }),
    field(560, 336, 'Sexo', p.sex ?? '', { valueSize: 18 }),
    field(285, 388, 'Otorgamiento', p.issue_date ?? '', { valueSize: 18 }),
    field(560, 388, 'Vencimiento', p.expiry_date ?? '', { valueSize: 18 }),
    field(285, 440, 'Clase', p.classes ?? '', { valueSize: 18, bold: true }),
    signature(random, 40, 440, 200, 60),
  ];
  return {
    width,
    height,
    cornerRadius: 32,
    svgBody: parts.join(''),
    regions: { photo: rectQuad(35, 125, 220, 280), data: rectQuad(275, 100, 560, 380) },
  };
}

const CLASS_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'A.1.1': 'Ciclomotores hasta 50 cc',
  'A.2.1': 'Motocicletas hasta 150 cc',
  'A.3': 'Motocicletas de más de 300 cc',
  'B.1': 'Automóviles y camionetas hasta 3500 kg',
  'B.2': 'B.1 con acoplado hasta 750 kg',
  'C.1': 'Camiones sin acoplado',
  'D.1': 'Transporte de pasajeros hasta 8 plazas',
  'E.1': 'Camiones articulados',
  'G.1': 'Tractores agrícolas',
};

function licenceBack(random: Random, _doc: DocumentContent, side: SideContent): SideDrawing {
  const { width, height } = ID1;
  const classes = (side.printed.classes ?? '').split(' ').filter((value) => value !== '');
  const box = { x: 36, y: 330, width: 520, height: 170 };
  const qr = { x: 640, y: 325, size: 180 };
  const parts = [
    background(random, width, height, '#f1f6fb', ['#d8e6f3', '#e1f0e6', '#ece7f4']),
    text(36, 50, 'CLASES HABILITADAS', { size: 18, weight: 'bold', font: FONTS.arial }),
    ...classes.map((code, index) =>
      text(36, 88 + index * 32, `${code}  ${CLASS_DESCRIPTIONS[code] ?? ''}`, { size: 17, font: FONTS.arial }),
    ),
    text(36, 220, 'OBSERVACIONES: SIN RESTRICCIONES', { size: 14, font: FONTS.arial }),
    text(36, 248, `EMITIDA POR ${side.printed.jurisdiction ?? ''}`, { size: 13, fill: '#3d4a5c' }),
    signature(random, 560, 60, 220, 60),
    text(560, 150, 'FIRMA DEL FUNCIONARIO', { size: 10, fill: '#3d4a5c' }),
    rect(box.x - 8, box.y - 8, box.width + 16, box.height + 16, '#ffffff'),
    rect(qr.x - 8, qr.y - 8, qr.size + 16, qr.size + 16, '#ffffff'),
  ];
  if (side.barcode !== null) parts.push(pdf417(side.barcode, box.x, box.y, box.width, box.height, 8));
  if (side.qr !== null) parts.push(qrCode(side.qr.payload, qr.x, qr.y, qr.size));
  return {
    width,
    height,
    cornerRadius: 32,
    svgBody: parts.join(''),
    regions: {
      barcode: rectQuad(box.x, box.y, box.width, box.height),
      ...(side.qr === null ? {} : { qr: rectQuad(qr.x, qr.y, qr.size, qr.size) }),
      data: rectQuad(30, 25, 520, 240),
    },
  };
}

export function drawSide(random: Random, doc: DocumentContent, side: SideContent): SideDrawing {
  switch (side.layout) {
    case 'dni_2012_front':
      return dni2012Front(random, doc, side);
    case 'dni_2012_back':
      return dni2012Back(random, doc, side);
    case 'dni_2009_front':
      return dni2009Front(random, doc, side);
    case 'dni_2009_back':
      return dni2009Back(random, doc, side);
    case 'passport_data_page':
      return passportPage(random, doc, side);
    case 'licence_front':
      return licenceFront(random, doc, side);
    case 'licence_back':
      return licenceBack(random, doc, side);
  }
}

/** The whole side as an SVG document of `pixelWidth` pixels, clipped to the card's rounded corners. */
export function sideSvg(drawing: SideDrawing, pixelWidth: number): string {
  const pixelHeight = Math.round((pixelWidth * drawing.height) / drawing.width);
  const clipId = 'cardclip';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixelWidth}" height="${pixelHeight}" viewBox="0 0 ${drawing.width} ${drawing.height}">`,
    `<defs><clipPath id="${clipId}"><rect x="0" y="0" width="${drawing.width}" height="${drawing.height}" rx="${fmt(drawing.cornerRadius)}"/></clipPath></defs>`,
    `<g clip-path="url(#${clipId})">`,
    drawing.svgBody,
    '</g></svg>',
  ].join('');
}
