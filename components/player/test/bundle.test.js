// The committed player.js is what esbuild makes of src/ now: the two cannot drift apart.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { options } from '../build.js';

test('the committed bundle is a fresh build of src/ (npm run build writes it)', async () => {
  const built = await esbuild.build({ ...options, write: false });
  const [file] = built.outputFiles;
  assert.equal(file.text, readFileSync(options.outfile, 'utf8'), 'player.js is stale: run npm run build in components/player');
});

test('the bundle is one ES module whose default export the component calls', async () => {
  const text = readFileSync(options.outfile, 'utf8');
  assert.match(text, /^export \{\n {2}main_default as default\n\};\n$/m);
  assert.doesNotMatch(text, /^import /m); // nothing left to fetch: the component is sent this one string
});
