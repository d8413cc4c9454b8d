import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { FACE_CAPTURE_SCRIPT_PATH } from '../domain/steps/face';
import { CAPTURE_SCRIPT_PATH, PROGRESS_SCRIPT_PATH, STYLESHEET_PATH } from './pages';

const asset = (file: string, type: string) => ({ body: readFileSync(path.join(__dirname, '..', '..', 'assets', file)), type });

/** The pages' own stylesheet and scripts, read once at start: the CSP allows nothing else. */
export const STATIC_ASSETS = new Map([
  [STYLESHEET_PATH, asset('flow.css', 'text/css; charset=utf-8')],
  [CAPTURE_SCRIPT_PATH, asset('capture.js', 'text/javascript; charset=utf-8')],
  [FACE_CAPTURE_SCRIPT_PATH, asset('face-capture.js', 'text/javascript; charset=utf-8')],
  [PROGRESS_SCRIPT_PATH, asset('progress.js', 'text/javascript; charset=utf-8')],
]);

export function sendAsset(res: ServerResponse, asset: { body: Buffer; type: string }): void {
  res.setHeader('Cache-Control', 'public, max-age=3600');
  res.setHeader('Content-Type', asset.type);
  res.setHeader('Content-Length', asset.body.length);
  res.end(asset.body);
}
