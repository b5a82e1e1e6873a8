// The viewport: which shape of the graph this screen shows and at what zoom, the room below the player's bar, the
// active node kept in sight (in the view, and the view in the window), the overview's clicks, a phone's swipes, and
// the presentation view fitted to the window. The pure parts, which decide with numbers alone, are exported for the
// tests.
// the numbers are 14 pt text, 18.7 px at the graph's natural size. The page's view shows the graph as large as
// fits its width and height, but never so small that the numbers are under MIN_TEXT_PX (read from a classroom's
// back row): a graph too big for that is shown at it and scrolled to follow the active node. "Fit" shows it whole.
export const TEXT_PX = (14 * 4) / 3;
export const MIN_TEXT_PX = 16.5; // 16 px and a margin for the SVG's rounding
export const MOST = 1.6; // a small graph is not blown up beyond this
// a phone held upright: its numbers may be smaller, read at arm's length. The graph fits the window below the
// player's bar and caption, whole where its numbers stay this size, else scrolled in the view to follow the active
// node; a step scrolls the page to show the bar and the graph together (player.css has the same width)
export const NARROW_PX = 640;
export const EDGE_PX = 12; // a box brought into the window on a wide screen stands this far inside its edge
export const PHONE_TEXT_PX = 12.2; // 12 px and a margin for the SVG's rounding
export const RULES_PX = 56; // room for the sums over a graph without labels: two lines, whichever shape is shown
export const BETTER = 1.1; // the presentation view takes a later shape only for numbers this much larger
const OVERVIEW_GAP_PX = 8; // the overview's margin above it
export const SWIPE_PX = 50; // a swipe on a phone's graph steps once it has moved this far sideways
const BUSY_MS = 1200; // the visitor scrolled the page this recently: it is not moved under them
const SETTLE_MS = [150, 400, 800, 1500]; // a frame reached by a link or the class is looked for again after these
// where the visitor types: the page is never scrolled, nor the keys taken, there
export const TYPING = 'textarea, select, [contenteditable="true"], [role="listbox"], input:not([type="checkbox"]):not([type="range"])';
export const PRESENT_MOST = 2.5; // the presentation view blows a small graph up to at most this
const BOTTOM_PX = 12; // the presentation view's graph ends this far above the window's bottom edge
export const SCROLLBAR_PX = 16; // room for the sideways scrollbar of a graph too big to fit

// the least size of the graph's numbers on a window this wide: a phone's, read at arm's length, or a laptop's and a
// projector's
export const floorFor = (windowWidth) => (windowWidth <= NARROW_PX ? PHONE_TEXT_PX : MIN_TEXT_PX);

// [the shape, its numbers' size in px when shown whole] for a view `width` × `height` px, of the shapes laid out
// ({name: {width, height}} at 100 %, the wide one first): the whole graph with its numbers as large as they can be,
// wherever a shape shows it whole with its numbers at the floor; in the page's view micrograd's wide one while it
// does, in the presentation view a later shape only where its numbers are BETTER. Else the one that needs the least
// scrolling
export function chooseShape(sizes, width, height, present, floor) {
  const names = Object.keys(sizes);
  const most = present ? PRESENT_MOST : MOST;
  const whole = (name) => TEXT_PX * Math.min(width / sizes[name].width, height / sizes[name].height, most);
  const fits = names.filter((name) => whole(name) >= floor);
  if (!present && fits.includes('wide')) return ['wide', whole('wide')]; // the chain rule on its edges
  const best = (fits.length ? fits : names).reduce((a, name) => (whole(name) > whole(a) * (present ? BETTER : 1) ? name : a));
  return [best, whole(best)];
}

// the page's view: the graph as large as the view's width (`across`, the scale that fills it) and the room below the
// bar (`down`) allow, between the floor and MOST
export const pageScaleOf = (across, down, floor) => Math.max(floor / TEXT_PX, Math.min(across, down, MOST));

// a graph too big to fit at a readable size: in the presentation view, as tall as the view (up to its natural
// size), never under the floor
export const readableScaleOf = (viewHeight, naturalHeight, floor) =>
  Math.max(floor / TEXT_PX, Math.min(1, (viewHeight - SCROLLBAR_PX) / naturalHeight));

