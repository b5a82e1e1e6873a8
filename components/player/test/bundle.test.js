// The committed player.js is what esbuild makes of src/ now: the two cannot drift apart.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as esbuild from 'esbuild';
import { lessonOptions, options } from '../build.js';

test('the committed bundles are fresh builds of src/ (npm run build writes them)', async () => {
  for (const made of [options, lessonOptions]) {
    const built = await esbuild.build({ ...made, write: false });
    const [file] = built.outputFiles;
    assert.equal(file.text, readFileSync(made.outfile, 'utf8'), `${made.outfile} is stale: run npm run build in components/player`);
  }
});

test("a lesson's script is one script that nothing in an HTML page's <script> element can end early", () => {
  const text = readFileSync(lessonOptions.outfile, 'utf8');
  assert.doesNotMatch(text, /^(import|export) /m);
  assert.doesNotMatch(text, /<\/script|<!--/i);
});

test('the bundle is one ES module whose default export the component calls', async () => {
  const text = readFileSync(options.outfile, 'utf8');
  assert.match(text, /^export \{\n {2}main_default as default\n\};\n$/m);
  assert.doesNotMatch(text, /^import /m); // nothing left to fetch: the component is sent this one string
});
