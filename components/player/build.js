// The player's modules joined into the files that carry them: player.js, the one string the component is sent
// (st.components.v2.component takes its JS as one string), src/main.js and what it imports, as an ES module; and
// lesson.js, the same modules started by src/lesson.js, as one script a lesson's file holds inline
// (exports/lesson.py). Both bundled by esbuild and committed: `npm run build` writes them, and test/bundle.test.js
// builds them afresh and checks that the committed files are the same.
import * as esbuild from 'esbuild';
import { fileURLToPath } from 'node:url';

export const here = fileURLToPath(new URL('.', import.meta.url));
export const options = {
  entryPoints: [`${here}src/main.js`],
  bundle: true,
  format: 'esm',
  charset: 'utf8',
  legalComments: 'none',
  banner: { js: '// Built by esbuild from src/ (npm run build): edit the modules there, not this file.' },
  outfile: `${here}player.js`,
  logLevel: 'warning',
};
export const lessonOptions = {
  ...options,
  entryPoints: [`${here}src/lesson.js`],
  format: 'iife',
  outfile: `${here}lesson.js`,
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await Promise.all([options, lessonOptions].map((o) => esbuild.build(o)));
