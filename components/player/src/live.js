// The live class (components/live.py): the lecturer's page posts each frame it shows; a student's page follows the
// class's events (to the class's frame in place, or to its link where the scenario is another), or steps on its own
// until the student rejoins. The pure parts (a page's scenario, the class's link, a student's id, the follow
// button's words) are exported for the tests.

// the page's scenario: the link's parameters (`search`) without those the room names apart (`private`, from
// state.py: the frame, Streamlit's own, the class's code and the lecturer's own view)
export function scenarioOf(search, private_) {
  const kept = {};
  for (const [k, v] of new URLSearchParams(search)) if (!private_.includes(k)) kept[k] = v;
  return kept;
}

// two scenarios are the same where they have the same parameters with the same values, in any order
export function sameScenario(a, b) {
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => a[k] === b[k]);
}

// the class's link for a student on `pathname` with `search`: the class's code, its scenario and frame (`held`), and
// the student's own work (room.own: their bodies), which the class never moves
export function classLink(pathname, search, room, held) {
  const own = {};
  for (const [k, v] of new URLSearchParams(search)) if (room.own.includes(k)) own[k] = v;
  const query = new URLSearchParams({ class: room.code, ...held.scenario, ...own, step: String(held.frame) });
  return `${pathname}?${query}`;
}

// a student's id in a room as the server mints and signs it, in the form `pattern` (server/rooms.py's STUDENT, which
// the page hands the player as room.student): what this browser keeps may have been tampered with, or be an old form
export const isStudentId = (id, pattern) => new RegExp(`^(?:${pattern})$`).test(id || '');

// the follow button's [short words (a phone's), the rest, its name]: '● Following', or '↺ Rejoin' (player.css
// leaves the rest out on a phone and shows the icon)
export function followingWords(following) {
  return following ? ['● Following', ' the class', '● Following the class']
    : ['↺ Rejoin', 'On my own · back to the class', 'On my own · back to the class'];
}

// what a student's page says of a class it followed that the server can no longer find (its store restarted and kept
// no rooms): not a mistyped code
export const lostWords = (code) => `The class ${code} is no longer on the server: ask your lecturer for its new code. This page goes on on its own.`;

// what the lecturer's page and a phone say while the class cannot be reached, and once it can again
export const STEP_SLOW_MS = 2000; // a step not landed by then: the lecturer is told (the bound is 5 s)
export const STEP_WAIT_MS = 8000; // a post that has not answered by then is given up, and sent again
export const BACK_MS = 4000; // how long "back" stays said
export const STEP_SLOW_WORDS = 'This step has not reached the class yet: sending it again until it does…';
export const STEP_LANDED_WORDS = '✓ The class has your step now.';
export const BACK_WORDS = '✓ Back with the class, at its frame.';
// the lead's address is read this often: a change of the page's link that redraws no graph (a batch's *Learn
// together*, a look) reaches the class too, once Streamlit has written it, which can be after the graph was drawn
export const LEAD_CHECK_MS = 1000;

// the wait before a failed post is sent again: 0.5 s, then twice as long each time, 4 s at most
export const retryDelay = (tries) => Math.min(4000, 500 * 2 ** tries);

