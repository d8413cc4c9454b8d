import fs from 'node:fs';
import path from 'node:path';

/**
 * The real-world reference data beside the repository (shared/data/reference-documents, see its README).
 * CI clones the repository with shared/ beside it; a missing file fails the suite instead of skipping it.
 */
export const REFERENCE_DOCUMENTS_DIR = path.resolve(__dirname, '../../../../shared/data/reference-documents');

export function readReferenceJson<T>(fileName: string): T {
  const file = path.join(REFERENCE_DOCUMENTS_DIR, fileName);
  if (!fs.existsSync(file)) {
    throw new Error(`reference data ${file} is missing: shared/ must be checked out beside the repository`);
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

export interface MrzReferenceEntry {
  id: string;
  lines: string[];
  format: string;
  valid: boolean;
  check_digits: Record<string, boolean>;
  expected: Record<string, string>;
  raw_ocr_input?: string;
}

export interface CuilReferenceEntry {
  cuil: string;
  valid: boolean;
  reason?: string;
}

export interface DniBarcodeReferenceEntry {
  id: string;
  payload: string;
  layout: string;
  field_count: number;
  expected: Record<string, string>;
}
