// The graph player: one laid-out SVG, patched frame by frame, with the caption, the explanation, the node table
// and the grad check that follow the frame. Everything here was made by Python and sent once per expression and
// inputs; stepping and playing never ask the server anything. The frame shown is kept in the address bar.
const NOT_COMPUTED = '·';
const NOT_FINITE = ['nan', 'inf', '−inf']; // as view/numbers.py writes them
const HIDDEN = '?'; // a grad the class is asked to work out (view/numbers.py)
// the numbers are 14 pt text, 18.7 px at the graph's natural size. The page's view shows the graph as large as
// fits its width and height, but never so small that the numbers are under MIN_TEXT_PX (read from a classroom's
// back row): a graph too big for that is shown at it and scrolled to follow the active node. "Fit" shows it whole.
const TEXT_PX = (14 * 4) / 3;
const MIN_TEXT_PX = 16.5; // 16 px and a margin for the SVG's rounding
const MOST = 1.6; // a small graph is not blown up beyond this
// a phone held upright: its numbers may be smaller, read at arm's length. The graph fits the window below the
// player's bar and caption, whole where its numbers stay this size, else scrolled in the view to follow the active
// node; a step scrolls the page to show the bar and the graph together (player.css has the same width)
const NARROW_PX = 640;
const EDGE_PX = 12; // a box brought into the window on a wide screen stands this far inside its edge
const PHONE_TEXT_PX = 12.2; // 12 px and a margin for the SVG's rounding
const RULES_PX = 56; // room for the sums over a graph without labels: two lines, whichever shape is shown
const BETTER = 1.1; // the presentation view takes a later shape only for numbers this much larger
const OVERVIEW_GAP_PX = 8; // the overview's margin above it
const SWIPE_PX = 50; // a swipe on a phone's graph steps once it has moved this far sideways
const BUSY_MS = 1200; // the visitor scrolled the page this recently: it is not moved under them
const SETTLE_MS = [150, 400, 800, 1500]; // a frame reached by a link or the class is looked for again after these
// where the visitor types: the page is never scrolled, nor the keys taken, there
const TYPING = 'textarea, select, [contenteditable="true"], [role="listbox"], input:not([type="checkbox"]):not([type="range"])';
// on a phone, Streamlit's margins beside the page are halved: room for the graph (the page's style, not the player's)
const PHONE_PAGE_STYLE = `@media (max-width: ${NARROW_PX}px) {
  [data-testid="stMainBlockContainer"] { padding-left: 0.5rem; padding-right: 0.5rem; } }`;
const PRESENT_MOST = 2.5; // the presentation view blows a small graph up to at most this
const BOTTOM_PX = 12; // the presentation view's graph ends this far above the window's bottom edge
const SCROLLBAR_PX = 16; // room for the sideways scrollbar of a graph too big to fit
// Chrome refuses more than ~100 history.replaceState calls in 10 s; playing at 10 steps/s would reach that
const URL_EVERY_MS = 300;
// where a value box's texts fall among its SVG texts: view/graph.py's VALUE_TEXTS (tests/app/test_player.py checks
// the two agree, and lays a box out with dot to check the order)
const VALUE_TEXTS = { name: 0, data: 2, grad: 4 };
const utf8 = new TextDecoder();
const PNG_SCALE = 2; // a frame's PNG: twice its size at 100 %, as the server's export (exports.PNG_DPI)
const PNG_PIXELS = 40e6; // at most, and at most CANVAS_SIDE px a side: a bigger graph's PNG is made smaller
const CANVAS_SIDE = 16384;
const PROGRESS_MS = 250; // how often the line that says the graph is being laid out counts the seconds
const KEPT_LAYOUTS = 8; // graphs laid out here that are kept: going back to one, or new inputs, lays out nothing
// the graphs this page was sent (the server's layout or the DOT to lay out), by name: the server sends a graph once
// per session and names it after that (components/player's SENT_KEPT, fewer than these); on the window, so that a
// player drawn anew keeps them
const KEPT_GRAPHS = 16;
const GRAPHS = (window.__backpropGraphs ||= new Map());

// Graphviz compiled to WebAssembly (static/graphviz/, from the npm registry), run in a Web Worker so that a tangled
// graph never freezes the tab: the worker is ended at the layout's budget
const WORKER_SOURCE = `
let graphviz = null;
onmessage = async ({ data }) => {
  try {
    if (data.url) { graphviz = await (await import(data.url)).Graphviz.load(); postMessage({ ready: true }); }
    else postMessage({ svg: graphviz.dot(data.dot) });
  } catch (error) { postMessage({ error: String((error && error.message) || error) }); }
};`;

class BrowserGraphviz {
  constructor() {
    this.worker = null; // the Worker, with Graphviz loaded in it, or null
    this.ready = null; // a promise: the worker has loaded Graphviz
    this.url = null; // the module's address
    this.cancel = null; // ends the layout under way, if any
  }

  start(url) {
    const source = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
    const worker = (this.worker = new Worker(source, { type: 'module' }));
    URL.revokeObjectURL(source);
    this.url = url;
    this.ready = new Promise((resolve, reject) => {
      worker.onmessage = ({ data }) => (data.ready ? resolve() : reject(new Error(data.error)));
      worker.onerror = (e) => { e.preventDefault(); reject(new Error(e.message || 'Graphviz did not load')); };
    });
    worker.postMessage({ url: new URL(url, window.location.href).href });
  }

  end() {
    this.worker?.terminate();
    this.worker = null;
  }

  // the SVG of `dot`, or null when it takes more than `ms` (the worker is then ended), or null and cancelled
  async run(url, dot, ms) {
    this.cancel?.();
    if (!this.worker || this.url !== url) { this.end(); this.start(url); }
    const worker = this.worker;
    let cancelled = false;
    this.cancel = () => { cancelled = true; };
    try { await this.ready; } catch (error) { this.end(); throw error; }
    if (cancelled || worker !== this.worker) return { svg: null, cancelled: true };
    return new Promise((resolve, reject) => {
      const finish = (result) => { clearTimeout(timer); this.cancel = null; resolve(result); };
      const timer = setTimeout(() => { this.end(); finish({ svg: null, cancelled: false }); }, ms);
      this.cancel = () => { this.end(); finish({ svg: null, cancelled: true }); };
      worker.onmessage = ({ data }) => {
        if (data.error) { clearTimeout(timer); this.cancel = null; this.end(); reject(new Error(data.error)); }
        else finish({ svg: data.svg, cancelled: false });
      };
      worker.postMessage({ dot });
    });
  }
}
const browserGraphviz = new BrowserGraphviz(); // one worker for the page: its Graphviz loads once
const emptyModel = () => ({ values: [], op: -1, edges: {}, lost: [] }); // the look before frame 0: nothing drawn

