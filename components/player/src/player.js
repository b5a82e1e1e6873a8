// The graph player: one laid-out SVG, patched frame by frame, with the caption, the explanation, the node table
// and the grad check that follow the frame. Everything here was made by Python and sent once per expression and
// inputs; stepping and playing never ask the server anything. The frame shown is kept in the address bar.
//
// This class holds the player's fields, its bar and its keys, and steps through the frames; its other methods come
// by concern from the modules beside it (drawing, the viewport, the address bar, the browser's layout, the live
// class, the class's answers), whose pure parts node --test runs (components/player/test/). esbuild joins them into
// the one file the component is sent (components/player/player.js: npm run build).
import { address } from './address.js';
import { answers } from './answers.js';
import { grads } from './grads.js';
import { drawing, labelButton, svgSize } from './draw.js';
import { caption, clampFrame, decode, emptyModel, keyFrame, landing, remember, seekModel, spoken, splitRun } from './frames.js';
import { layingOut } from './layout.js';
import { live } from './live.js';
import { NARROW_PX, RULES_PX, TYPING, viewport } from './viewport.js';

// on a phone, Streamlit's margins beside the page are halved: room for the graph (the page's style, not the player's)
const PHONE_PAGE_STYLE = `@media (max-width: ${NARROW_PX}px) {
  [data-testid="stMainBlockContainer"] { padding-left: 0.5rem; padding-right: 0.5rem; } }`;
// the graphs this page was sent (the server's layout or the DOT to lay out), by name: the server sends a graph once
// per session and names it after that (components/player's SENT_KEPT, fewer than these); on the window, so that a
// player drawn anew keeps them
const KEPT_GRAPHS = 16;
// the page's first stop for the keyboard: straight to the graph, whose keys step (WCAG 2.4.1); hidden until focused
const SKIP_STYLE = `.backprop-skip { position: fixed; left: 0.5rem; top: -4rem; z-index: 1000100; padding: 0.6rem 1rem;
  background: #fff; color: #0e1117; border: 2px solid #0b5cad; border-radius: 0.5rem; font: 600 1rem sans-serif; }
.backprop-skip:focus { top: 0.5rem; }`;
const SKIP_WORDS = 'Skip to the graph player';
// Shift and an arrow pan a graph bigger than its view, as a finger or a wheel does: the arrows alone step
const PAN = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// the skip link, once a page, first in its body: it focuses the player drawn last (`focus`)
function skipLink(focus) {
  let link = document.getElementById('backprop-skip');
  if (!link) {
    document.head.append(Object.assign(document.createElement('style'), { textContent: SKIP_STYLE }));
    link = Object.assign(document.createElement('a'), { id: 'backprop-skip', className: 'backprop-skip', href: '#', textContent: SKIP_WORDS });
    document.body.prepend(link);
  }
  link.onclick = (e) => { e.preventDefault(); focus(); };
}

// Play moves the page to follow the active node; a visitor who asks for less motion keeps the page still
function reducedMotion() {
  return window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
}
const GRAPHS = (window.__backpropGraphs ||= new Map());

