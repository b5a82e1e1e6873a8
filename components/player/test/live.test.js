import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BACK_WORDS, STEP_LANDED_WORDS, STEP_SLOW_MS, STEP_SLOW_WORDS, classLink, followingWords, isStudentId, live, lostWords, retryDelay, sameScenario,
  scenarioOf,
} from '../src/live.js';
import { readFileSync } from 'node:fs';

// the form of a student's signed id, as the page hands it to the player: server/rooms.py's STUDENT
const STUDENT = readFileSync(new URL('../../../server/rooms.py', import.meta.url), 'utf8').match(/^STUDENT = re\.compile\(r'(.*)'\)$/m)[1];
const SIGNED = `${'a'.repeat(15)}_.${'B'.repeat(21)}-`; // in the form the server signs (whether it signed it is the server's to say)

const PRIVATE = ['step', 'class', 'present', 'embed'];

test('a page\'s scenario is its link without the frame, the class and the lecturer\'s own view', () => {
  assert.deepEqual(scenarioOf('?expr=reuse&v.a=3&step=7&class=ABCD&present=1', PRIVATE), { expr: 'reuse', 'v.a': '3' });
});

test('scenarios are the same with the same values in any order, and differ in any value or name', () => {
  assert.ok(sameScenario({ expr: 'reuse', 'v.a': '3' }, { 'v.a': '3', expr: 'reuse' }));
  assert.ok(!sameScenario({ expr: 'reuse', 'v.a': '3' }, { expr: 'reuse', 'v.a': '2' }));
  assert.ok(!sameScenario({ expr: 'reuse' }, { expr: 'reuse', 'v.a': '3' }));
});

test('a student sent to the class\'s scenario keeps their own work', () => {
  const room = { code: 'ABCD', own: ['code.add'] };
  const held = { scenario: { expr: 'neuron', mode: 'code' }, frame: 5 };
  const link = classLink('/app', '?expr=reuse&code.add=self.grad%2B%3D1&step=2', room, held);
  assert.equal(link, '/app?class=ABCD&expr=neuron&mode=code&code.add=self.grad%2B%3D1&step=5');
});

test('a kept student id is used only in the form the server signs, whole', () => {
  assert.ok(isStudentId(SIGNED, STUDENT));
  for (const kept of ['abc_DEF-12', 'kept-id-0001', null, '', `${SIGNED}x`, `x${SIGNED}`, SIGNED.replace('.', '-'), 'has space in it']) {
    assert.ok(!isStudentId(kept, STUDENT), kept);
  }
});

test('the follow button says following, or how to rejoin', () => {
  assert.deepEqual(followingWords(true), ['● Following', ' the class', '● Following the class']);
  assert.equal(followingWords(false)[0], '↺ Rejoin');
});

// a follower's player as toClass sees it: the frame shown, the class's state, and what it did
function follower(search, classState) {
  const did = [];
  globalThis.window = { location: { search, pathname: '/app', assign: (to) => did.push(['assign', to]) } };
  const player = {
    ...live, classState, body: {}, cur: 2, following: true,
    classRoom: { code: 'ABCD', follow: true, private: PRIVATE, own: [] },
    go: (k) => did.push(['go', k]), keepInSight: () => did.push(['keepInSight']),
    showFollowing: () => {},
  };
  return [player, did];
}

test('a follower on the class\'s scenario goes to the lecturer\'s frame in place, and keeps it in sight', (t) => {
  t.after(() => delete globalThis.window);
  const [player, did] = follower('?expr=reuse&class=ABCD&step=2', { scenario: { expr: 'reuse' }, frame: 6 });
  player.toClass();
  assert.deepEqual(did, [['go', 6], ['keepInSight']]);
});

test('a follower on another scenario opens the class\'s link', (t) => {
  t.after(() => delete globalThis.window);
  const [player, did] = follower('?expr=reuse&class=ABCD', { scenario: { expr: 'chain' }, frame: 3 });
  player.toClass();
  assert.deepEqual(did, [['assign', '/app?class=ABCD&expr=chain&step=3']]);
});

test('a follower who steps on their own stops following until they rejoin, then goes to the class\'s frame', (t) => {
  t.after(() => delete globalThis.window);
  const [player, did] = follower('?expr=reuse&class=ABCD', { scenario: { expr: 'reuse' }, frame: 6 });
  player.onOwn();
  assert.equal(player.following, false);
  assert.deepEqual(did, []);
  player.setFollowing(true);
  assert.deepEqual(did, [['go', 6], ['keepInSight']]);
});

