import fs from 'node:fs';
import path from 'node:path';

/**
 * The real-world reference set (published specimens and public test images, made by no one on this project:
 * docs/design.md "Reference data"). It is kept beside the repository, not in it, at shared/data/reference-documents
 * (its README says what each file holds); CI clones the repository with shared/ beside it, and a missing file
 * fails the suite instead of skipping it.
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