export class Player {
  // `standalone`: a lesson in one file (src/lesson.js), with no Streamlit around it and no server: the page's own
  // styles, the address bar and the share button are the page's, and the file's policy forbids a blob: picture
  constructor(root, { standalone = false } = {}) {
    root.innerHTML = `
      <div class="bar">
        <button class="prev" title="Previous frame (←)" aria-label="Prev: the previous frame"><span aria-hidden="true">‹</span><span class="word"> Prev</span></button>
        <button class="play primary" title="Play / Pause (space)" aria-label="Play"><span aria-hidden="true">▶</span><span class="word"> Play</span></button>
        <button class="next" title="Next frame (→)" aria-label="Next frame"><span class="word">Next </span><span aria-hidden="true">›</span></button>
        <input class="slider" type="range" min="0" max="0" value="0" aria-label="Frame"><datalist class="marks"></datalist>
        <button class="share" title="A link and a QR code to this frame, and exports for slides" aria-label="Share…"><span class="word">Share…</span><span class="icon" aria-hidden="true">↗</span></button>
        <span class="zoom"><button class="out" title="Zoom out" aria-label="Zoom out">−</button><button class="fit" title="Fit the width">Fit</button><button class="in" title="Zoom in" aria-label="Zoom in">+</button></span>
      </div>
      <div class="notice" hidden></div>
      <div class="ask" hidden></div>
      <div class="grads" hidden></div>
      <div class="laying" hidden></div>
      <div class="heard" aria-live="polite"></div>
      <div class="line"><div class="caption" aria-hidden="true"></div><button class="follow" hidden title="A live class: follow the lecturer's steps, or step on your own"></button></div>
      <div class="rules" aria-hidden="true"></div>
      <div class="stage"><div class="view" tabindex="0" role="group" aria-label="The graph: ← and → step through the frames, Home and End go to the first and the last, Space plays, Shift and an arrow pan"></div><div class="more left" hidden><span>‹</span></div><div class="more right" hidden><span>›</span></div><div class="more up" hidden><span>‹</span></div><div class="more down" hidden><span>›</span></div></div>
      <div class="overview" hidden title="The whole graph: click to look there"><div class="map"></div></div>
      <div class="legend"></div>
      <div class="below">
        <div class="words"><div class="plot"></div><div class="explain"></div><div class="summary"></div></div>
        <div class="table" tabindex="0" role="region" aria-label="Node table: each value's data and grad"></div>
      </div>`;
    const $ = (s) => root.querySelector(s);
    if (!standalone && !document.getElementById('backprop-phone-page')) {
      document.head.append(Object.assign(document.createElement('style'), { id: 'backprop-phone-page', textContent: PHONE_PAGE_STYLE }));
    }
    if (!standalone) skipLink(() => this.root.isConnected && this.view.focus());
    $('.share').hidden = standalone;
    this.root = root;
    this.view = $('.view');
    this.overview = $('.overview'); // a big graph drawn small: where the view is, and the active node
    this.map = $('.map');
    this.slider = $('.slider');
    this.captionBox = $('.caption');
    this.saidBox = $('.heard'); // what a screen reader hears of each frame: its caption and its sums (spoken)
    this.rulesBox = $('.rules');
    this.legendBox = $('.legend'); // the legend, and at its head the graph's colours as CSS variables
    this.noticeBox = $('.notice'); // what the page says of its link
    this.layingBox = $('.laying'); // the browser's layout: while it runs, and why it gave none or a quick one
    this.explainBox = $('.explain');
    this.summaryBox = $('.summary');
    this.plotBox = $('.plot'); // the chain's |grad| plot (view/depth_plot.py); empty for other expressions
    this.tableBox = $('.table');
    this.playButton = $('.play');
    this.prevButton = $('.prev');
    this.nextButton = $('.next');
    this.svg = null; // the laid-out graph, in the shape shown
    this.shapes = {}; // the graph in each shape it was laid out in (graph.SHAPES): {name: SVG}
    this.sizes = {}; // and each one's size at 100 %, {name: {width, height}} in px
    this.shape = null; // the shape shown
    this.inView = null; // the overview's mark of the part of the graph in view
    this.here = null; // and of the active node
    this.mapUrl = null; // the overview's picture
    this.pinned = null; // a shape asked for whatever the screen (tests and screenshots of one shape), or null
    this.sidebarClosedFor = null; // the graph (its wide SVG) for which the sidebar was closed to make room
    this.natural = 0; // its width at 100 %, in px
    this.naturalHeight = 0; // and its height
    this.values = []; // per value node: {g, data, grad (its two number texts), row (the table's), look}
    this.ops = {}; // op node id -> [its circle's group, its out edge's group]
    this.edges = {}; // 'op_slot' -> {g (its label), parts (the edge's two halves), texts (the label's lines), label, lost}
    this.body = null; // what Python sent for this layout: patches, captions, explanations, table, summary
    this.n = 0; // frames
    this.of = 0; // the frames of the whole pass: more than n while a quiz holds back those after its question
    this.model = emptyModel(); // the look at frame modelAt, from the patches
    this.modelAt = -1;
    this.cur = -1; // the frame shown; -1 before the first
    this.timer = null; // the play interval
    this.speed = 2; // steps per second
    this.scale = undefined; // the zoom asked for: a number, null to fit, undefined for the default
    this.shown = null; // the zoom in force, or null when fitted to the width
    this.layout = null; // the name of the body shown
    this.gotoId = null; // the last goto obeyed
    this.activeRow = null; // the table's row of the node the frame is about
    this.urlTimer = null; // the address bar's next write, when one is due
    this.urlWritten = 0; // when it was last written (performance.now())
    this.standalone = standalone; // a lesson in one file: nothing of Streamlit's, and no server
    this.component = null; // Streamlit's handle, to send the share button's frame
    this.paintedFor = null; // the session last told that its graph is painted (tellPainted)
    this.present = false; // the presentation view: the graph fitted to the window, the caption as a title
    this.head = null; // what the page's last run said besides the body (update)
    this.layouts = new Map(); // DOT -> {svg, quick, ms}: the graphs this browser laid out, the newest last
    this.lastFrame = 0; // the frame shown before a new layout: the next one opens there
    this.stem = 'graph'; // the name of a saved frame's file, before its frame (exports.file_stem)
    this.classRoom = null; // a live class (components/live.py): {code, secret, lead} posts each frame, {code, follow} follows
    this.events = null; // a follower's EventSource on the class's events
    this.classState = null; // the class's latest state, {version, scenario, frame}
    this.following = true; // a follower on the class's frame; false: on their own
    this.question = null; // the class's question ({id, frame, asked, revealed}): its frame hides what it asks
    this.student = null; // a follower's id in the room, minted by the server, kept by this browser (a reload is one student)
    this.studentSaid = null; // the id the page has been told (sayStudent)
    this.roomTurn = 0; // one more each time the page leaves or changes its room: a join on its way for another gives up
    this.joinedAgain = false; // a kept id the server refused has been dropped for a new join (once: not in a loop)
    this.askBox = $('.ask'); // a follower's answer boxes, then how they fared
    this.gradsBox = $('.grads'); // a phone learning together: the box that sends its share of the batch
    this.gradsKey = null; // what the box was made for: the room's code and the point (grads.js)
    this.classNotice = false; // the notice says the class cannot be reached just now (its next event clears it)
    this.followed = false; // the room's events have reached this page: a room it then cannot find was lost
    this.leadOffered = null; // the session a lecturer's page last handed its tab's class back to (keepLead)
    this.posted = null; // the lead's last frame posted (scenario and frame, as JSON)
    this.leadCheck = null; // the lead's timer that posts its scenario again when its address has changed (postStep)
    this.followButton = $('.follow');
    this.followButton.onclick = () => this.setFollowing(!this.following);
    this.stage = $('.stage'); // the view, and over its edges the signs that more of the graph lies beyond
    this.more = Object.fromEntries(['left', 'right', 'up', 'down'].map((side) => [side, $(`.more.${side}`)]));
    this.reserve = RULES_PX; // the room room() keeps under the player's bar for the caption and the sums at their longest
    this.touching = false; // a finger is on the screen
    this.scrolledAt = -Infinity; // when the visitor last scrolled the page (performance.now())
    this.ownScrollTop = null; // where the player last scrolled the page to: a scroll that ends there is its own
    this.settleTimer = null; // the next look for the active node while the page settles (keepInSight)
    this.drawnAnew = false; // a new graph was drawn: apply looks for its active node

    $('.prev').onclick = () => { this.stop(); this.step(this.cur - 1); };
    $('.next').onclick = () => { this.stop(); this.step(this.cur + 1); };
    this.playButton.onclick = () => (this.timer ? this.stop() : this.play());
    this.slider.oninput = () => { this.stop(); this.onOwn(); this.go(+this.slider.value); this.slider.value = this.cur; }; // not past a quiz's question
    this.slider.onchange = () => this.intoWindow(); // once let go: the page never moves under a finger
    $('.out').onclick = () => this.zoom(this.shownScale() / 1.25);
    $('.in').onclick = () => this.zoom(this.shownScale() * 1.25);
    $('.fit').onclick = () => this.zoom(null);
    // the server does not follow the frame; the share panel is made for the frame this button sends
    $('.share').onclick = () => { this.stop(); this.component?.setTriggerValue('share', { frame: this.cur, shape: this.shape }); };
    new ResizeObserver(() => this.refit()).observe(this.view);
    window.addEventListener('resize', () => (this.present ? this.fitStage() : this.refit()));
    this.swipes();
    this.view.addEventListener('scroll', () => { this.markOverview(); this.markEdges(); }, { passive: true });
    // the visitor's own scrolling and touching: the page is not moved under them (busy)
    window.addEventListener('touchstart', () => { this.touching = true; }, { passive: true, capture: true });
    for (const end of ['touchend', 'touchcancel']) window.addEventListener(end, () => { this.touching = false; }, { passive: true, capture: true });
    document.addEventListener('scroll', (e) => {
      const scroller = e.target === document ? document.scrollingElement : e.target;
      if (scroller?.scrollTop === this.ownScrollTop) return; // the player's own, however late its event comes
      this.scrolledAt = performance.now();
      clearTimeout(this.settleTimer); // a page the visitor scrolls is theirs
    }, { passive: true, capture: true });
    this.overview.onclick = (e) => this.lookAt(e);
    document.fonts.ready.then(() => this.present && this.fitStage()); // the title's height, in its own font
    // the player's own keys; in the presentation view, and in a lesson in one file, whose page is the player, the
    // whole page's, except in a field or a menu
    window.addEventListener('keydown', (e) => {
      if (!this.root.isConnected || e.defaultPrevented) return;
      const path = e.composedPath();
      const target = path[0]; // inside the shadow root too
      const everywhere = this.present || this.standalone;
      if ((!path.includes(root) || target.closest?.('.ask')) && (!everywhere || target.closest?.(TYPING))) return;
      const pan = e.shiftKey && PAN[e.key];
      if (pan) { this.view.scrollBy(pan[0] * this.view.clientWidth * 0.6, pan[1] * this.view.clientHeight * 0.6); e.preventDefault(); return; }
      const to = keyFrame(e.key, this.cur, this.n);
      if (to !== null) { this.stop(); this.step(to); e.preventDefault(); }
      else if (e.key === ' ' && !target.closest?.('button, input[type="checkbox"]')) { this.timer ? this.stop() : this.play(); e.preventDefault(); }
    });
    // the share panel's buttons for a frame this browser laid out (components/export_panel.py)
    window.addEventListener('backprop-save-frame', (e) => this.root.isConnected && this.saveFrame(e.detail));
    // the server writes the link when the expression or an input changes; put the frame back into it
    if (!standalone) setInterval(() => this.root.isConnected && this.writeUrl(), 1000);
    Object.seal(this); // every field is declared above: a method that sets another throws, in a module's strict mode
  }

