import assert from 'node:assert/strict';
import { test } from 'node:test';
import { address, linkNotice, linkWithStep, stepParam, URL_EVERY_MS, urlWait } from '../src/address.js';

test('a frame is written as its number, and the last as end, which a link keeps whatever the count', () => {
  assert.equal(stepParam(0, 10), '0');
  assert.equal(stepParam(7, 10), '7');
  assert.equal(stepParam(9, 10), 'end');
});

test('the link keeps its other parameters and gets the step', () => {
  const href = linkWithStep('https://host/app?expr=reuse&v.a=3', 4, 10);
  assert.equal(href, 'https://host/app?expr=reuse&v.a=3&step=4');
  assert.equal(linkWithStep('https://host/?expr=reuse&step=2&v.a=3', 9, 10), 'https://host/?expr=reuse&step=end&v.a=3');
});

test('a link that has the frame already is not written again', () => {
  assert.equal(linkWithStep('https://host/?expr=reuse&step=4', 4, 10), null);
  assert.equal(linkWithStep('https://host/?step=end', 9, 10), null);
});

test('the address bar is written at most every URL_EVERY_MS', () => {
  assert.equal(urlWait(1000, 1100), URL_EVERY_MS - 100);
  assert.equal(urlWait(1000, 5000), 0);
});

test('a link the server drops unread is said so, by its count or its length', () => {
  assert.equal(linkNotice('?expr=reuse&step=3'), null);
  const many = `?${Array.from({ length: 1001 }, (_, i) => `p${i}=1`).join('&')}`;
  assert.equal(linkNotice(many), 'This link has 1001 parameters, more than the 1,000 the server reads, so none of it was read: the page opened with its defaults.');
  const long = `?expr=${'x'.repeat(512 * 1024)}`;
  assert.match(linkNotice(long), /^This link has 524,293 characters, more than the 512 Ki the server reads/);
});

test('the player writes the frame shown into the address bar in place, never for no frame', () => {
  const replaced = [];
  globalThis.window = {
    location: { href: 'https://host/?expr=reuse' },
    history: { state: { kept: true }, replaceState: (...args) => replaced.push(args) },
  };
  try {
    const player = { cur: -1, n: 10, urlWritten: 0, ...address };
    player.writeUrl();
    assert.deepEqual(replaced, []);
    player.cur = 3;
    player.writeUrl();
    assert.deepEqual(replaced, [[{ kept: true }, '', 'https://host/?expr=reuse&step=3']]);
    assert.ok(player.urlWritten > 0);
  } finally {
    delete globalThis.window;
  }
});
