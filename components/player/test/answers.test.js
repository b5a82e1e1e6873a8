import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SENT_WORDS, answers, answersOf, flipSign, number, questionCaption, verdictLine } from '../src/answers.js';

test('a number is written with up to 4 decimals and a true minus sign', () => {
  assert.equal(number(-0.5), '−0.5');
  assert.equal(number(2), '2');
  assert.equal(number(1 / 3), '0.3333');
  assert.equal(number(12345.678), '12345.678'); // no grouping
  assert.equal(number('-4'), '−4');
});

test('the ± button changes an answer\'s sign', () => {
  assert.equal(flipSign(' 2.5 '), '-2.5');
  assert.equal(flipSign('-2.5'), '2.5');
  assert.equal(flipSign(''), '-');
});

test('the answers sent are the boxes typed in, trimmed', () => {
  assert.deepEqual(answersOf([['0', ' 2 '], ['1', '  '], ['3', '-1']]), { 0: '2', 3: '-1' });
  assert.deepEqual(answersOf([['0', '']]), {});
});

test('a revealed answer says right or wrong, the right grad, what was said, and why', () => {
  assert.deepEqual(verdictLine({ group: 'right', label: 'a.grad', right: -3, answer: '-3' }), ['right', '✓ a.grad = −3 (you said −3)']);
  assert.deepEqual(verdictLine({ group: 'sign', label: 'b.grad', right: 2, answer: '-2', says: 'the sign is flipped' }),
    ['wrong', '✗ b.grad = 2 (you said −2) · the sign is flipped']);
  assert.deepEqual(verdictLine({ group: 'none', label: 'c.grad', right: 0.25, answer: null, says: 'x' }),
    ['wrong', '✗ c.grad = 0.25 (you did not answer)']);
});

test('a question\'s frame, before the reveal, asks in its caption', () => {
  const question = { id: 2, asked: [{ node: '0', label: 'a.grad' }, { node: '1', label: 'b.grad' }] };
  assert.equal(questionCaption('Frame 7 of 10', question), 'Frame 7 of 10 · Question 2: a.grad, b.grad after this _backward?');
});

test('only an open question holds the player at its frame', () => {
  const asking = (question) => answers.asking.call({ question });
  assert.equal(asking(null), false);
  assert.equal(asking({ frame: 4, revealed: false }), true);
  assert.equal(asking({ frame: 4, revealed: true }), false);
});

// a question's boxes as showSent sees them, and a server that answers the phone's own answer with `mine`
function boxes(values, mine) {
  const inputs = Object.entries(values).map(([node, value]) => ({ dataset: { node }, value }));
  const fetched = [];
  globalThis.fetch = async (url) => { fetched.push(url); return { ok: true, json: async () => mine }; };
  const player = { ...answers, classRoom: { api: '/api/class/K7QXM' }, student: 'ana.signed' };
  return [player, { querySelectorAll: () => inputs }, { textContent: '' }, inputs, fetched];
}

test('a reloaded phone shows the answer it sent, in its boxes and as sent', async (t) => {
  t.after(() => delete globalThis.fetch);
  const [player, form, said, inputs, fetched] = boxes({ 2: '', 5: '' }, { question: 3, answers: { 2: -0.5 } });
  await player.showSent({ id: 3 }, form, said);
  assert.deepEqual(fetched, ['/api/class/K7QXM/answer?student=ana.signed']);
  assert.deepEqual(inputs.map((i) => i.value), ['−0.5', '']);
  assert.equal(said.textContent, SENT_WORDS);
});

test('an answer sent to another question, none, or boxes typed in meanwhile are left alone', async (t) => {
  t.after(() => delete globalThis.fetch);
  for (const [values, mine] of [[{ 2: '' }, { question: 2, answers: { 2: 6 } }], [{ 2: '' }, { question: 3, answers: null }],
    [{ 2: '7' }, { question: 3, answers: { 2: 6 } }]]) {
    const [player, form, said, inputs] = boxes(values, mine);
    await player.showSent({ id: 3 }, form, said);
    assert.deepEqual(inputs.map((i) => i.value), Object.values(values));
    assert.equal(said.textContent, '');
  }
});
