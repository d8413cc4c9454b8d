import { readFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locale } from '../domain/i18n';
import type { CaptureKind, DocumentKind } from '../domain/steps/document-state';

/** A catalogue entry's label in the page's language (Spanish when it has no other). */
export const labelIn = (entry: { label: string; label_en?: string }, locale: Locale) =>
  locale === 'en' ? (entry.label_en ?? entry.label) : entry.label;

/** One test-mode sample document: real images that produce a known outcome through the real pipeline. */
export interface SampleEntry {
  id: string;
  /** What the person reads: Spanish (`label`), English (`label_en`). */
  label: string;
  label_en?: string;
  type: DocumentKind;
  /** The outcome it produces, for the test-mode catalogue of docs/api.md (`approved` or a reason code). */
  outcome: string;
  /** Image file per side, relative to the catalogue. */
  sides: Partial<Record<CaptureKind, string>>;
}

/**
 * The test-mode catalogue of sample documents (`catalog.json` beside their images). Live mode never
 * offers them; in test mode a sample's image is sent through the same upload path as a photo.
 */
export class SampleCatalog {
  private readonly entries: SampleEntry[];

  constructor(private readonly directory: string) {
    const file = path.join(directory, 'catalog.json');
    this.entries = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SampleEntry[]) : [];
  }

  list(type: DocumentKind, side: CaptureKind, locale: Locale): { id: string; label: string }[] {
    return this.entries
      .filter((entry) => entry.type === type && entry.sides[side])
      .map((entry) => ({ id: entry.id, label: labelIn(entry, locale) }));
  }

  async image(type: DocumentKind, side: CaptureKind, id: string): Promise<Buffer | null> {
    const entry = this.entries.find((candidate) => candidate.id === id && candidate.type === type);
    const file = entry?.sides[side];
    if (!file) return null;
    return readFile(path.join(this.directory, path.basename(file)));
  }
}
