// The parts of @idv/verification that touch no image and load no engine: the document model, the parsers of
// what a document carries (PDF417 payload, MRZ, CUIL, dates) and the checks that turn readings into verdicts.
// The image readers, the engines and the worker are `@idv/verification` and `@idv/verification/worker`.
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