class Player {
  constructor(root) {
    root.innerHTML = `
      <div class="bar">
        <button class="prev" title="Previous frame (←)" aria-label="Previous frame"><span aria-hidden="true">‹</span><span class="word"> Prev</span></button>
        <button class="play primary" title="Play / Pause (space)" aria-label="Play"><span aria-hidden="true">▶</span><span class="word"> Play</span></button>
        <button class="next" title="Next frame (→)" aria-label="Next frame"><span class="word">Next </span><span aria-hidden="true">›</span></button>
        <input class="slider" type="range" min="0" max="0" value="0" aria-label="Frame"><datalist class="marks"></datalist>
        <button class="share" title="A link and a QR code to this frame, and exports for slides" aria-label="Share…"><span class="word">Share…</span><span class="icon" aria-hidden="true">↗</span></button>
        <span class="zoom"><button class="out" title="Zoom out" aria-label="Zoom out">−</button><button class="fit" title="Fit the width">Fit</button><button class="in" title="Zoom in" aria-label="Zoom in">+</button></span>
      </div>
      <div class="notice" hidden></div>
      <div class="ask" hidden></div>
      <div class="laying" hidden></div>
      <div class="line"><div class="caption" aria-live="polite"></div><button class="follow" hidden title="A live class: follow the lecturer's steps, or step on your own"></button></div>
      <div class="rules"></div>
      <div class="stage"><div class="view" tabindex="0"></div><div class="more left" hidden><span>‹</span></div><div class="more right" hidden><span>›</span></div><div class="more up" hidden><span>‹</span></div><div class="more down" hidden><span>›</span></div></div>
      <div class="overview" hidden title="The whole graph: click to look there"><div class="map"></div></div>
      <div class="legend"></div>
      <div class="below">
        <div class="words"><div class="plot"></div><div class="explain"></div><div class="summary"></div></div>
        <div class="table"></div>
      </div>`;
    const $ = (s) => root.querySelector(s);
    if (!document.getElementById('backprop-phone-page')) {
      document.head.append(Object.assign(document.createElement('style'), { id: 'backprop-phone-page', textContent: PHONE_PAGE_STYLE }));
    }
    this.root = root;
    this.view = $('.view');
    this.overview = $('.overview'); // a big graph drawn small: where the view is, and the active node
    this.map = $('.map');
    this.slider = $('.slider');
    this.captionBox = $('.caption');
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
    this.component = null; // Streamlit's handle, to send the share button's frame
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
    this.student = null; // a follower's id in the room, kept by this browser (a reload or a second tab is one student)
    this.askBox = $('.ask'); // a follower's answer boxes, then how they fared
    this.classNotice = false; // the notice says the class cannot be reached just now (its next event clears it)
    this.leadOffered = false; // a reloaded lecturer's page has handed its tab's class back once (keepLead)
    this.posted = null; // the lead's last frame posted (scenario and frame, as JSON)
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
    // the player's own keys; in the presentation view the whole page's, except in a field or a menu
    window.addEventListener('keydown', (e) => {
      if (!this.root.isConnected || e.defaultPrevented) return;
      const path = e.composedPath();
      const target = path[0]; // inside the shadow root too
      if ((!path.includes(root) || target.closest?.('.ask')) && (!this.present || target.closest?.(TYPING))) return;
      const keys = { ArrowLeft: -1, ArrowRight: 1 };
      if (e.key in keys) { this.stop(); this.step(this.cur + keys[e.key]); e.preventDefault(); }
      else if (e.key === ' ' && !target.closest?.('button, input[type="checkbox"]')) { this.timer ? this.stop() : this.play(); e.preventDefault(); }
      else if (e.key === 'Home' || e.key === 'End') { this.stop(); this.step(e.key === 'Home' ? 0 : this.n - 1); e.preventDefault(); }
    });
    // the share panel's buttons for a frame this browser laid out (components/export_panel.py)
    window.addEventListener('backprop-save-frame', (e) => this.root.isConnected && this.saveFrame(e.detail));
    // the server writes the link when the expression or an input changes; put the frame back into it
    setInterval(() => this.root.isConnected && this.writeUrl(), 1000);
  }

