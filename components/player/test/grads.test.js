import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UNREACHABLE_WORDS, fixed, grads, pointWords, sentWords } from '../src/grads.js';

test('the box says the point the phone was handed, of how many', () => {
  assert.equal(pointWords({ point: 3, of: 20 }), 'Your point: 3 of 20. Step through its pass, then send its grads to the class.');
});

test('a share the room took says its point and each grad it adds, in 4 decimals with a true minus', () => {
  assert.equal(fixed(-10.99681), '−10.9968');
  assert.equal(fixed(6.96), '6.9600');
  assert.equal(sentWords({ point: 3, grads: { w: -10.99681, b: 6.96 } }),
    'Sent ✓ point 3: w.grad += −10.9968, b.grad += 6.9600. The projector adds every phone’s; its step brings the new parameters.');
});

function player(scenario) {
  return Object.assign(Object.create(grads), {
    classRoom: { api: '/api/class/K7QXM' }, student: 'ana.signed', scenario: () => scenario,
  });
}

test('send posts the phone’s id and the scenario it shows, never a number, and says what the room took', async (t) => {
  t.after(() => delete globalThis.fetch);
  const posted = [];
  globalThis.fetch = async (url, options) => {
    posted.push([url, JSON.parse(options.body)]);
    return { ok: true, json: async () => ({ point: 2, grads: { w: 1.5 }, loss: 0.25 }) };
  };
  const said = { textContent: '', className: '' };
  await player({ expr: 'regression', 'v.w': '0.5' }).sendGrads(said);
  assert.deepEqual(posted, [['/api/class/K7QXM/grads', { student: 'ana.signed', scenario: { expr: 'regression', 'v.w': '0.5' } }]]);
  assert.equal(said.textContent, sentWords({ point: 2, grads: { w: 1.5 } }));
  assert.equal(said.className, 'said right');
});

test('a refusal is said in the server’s words, and a lost network asks to send again', async (t) => {
  t.after(() => delete globalThis.fetch);
  const said = { textContent: '', className: '' };
  globalThis.fetch = async () => ({ ok: false, json: async () => ({ error: 'The class has taken its step since.' }) });
  await player({}).sendGrads(said);
  assert.deepEqual([said.textContent, said.className], ['The class has taken its step since.', 'said bad']);
  globalThis.fetch = async () => { throw new TypeError('network'); };
  await player({}).sendGrads(said);
  assert.equal(said.textContent, UNREACHABLE_WORDS);
});
