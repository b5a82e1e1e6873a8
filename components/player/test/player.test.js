// The class that composes the concerns: each concern's methods are its own, and every field is declared in the
// constructor (it seals the player: a method that sets another field throws). The page itself is a stand-in here
// that takes any call; the browser tests (tests/browser/) run the player in Chromium.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { address } from '../src/address.js';
import { answers } from '../src/answers.js';
import { drawing } from '../src/draw.js';
import { layingOut } from '../src/layout.js';
import { live } from '../src/live.js';
import { viewport } from '../src/viewport.js';

// anything at all: every property is another, every call returns one
const anything = () => new Proxy(function () {}, { get: (_, key) => (key === Symbol.toPrimitive ? () => 0 : anything()), apply: () => anything(), construct: () => anything() });
const saved = {};
let Player;

before(async () => {
  for (const name of ['window', 'document', 'ResizeObserver', 'setInterval']) saved[name] = globalThis[name];
  Object.assign(globalThis, { window: anything(), document: anything(), ResizeObserver: anything(), setInterval: () => 0 });
  ({ Player } = await import('../src/player.js'));
});
after(() => Object.assign(globalThis, saved));

const concerns = { address, answers, drawing, layingOut, live, viewport };

test('no two concerns define the same method, nor one the class defines itself', () => {
  const own = Object.getOwnPropertyNames(Player.prototype).filter((name) => !Object.values(concerns).some((c) => name in c));
  const seen = new Map(own.map((name) => [name, 'Player']));
  for (const [concern, methods] of Object.entries(concerns)) {
    for (const name of Object.keys(methods)) {
      assert.ok(!seen.has(name), `${name} is in ${concern} and ${seen.get(name)}`);
      seen.set(name, concern);
      assert.equal(Player.prototype[name], methods[name]);
    }
  }
});

test('a player\'s fields are all declared in its constructor: setting another throws', () => {
  const player = new Player(anything());
  assert.ok(Object.isSealed(player));
  assert.throws(() => { player.undeclared = 1; }, TypeError);
  player.speed = 8; // a declared one, as tests and the page's runs set it
  assert.equal(player.speed, 8);
  assert.equal(player.cur, -1); // before the first frame
});

test('every field a method sets is declared in the constructor (the sealed player would throw at the page)', () => {
  const player = new Player(anything());
  const methods = [...Object.values(concerns).flatMap((c) => Object.entries(c)),
    ...Object.getOwnPropertyNames(Player.prototype).map((name) => [name, Player.prototype[name]])];
  for (const [method, f] of methods.filter(([, f]) => typeof f === 'function')) {
    for (const [, name] of f.toString().matchAll(/\bthis\.([A-Za-z_$][\w$]*)\s*(?:=(?!=)|\+=|-=|\+\+|--)/g)) {
      assert.ok(Object.hasOwn(player, name), `${method} sets this.${name}, which the constructor does not declare`);
    }
  }
});

test('a player tells the page once a session that its graph is painted, after the next paint', () => {
  const told = [];
  const waiting = [];
  const saved = { requestAnimationFrame: globalThis.requestAnimationFrame, setTimeout: globalThis.setTimeout };
  Object.assign(globalThis, { requestAnimationFrame: (f) => waiting.push(['frame', f]), setTimeout: (f) => waiting.push(['task', f]) });
  try {
    const player = new Player(anything());
    player.component = { setTriggerValue: (name, value) => told.push([name, value]) };
    const run = () => { while (waiting.length) waiting.shift()[1](); };
    player.tellPainted('s1');
    assert.deepEqual(told, []); // not before the frame is painted
    assert.equal(waiting[0][0], 'frame');
    run();
    assert.deepEqual(told, [['painted', 's1']]);
    player.tellPainted('s1'); // the same session's later runs
    player.tellPainted(null); // a session already told sends no name
    run();
    assert.deepEqual(told, [['painted', 's1']]);
    player.tellPainted('s2'); // the page reconnected to a new session (a server restart): told again
    run();
    assert.deepEqual(told, [['painted', 's1'], ['painted', 's2']]);
  } finally {
    Object.assign(globalThis, saved);
  }
});