  // the body, with its graph laid out in each shape (graph.SHAPES): {name: SVG}, the wide one at least
  load(body, shapes) {
    this.body = body;
    this.n = body.patches.length;
    this.legendBox.innerHTML = body.legend;
    this.markSlider(body.marks || []);
    this.shapes = shapes;
    this.sizes = {};
    for (const [name, svg] of Object.entries(shapes)) {
      const box = svg.match(/viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"/);
      this.sizes[name] = { width: (box[1] * 4) / 3, height: (box[2] * 4) / 3 }; // pt to px
    }
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

  // the shape this screen shows best: the whole graph, with its numbers as large as they can be, wherever a shape
  // shows it whole with its numbers at the floor (floorPx); in the page's view micrograd's wide one while it does. Else
  // the one that needs the least scrolling, followed at the floor. The layout never changes between frames, only when
  // the window does
  pickShape() {
    if (this.shapes[this.pinned]) return this.pinned;
    return this.bestShape(this.view.clientWidth || window.innerWidth)[0];
  }

  // [the shape, its numbers' size in px when shown whole] for a view `width` px wide
  bestShape(width) {
    const names = Object.keys(this.shapes);
    const height = this.present ? this.view.clientHeight || window.innerHeight : this.room();
    const most = this.present ? PRESENT_MOST : MOST;
    const whole = (name) => TEXT_PX * Math.min(width / this.sizes[name].width, height / this.sizes[name].height, most);
    const fits = names.filter((name) => whole(name) >= this.floorPx());
    if (!this.present && fits.includes('wide')) return ['wide', whole('wide')]; // the chain rule on its edges
    const best = (fits.length ? fits : names).reduce((a, name) => (whole(name) > whole(a) * (this.present ? BETTER : 1) ? name : a));
    return [best, whole(best)];
  }

  // the least size of the graph's numbers on this screen: a phone's, read at arm's length, or a laptop's and a
  // projector's
  floorPx() {
    return window.innerWidth <= NARROW_PX ? PHONE_TEXT_PX : MIN_TEXT_PX;
  }

  // the page's view: the window's height below the player's bar, less the caption and the sums at their longest
  // (whichever shape is shown, so that choosing one never changes the room, and no frame pushes the graph out of the
  // window). On a phone, where the player stands near the page's top (a heading line above it), the room counts from
  // there, so that the page opens with the bar and the whole view in the window; else from the window's top, once
  // the page is scrolled to the player (intoWindow)
  room() {
    const root = this.root.getBoundingClientRect().top;
    const top = this.captionBox.parentElement.getBoundingClientRect().top - root;
    const overview = this.overview.hidden ? 0 : this.overview.offsetHeight + OVERVIEW_GAP_PX; // under the view
    let above = this.covered();
    if (window.innerWidth <= NARROW_PX) {
      const page = this.pageScroller();
      const atTop = root + (page ? page.scrollTop - Math.max(0, page === document.scrollingElement ? 0 : page.getBoundingClientRect().top) : 0);
      if (atTop <= window.innerHeight / 4) above = Math.max(above, atTop);
    }
    return Math.max(160, window.innerHeight - above - top - this.reserve - overview - BOTTOM_PX - SCROLLBAR_PX);
  }

  // the window's top that Streamlit's header covers, over the page as it scrolls (its own style, not the player's)
  covered() {
    const header = document.querySelector('[data-testid="stHeader"]');
    return header ? Math.max(0, Math.min(window.innerHeight / 4, header.getBoundingClientRect().bottom)) : 0;
  }

  // the box the page scrolls in: Streamlit's main area, or the document
  pageScroller() {
    for (let e = this.root.parentElement || this.root.getRootNode().host; e; e = e.parentElement || e.getRootNode().host) {
      if (e === document.body || e === document.documentElement) break;
      const y = getComputedStyle(e).overflowY;
      if (y === 'auto' || y === 'scroll') return e;
    }
    return document.scrollingElement;
  }

  // the visitor is scrolling the page, touching the screen or typing: the page is not moved under them
  busy() {
    if (this.touching || performance.now() - this.scrolledAt < BUSY_MS) return true;
    let focused = document.activeElement;
    while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
    return !!focused?.matches?.(TYPING);
  }

  // the frame's active node into the window, the page scrolled as little as that takes, never under a visitor who is
  // scrolling, touching or typing. On a phone the player's bar comes with the graph (the graph alone, with the active
  // node in it, if the two are taller than the window): the view was made to fit there (room), so the buttons stay in
  // reach. On a wider screen the page moves only where the active node would be out of the window
  intoWindow() {
    if (this.present || !this.svg || this.busy()) return;
    const page = this.pageScroller();
    if (!page) return;
    const top = this.covered(), bottom = window.innerHeight;
    let by = 0;
    if (window.innerWidth > NARROW_PX) {
      const active = this.values[this.body?.patches[this.cur]?.a];
      if (!active) return;
      const box = active.g.getBoundingClientRect();
      by = box.bottom > bottom ? Math.min(box.bottom - bottom + EDGE_PX, box.top - top - EDGE_PX)
        : box.top < top ? box.top - top - EDGE_PX : 0;
    } else {
      const end = (this.overview.hidden ? this.view : this.overview).getBoundingClientRect().bottom;
      const view = this.view.getBoundingClientRect().top;
      const root = this.root.getBoundingClientRect().top;
      const start = end - root <= bottom - top ? root : view;
      by = start < top ? start - top : end > bottom ? Math.min(end - bottom, start - top) : 0;
    }
    if (Math.abs(by) < 1) return;
    page.scrollTop += by;
    this.ownScrollTop = page.scrollTop;
  }

  // a frame reached by a link, a goto, the class or a new layout: the active node into the window now, and again while
  // the page around the player settles (Streamlit draws the rest of the page, a font loads); not at all once the
  // visitor scrolls, touches or types: the page is theirs
  keepInSight() {
    clearTimeout(this.settleTimer);
    const again = (i) => {
      if (this.busy()) return;
      this.intoWindow();
      if (i < SETTLE_MS.length) this.settleTimer = setTimeout(() => again(i + 1), SETTLE_MS[i] - (SETTLE_MS[i - 1] || 0));
    };
    again(0);
  }

  // the screen changed: another shape if another reads better (the frame shown is drawn again in it), else the zoom
  refit() {
    if (!this.svg) return;
    const best = this.pickShape();
    if (best !== this.shape) {
      const k = this.cur;
      this.drawShape(best);
      this.cur = -1;
      this.go(k);
    } else if (this.scale === undefined) this.zoom(undefined);
  }

  drawShape(name) {
    // the SVG and the HTML are our own, made by Python (or Graphviz, from Python's DOT) from escaped text; no user
    // text reaches them unescaped
    this.view.innerHTML = this.shapes[name];
    this.shape = name;
    this.root.dataset.shape = name; // for tests and screenshots
    this.root.classList.toggle('sums', name !== 'wide'); // no labels on the edges: the chain rule over the graph
    this.svg = this.view.querySelector('svg');
    this.natural = this.sizes[name].width;
    this.naturalHeight = this.sizes[name].height;
    this.svg.removeAttribute('width');
    this.svg.removeAttribute('height');
    this.values = [];
    for (let i = 0; ; i++) {
      const g = this.view.querySelector(`#n${i}`);
      if (!g) break;
      const texts = g.querySelectorAll('text');
      const data = texts[VALUE_TEXTS.data];
      const grad = texts[VALUE_TEXTS.grad];
      g.classList.add('v');
      data.classList.add('value');
      grad.classList.add('value');
      this.values.push({ g, data, grad, row: null, look: null });
    }
    this.ops = {};
    this.view.querySelectorAll('g.node[id$="_op"]').forEach((g) => {
      const i = g.id.slice(1, -3);
      g.classList.add('op');
      this.ops[i] = [g, this.view.querySelector(`#e${i}_out`)];
    });
    this.edges = {};
    // an edge into an op runs through its label (a node of its own, l3_0): up to it (e3_0_in), and on (e3_0)
    this.view.querySelectorAll('g.node[id^="l"]').forEach((g) => {
      const key = g.id.slice(1);
      const parts = [`#e${key}`, `#e${key}_in`].map((id) => this.view.querySelector(id)).filter(Boolean);
      g.classList.add('lab');
      // its lines: local gradient × upstream grad, a blank one where the edge runs, += amount (none in a shape
      // without labels, where it is a point)
      this.edges[key] = { g, parts, texts: [...g.querySelectorAll('text')], label: null, lost: false };
    });
    this.makeTable(this.body.table);
    this.drawOverview();
    this.activeRow = null;
    this.model = emptyModel();
    this.modelAt = -1;
    this.zoom(this.scale);
  }

  makeTable(table) {
    const cell = (tag, text) => Object.assign(document.createElement(tag), { textContent: text });
    const t = document.createElement('table');
    const head = t.createTHead().insertRow();
    // view/node_table.py's columns: node, op, data, grad now, on the `=` engine the grad += gives (beside),
    // the grad's state in the legend's words (when it sends them), and the answers last
    const titles = table.columns || ['node', 'op', 'data', 'grad now', 'final grad'];
    titles.forEach((title, j) => head.appendChild(cell('th', title)).classList.toggle('state', j === this.stateCell(table)));
    const rows = t.createTBody();
    table.names.forEach((name, i) => {
      const row = rows.insertRow();
      const beside = table.beside ? [''] : [];
      const state = table.states ? [''] : [];
      for (const text of [name, table.ops[i], '', '', ...beside, ...state, table.finals[i]]) row.appendChild(cell('td', text));
      if (table.states) row.cells[this.stateCell(table)].classList.add('state');
      this.values[i].row = row;
    });
    this.tableBox.replaceChildren(t);
  }

  // the cell of the grad's state in words: after the += column, where there is one
  stateCell(table) {
    return table.beside ? 5 : 4;
  }

  // the model follows the patches; the page is written once per frame shown, only where it changed
  seek(k) {
    if (k < this.modelAt) { this.model = emptyModel(); this.modelAt = -1; }
    const m = this.model;
    for (let j = this.modelAt + 1; j <= k; j++) {
      const patch = this.body.patches[j];
      for (const [i, ...look] of patch.v) m.values[i] = look;
      m.op = patch.o;
      m.lost = patch.x || []; // the `=` engine: edges whose contribution this frame throws away
      for (const [id, label] of patch.e) m.edges[id] = label;
    }
    this.modelAt = k;
  }

  render() {
    const m = this.model;
    this.values.forEach((v, i) => {
      const look = m.values[i];
      if (!look || look === v.look) return;
      const [data, grad, state, mark, beside] = look;
      v.data.textContent = data;
      v.grad.textContent = grad;
      v.data.classList.toggle('faint', data.trim() === NOT_COMPUTED);
      v.grad.classList.toggle('faint', grad.trim() === NOT_COMPUTED);
      v.data.classList.toggle('not-finite', NOT_FINITE.includes(data.trim()));
      v.grad.classList.toggle('not-finite', NOT_FINITE.includes(grad.trim()));
      v.grad.classList.toggle('asked', grad.trim() === HIDDEN);
      v.g.setAttribute('class', `node v ${state} ${mark}`);
      v.row.cells[2].textContent = data.trim();
      v.row.cells[3].textContent = grad.trim();
      if (beside !== undefined) { // the `=` engine: what += gives, in bold where the two differ
        v.row.cells[4].textContent = beside;
        v.row.cells[4].classList.toggle('differs', beside !== grad.trim());
      }
      if (this.body.table.states) v.row.cells[this.stateCell(this.body.table)].textContent = this.body.table.states[state];
      v.look = look;
    });
    for (const [id, [g, out]] of Object.entries(this.ops)) {
      const hot = +id === m.op;
      g.classList.toggle('hot', hot);
      if (out) out.classList.toggle('hot', hot);
    }
    for (const [id, e] of Object.entries(this.edges)) {
      const label = m.edges[id] || '';
      const lost = m.lost.includes(id);
      if (label === e.label && lost === e.lost) continue;
      const lines = (label || this.body.blank).split('\n');
      e.texts.forEach((t, j) => { t.textContent = lines[j] ?? ''; });
      for (const part of [e.g, ...e.parts]) {
        part.classList.toggle('hot', label !== '' && !lost);
        part.classList.toggle('lost', lost);
      }
      e.label = label;
      e.lost = lost;
    }
  }

  go(k) {
    if (!this.body) return; // being laid out
    k = Math.max(0, Math.min(this.n - 1, this.asking() ? this.question.frame : Infinity, k));
    if (k === this.cur) return;
    this.seek(k);
    this.followActive(k); // before writing texts and colours (they never move a node), so no layout is forced
    this.markOverview(k);
    this.markEdges();
    this.render();
    const row = this.values[this.body.patches[k].a]?.row || null;
    if (row !== this.activeRow) {
      this.activeRow?.classList.remove('active');
      row?.classList.add('active');
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
    this.captionBox.textContent = `${this.body.labels[k]} · ${this.body.captions[k]}`;
    this.slider.setAttribute('aria-valuetext', this.body.labels[k]);
    this.showRules(this.rulesAt(k));
    this.explainBox.innerHTML = this.body.explanations[k];
    this.summaryBox.innerHTML = k === this.n - 1 ? this.body.summary : '';
    this.plotBox.innerHTML = this.body.plots ? this.body.plots.head + this.body.plots.parts[this.body.plots.at[k]] : '';
    if (this.asking() && k === this.question.frame) this.mask(k);
    this.explainBox.dataset.frame = k; // for tests and benchmarks: the frame the words show now
    this.root.dataset.frame = k; // and the graph
    this.writeUrlSoon();
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
      if (this.scrolledAt < started) return this.step(this.cur + 1);
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

  // the address bar always links to the frame shown: replaced in place, so Back never walks through frames
  writeUrlSoon() {
    if (this.urlTimer) return;
    const wait = Math.max(0, this.urlWritten + URL_EVERY_MS - performance.now());
    this.urlTimer = setTimeout(() => { this.urlTimer = null; this.writeUrl(); }, wait);
  }

  writeUrl() {
    if (this.cur < 0) return;
    const url = new URL(window.location.href);
    const step = this.cur === this.n - 1 ? 'end' : String(this.cur);
    if (url.searchParams.get('step') === step) return;
    url.searchParams.set('step', step);
    window.history.replaceState(window.history.state, '', url);
    this.urlWritten = performance.now();
  }

  // Streamlit drops a query string of more than 1,000 parameters or 512 Ki characters without a word: say so
  checkLink() {
    const search = window.location.search;
    const count = [...new URLSearchParams(search).keys()].length;
    const long = search.length - 1 > 512 * 1024;
    if (count <= 1000 && !long) return;
    const what = long ? `${(search.length - 1).toLocaleString('en')} characters, more than the 512 Ki`
      : `${count} parameters, more than the 1,000`;
    this.noticeBox.textContent = `This link has ${what} the server reads, so none of it was read: the page opened ` +
      'with its defaults.';
    this.noticeBox.hidden = false;
  }

  // the sums over the graph at frame k: none on a question's frame before the reveal (they give the answer)
  rulesAt(k) {
    return this.asking() && k === this.question.frame ? [] : this.body.rules[k] || [];
  }

  showRules(lines) {
    this.rulesBox.replaceChildren(...lines.map((line) => Object.assign(document.createElement('div'), { textContent: line })));
  }

  // the presentation view: the graph takes the window's height below the title and the sums, which keep the room
  // their longest texts need, so that no frame moves the graph, and above the legend
  fitStage() {
    this.captionBox.style.minHeight = this.rulesBox.style.minHeight = this.view.style.height = '';
    if (!this.present || !this.body) return this.zoom(this.scale);
    const [caption, rules] = this.longest();
    this.captionBox.style.minHeight = `${caption}px`;
    this.rulesBox.style.minHeight = `${rules}px`;
    let scrolled = 0; // the page scrolls inside Streamlit's own containers
    for (let e = this.view; e; e = e.parentElement || e.getRootNode().host) scrolled += e.scrollTop || 0;
    const top = this.view.getBoundingClientRect().top + scrolled;
    const legend = this.legendBox.offsetHeight + (parseFloat(getComputedStyle(this.legendBox).marginTop) || 0);
    this.view.style.height = `${Math.max(120, window.innerHeight - top - legend - BOTTOM_PX)}px`;
    if (this.pickShape() !== this.shape) this.refit();
    else this.zoom(this.scale);
  }

  // [the caption's height, the sums' height, and the sums' margins] at their longest over the frames, as this screen
  // draws them (the sums as a shape without labels shows them)
  longest() {
    const longest = (texts) => texts.reduce((a, b) => (b.length > a.length ? b : a), '');
    const most = (a, b) => (b.length > a.length || (b.length === a.length && longest(b).length > longest(a).length) ? b : a);
    const shown = this.captionBox.textContent;
    this.captionBox.textContent = `${longest(this.body.labels)} · ${longest(this.body.captions)}`;
    const caption = this.captionBox.offsetHeight;
    this.captionBox.textContent = shown;
    const sums = this.root.classList.contains('sums');
    this.root.classList.add('sums');
    this.showRules(this.body.rules.reduce(most, []));
    const rules = this.rulesBox.offsetHeight;
    const margins = outerMargins(this.rulesBox);
    this.root.classList.toggle('sums', sums);
    this.showRules(this.rulesAt(this.cur));
    return [caption, rules, margins];
  }

  // the page's view keeps room under the bar for the caption and the sums at their longest (room), so that no frame's
  // texts push the active node out of the window; they take only this frame's height, so no blank band stands
  // over the graph
  reserveRoom() {
    if (this.present) return;
    this.captionBox.style.minHeight = this.rulesBox.style.minHeight = '';
    if (!this.body) return;
    const [caption, rules, margins] = this.longest();
    const line = Math.max(caption + outerMargins(this.captionBox), this.followButton.hidden ? 0 : this.followButton.offsetHeight);
    this.reserve = line + Math.max(RULES_PX, rules + margins);
  }

  fitScale() {
    const across = this.view.clientWidth / this.natural;
    return this.present ? Math.min(across, this.view.clientHeight / this.naturalHeight) : across;
  }

  // a graph too big to fit at a readable size: in the presentation view, as tall as the view (up to its natural
  // size), scrolled sideways to follow the active node
  readableScale() {
    const tall = (this.view.clientHeight - SCROLLBAR_PX) / this.naturalHeight;
    return Math.max(this.floorPx() / TEXT_PX, Math.min(1, tall));
  }

  // the page's view: the graph as large as the view's width and the room below the bar allow, between the floor (a
  // phone's own) and MOST
  pageScale() {
    const across = this.view.clientWidth / this.natural;
    const down = this.room() / this.naturalHeight;
    return Math.max(this.floorPx() / TEXT_PX, Math.min(across, down, MOST));
  }

  shownScale() {
    return this.shown || Math.min(this.fitScale(), MOST);
  }

  // scale: a number, null to fit the width, or undefined for the default (pageScale; in the presentation view, fit
  // unless that is too small to read)
  zoom(scale) {
    this.reserveRoom();
    this.scale = scale;
    if (scale !== undefined) this.shown = scale;
    else if (this.present) this.shown = this.fitScale() < this.floorPx() / TEXT_PX ? this.readableScale() : null;
    else this.shown = this.pageScale();
    const fitted = this.present ? `${this.natural * Math.min(this.fitScale(), PRESENT_MOST)}px` : '100%';
    this.svg.style.width = this.shown ? `${this.natural * this.shown}px` : fitted;
    this.svg.style.maxWidth = this.shown || this.present ? 'none' : `${this.natural * MOST}px`; // a small graph is not blown up
    this.svg.style.height = 'auto';
    // the page's view ends where the window does (above the overview, if any), once scrolled to the player
    const view = this.view;
    const fitHeight = () => {
      view.style.maxHeight = this.present ? '' : `${this.room() + SCROLLBAR_PX}px`;
    };
    fitHeight();
    const sideways = view.scrollWidth > view.clientWidth + 1;
    const hidden = !sideways && view.scrollHeight <= view.clientHeight + 1;
    if (hidden !== this.overview.hidden) {
      this.overview.hidden = hidden;
      fitHeight();
    }
    view.style.touchAction = sideways ? '' : 'pan-y pinch-zoom'; // a sideways swipe steps, unless the graph scrolls
    this.followActive(this.cur);
    this.makeRoom();
    this.markOverview();
    this.markEdges();
  }

  // a graph bigger than its view: at each edge beyond which more of it lies, a shade and an arrow, so that a box cut
  // there reads as cut
  markEdges() {
    const v = this.view;
    const beyond = {
      left: v.scrollLeft > 1, right: v.scrollLeft + v.clientWidth < v.scrollWidth - 1,
      up: v.scrollTop > 1, down: v.scrollTop + v.clientHeight < v.scrollHeight - 1,
    };
    for (const [side, more] of Object.entries(beyond)) this.more[side].hidden = !more;
  }

  // the overview: the graph as laid out, as a picture (a big graph's SVG is large: a copy in the page would double
  // its nodes), without the frame's colours; over it the part in view and the active node, moved as the view scrolls
  // and the frame changes
  drawOverview() {
    if (this.mapUrl) URL.revokeObjectURL(this.mapUrl);
    this.mapUrl = URL.createObjectURL(new Blob([this.shapes[this.shape]], { type: 'image/svg+xml' }));
    const picture = Object.assign(document.createElement('img'), { src: this.mapUrl, alt: '' });
    const mark = (name) => Object.assign(document.createElement('div'), { className: name });
    this.inView = mark('in-view');
    this.here = mark('here');
    this.map.replaceChildren(picture, this.inView, this.here);
  }

  // shown only while the graph is bigger than the view (zoom decides); at frame k, read before the frame's texts are
  // written, so that a step forces no second layout
  markOverview(k = this.cur) {
    if (!this.svg || !this.inView || this.overview.hidden) return;
    const shown = this.svg.getBoundingClientRect();
    if (!shown.width) return;
    const place = (r, el) => { // r, a box on screen, as a share of the graph, within it
      const left = Math.max(r.left, shown.left), top = Math.max(r.top, shown.top);
      Object.assign(el.style, {
        left: `${(100 * (left - shown.left)) / shown.width}%`, top: `${(100 * (top - shown.top)) / shown.height}%`,
        width: `${(100 * Math.max(0, Math.min(r.right, shown.right) - left)) / shown.width}%`,
        height: `${(100 * Math.max(0, Math.min(r.bottom, shown.bottom) - top)) / shown.height}%`,
      });
    };
    const view = this.view.getBoundingClientRect();
    place({ left: view.left, top: view.top, right: view.left + this.view.clientWidth, bottom: view.top + this.view.clientHeight }, this.inView);
    const active = this.values[this.body.patches[Math.max(0, k)]?.a];
    this.here.hidden = !active;
    if (active) place(active.g.getBoundingClientRect(), this.here);
  }

  // a click on the overview: that point of the graph to the middle of the view
  lookAt(e) {
    const map = this.map.getBoundingClientRect();
    const x = (e.clientX - map.left) / map.width, y = (e.clientY - map.top) / map.height;
    this.view.scrollLeft = x * this.view.scrollWidth - this.view.clientWidth / 2;
    this.view.scrollTop = y * this.view.scrollHeight - this.view.clientHeight / 2;
  }

  // a graph that no shape shows readably beside the sidebar: the sidebar is closed, once for this graph (new inputs
  // keep its layout), so that a visitor who opens it again keeps it open
  makeRoom() {
    if (this.present || this.sidebarClosedFor === this.shapes.wide || window.innerWidth <= NARROW_PX) return;
    const sidebar = document.querySelector('[data-testid="stSidebar"][data-collapsed="false"]');
    const close = sidebar?.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (!close || this.bestShape(this.view.clientWidth)[1] >= this.floorPx()) return;
    if (this.bestShape(this.view.clientWidth + sidebar.offsetWidth)[1] < this.floorPx()) return; // it would not help
    this.sidebarClosedFor = this.shapes.wide;
    close.click();
  }

  // on a touch screen a sideways swipe on the graph steps, unless the graph scrolls sideways there
  swipes() {
    let start = null;
    this.view.addEventListener('touchstart', (e) => { start = e.touches.length === 1 ? e.touches[0] : null; }, { passive: true });
    this.view.addEventListener('touchend', (e) => {
      if (!start || this.view.scrollWidth > this.view.clientWidth + 1) return;
      const end = e.changedTouches[0];
      const dx = end.clientX - start.clientX, dy = end.clientY - start.clientY;
      start = null;
      if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < 2 * Math.abs(dy)) return;
      this.stop();
      this.step(this.cur + (dx < 0 ? 1 : -1)); // to the left: the next frame, as a page turns
    });
  }

  // when zoomed, scroll the view, never the page, to keep frame k's node in sight with the values next to it (its
  // inputs and the values it feeds, body.near): all of them if they fit, else the node and its inputs (what it is
  // made of, and whose grads its _backward writes), else the node and what it feeds, else the node alone, brought
  // to the middle
  followActive(k) {
    const a = this.body?.patches[k]?.a;
    const active = this.values[a];
    if (!active || !this.shown) return;
    const view = this.view.getBoundingClientRect();
    const width = this.view.clientWidth, height = this.view.clientHeight;
    const box = (gs) => {
      const rs = gs.map((g) => g.getBoundingClientRect());
      return { left: Math.min(...rs.map((r) => r.left)), top: Math.min(...rs.map((r) => r.top)),
               right: Math.max(...rs.map((r) => r.right)), bottom: Math.max(...rs.map((r) => r.bottom)) };
    };
    const [inputs, outputs] = this.body.near?.[a] || [[], []];
    const g = (js) => js.map((j) => this.values[j]?.g).filter(Boolean);
    const wanted = [box([active.g, ...g(inputs), ...g(outputs)]), box([active.g, ...g(inputs)]), box([active.g, ...g(outputs)]),
      box([active.g])]
      .find((b) => b.right - b.left <= width && b.bottom - b.top <= height) || box([active.g]);
    // out of sight: its middle to the view's middle
    const along = (lo, hi, viewLo, viewHi) => (lo >= viewLo && hi <= viewHi ? 0 : (lo + hi - viewLo - viewHi) / 2);
    this.view.scrollLeft += along(wanted.left, wanted.right, view.left, view.left + width);
    this.view.scrollTop += along(wanted.top, wanted.bottom, view.top, view.top + height);
  }

  // the table scrolls, never the page, to keep the active row in sight
  followRow(row) {
    if (!row) return;
    const box = this.tableBox;
    const head = row.parentElement.previousElementSibling?.offsetHeight || 0;
    if (row.offsetTop - head < box.scrollTop || row.offsetTop + row.offsetHeight > box.scrollTop + box.clientHeight)
      box.scrollTop = row.offsetTop - head - (box.clientHeight - head - row.offsetHeight) / 2;
  }

  // one run of the page: a line of JSON for this run, a line with the graph (empty where this page has it by the
  // name head.graph), then the layout's body; the last two read only when the layout is new
  update(bytes) {
    const cut = bytes.indexOf(10);
    const graphEnd = bytes.indexOf(10, cut + 1);
    this.head = JSON.parse(utf8.decode(bytes.subarray(0, cut)));
    let graph = GRAPHS.get(this.head.graph);
    if (graphEnd > cut + 1 && !graph) graph = JSON.parse(utf8.decode(bytes.subarray(cut + 1, graphEnd)));
    if (!graph) { // the server took it as sent, and this page never had it: a run it skipped. It is sent again
      this.component?.setTriggerValue('missing', this.head.graph);
      return;
    }
    GRAPHS.delete(this.head.graph); // the most recent last: the oldest goes first
    GRAPHS.set(this.head.graph, graph);
    if (GRAPHS.size > KEPT_GRAPHS) GRAPHS.delete(GRAPHS.keys().next().value);
    // the page's font (static/fonts/), in the page's head: Chromium ignores an @font-face in a shadow root
    if (!document.getElementById('backprop-fonts')) {
      document.head.append(Object.assign(document.createElement('style'), { id: 'backprop-fonts', textContent: this.head.fonts || '' }));
    }
    if (this.layout === null) this.checkLink();
    if (this.head.layout !== this.layout) {
      this.stop();
      this.layout = this.head.layout;
      const body = { ...graph, ...JSON.parse(utf8.decode(bytes.subarray(graphEnd + 1))) };
      if (body.svg === undefined) return this.layOutHere(body, this.head.layout);
      this.load(body, { wide: body.svg, ...body.fits });
    }
    if (this.body) this.apply(this.head);
  }

  // a server without dot sends the value-free DOT: laid out here, once per graph, within the server's budget (the
  // full layout, then the quick one, then the page says so), then patched exactly as the server's SVG would be
  async layOutHere(body, name) {
    this.body = this.svg = null;
    this.cur = -1;
    this.view.replaceChildren();
    for (const box of [this.captionBox, this.explainBox, this.summaryBox, this.plotBox]) box.replaceChildren();
    const key = body.dot;
    let laid = this.layouts.get(key);
    if (!laid) {
      const started = performance.now();
      const tell = () => this.tell(`Laying out the graph… ${((performance.now() - started) / 1000).toFixed(1)} s`);
      tell();
      const ticking = setInterval(tell, PROGRESS_MS);
      try {
        const [full, quick] = body.budget.map((s) => s * 1000);
        let run = await browserGraphviz.run(body.url, body.dot, full);
        let isQuick = false;
        if (run.svg === null && !run.cancelled) {
          run = await browserGraphviz.run(body.url, withGraphAttributes(body.dot, body.quick), quick);
          isQuick = true;
        }
        if (run.cancelled || this.layout !== name) return; // another graph was asked for meanwhile
        if (run.svg === null) return this.tell(body.tangled);
        const shapes = { wide: run.svg };
        for (const [shape, dot] of Object.entries(isQuick ? {} : body.fits || {})) { // a tangled graph: the wide one
          const fit = await browserGraphviz.run(body.url, dot, full);
          if (fit.cancelled || this.layout !== name) return;
          if (fit.svg !== null) shapes[shape] = fit.svg;
        }
        laid = { shapes, quick: isQuick, ms: performance.now() - started };
      } catch (error) {
        if (this.layout === name) this.tell(`The graph could not be laid out in this browser: ${error.message}`);
        return;
      } finally {
        clearInterval(ticking);
      }
      this.layouts.delete(key); // the most recent last: the oldest goes first
      this.layouts.set(key, laid);
      if (this.layouts.size > KEPT_LAYOUTS) this.layouts.delete(this.layouts.keys().next().value);
    }
    if (this.layout !== name) return;
    this.tell(laid.quick ? body.quickNote : '');
    this.load(body, laid.shapes);
    // for tests and benchmarks: who laid it out and in how many ms, and how many graphs this browser keeps laid out
    this.root.dataset.laidOut = `browser ${laid.ms.toFixed(0)}`;
    this.root.dataset.layouts = this.layouts.size;
    this.apply(this.head);
  }

  // the line on the browser's layout above the caption: a progress line, or why there is no graph (empty: none)
  tell(text) {
    this.layingBox.textContent = text;
    this.layingBox.hidden = !text;
  }

  // a live class: the room this run names (none, the lead's, a follower's)
  joinRoom(room) {
    const code = room?.code || null;
    if (code !== this.classRoom?.code || !!room?.follow !== !!this.classRoom?.follow) {
      this.events?.close();
      this.events = null;
      this.classState = null;
      this.posted = null;
      this.following = true;
      this.setQuestion(null);
      if (room?.follow) this.follow(room);
    }
    this.classRoom = room || null;
    this.followButton.hidden = !room?.follow;
    this.showFollowing();
    if (room?.lead) this.setQuestion(room.question || null);
    this.keepLead(room);
    this.postStep();
  }

  // the lecturer's page keeps its class across a reload: its code and secret in this tab's own storage (never in the
  // link, which the projector shows), handed back once to a reloaded page that leads none, which checks them
  keepLead(room) {
    const kept = 'backprop-class-lead';
    try {
      if (room?.lead) window.sessionStorage.setItem(kept, JSON.stringify({ code: room.code, secret: room.secret }));
      else if (this.head?.present && !room && !this.leadOffered) {
        this.leadOffered = true;
        const lead = JSON.parse(window.sessionStorage.getItem(kept) || 'null');
        if (lead) this.component?.setStateValue('lead', lead);
      }
    } catch { /* storage refused: a reload starts a new class */ }
  }

  // a follower: its id in the room (this browser's, kept for the room), the class's events, what ends them
  follow(room) {
    const kept = `backprop-class-${room.code}`;
    let id = null;
    try { id = window.localStorage.getItem(kept); } catch { /* storage refused: an id for this page alone */ }
    if (!/^[A-Za-z0-9_-]{8,64}$/.test(id || '')) {
      const bytes = crypto.getRandomValues(new Uint8Array(12));
      id = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_');
      try { window.localStorage.setItem(kept, id); } catch { /* as above */ }
    }
    this.student = id;
    this.component?.setStateValue('student', id); // the page sends the student's bodies under it (code mode)
    const url = `${room.api}/events?student=${encodeURIComponent(id)}`;
    this.events = new EventSource(url);
    this.events.onmessage = (e) => {
      if (this.classNotice) this.noticeBox.hidden = true;
      this.classNotice = false;
      this.classState = JSON.parse(e.data);
      this.setQuestion(this.classState.question || null);
      if (this.following) this.toClass();
    };
    this.events.addEventListener('ended', (e) => this.leaveClass(JSON.parse(e.data).message));
    // an answer that is not a stream (a full room, an unknown code): its words, and no more tries
    this.events.onerror = () => {
      if (this.events?.readyState !== EventSource.CLOSED) return; // reconnecting by itself, to any replica
      const again = () => setTimeout(() => { if (this.classRoom?.code === room.code && !this.events) this.follow(room); }, 3000);
      this.events.close();
      this.events = null;
      fetch(url).then((r) => {
        if (r.ok) { r.body?.cancel(); again(); } // it answers again: follow again
        else if (r.status === 503) r.json().then((j) => { this.tellClass(j.error); again(); }); // the store is away
        else r.json().then((j) => this.leaveClass(j.error));
      }).catch(() => { this.tellClass('The class cannot be reached just now: trying again…'); again(); });
    };
  }

  // a word on the class that ends nothing (it cannot be reached just now); gone at its next event
  tellClass(message) {
    this.classNotice = true;
    this.noticeBox.textContent = message;
    this.noticeBox.hidden = false;
  }

  leaveClass(message) {
    this.events?.close();
    this.events = null;
    this.classRoom = null;
    this.followButton.hidden = true;
    this.setQuestion(null);
    this.noticeBox.textContent = message;
    this.noticeBox.hidden = false;
  }

  // an open question the class is asked, not yet revealed: its frame hides what it asks, and no one steps past it
  asking() {
    return !!this.question && !this.question.revealed;
  }

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
  }

  // on a follower's phone: the question's boxes, then, once revealed, each answer against the right grad
  showQuestion(question, fresh) {
    if (question.revealed) return this.showVerdict(question);
    if (!fresh) return;
    const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
    const head = el('div', { className: 'ask-head', textContent: `Question ${question.id}: what is each grad after this _backward?` });
    const form = el('form', { className: 'ask-form' });
    for (const item of question.asked) {
      const label = el('label');
      const input = el('input', { type: 'text', inputMode: 'decimal', autocomplete: 'off', maxLength: 40, placeholder: 'your answer' });
      input.dataset.node = item.node;
      const flip = el('button', { type: 'button', className: 'sign', textContent: '±', title: 'Change the sign' });
      flip.onclick = () => { input.value = input.value.trim().startsWith('-') ? input.value.trim().slice(1) : `-${input.value.trim()}`; input.focus(); };
      label.append(el('span', { textContent: `${item.label} =` }), input, flip);
      form.append(label);
    }
    const send = el('button', { type: 'submit', className: 'primary', textContent: 'Send' });
    const said = el('div', { className: 'said', role: 'status' });
    form.append(send);
    form.onsubmit = (e) => { e.preventDefault(); this.sendAnswer(question, form, said); };
    this.askBox.append(head, form, said);
  }

  async sendAnswer(question, form, said) {
    const answers = {};
    for (const input of form.querySelectorAll('input')) if (input.value.trim()) answers[input.dataset.node] = input.value.trim();
    if (!Object.keys(answers).length) { said.textContent = 'Type a number first.'; return; }
    said.textContent = 'Sending…';
    const body = JSON.stringify({ student: this.student, question: question.id, answers });
    for (let attempt = 0; attempt < 4; attempt++) { // a replica lost on the way: the same answer again, counted once
      try {
        const r = await fetch(`${this.classRoom.api}/answer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
        const got = await r.json();
        said.textContent = r.ok ? 'Sent ✓ You can change it until the reveal.' : got.error;
        said.classList.toggle('bad', !r.ok);
        return;
      } catch {
        await new Promise((done) => setTimeout(done, 500 * (attempt + 1)));
      }
    }
    said.textContent = 'Your answer could not be sent: check the connection and send it again.';
    said.classList.add('bad');
  }

  async showVerdict(question) {
    if (!this.classRoom?.follow) return;
    let got;
    try {
      const r = await fetch(`${this.classRoom.api}/verdict?student=${encodeURIComponent(this.student)}`);
      got = await r.json();
      if (!r.ok) throw new Error(got.error);
    } catch (error) {
      return;
    }
    if (this.question?.id !== question.id) return;
    const lines = got.asked.map((item) => {
      const right = item.group === 'right';
      const yours = item.answer === null ? 'you did not answer' : `you said ${Player.number(item.answer)}`;
      const why = right || item.answer === null ? '' : ` · ${item.says}`;
      return Object.assign(document.createElement('div'), {
        className: right ? 'right' : 'wrong',
        textContent: `${right ? '✓' : '✗'} ${item.label} = ${Player.number(item.right)} (${yours})${why}`,
      });
    });
    this.askBox.replaceChildren(Object.assign(document.createElement('div'), { className: 'ask-head', textContent: `Question ${question.id}, revealed` }), ...lines);
    this.askBox.hidden = false;
  }

  // a number as the page writes it: up to 4 decimals, a true minus sign
  static number(x) {
    return Number(x).toLocaleString('en', { maximumFractionDigits: 4, useGrouping: false }).replace('-', '−');
  }

  // the question's frame, before the reveal: what it asks shows '?', and so do the sums and words that give it away
  mask(k) {
    const asked = this.question.asked;
    for (const item of asked) {
      const v = this.values[+item.node];
      if (!v) continue;
      v.grad.textContent = HIDDEN;
      v.grad.classList.add('asked');
      v.row.cells[3].textContent = HIDDEN;
      v.look = null; // written again when the mask lifts
    }
    for (const e of Object.values(this.edges)) { // the edges' sums carry the contributions
      (this.body.blank || '').split('\n').forEach((line, j) => { if (e.texts[j]) e.texts[j].textContent = line; });
      e.label = null;
    }
    const names = asked.map((item) => item.label).join(', ');
    this.captionBox.textContent = `${this.body.labels[k]} · Question ${this.question.id}: ${names} after this _backward?`;
    this.explainBox.replaceChildren();
    this.summaryBox.replaceChildren();
    this.plotBox.replaceChildren();
  }

  // the page's scenario: its link without what the room names apart (room.private, from state.py: the frame,
  // Streamlit's own, the class's code and the lecturer's own view)
  scenario() {
    const params = new URLSearchParams(window.location.search);
    const kept = {};
    for (const [k, v] of params) if (!this.classRoom.private.includes(k)) kept[k] = v;
    return kept;
  }

  static sameScenario(a, b) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => a[k] === b[k]);
  }

  // the lead: each frame shown, posted to the class with the lecturer's secret (in a header, never in a link)
  postStep() {
    if (!this.classRoom?.lead || this.cur < 0 || !this.body) return;
    const step = JSON.stringify({ scenario: this.scenario(), frame: this.cur });
    if (step === this.posted) return;
    this.posted = step;
    fetch(`${this.classRoom.api}/step`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Class-Secret': this.classRoom.secret }, body: step,
    }).then((r) => { if (!r.ok) this.posted = null; }).catch(() => { this.posted = null; });
  }

  // a follower: to the class's frame, in place; to the class's link where its scenario is another (a rerun then)
  toClass() {
    const held = this.classState;
    if (!held || !this.classRoom?.follow) return;
    if (Player.sameScenario(this.scenario(), held.scenario)) {
      if (this.body && held.frame !== this.cur) { this.go(held.frame); this.keepInSight(); } // the lecturer's step
      return;
    }
    const own = {}; // the student's own work (their bodies), which the class never moves
    for (const [k, v] of new URLSearchParams(window.location.search)) if (this.classRoom.own.includes(k)) own[k] = v;
    const query = new URLSearchParams({ class: this.classRoom.code, ...held.scenario, ...own, step: String(held.frame) });
    window.location.assign(`${window.location.pathname}?${query}`);
  }

  // a follower's own step: on their own until they tap to rejoin
  onOwn() {
    if (this.classRoom?.follow && this.following) this.setFollowing(false);
  }

  setFollowing(on) {
    this.following = on;
    this.showFollowing();
    if (on) this.toClass();
  }

  // on a phone, in short: '● Following', or '↺ Rejoin' (player.css leaves the words out and shows the icon)
  showFollowing() {
    const [icon, word, full] = this.following ? ['● Following', ' the class', '● Following the class']
      : ['↺ Rejoin', 'On my own · back to the class', 'On my own · back to the class'];
    const short = Object.assign(document.createElement('span'), { textContent: icon, className: this.following ? '' : 'icon' });
    this.followButton.replaceChildren(short, Object.assign(document.createElement('span'), { textContent: word, className: 'word' }));
    this.followButton.setAttribute('aria-label', full);
    this.followButton.classList.toggle('primary', !this.following);
    this.root.dataset.following = this.classRoom?.follow ? String(this.following) : '';
  }

  // what a run of the page says besides the body: the speed, the views, where to go
  apply(head) {
    const wasPlaying = !!this.timer;
    const fresh = this.cur < 0 && this.gotoId === null;
    this.stem = head.stem || 'graph';
    this.of = Math.max(this.n, head.length || 0);
    this.slider.max = this.of - 1; // a quiz's slider shows how far its question is into the pass; go() stops there
    this.tableBox.classList.toggle('answers', head.answers);
    const present = !!head.present;
    this.root.classList.toggle('present', present);
    this.root.classList.toggle('with-table', !!head.table);
    if (head.speed !== this.speed) {
      this.speed = head.speed;
      if (wasPlaying && this.timer) { this.stop(); this.play(); }
    }
    const before = this.cur;
    let target = this.cur < 0 ? this.lastFrame : this.cur;
    let sent = false; // the page sent the player somewhere: a link's frame, a quiz's question, a learning step
    if (head.goto.id !== this.gotoId) {
      this.gotoId = head.goto.id;
      sent = fresh || !head.goto.open;
      if (sent) target = head.goto.frame;
    }
    const k = Math.max(0, Math.min(this.n - 1, target));
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

  // this frame as a file, from the SVG on screen: 'svg' (its looks written into it, so it stands alone) or 'png'
  // (PNG_SCALE times its size, on white). For a graph this browser laid out, where the server cannot draw one
  saveFrame(kind) {
    if (!this.svg) return;
    const copy = standalone(this.svg, this.natural, this.naturalHeight);
    const name = `${this.stem}${this.body.files[this.cur]}`; // '_f03', the frame's number: exports.frame_suffix
    const text = new XMLSerializer().serializeToString(copy);
    const svgBlob = new Blob([text], { type: 'image/svg+xml' });
    if (kind === 'svg') return download(svgBlob, `${name}.svg`);
    const scale = Math.min(PNG_SCALE, Math.sqrt(PNG_PIXELS / (this.natural * this.naturalHeight)),
      CANVAS_SIDE / this.natural, CANVAS_SIDE / this.naturalHeight);
    const image = new Image();
    const url = URL.createObjectURL(svgBlob);
    image.onload = () => {
      const canvas = Object.assign(document.createElement('canvas'), {
        width: Math.round(this.natural * scale), height: Math.round(this.naturalHeight * scale) });
      const paint = canvas.getContext('2d');
      paint.fillStyle = 'white';
      paint.fillRect(0, 0, canvas.width, canvas.height);
      paint.drawImage(image, 0, 0, canvas.width, canvas.height);
      URL.revokeObjectURL(url);
      canvas.toBlob((png) => download(png, `${name}.png`), 'image/png');
    };
    image.src = url;
  }
}

// the DOT with graph attributes set at its end, where they win over those at its head (server/layout.py's quick layout)
function withGraphAttributes(dot, attributes) {
  const set = Object.entries(attributes).map(([k, v]) => `${k}="${v}"`).join(' ');
  return dot.replace(/\}\s*$/, `graph [${set}]\n}`);
}

// the looks the player's stylesheet gives an SVG's parts, written into a copy of it, so that it stands alone
const LOOKS = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'font-family', 'font-size', 'font-weight',
  'text-decoration', 'white-space'];
function standalone(svg, width, height) {
  const copy = svg.cloneNode(true);
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [copy, ...copy.querySelectorAll('*')];
  from.forEach((e, i) => {
    if (!(e instanceof SVGGraphicsElement) || e.tagName === 'g') return;
    const style = getComputedStyle(e);
    to[i].setAttribute('style', LOOKS.map((p) => `${p}:${style.getPropertyValue(p)}`).join(';'));
  });
  copy.removeAttribute('style');
  copy.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  copy.setAttribute('width', `${width}px`);
  copy.setAttribute('height', `${height}px`);
  return copy;
}

// an element's margins above and below, in px
function outerMargins(e) {
  const style = getComputedStyle(e);
  return (parseFloat(style.marginTop) || 0) + (parseFloat(style.marginBottom) || 0);
}

// a button's look: its icon, and its word, which a phone leaves out (player.css); its name says both
function labelButton(button, icon, word) {
  const mark = Object.assign(document.createElement('span'), { textContent: icon });
  mark.setAttribute('aria-hidden', 'true');
  button.replaceChildren(mark, Object.assign(document.createElement('span'), { textContent: ` ${word}`, className: 'word' }));
  button.setAttribute('aria-label', word);
}

function download(blob, name) {
  const a = Object.assign(document.createElement('a'), { href: URL.createObjectURL(blob), download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

export default function (component) {
  const { parentElement } = component;
  const root = parentElement.querySelector('.player') || parentElement.appendChild(Object.assign(document.createElement('div'), { className: 'player' }));
  const player = root.__player || (root.__player = new Player(root));
  player.component = component;
  player.update(component.data);
}
