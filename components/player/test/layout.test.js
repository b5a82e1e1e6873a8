import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progress, withGraphAttributes } from '../src/layout.js';

test('the quick layout\'s attributes go at the DOT\'s end, where they win over those at its head', () => {
  const dot = 'digraph {\n  graph [rankdir=LR nslimit=5]\n  a -> b\n}\n';
  assert.equal(withGraphAttributes(dot, { nslimit: '0.5', mclimit: '0.1' }),
    'digraph {\n  graph [rankdir=LR nslimit=5]\n  a -> b\ngraph [nslimit="0.5" mclimit="0.1"]\n}');
});

test('the progress line counts the seconds to a tenth', () => {
  assert.equal(progress(1234), 'Laying out the graph… 1.2 s');
  assert.equal(progress(0), 'Laying out the graph… 0.0 s');
});
