import assert from 'node:assert/strict';
import { test } from 'node:test';
import { edgeHot, labelLines, numberLooks, pngScale, svgSize } from '../src/draw.js';

test('a laid-out graph\'s size at 100 % is its viewBox, from pt to px', () => {
  assert.deepEqual(svgSize('<svg width="300pt" viewBox="0.00 0.00 300.00 150.00" xmlns="...">'), { width: 400, height: 200 });
});

test('a number is faint while not computed, marked where not finite, and asked where the class works it out', () => {
  assert.deepEqual(numberLooks('  ·  '), { faint: true, notFinite: false, asked: false });
  assert.deepEqual(numberLooks(' −inf'), { faint: false, notFinite: true, asked: false });
  assert.deepEqual(numberLooks('nan '), { faint: false, notFinite: true, asked: false });
  assert.deepEqual(numberLooks('  ? '), { faint: false, notFinite: false, asked: true });
  assert.deepEqual(numberLooks('-2.5000'), { faint: false, notFinite: false, asked: false });
});

test('an edge label fills its lines, and empties those it does not have', () => {
  assert.deepEqual(labelLines('2.0 × 1.0\n\n+= 2.0', 3), ['2.0 × 1.0', '', '+= 2.0']);
  assert.deepEqual(labelLines('one', 3), ['one', '', '']);
  assert.deepEqual(labelLines('a\nb\nc', 0), []); // a shape without labels: the edge's point has no text
});

test('an edge is hot while it carries a contribution the frame keeps', () => {
  assert.equal(edgeHot('2.0 × 1.0', false), true);
  assert.equal(edgeHot('2.0 × 1.0', true), false); // the `=` engine throws it away
  assert.equal(edgeHot('', false), false);
});

test('a frame\'s PNG is twice its size, smaller for a graph past 40 Mpx or 16,384 px a side', () => {
  assert.equal(pngScale(1000, 500), 2);
  assert.equal(pngScale(8000, 5000), 1);
  assert.equal(pngScale(20000, 100), 16384 / 20000);
});