// a follower's page with a stand-in EventSource, and a server that answers each fetch with `answers` in turn
function followerOf(answers, kept = SIGNED) {
  const said = [];
  const sources = [];
  const stored = { 'backprop-class-K7QXM': kept };
  const fetched = [];
  class FakeEventSource {
    static CLOSED = 2;
    constructor(url) { this.url = url; this.readyState = 1; this.listeners = {}; sources.push(this); }
    addEventListener(name, f) { this.listeners[name] = f; }
    close() { this.readyState = FakeEventSource.CLOSED; }
  }
  Object.assign(globalThis, {
    window: { localStorage: { getItem: (k) => stored[k] ?? null, setItem: (k, v) => { stored[k] = v; }, removeItem: (k) => { delete stored[k]; } } },
    EventSource: FakeEventSource,
    fetch: async (url, init) => { fetched.push([init?.method || 'GET', url]); return answers.shift(); },
  });
  const player = {
    ...live, classRoom: null, classState: null, following: true, followed: false, events: null, component: null, roomTurn: 0, joinedAgain: false,
    noticeBox: {}, followButton: {}, setQuestion: () => {}, showGradsBox: () => {}, showFollowing: () => {}, keepLead: () => {}, postStep: () => {},
    toClass: () => {}, tellClass: (m) => said.push(['tell', m]), leaveClass: (m) => said.push(['leave', m]),
  };
  return [player, sources, said, stored, fetched];
}

const ROOM = { code: 'K7QXM', follow: true, api: '/api/class/K7QXM', own: [], private: [], student: STUDENT };
const notFound = { ok: false, status: 404, json: async () => ({ error: 'No class has the code K7QXM: check it against the projector.' }) };
const realSetTimeout = globalThis.setTimeout; // the tests below put a clock of their own in its place
const settle = () => new Promise((done) => realSetTimeout(done, 0));

test('a page that followed a class the server then cannot find says it was lost, not that its code is wrong', async (t) => {
  t.after(() => { delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const [player, sources, said] = followerOf([notFound]);
  player.joinRoom(ROOM);
  sources[0].onmessage({ data: JSON.stringify({ version: 3, scenario: {}, frame: 2, question: null }) });
  sources[0].readyState = 2; // the stream ended, and no answer is a stream now (Redis restarted with no rooms)
  sources[0].onerror();
  await settle();
  assert.deepEqual(said, [['leave', lostWords('K7QXM')]]);
  assert.match(lostWords('K7QXM'), /^The class K7QXM is no longer on the server: ask your lecturer for its new code/);
});

test('a page that never had an event of the class says what the server says of its code', async (t) => {
  t.after(() => { delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const [player, sources, said] = followerOf([notFound]);
  player.joinRoom(ROOM);
  sources[0].readyState = 2;
  sources[0].onerror();
  await settle();
  await settle();
  assert.deepEqual(said, [['leave', 'No class has the code K7QXM: check it against the projector.']]);
});

// a clock the test moves: setTimeout and clearTimeout on it, and `advance(ms)` runs what falls due, in order
function fakeClock() {
  let now = 0;
  const timers = new Map();
  let next = 1;
  const clock = {
    setTimeout: (f, ms = 0) => { timers.set(next, { f, at: now + ms }); return next++; },
    clearTimeout: (id) => timers.delete(id),
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        await settle();
        const due = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].f();
      }
      now = until;
      await settle();
    },
  };
  return clock;
}

test('a lecturer\'s step the store cannot take is sent again until it lands, and the lecturer is told both', async (t) => {
  const saved = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, fetch: globalThis.fetch };
  t.after(() => Object.assign(globalThis, saved));
  const clock = fakeClock();
  let stalled;
  const answers = [new Promise((done) => { stalled = done; }), { ok: false, status: 503 }, { ok: true, status: 200 }];
  const posts = [];
  Object.assign(globalThis, {
    setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout,
    fetch: (url, init) => { posts.push([url, init.body, init.headers['X-Class-Secret']]); return Promise.resolve(answers.shift()); },
  });
  const said = [];
  const player = {
    ...live, classRoom: { lead: true, api: '/api/class/K7QXM', secret: 's3cret' }, posted: '{"frame":5}',
    classNotice: false, tellClass(m) { this.classNotice = true; said.push(['tell', m]); }, tellBack: (m) => said.push(['back', m]),
  };
  player.sendStep('{"frame":5}', 0); // Redis stalls: the post hangs
  await clock.advance(STEP_SLOW_MS - 1);
  assert.deepEqual(said, []);
  await clock.advance(1);
  assert.deepEqual(said, [['tell', STEP_SLOW_WORDS]]); // told within the 5 s
  stalled({ ok: false, status: 503 }); // the replica gave up on the store
  await settle();
  await clock.advance(retryDelay(0)); // sent again: refused again
  await clock.advance(retryDelay(1)); // and again: it lands
  assert.equal(posts.length, 3);
  assert.ok(posts.every(([url, body, secret]) => url === '/api/class/K7QXM/step' && body === '{"frame":5}' && secret === 's3cret'));
  assert.deepEqual(said, [['tell', STEP_SLOW_WORDS], ['back', STEP_LANDED_WORDS]]);
  await clock.advance(60_000);
  assert.equal(posts.length, 3); // nothing more once it landed
});