  // the body, with its graph laid out in each shape (graph.SHAPES): {name: SVG}, the wide one at least
  load(body, shapes) {
    this.body = body;
    this.n = body.patches.length;
    this.legendBox.innerHTML = body.legend;
    this.markSlider(body.marks || []);
    this.shapes = shapes;
    this.sizes = {};
    for (const [name, svg] of Object.entries(shapes)) this.sizes[name] = svgSize(svg);
    this.drawShape(this.pickShape());
    this.drawnAnew = true;
  }

  // frames the slider marks with a tick and names in its title: a student's first difference from the right engine
  markSlider(marks) {
    const list = this.root.querySelector('.marks');
    list.id ||= `marks-${Math.random().toString(36).slice(2)}`;
    list.replaceChildren(...marks.map((k) => Object.assign(document.createElement('option'), { value: k, label: this.body.labels[k] })));
    if (marks.length) this.slider.setAttribute('list', list.id);
    else this.slider.removeAttribute('list');
    this.slider.title = marks.length ? `First difference from the right engine: ${this.body.labels[marks[0]]}` : '';
  }

  // the model follows the patches; the page is written once per frame shown, only where it changed
  seek(k) {
    [this.model, this.modelAt] = seekModel(this.model, this.modelAt, this.body.patches, k);
  }