// the box of several boxes on screen ({left, top, right, bottom})
export function around(rs) {
  return { left: Math.min(...rs.map((r) => r.left)), top: Math.min(...rs.map((r) => r.top)),
           right: Math.max(...rs.map((r) => r.right)), bottom: Math.max(...rs.map((r) => r.bottom)) };
}

// how far to scroll along one axis to bring [lo, hi] into [viewLo, viewHi]: not at all if it is in sight, else its
// middle to the view's middle
export const along = (lo, hi, viewLo, viewHi) => (lo >= viewLo && hi <= viewHi ? 0 : (lo + hi - viewLo - viewHi) / 2);

// [sideways, down]: how far to scroll a view (`view`, its box on screen, `width` × `height` inside) to keep the
// active node (`active`, a box) in sight with the values next to it: all of them (`inputs` and `outputs`, boxes) if
// they fit, else the node and its inputs (what it is made of, and whose grads its _backward writes), else the node
// and what it feeds, else the node alone, brought to the middle
export function scrollToSee(active, inputs, outputs, view, width, height) {
  const alone = around([active]);
  const wanted = [around([active, ...inputs, ...outputs]), around([active, ...inputs]), around([active, ...outputs]), alone]
    .find((b) => b.right - b.left <= width && b.bottom - b.top <= height) || alone;
  return [along(wanted.left, wanted.right, view.left, view.left + width), along(wanted.top, wanted.bottom, view.top, view.top + height)];
}

// a wide screen: how far to scroll the page to bring a node's box into the window between `top` (under Streamlit's
// header) and `bottom`, EDGE_PX inside its edge; 0 while it is in the window. A box taller than the window shows
// its top
export function boxIntoWindow(box, top, bottom) {
  if (box.bottom > bottom) return Math.min(box.bottom - bottom + EDGE_PX, box.top - top - EDGE_PX);
  return box.top < top ? box.top - top - EDGE_PX : 0;
}

// a phone: how far to scroll the page to show the player's bar (at `root`) and the graph down to `end` together,
// or, where the two are taller than the window, the graph alone (from `view`)
export function barIntoWindow(root, view, end, top, bottom) {
  const start = end - root <= bottom - top ? root : view;
  return start < top ? start - top : end > bottom ? Math.min(end - bottom, start - top) : 0;
}

// a swipe on a phone's graph that moved dx, dy px: the step it takes (to the left, the next frame, as a page turns),
// or 0 where it moved too little sideways, or more up and down than sideways
export function swipeStep(dx, dy) {
  if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < 2 * Math.abs(dy)) return 0;
  return dx < 0 ? 1 : -1;
}

// the node table's scrollTop that brings a row (its top and height, under a head `head` px tall) to the middle of
// the table, or null while it is in sight
export function rowScroll(rowTop, rowHeight, head, scrollTop, height) {
  if (rowTop - head < scrollTop || rowTop + rowHeight > scrollTop + height) return rowTop - head - (height - head - rowHeight) / 2;
  return null;
}

