import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PoseStep } from '@idv/faces/pure';
import type { Locale } from '../domain/i18n';
import type { StoredChallenge } from '../domain/steps/face-state';
import { labelIn } from './samples';

/** One test-mode face sequence: real frames that give a known outcome through the real pipeline. */
export interface FaceSampleEntry {
  id: string;
  label: string;
  label_en?: string;
  /** `approved` or the reason code it produces (the test-mode catalogue of docs/api.md). */
  outcome: string;
  /** Frame files per pose, relative to the catalogue, in the order they are sent within the pose. */
  poses: Record<PoseStep, string[]>;
  /** `reversed` sends the poses against the challenge's order (a person not following it). */
  order?: 'challenge' | 'reversed';
}

/**
 * Test mode's face sequences (`faces/catalog.json` beside the document samples). A sample is laid out
 * for the challenge being shown: its poses in the challenge's order (or reversed), the frames of a pose
 * spread over a third of the time since the challenge was issued (at most of its window, the last
 * moments before now), so they are held as long as a person who clicked then would have held them. Live
 * mode never offers them.
 */
export class FaceSampleCatalog {
  private readonly entries: FaceSampleEntry[];

  constructor(private readonly directory: string) {
    const file = path.join(directory, 'catalog.json');
    this.entries = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as FaceSampleEntry[]) : [];
  }

  list(locale: Locale): { id: string; label: string }[] {
    return this.entries.map((entry) => ({ id: entry.id, label: labelIn(entry, locale) }));
  }

  async frames(id: string, challenge: StoredChallenge, now: number): Promise<{ image: Buffer; atMs: number }[] | null> {
    const entry = this.entries.find((candidate) => candidate.id === id);
    if (!entry || challenge.method !== 'camera') return null;
    const poses = entry.order === 'reversed' ? [...challenge.steps].reverse() : challenge.steps;
    const elapsed = Math.max(0, now - challenge.issuedAt);
    const span = Math.min(elapsed, challenge.windowMs);
    const start = elapsed - span;
    const segment = span / poses.length;
    const frames: { image: Buffer; atMs: number }[] = [];
    for (const [index, pose] of poses.entries()) {
      const files = entry.poses[pose];
      for (const [frame, file] of files.entries()) {
        const within = files.length === 1 ? 0.5 : 0.1 + (0.8 * frame) / (files.length - 1);
        frames.push({
          image: await readFile(path.join(this.directory, path.basename(file))),
          atMs: Math.floor(start + segment * (index + within)),
        });
      }
    }
    return frames;
  }
}
