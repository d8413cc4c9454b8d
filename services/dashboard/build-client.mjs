// The editor's client bundle: client/editor.ts with the editor's model and the publication's schema,
// minified into dist/assets/editor.js (served at /assets/editor.js). The contracts come in through their
// browser entry, without the HTTP routes, the OpenAPI document or the internal client.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const result = await build({
  entryPoints: [path.join(here, 'client', 'editor.ts')],
  outfile: path.join(here, 'dist', 'assets', 'editor.js'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: ['es2020'],
  platform: 'browser',
  alias: { '@idv/contracts': path.join(here, '..', '..', 'packages', 'contracts', 'src', 'browser.ts') },
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs)[0]?.bytes ?? 0;
process.stdout.write(`dist/assets/editor.js: ${(bytes / 1024).toFixed(1)} KiB\n`);
