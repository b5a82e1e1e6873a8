// The player's modules joined into the one file the component is sent (st.components.v2.component takes its JS as
// one string): src/main.js and what it imports, bundled by esbuild into player.js, which is committed.
// `npm run build` writes it; test/bundle.test.js builds it afresh and checks that the committed file is the same.
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

if (process.argv[1] === fileURLToPath(import.meta.url)) await esbuild.build(options);