export const live = {
  // a live class: the room this run names (none, the lead's, a follower's)
  joinRoom(room) {
    const code = room?.code || null;
    if (code !== this.classRoom?.code || !!room?.follow !== !!this.classRoom?.follow) {
      this.roomTurn += 1; // a join on its way for the room before gives up
      this.events?.close();
      this.events = null;
      this.classState = null;
      this.followed = false;
      this.posted = null;
      this.following = true;
      this.setQuestion(null);
      if (room?.follow) this.follow(room);
    }
    const before = this.classRoom;
    this.classRoom = room || null;
    this.followButton.hidden = !room?.follow;
    this.showFollowing();
    if (room?.lead) this.setQuestion(room.question || null);
    this.showGradsBox(room);
    this.keepLead(room, before);
    this.sayStudent();
    this.postStep();
    clearInterval(this.leadCheck);
    this.leadCheck = room?.lead ? setInterval(() => this.postStep(), LEAD_CHECK_MS) : null;
  },

  // the lecturer's page keeps its class across a reload and a replica's death: its code and secret in this tab's own
  // storage (never in the link, which the projector shows), handed back once a session to a page that leads none
  // (a reload, or the websocket reconnected to a new session on another replica: no click), which checks them; the
  // session's name makes each offer new to the page, which has not heard it. Ended on purpose, it is forgotten.
  keepLead(room, before) {
    const kept = 'backprop-class-lead';
    try {
      if (room?.lead) window.sessionStorage.setItem(kept, JSON.stringify({ code: room.code, secret: room.secret }));
      else if (before?.lead) window.sessionStorage.removeItem(kept); // End the class
      else if (this.head?.present && !room && this.head.session && this.leadOffered !== this.head.session) {
        this.leadOffered = this.head.session;
        const lead = JSON.parse(window.sessionStorage.getItem(kept) || 'null');
        if (lead) this.component?.setStateValue('lead', { ...lead, session: this.head.session });
      }
    } catch { /* storage refused: a reload starts a new class */ }
  },

  // a follower: its id in the room (minted by the server at its first join, then kept by this browser for the room:
  // a reload or a lost network is the same student), the class's events, what ends them
  async follow(room) {
    const turn = this.roomTurn, kept = `backprop-class-${room.code}`;
    let id = null;
    try { id = window.localStorage.getItem(kept); } catch { /* storage refused: an id for this page alone */ }
    if (!isStudentId(id, room.student)) {
      id = await this.joinClass(room, turn);
      if (!id) return;
      try { window.localStorage.setItem(kept, id); } catch { /* as above */ }
    }
    if (this.roomTurn !== turn || this.events) return; // left, or followed, meanwhile
    this.student = id;
    this.sayStudent();
    const url = `${room.api}/events?student=${encodeURIComponent(id)}`;
    this.events = new EventSource(url);
    this.events.onmessage = (e) => {
      this.followed = true;
      if (this.classNotice) this.tellBack(BACK_WORDS); // it was out of reach, and the class's frame is here again
      this.classNotice = false;
      this.classState = JSON.parse(e.data);
      this.setQuestion(this.classState.question || null);
      if (this.following) this.toClass();
    };
    this.events.addEventListener('ended', (e) => this.leaveClass(JSON.parse(e.data).message));
    this.events.addEventListener('away', (e) => this.tellClass(JSON.parse(e.data).message)); // the store, stalled
    // an answer that is not a stream (a full room, an unknown code): its words, and no more tries
    this.events.onerror = () => {
      if (this.events?.readyState !== EventSource.CLOSED) return; // reconnecting by itself, to any replica
      const again = () => setTimeout(() => { if (this.classRoom?.code === room.code && !this.events) this.follow(room); }, 3000);
      this.events.close();
      this.events = null;
      fetch(url).then((r) => {
        if (r.ok) { r.body?.cancel(); again(); } // it answers again: follow again
        else if (r.status === 503) r.json().then((j) => { this.tellClass(j.error); again(); }); // the store is away
        else if (r.status === 404 && this.followed) this.leaveClass(lostWords(room.code)); // it was here: lost with the store
        else if (r.status === 403 && !this.joinedAgain) { // an id this server did not sign (a store that lost its key)
          this.joinedAgain = true;
          try { window.localStorage.removeItem(kept); } catch { /* as above */ }
          this.follow(room);
        }
        else r.json().then((j) => this.leaveClass(j.error));
      }).catch(() => { this.tellClass('The class cannot be reached just now: trying again…'); again(); });
    };
  },

  // the page sends the student's bodies under their id (code mode): it is told once the run that follows the graph's
  // paint has come (its head names no session), never between the paint and that run, whose trigger a run asked for
  // by a state value meanwhile would lose (the sidebar's controls would then never come)
  sayStudent() {
    if (!this.student || this.studentSaid === this.student || !this.head || this.head.session) return;
    this.studentSaid = this.student;
    this.component?.setStateValue('student', this.student);
  },

  // a new student in `room`: the id the server mints for them, or null once the page says why it cannot join (full,
  // closed to new students, ended); while the store cannot be reached, or this network has joined too often this
  // minute, it says so and tries again
  async joinClass(room, turn) {
    while (this.roomTurn === turn) {
      let wait = 3;
      try {
        const r = await fetch(`${room.api}/join`, { method: 'POST' });
        const got = await r.json();
        if (r.ok) return got.student;
        if (r.status === 429) wait = Number(r.headers.get('Retry-After')) || 10;
        else if (r.status !== 503) { this.leaveClass(got.error); return null; }
        this.tellClass(got.error);
      } catch {
        this.tellClass('The class cannot be reached just now: trying again…');
      }
      await new Promise((done) => setTimeout(done, wait * 1000));
    }
    return null; // the page left the room meanwhile
  },

  // a word on the class that ends nothing (it cannot be reached just now); gone at its next event
  tellClass(message) {
    this.classNotice = true;
    this.noticeBox.textContent = message;
    this.noticeBox.hidden = false;
  },

  // a word that things are well again, gone after BACK_MS unless another word took its place
  tellBack(message) {
    this.noticeBox.textContent = message;
    this.noticeBox.hidden = false;
    setTimeout(() => { if (!this.classNotice && this.noticeBox.textContent === message) this.noticeBox.hidden = true; }, BACK_MS);
  },

  leaveClass(message) {
    this.roomTurn += 1;
    this.events?.close();
    this.events = null;
    this.classRoom = null;
    this.followButton.hidden = true;
    this.setQuestion(null);
    this.noticeBox.textContent = message;
    this.noticeBox.hidden = false;
  },

  setQuestion(question) {
    const was = JSON.stringify(this.question), now = JSON.stringify(question);
    if (was === now) return;
    const before = this.question;
    this.question = question;
    this.root.dataset.asked = question ? question.frame : ''; // for tests and screenshots: the frame the class is asked
    if (!question || question.id !== before?.id) this.askBox.replaceChildren();
    if (question && this.classRoom?.follow !== false && this.student) this.showQuestion(question, question.id !== before?.id);
    const shown = !this.askBox.hidden;
    this.askBox.hidden = !this.askBox.childElementCount;
    if (this.body && this.cur >= 0) { // the frame again, hiding what is asked or showing it
      const k = question && !question.revealed ? question.frame : this.cur;
      this.cur = -1;
      this.go(k);
    }
    if (shown !== !this.askBox.hidden) this.refit(); // the box takes room above the graph, or gives it back
    if (!this.askBox.hidden && question?.id !== before?.id) this.keepInSight();
  },

  // the page's scenario: its link without what the room names apart (room.private, from state.py: the frame,
  // Streamlit's own, the class's code and the lecturer's own view)
  scenario() {
    return scenarioOf(window.location.search, this.classRoom.private);
  },

  // the lead: each frame shown, posted to the class with the lecturer's secret (in a header, never in a link); a
  // post that fails for want of the store (or the network) is sent again until it lands, unless a newer step
  // replaced it, and the lecturer is told after STEP_SLOW_MS that the class has not got it yet, then that it has
  postStep() {
    if (!this.classRoom?.lead || this.cur < 0 || !this.body) return;
    const step = JSON.stringify({ scenario: this.scenario(), frame: this.cur });
    if (step === this.posted) return;
    this.posted = step;
    this.sendStep(step, 0);
  },

  sendStep(step, tries) {
    if (step !== this.posted || !this.classRoom?.lead) return; // a newer step is on its way
    const { api, secret } = this.classRoom;
    const slow = setTimeout(() => { if (step === this.posted) this.tellClass(STEP_SLOW_WORDS); }, STEP_SLOW_MS);
    const again = () => { clearTimeout(slow); setTimeout(() => this.sendStep(step, tries + 1), retryDelay(tries)); };
    fetch(`${api}/step`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Class-Secret': secret }, body: step,
      signal: AbortSignal.timeout(STEP_WAIT_MS),
    }).then((r) => {
      if (r.ok) {
        clearTimeout(slow);
        if (this.classNotice && step === this.posted) { this.classNotice = false; this.tellBack(STEP_LANDED_WORDS); }
      } else if (r.status >= 500) again(); // the store is out of reach: it lands once it is back
      else { clearTimeout(slow); if (step === this.posted) this.posted = null; } // refused: the class has ended
    }).catch(again);
  },

  // a follower: to the class's frame, in place; to the class's link where its scenario is another (a rerun then)
  toClass() {
    const held = this.classState;
    if (!held || !this.classRoom?.follow) return;
    if (sameScenario(this.scenario(), held.scenario)) {
      if (this.body && held.frame !== this.cur) { this.go(held.frame); this.keepInSight(); } // the lecturer's step
      return;
    }
    window.location.assign(classLink(window.location.pathname, window.location.search, this.classRoom, held));
  },

  // a follower's own step: on their own until they tap to rejoin
  onOwn() {
    if (this.classRoom?.follow && this.following) this.setFollowing(false);
  },

  setFollowing(on) {
    this.following = on;
    this.showFollowing();
    if (on) this.toClass();
  },

  // on a phone, in short: '● Following', or '↺ Rejoin' (player.css leaves the words out and shows the icon)
  showFollowing() {
    const [icon, word, full] = followingWords(this.following);
    const short = Object.assign(document.createElement('span'), { textContent: icon, className: this.following ? '' : 'icon' });
    this.followButton.replaceChildren(short, Object.assign(document.createElement('span'), { textContent: word, className: 'word' }));
    this.followButton.setAttribute('aria-label', full);
    this.followButton.classList.toggle('primary', !this.following);
    this.root.dataset.following = this.classRoom?.follow ? String(this.following) : '';
  },
};
