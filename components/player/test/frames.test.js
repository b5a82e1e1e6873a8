import assert from 'node:assert/strict';
import { test } from 'node:test';
import { caption, clampFrame, emptyModel, keyFrame, landing, remember, seekModel, spoken, splitRun } from '../src/frames.js';

// three frames of a graph with two values and one op, as view/patches.py makes them: [node, data, grad, state, mark]
const patches = [
  { a: 0, o: -1, v: [[0, '2', '·', 'seen', ''], [1, '·', '·', 'seen', '']], e: [] },
  { a: 1, o: 1, v: [[1, '4', '·', 'seen', 'forward']], e: [['1_0', 'a×2']] },
  { a: 1, o: 1, v: [[1, '4', '1', 'final', 'seed']], e: [['1_0', '']], x: ['1_0'] },
];

test('a frame\'s look is every patch up to it, followed forward', () => {
  const [model, at] = seekModel(emptyModel(), -1, patches, 1);
  assert.equal(at, 1);
  assert.deepEqual(model.values, [['2', '·', 'seen', ''], ['4', '·', 'seen', 'forward']]);
  assert.equal(model.op, 1);
  assert.deepEqual(model.edges, { '1_0': 'a×2' });
  assert.deepEqual(model.lost, []);
  const [last] = seekModel(model, at, patches, 2);
  assert.deepEqual(last.values[1], ['4', '1', 'final', 'seed']);
  assert.deepEqual(last.lost, ['1_0']); // the `=` engine's thrown-away contribution, this frame only
});

test('going back starts again from nothing, so an earlier frame never shows a later value', () => {
  const [model, at] = seekModel(...seekModel(emptyModel(), -1, patches, 2), patches, 0);
  assert.equal(at, 0);
  assert.deepEqual(model.values, [['2', '·', 'seen', ''], ['·', '·', 'seen', '']]);
  assert.equal(model.op, -1);
  assert.deepEqual(model.edges, {});
});

test('a frame is kept within the pass, and not past an open question', () => {
  assert.equal(clampFrame(-3, 10), 0);
  assert.equal(clampFrame(12, 10), 9);
  assert.equal(clampFrame(7, 10, 4), 4);
  assert.equal(clampFrame(3, 10, 4), 3);
  assert.equal(clampFrame(1e6, 10), 9); // state.END, step=end: the last frame
});

test('the arrow keys step, Home and End go to the ends, other keys go nowhere', () => {
  assert.equal(keyFrame('ArrowRight', 3, 10), 4);
  assert.equal(keyFrame('ArrowLeft', 3, 10), 2);
  assert.equal(keyFrame('Home', 3, 10), 0);
  assert.equal(keyFrame('End', 3, 10), 9);
  assert.equal(keyFrame('a', 3, 10), null);
  assert.equal(keyFrame(' ', 3, 10), null); // space plays and pauses
});

test('a first run goes where its goto says, and END is the last frame', () => {
  const first = { cur: -1, lastFrame: 0, gotoId: null, n: 10 };
  assert.deepEqual(landing(first, { id: 1, frame: 7, open: true }), { frame: 7, sent: true, gotoId: 1 });
  assert.deepEqual(landing(first, { id: 1, frame: 1e6, open: true }), { frame: 9, sent: true, gotoId: 1 });
});

test('an opening goto does not move a player that shows a frame (a reconnect after a server restart)', () => {
  const shown = { cur: 5, lastFrame: 5, gotoId: 3, n: 10 };
  assert.deepEqual(landing(shown, { id: 1, frame: 0, open: true }), { frame: 5, sent: false, gotoId: 1 });
  assert.deepEqual(landing(shown, { id: 4, frame: 2, open: false }), { frame: 2, sent: true, gotoId: 4 });
  assert.deepEqual(landing(shown, { id: 3, frame: 2, open: false }), { frame: 5, sent: false, gotoId: 3 }); // obeyed
});

test('a new layout opens at the frame shown before it, within its own frames', () => {
  const drawnAnew = { cur: -1, lastFrame: 12, gotoId: 2, n: 8 };
  assert.deepEqual(landing(drawnAnew, { id: 2, frame: 0, open: false }), { frame: 7, sent: false, gotoId: 2 });
});

test('a run\'s bytes are its head, the graph (or an empty line where the page has it) and the body', () => {
  const bytes = (text) => new TextEncoder().encode(text);
  const [head, graph, body] = splitRun(bytes('{"graph":"g1"}\n{"svg":"<svg/>"}\n{"patches":[]}'));
  assert.deepEqual(head, { graph: 'g1' });
  assert.equal(graph, '{"svg":"<svg/>"}');
  assert.equal(new TextDecoder().decode(body), '{"patches":[]}');
  const [, none, rest] = splitRun(bytes('{"graph":"g1"}\n\n{"patches":[1]}'));
  assert.equal(none, null);
  assert.equal(new TextDecoder().decode(rest), '{"patches":[1]}');
});

test('a kept map holds its newest entries, one used again counting as new', () => {
  const map = new Map();
  for (const key of ['a', 'b', 'c']) remember(map, key, key.toUpperCase(), 3);
  remember(map, 'a', 'A', 3);
  remember(map, 'd', 'D', 3);
  assert.deepEqual([...map.keys()], ['c', 'a', 'd']);
});

test('the caption is the frame\'s label and what it shows', () => {
  assert.equal(caption({ labels: ['Frame 1 of 2', 'Frame 2 of 2'], captions: ['inputs', 'seed'] }, 1), 'Frame 2 of 2 · seed');
});

test('a frame is heard as its caption then each of its sums, and a frame with none as its caption alone', () => {
  assert.equal(spoken('Frame 3 of 9: b._backward() runs', ['a.grad = 0 + 3 × 1 = 3', 'b.grad = 2']),
    'Frame 3 of 9: b._backward() runs. a.grad = 0 + 3 × 1 = 3. b.grad = 2');
  assert.equal(spoken('Frame 1 of 9: the seed', []), 'Frame 1 of 9: the seed');
});