  go(k) {
    if (!this.body) return; // being laid out
    k = clampFrame(k, this.n, this.asking() ? this.question.frame : null);
    if (k === this.cur) return;
    this.seek(k);
    this.followActive(k); // before writing texts and colours (they never move a node), so no layout is forced
    this.markOverview(k);
    this.markEdges();
    this.render();
    const row = this.values[this.body.patches[k].a]?.row || null;
    if (row !== this.activeRow) {
      this.activeRow?.classList.remove('active');
      this.activeRow?.removeAttribute('aria-current');
      row?.classList.add('active');
      row?.setAttribute('aria-current', 'step');
      this.activeRow = row;
    }
    // the row's tint is the box's mark: blue just computed, orange seeded, vermillion its _backward runs
    const mark = this.model.values[this.body.patches[k].a]?.[3] || '';
    row?.classList.toggle('forward', mark === 'forward');
    row?.classList.toggle('seed', mark === 'seed');
    this.followRow(row);
    this.cur = this.lastFrame = k;
    this.slider.value = k;
    this.prevButton.disabled = k === 0;
    this.nextButton.disabled = k === this.n - 1 || (this.asking() && k === this.question.frame);
    // 'Frame 3 of 16', counted from 1 as everywhere people read it (exports.frame_numbers); the slider says it too
    this.captionBox.textContent = caption(this.body, k);
    this.slider.setAttribute('aria-valuetext', this.body.labels[k]);
    this.showRules(this.rulesAt(k));
    this.saidBox.textContent = spoken(this.captionBox.textContent, this.rulesAt(k));
    this.explainBox.innerHTML = this.body.explanations[k];
    this.summaryBox.innerHTML = k === this.n - 1 ? this.body.summary : '';
    this.plotBox.innerHTML = this.body.plots ? this.body.plots.head + this.body.plots.parts[this.body.plots.at[k]] : '';
    if (this.asking() && k === this.question.frame) this.mask(k);
    this.explainBox.dataset.frame = k; // for tests and benchmarks: the frame the words show now
    this.root.dataset.frame = k; // and the graph
    if (!this.standalone) this.writeUrlSoon();
    this.postStep();
  }