test('a step replaced by a newer one while it was being sent again is given up for the newer', async (t) => {
  const saved = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout, fetch: globalThis.fetch };
  t.after(() => Object.assign(globalThis, saved));
  const clock = fakeClock();
  const posts = [];
  Object.assign(globalThis, {
    setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout,
    fetch: (url, init) => { posts.push(init.body); return Promise.resolve({ ok: false, status: 503 }); },
  });
  const player = { ...live, classRoom: { lead: true, api: '/a', secret: 's' }, posted: '{"frame":5}', classNotice: false,
    tellClass() { this.classNotice = true; }, tellBack() {} };
  player.sendStep('{"frame":5}', 0);
  await clock.advance(100);
  player.posted = '{"frame":6}'; // the lecturer stepped on
  await clock.advance(10_000);
  assert.deepEqual(posts, ['{"frame":5}']); // frame 5 was not sent again: frame 6 is the one to land
});

test('a phone says when the class is out of reach, and that it is back when the class\'s frame comes again', async (t) => {
  t.after(() => { delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const [player, sources, said] = followerOf([]);
  player.tellClass = function (m) { this.classNotice = true; said.push(['tell', m]); };
  player.tellBack = (m) => said.push(['back', m]);
  player.joinRoom(ROOM);
  const state = { data: JSON.stringify({ version: 3, scenario: {}, frame: 2, question: null }) };
  sources[0].onmessage(state);
  assert.deepEqual(said, []);
  sources[0].listeners.away({ data: JSON.stringify({ message: 'The class cannot be reached just now: try again in a moment.' }) });
  sources[0].onmessage(state); // the same state again: the server says the class is back
  assert.deepEqual(said, [['tell', 'The class cannot be reached just now: try again in a moment.'], ['back', BACK_WORDS]]);
  assert.equal(player.classNotice, false);
});

const reply = (status, body, headers = {}) => ({
  ok: status === 200, status, json: async () => body, headers: { get: (name) => headers[name] ?? null }, body: { cancel: () => {} },
});

test('a new phone asks the server for its id, keeps it for the room, and follows under it', async (t) => {
  t.after(() => { delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const [player, sources, said, stored, fetched] = followerOf([reply(200, { student: SIGNED })], null);
  player.joinRoom(ROOM);
  await settle();
  assert.deepEqual(fetched, [['POST', '/api/class/K7QXM/join']]);
  assert.equal(stored['backprop-class-K7QXM'], SIGNED);
  assert.equal(sources.length, 1);
  assert.equal(sources[0].url, `/api/class/K7QXM/events?student=${encodeURIComponent(SIGNED)}`);
  assert.deepEqual(said, []);
});

test('a phone that kept its id follows under it at once, with no new join', (t) => {
  t.after(() => { delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const [player, sources, , , fetched] = followerOf([]);
  player.joinRoom(ROOM);
  assert.deepEqual(fetched, []);
  assert.equal(sources[0].url, `/api/class/K7QXM/events?student=${encodeURIComponent(SIGNED)}`);
});

test('a join refused for now is said and tried again after the server\'s wait; one refused for good is said', async (t) => {
  const saved = { setTimeout: globalThis.setTimeout };
  t.after(() => { Object.assign(globalThis, saved); delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const clock = fakeClock();
  const many = 'Many phones have joined from this network just now: joining again in 12 s.';
  const [player, sources, said] = followerOf([
    reply(429, { error: many }, { 'Retry-After': '12' }),
    reply(503, { error: 'The class cannot be reached just now: try again in a moment.' }),
    reply(200, { student: SIGNED }),
  ], null);
  globalThis.setTimeout = clock.setTimeout;
  player.joinRoom(ROOM);
  await clock.advance(11_999);
  assert.deepEqual(said, [['tell', many]]);
  await clock.advance(1); // the server's wait is over: the store is away, said, and tried 3 s later
  assert.equal(sources.length, 0);
  await clock.advance(3_000);
  assert.equal(sources.length, 1);
  assert.deepEqual(said.map(([how]) => how), ['tell', 'tell']);

  const shut = 'The class K7QXM takes no new students now: ask your lecturer to open it again.';
  const [other, otherSources, otherSaid] = followerOf([reply(409, { error: shut })], null);
  other.joinRoom(ROOM);
  await clock.advance(60_000);
  assert.deepEqual(otherSaid, [['leave', shut]]);
  assert.equal(otherSources.length, 0);
});

test('a page that leaves the room while its join waits joins nothing', async (t) => {
  const saved = { setTimeout: globalThis.setTimeout };
  t.after(() => { Object.assign(globalThis, saved); delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const clock = fakeClock();
  const [player, sources, , , fetched] = followerOf([reply(429, { error: 'wait' }, { 'Retry-After': '5' }), reply(200, { student: SIGNED })], null);
  globalThis.setTimeout = clock.setTimeout;
  player.joinRoom(ROOM);
  await clock.advance(1_000);
  player.joinRoom(null);
  await clock.advance(60_000);
  assert.equal(fetched.length, 1);
  assert.equal(sources.length, 0);
});

test('a kept id the server no longer knows is dropped, and the phone joins again once', async (t) => {
  t.after(() => { delete globalThis.window; delete globalThis.EventSource; delete globalThis.fetch; });
  const lost = 'This page lost its place in the class: open the join link again.';
  const fresh = `${'z'.repeat(16)}.${'Y'.repeat(22)}`;
  const [player, sources, said, stored, fetched] = followerOf([reply(403, { error: lost }), reply(200, { student: fresh })]);
  player.joinRoom(ROOM);
  sources[0].readyState = 2; // refused: the server did not sign this id (its store lost the key)
  sources[0].onerror();
  for (let i = 0; i < 5; i++) await settle();
  assert.deepEqual(fetched.map(([how]) => how), ['GET', 'POST']);
  assert.equal(stored['backprop-class-K7QXM'], fresh);
  assert.equal(sources[1].url, `/api/class/K7QXM/events?student=${fresh}`);
  assert.deepEqual(said, []);
});

test('a lecturer\'s page hands its class back once a session, with no click, until the class is ended', (t) => {
  t.after(() => { delete globalThis.window; });
  const storage = {};
  globalThis.window = { sessionStorage: { getItem: (k) => storage[k] ?? null, setItem: (k, v) => { storage[k] = v; }, removeItem: (k) => { delete storage[k]; } } };
  const offered = [];
  const player = { ...live, leadOffered: null, head: { present: true, session: 's1' }, component: { setStateValue: (k, v) => offered.push([k, v]) } };
  const room = { code: 'K7QXM', secret: 's3cret', lead: true };
  player.keepLead(room, null); // leading: kept in this tab
  player.head = { present: true, session: 's2' }; // its replica died: the websocket reconnected to a new session
  player.keepLead(null, null);
  player.keepLead(null, null); // the session's later runs
  assert.deepEqual(offered, [['lead', { code: 'K7QXM', secret: 's3cret', session: 's2' }]]);
  player.head = { present: true }; // painted: the head names no session, and nothing more is offered
  player.keepLead(null, null);
  assert.equal(offered.length, 1);
  player.keepLead(room, null); // led again
  player.keepLead(null, room); // End the class
  player.head = { present: true, session: 's3' };
  player.keepLead(null, null);
  assert.equal(offered.length, 1);
  player.head = { present: false, session: 's4' }; // and a page that is not the projector is offered nothing
  storage['backprop-class-lead'] = JSON.stringify({ code: 'K7QXM', secret: 's3cret' });
  player.keepLead(null, null);
  assert.equal(offered.length, 1);
});

test('the page is told the student\'s id only once the run after the graph\'s paint has come, and once', () => {
  const said = [];
  const player = { ...live, student: SIGNED, studentSaid: null, head: { session: 's1' }, component: { setStateValue: (k, v) => said.push([k, v]) } };
  player.sayStudent(); // painted, maybe, but its run has not come: a run asked for now could lose its trigger
  assert.deepEqual(said, []);
  player.head = {}; // the run that drew the controls
  player.sayStudent();
  player.sayStudent();
  assert.deepEqual(said, [['student', SIGNED]]);
});
