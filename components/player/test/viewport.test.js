import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  along, barIntoWindow, boxIntoWindow, chooseShape, EDGE_PX, floorFor, MIN_TEXT_PX, MOST, NARROW_PX, pageScaleOf,
  PHONE_TEXT_PX, readableScaleOf, rowScroll, scrollToSee, swipeStep, TEXT_PX,
} from '../src/viewport.js';

const box = (left, top, right, bottom) => ({ left, top, right, bottom });

test('a phone reads smaller numbers than a laptop or a projector', () => {
  assert.equal(floorFor(NARROW_PX), PHONE_TEXT_PX);
  assert.equal(floorFor(NARROW_PX + 1), MIN_TEXT_PX);
});

test('the page\'s view keeps micrograd\'s wide shape while it shows the graph whole and readable', () => {
  const sizes = { wide: { width: 1000, height: 300 }, tall: { width: 400, height: 700 } };
  const [shape, px] = chooseShape(sizes, 1000, 800, false, MIN_TEXT_PX);
  assert.equal(shape, 'wide'); // the tall one would show larger numbers, but the wide one has the chain rule on its edges
  assert.equal(px, TEXT_PX);
});

test('a graph too wide to read whole takes the shape that shows its numbers largest', () => {
  const sizes = { wide: { width: 3000, height: 300 }, tall: { width: 600, height: 900 }, square: { width: 900, height: 900 } };
  const [shape, px] = chooseShape(sizes, 800, 900, false, MIN_TEXT_PX);
  assert.equal(shape, 'tall');
  assert.ok(px >= MIN_TEXT_PX);
  // none readable whole: the one that needs the least scrolling
  assert.equal(chooseShape(sizes, 300, 300, false, MIN_TEXT_PX)[0], 'tall');
});

test('the presentation view takes a later shape only for numbers 10 % larger', () => {
  const sizes = { wide: { width: 1000, height: 500 }, tall: { width: 960, height: 480 } };
  assert.equal(chooseShape(sizes, 1000, 500, true, MIN_TEXT_PX)[0], 'wide'); // 4 % larger: not worth the change
  const bigger = { wide: { width: 1000, height: 500 }, tall: { width: 800, height: 400 } };
  assert.equal(chooseShape(bigger, 1000, 500, true, MIN_TEXT_PX)[0], 'tall');
});

test('the page\'s zoom fills the view, but never blows a graph up past MOST nor shrinks it under the floor', () => {
  assert.equal(pageScaleOf(0.9, 1.2, MIN_TEXT_PX), 0.9);
  assert.equal(pageScaleOf(3, 2, MIN_TEXT_PX), MOST);
  assert.equal(pageScaleOf(0.2, 0.3, MIN_TEXT_PX), MIN_TEXT_PX / TEXT_PX);
  assert.equal(readableScaleOf(916, 1000, PHONE_TEXT_PX), 0.9); // the view's height, less the scrollbar's 16 px
  assert.equal(readableScaleOf(516, 1000, MIN_TEXT_PX), MIN_TEXT_PX / TEXT_PX); // never under the floor
  assert.equal(readableScaleOf(2016, 1000, MIN_TEXT_PX), 1); // as tall as the view, up to its natural size
});

test('a box in sight is not scrolled to; one out of sight comes to the middle', () => {
  assert.equal(along(10, 50, 0, 100), 0);
  assert.equal(along(150, 170, 0, 100), 110); // its middle, 160, to the view's, 50
  assert.equal(along(-40, -20, 0, 100), -80);
});

test('the view keeps the active node in sight with its inputs and what it feeds, where they fit', () => {
  const view = box(0, 0, 500, 400);
  const active = box(600, 100, 700, 150), input = box(450, 100, 550, 150), output = box(800, 100, 900, 150);
  // all three fit in 500 px: their middle (675) to the view's (250)
  assert.deepEqual(scrollToSee(active, [input], [output], view, 500, 400), [425, 0]);
  // the inputs are far: the node and what it feeds
  const far = box(0, 100, 100, 150);
  assert.deepEqual(scrollToSee(active, [far], [output], view, 500, 400), [500, 0]);
  // nothing fits beside it: the node alone
  assert.deepEqual(scrollToSee(active, [far], [box(1500, 100, 1600, 150)], view, 500, 400), [400, 0]);
  // the node and its neighbours in sight already: no scroll
  assert.deepEqual(scrollToSee(box(100, 100, 200, 150), [box(0, 100, 90, 150)], [], view, 500, 400), [0, 0]);
});

test('a wide screen scrolls the page only for a node out of the window, EDGE_PX inside its edge', () => {
  assert.equal(boxIntoWindow(box(0, 200, 100, 300), 60, 800), 0);
  assert.equal(boxIntoWindow(box(0, 850, 100, 900), 60, 800), 100 + EDGE_PX);
  assert.equal(boxIntoWindow(box(0, 10, 100, 40), 60, 800), 10 - 60 - EDGE_PX);
  assert.equal(boxIntoWindow(box(0, 300, 100, 1200), 60, 800), 300 - 60 - EDGE_PX); // taller than the window: its top
});

test('a phone brings the bar and the graph into the window together, or the graph alone', () => {
  assert.equal(barIntoWindow(100, 150, 600, 0, 700), 0); // both in the window
  assert.equal(barIntoWindow(300, 350, 900, 0, 700), 200); // the graph's end to the window's bottom
  assert.equal(barIntoWindow(-50, 0, 500, 0, 700), -50); // the bar back into the window
  assert.equal(barIntoWindow(100, 200, 1000, 0, 700), 200); // too tall together: the graph from its top
});

test('a swipe steps once it moves SWIPE_PX sideways, more sideways than down; to the left, the next frame', () => {
  assert.equal(swipeStep(-80, 10), 1);
  assert.equal(swipeStep(80, 10), -1);
  assert.equal(swipeStep(-30, 0), 0);
  assert.equal(swipeStep(-80, 50), 0);
});

test('the node table scrolls only for a row out of sight, bringing it to the middle', () => {
  assert.equal(rowScroll(100, 20, 30, 0, 300), null);
  assert.equal(rowScroll(500, 20, 30, 0, 300), 500 - 30 - (300 - 30 - 20) / 2);
  assert.equal(rowScroll(40, 20, 30, 100, 300), 40 - 30 - (300 - 30 - 20) / 2); // above, under the head
});