export const viewport = {
  // the shape this screen shows best: the whole graph, with its numbers as large as they can be, wherever a shape
  // shows it whole with its numbers at the floor (floorPx); in the page's view micrograd's wide one while it does. Else
  // the one that needs the least scrolling, followed at the floor. The layout never changes between frames, only when
  // the window does
  pickShape() {
    if (this.shapes[this.pinned]) return this.pinned;
    return this.bestShape(this.view.clientWidth || window.innerWidth)[0];
  },

  // [the shape, its numbers' size in px when shown whole] for a view `width` px wide
  bestShape(width) {
    const height = this.present ? this.view.clientHeight || window.innerHeight : this.room();
    return chooseShape(this.sizes, width, height, this.present, this.floorPx());
  },

  // the least size of the graph's numbers on this screen: a phone's, read at arm's length, or a laptop's and a
  // projector's
  floorPx() {
    return floorFor(window.innerWidth);
  },

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
  },

  // the window's top that Streamlit's header covers, over the page as it scrolls (its own style, not the player's)
  covered() {
    const header = document.querySelector('[data-testid="stHeader"]');
    return header ? Math.max(0, Math.min(window.innerHeight / 4, header.getBoundingClientRect().bottom)) : 0;
  },

  // the box the page scrolls in: Streamlit's main area, or the document
  pageScroller() {
    for (let e = this.root.parentElement || this.root.getRootNode().host; e; e = e.parentElement || e.getRootNode().host) {
      if (e === document.body || e === document.documentElement) break;
      const y = getComputedStyle(e).overflowY;
      if (y === 'auto' || y === 'scroll') return e;
    }
    return document.scrollingElement;
  },

  // the visitor is scrolling the page, touching the screen or typing: the page is not moved under them
  busy() {
    if (this.touching || performance.now() - this.scrolledAt < BUSY_MS) return true;
    let focused = document.activeElement;
    while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
    return !!focused?.matches?.(TYPING);
  },

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
      by = boxIntoWindow(active.g.getBoundingClientRect(), top, bottom);
    } else {
      const end = (this.overview.hidden ? this.view : this.overview).getBoundingClientRect().bottom;
      const view = this.view.getBoundingClientRect().top;
      const root = this.root.getBoundingClientRect().top;
      by = barIntoWindow(root, view, end, top, bottom);
    }
    if (Math.abs(by) < 1) return;
    page.scrollTop += by;
    this.ownScrollTop = page.scrollTop;
  },

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
  },

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
  },

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
  },

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
  },

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
  },

  fitScale() {
    const across = this.view.clientWidth / this.natural;
    return this.present ? Math.min(across, this.view.clientHeight / this.naturalHeight) : across;
  },

  // a graph too big to fit at a readable size: in the presentation view, as tall as the view (up to its natural
  // size), scrolled sideways to follow the active node
  readableScale() {
    return readableScaleOf(this.view.clientHeight, this.naturalHeight, this.floorPx());
  },

  // the page's view: the graph as large as the view's width and the room below the bar allow, between the floor (a
  // phone's own) and MOST
  pageScale() {
    return pageScaleOf(this.view.clientWidth / this.natural, this.room() / this.naturalHeight, this.floorPx());
  },

  shownScale() {
    return this.shown || Math.min(this.fitScale(), MOST);
  },

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
  },

  // a click on the overview: that point of the graph to the middle of the view
  lookAt(e) {
    const map = this.map.getBoundingClientRect();
    const x = (e.clientX - map.left) / map.width, y = (e.clientY - map.top) / map.height;
    this.view.scrollLeft = x * this.view.scrollWidth - this.view.clientWidth / 2;
    this.view.scrollTop = y * this.view.scrollHeight - this.view.clientHeight / 2;
  },

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
  },

  // on a touch screen a sideways swipe on the graph steps, unless the graph scrolls sideways there
  swipes() {
    let start = null;
    this.view.addEventListener('touchstart', (e) => { start = e.touches.length === 1 ? e.touches[0] : null; }, { passive: true });
    this.view.addEventListener('touchend', (e) => {
      if (!start || this.view.scrollWidth > this.view.clientWidth + 1) return;
      const end = e.changedTouches[0];
      const dx = end.clientX - start.clientX, dy = end.clientY - start.clientY;
      start = null;
      const by = swipeStep(dx, dy);
      if (!by) return;
      this.stop();
      this.step(this.cur + by);
    });
  },

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
    const [inputs, outputs] = this.body.near?.[a] || [[], []];
    const boxes = (js) => js.map((j) => this.values[j]?.g).filter(Boolean).map((g) => g.getBoundingClientRect());
    const [left, top] = scrollToSee(active.g.getBoundingClientRect(), boxes(inputs), boxes(outputs), view, width, height);
    this.view.scrollLeft += left;
    this.view.scrollTop += top;
  },

  // the table scrolls, never the page, to keep the active row in sight
  followRow(row) {
    if (!row) return;
    const box = this.tableBox;
    const head = row.parentElement.previousElementSibling?.offsetHeight || 0;
    const to = rowScroll(row.offsetTop, row.offsetHeight, head, box.scrollTop, box.clientHeight);
    if (to !== null) box.scrollTop = to;
  },
};

// an element's margins above and below, in px
function outerMargins(e) {
  const style = getComputedStyle(e);
  return (parseFloat(style.marginTop) || 0) + (parseFloat(style.marginBottom) || 0);
}