  // a step the visitor took (a button, a key, a swipe, playing): the frame, and its active node in the window
  step(k) {
    this.onOwn();
    this.go(k);
    this.intoWindow();
  }

  // playing follows the active node down the page until the visitor scrolls it elsewhere (to read the words under
  // the graph, say): then the frames go on where they are
  play() {
    if (this.cur >= this.n - 1) this.step(0);
    labelButton(this.playButton, '❚❚', 'Pause');
    const started = performance.now();
    this.timer = setInterval(() => {
      if (this.cur >= this.n - 1) return this.stop();
      if (this.scrolledAt < started && !reducedMotion()) return this.step(this.cur + 1);
      this.onOwn();
      this.go(this.cur + 1);
    }, 1000 / this.speed);
  }

  stop() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    labelButton(this.playButton, '▶', 'Play');
  }

  // the sums over the graph at frame k: none on a question's frame before the reveal (they give the answer)
  rulesAt(k) {
    return this.asking() && k === this.question.frame ? [] : this.body.rules[k] || [];
  }

  showRules(lines) {
    this.rulesBox.replaceChildren(...lines.map((line) => Object.assign(document.createElement('div'), { textContent: line })));
  }

  // one run of the page: a line of JSON for this run, a line with the graph (empty where this page has it by the
  // name head.graph), then the layout's body; the last two read only when the layout is new
  update(bytes) {
    const [head, sent, rest] = splitRun(bytes);
    this.head = head;
    let graph = GRAPHS.get(this.head.graph);
    if (sent !== null && !graph) graph = JSON.parse(sent);
    if (!graph) { // the server took it as sent, and this page never had it: a run it skipped. It is sent again
      this.component?.setTriggerValue('missing', this.head.graph);
      return;
    }
    remember(GRAPHS, this.head.graph, graph, KEPT_GRAPHS); // the most recent last: the oldest goes first
    this.tellPainted(this.head.session);
    // the page's font (static/fonts/), in the page's head: Chromium ignores an @font-face in a shadow root
    if (this.head.fonts && !document.getElementById('backprop-fonts')) {
      document.head.append(Object.assign(document.createElement('style'), { id: 'backprop-fonts', textContent: this.head.fonts || '' }));
    }
    if (this.layout === null && !this.standalone) this.checkLink();
    if (this.head.layout !== this.layout) {
      this.stop();
      this.layout = this.head.layout;
      const body = { ...graph, ...decode(rest) };
      if (body.svg === undefined) return this.layOutHere(body, this.head.layout);
      this.load(body, { wide: body.svg, ...body.fits });
    }
    if (this.body) this.apply(this.head);
  }

  // The page draws its sidebar's controls once its first graph is on screen: React drawing them first delayed the
  // graph by a third (bench/bench_first_graph.py). So, once per session (a page reconnected to a new session after a
  // server restart is told again), the page hears when the frame this run draws has been painted: after the next
  // paint, as everything update() draws is drawn by then, or once the browser's own layout has begun
  tellPainted(session) {
    if (!session || session === this.paintedFor) return;
    this.paintedFor = session;
    requestAnimationFrame(() => setTimeout(() => this.component?.setTriggerValue('painted', session)));
  }

  // what a run of the page says besides the body: the speed, the views, where to go
  apply(head) {
    const wasPlaying = !!this.timer;
    this.stem = head.stem || 'graph';
    this.of = Math.max(this.n, head.length || 0);
    this.slider.max = this.of - 1; // a quiz's slider shows how far its question is into the pass; go() stops there
    this.tableBox.classList.toggle('answers', head.answers);
    const present = !!head.present;
    this.root.classList.toggle('present', present);
    this.root.classList.toggle('with-table', !!head.table);
    this.root.classList.toggle('high-contrast', !!head.contrast); // a washed-out projector's look (view/palette.py)
    if (head.speed !== this.speed) {
      this.speed = head.speed;
      if (wasPlaying && this.timer) { this.stop(); this.play(); }
    }
    const before = this.cur;
    // sent: the page sent the player somewhere (a link's frame, a quiz's question, a learning step)
    const { frame: k, sent, gotoId } = landing(this, head.goto);
    this.gotoId = gotoId;
    this.cur = -1; // a new layout, or a goto: draw frame k whole
    this.go(k);
    if (sent || k !== before || this.drawnAnew) this.keepInSight();
    this.drawnAnew = false;
    this.joinRoom(head.room);
    if (this.following && this.classState) this.toClass();
    if (present || this.present) {
      this.present = present;
      this.fitStage();
      if (present) this.view.focus({ preventScroll: true }); // the keys step at once
    }
  }
}

Object.assign(Player.prototype, drawing, viewport, address, layingOut, live, answers, grads);
