// A lesson in one file's start (src/lesson.js): the run it reads back is the run the page's player is sent, its font
// bytes are the file's base64, and a view switched keeps the frame. The browser tests (tests/browser/
// test_browser_lesson.py) open real lessons in Chromium.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { splitRun } from '../src/frames.js';

const anything = () => new Proxy(function () {}, { get: (_, key) => (key === Symbol.toPrimitive ? () => 0 : anything()), apply: () => anything(), construct: () => anything() });
const saved = {};
let lesson;

before(async () => {
  for (const name of ['window', 'document']) saved[name] = globalThis[name];
  Object.assign(globalThis, { window: anything(), document: { getElementById: () => null } }); // no lesson to start
  lesson = await import('../src/lesson.js');
});
after(() => Object.assign(globalThis, saved));

test("the run the file's three blocks make is read back as the page's player reads its run", () => {
  const head = JSON.stringify({ layout: 'x', goto: { id: 1, frame: 3, open: true } });
  const graph = JSON.stringify({ svg: '<svg>→</svg>' });
  const body = JSON.stringify({ labels: ['Frame 1 of 2', 'Frame 2 of 2'], note: 'x\\u003cy ∂' });
  const [readHead, readGraph, rest] = splitRun(lesson.runOf(head, graph, body));
  assert.deepEqual(readHead, JSON.parse(head));
  assert.equal(readGraph, graph);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(rest)), JSON.parse(body));
});

test("a font's base64 is read back as its bytes", () => {
  const bytes = Uint8Array.from([0, 1, 2, 127, 128, 254, 255]);
  assert.deepEqual(new Uint8Array(lesson.bytesOf(Buffer.from(bytes).toString('base64'))), bytes);
});

test('a view switched changes that field of the head alone and keeps its goto, so the frame stays', () => {
  const head = { present: false, contrast: true, goto: { id: 1, frame: 4, open: true } };
  assert.deepEqual(lesson.switched(head, lesson.VIEWS.present), { ...head, present: true });
  assert.deepEqual(lesson.switched(head, lesson.VIEWS.contrast), { ...head, contrast: false });
  assert.equal(lesson.switched(head, 'present').goto, head.goto);
});

test("what a lesson is about folds on a phone's and a small iframe's window, not on a laptop's", () => {
  assert.equal(lesson.roomy({ innerWidth: 1280, innerHeight: 800 }), true);
  for (const [innerWidth, innerHeight] of [[390, 844], [800, 450], [320, 240]]) {
    assert.equal(lesson.roomy({ innerWidth, innerHeight }), false);
  }
});
