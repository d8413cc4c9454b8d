// The verification engine's public surface (DESIGN.md "Verification engine"): the document model, the
// parsers of what a document carries (DNI PDF417 payload, MRZ, CUIL) and the pure document checks.
export * from './model';
export {
  normaliseDate,
  parseDayMonthYear,
  parseMrzDate,
  expandTwoDigitYearDate,
  toIsoDate,
  isIsoDate,
  type CenturyRule,
} from './parsers/dates';
export { repairMojibake } from './parsers/text-repair';
export * from './parsers/dni-barcode.parser';
export * from './parsers/mrz.parser';
export * from './parsers/cuil.parser';
export * from './checks/field-normalisation';
export * from './checks/compare-fields';
export * from './checks/document.checks';
