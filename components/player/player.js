// The graph player: one laid-out SVG, patched frame by frame. Stepping and playing happen here, in the
// browser, with no round trip; the frame shown is reported to Python for the explanation and the table.
const FAINT = 'faint';
const NOT_COMPUTED = '·';
// while playing, tell Python the frame at most this often: each report reruns the explanation and the table,
// whose redraw can cost a fast play a frame; and a class of 30 may play at once
const REPORT_EVERY_MS = { slow: 400, fast: 2000 };
// below this share of its natural size the numbers are too small to read (14 pt text at 8 px): a big graph
// opens at this size instead, scrolled to follow the active node; "Fit" still shows it whole
const READABLE = 0.6;

function makePlayer(root) {
  root.innerHTML = `
    <div class="bar">
      <button class="prev" title="Previous frame (←)">‹ Prev</button>
      <button class="play primary" title="Play / Pause (space)">▶ Play</button>
      <button class="next" title="Next frame (→)">Next ›</button>
      <input class="slider" type="range" min="0" max="0" value="0" aria-label="Frame">
      <span class="zoom"><button class="out" title="Zoom out">−</button><button class="fit" title="Fit the width">Fit</button><button class="in" title="Zoom in">+</button></span>
    </div>
    <div class="caption" aria-live="polite"></div>
    <div class="view" tabindex="0"></div>`;
  const $ = (s) => root.querySelector(s);
  const p = {
    root, view: $('.view'), slider: $('.slider'), caption: $('.caption'), playButton: $('.play'),
    prevButton: $('.prev'), nextButton: $('.next'),
    cur: -1, timer: null, lastReport: 0, scale: undefined, layout: null, token: null,
  };
  $('.prev').onclick = () => { stop(p); go(p, p.cur - 1, true); };
  $('.next').onclick = () => { stop(p); go(p, p.cur + 1, true); };
  p.playButton.onclick = () => (p.timer ? stop(p) : play(p));
  p.slider.oninput = () => { stop(p); go(p, +p.slider.value, true); };
  $('.out').onclick = () => zoom(p, shownScale(p) / 1.25);
  $('.in').onclick = () => zoom(p, shownScale(p) * 1.25);
  $('.fit').onclick = () => zoom(p, null);
  new ResizeObserver(() => p.svg && p.scale === undefined && zoom(p, undefined)).observe(p.view);
  root.addEventListener('keydown', (e) => {
    const keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (e.key in keys) { stop(p); go(p, p.cur + keys[e.key], true); e.preventDefault(); }
    else if (e.key === ' ' && e.target.tagName !== 'BUTTON') { p.timer ? stop(p) : play(p); e.preventDefault(); }
    else if (e.key === 'Home' || e.key === 'End') { stop(p); go(p, e.key === 'Home' ? 0 : p.n - 1, true); e.preventDefault(); }
  });
  return p;
}

function load(p, data) {
  // the SVG is our own, made by Graphviz from escaped labels; no user text reaches it unescaped
  p.view.innerHTML = data.svg;
  const svg = p.view.querySelector('svg');
  p.svg = svg;
  p.natural = svg.viewBox.baseVal.width * 4 / 3; // pt to px
  svg.removeAttribute('width');
  svg.removeAttribute('height');
  p.values = [];
  for (let i = 0; ; i++) {
    const g = p.view.querySelector(`#n${i}`);
    if (!g) break;
    const texts = g.querySelectorAll('text');
    g.classList.add('v');
    texts[2].classList.add('value');
    texts[4].classList.add('value');
    p.values.push({ g, data: texts[2], grad: texts[4], look: null });
  }
  p.ops = {};
  p.view.querySelectorAll('g.node[id$="_op"]').forEach((g) => {
    g.classList.add('op');
    p.ops[g.id.slice(1, -3)] = [g, p.view.querySelector(`#e${g.id.slice(1, -3)}_out`)];
  });
  p.edges = {};
  p.view.querySelectorAll('g.edge[id^="e"]').forEach((g) => {
    const text = g.querySelector('text');
    if (text) p.edges[g.id.slice(1)] = { g, text, label: null };
  });
  p.blank = data.blank;
  p.patches = data.patches;
  p.captions = data.captions;
  p.n = data.patches.length;
  p.slider.max = p.n - 1;
  p.model = { values: [], op: -1, edges: {} };
  p.modelAt = -1;
  p.cur = -1;
  zoom(p, p.scale);
}

// the model follows the patches; the DOM is written once per frame shown, only where it changed
function seek(p, k) {
  if (k < p.modelAt) { p.model = { values: [], op: -1, edges: {} }; p.modelAt = -1; }
  const m = p.model;
  for (let j = p.modelAt + 1; j <= k; j++) {
    const patch = p.patches[j];
    for (const [i, ...look] of patch.v) m.values[i] = look;
    m.op = patch.o;
    for (const [id, label] of patch.e) m.edges[id] = label;
  }
  p.modelAt = k;
}

function render(p) {
  const m = p.model;
  p.values.forEach((v, i) => {
    const look = m.values[i];
    if (!look || look === v.look) return;
    const [data, grad, state, mark] = look;
    v.data.textContent = data;
    v.grad.textContent = grad;
    v.data.classList.toggle(FAINT, data.trim() === NOT_COMPUTED);
    v.grad.classList.toggle(FAINT, grad.trim() === NOT_COMPUTED);
    v.g.setAttribute('class', `node v ${state} ${mark}`);
    v.look = look;
  });
  for (const [id, [g, out]] of Object.entries(p.ops)) {
    const hot = +id === m.op;
    g.classList.toggle('hot', hot);
    if (out) out.classList.toggle('hot', hot);
  }
  for (const [id, e] of Object.entries(p.edges)) {
    const label = m.edges[id] || '';
    if (label === e.label) continue;
    e.text.textContent = label || p.blank;
    e.g.classList.toggle('hot', label !== '');
    e.label = label;
  }
}

function go(p, k, byUser) {
  k = Math.max(0, Math.min(p.n - 1, k));
  if (k === p.cur) return;
  seek(p, k);
  followActive(p, k); // before writing texts and colours (they never move a node), so no layout is forced
  render(p);
  p.cur = k;
  p.slider.value = k;
  p.prevButton.disabled = k === 0;
  p.nextButton.disabled = k === p.n - 1;
  p.caption.textContent = `Frame ${k} of ${p.n - 1} · ${p.captions[k]}`;
  p.root.dataset.frame = k; // for tests and benchmarks: the frame the SVG shows now
  const now = performance.now();
  const every = p.speed > 2 ? REPORT_EVERY_MS.fast : REPORT_EVERY_MS.slow;
  if (byUser || !p.timer || k === p.n - 1 || now - p.lastReport >= every) {
    p.lastReport = now;
    tell(p, k);
  }
}

function play(p) {
  if (p.cur >= p.n - 1) go(p, 0, false);
  p.playButton.textContent = '❚❚ Pause';
  p.timer = setInterval(() => {
    if (p.cur >= p.n - 1) return stop(p);
    go(p, p.cur + 1, false);
  }, 1000 / p.speed);
}

function stop(p) {
  if (!p.timer) return;
  clearInterval(p.timer);
  p.timer = null;
  p.playButton.textContent = '▶ Play';
  tell(p, p.cur);
}

// each report reruns the page, so only a frame Python does not hold yet is sent
function tell(p, k) {
  if (k === p.told) return;
  p.told = k;
  p.report(k);
}

function fitScale(p) {
  return p.view.clientWidth / p.natural;
}

function shownScale(p) {
  return p.shown || Math.min(fitScale(p), 1.6);
}

// scale: a number, null to fit the width, or undefined for the default: fit, unless that is too small to read
function zoom(p, scale) {
  p.scale = scale;
  p.shown = scale === undefined ? (fitScale(p) < READABLE ? READABLE : null) : scale;
  p.svg.style.width = p.shown ? `${p.natural * p.shown}px` : '100%';
  p.svg.style.maxWidth = p.shown ? 'none' : `${p.natural * 1.6}px`; // a small graph is not blown up past readable
  p.svg.style.height = 'auto';
  followActive(p, p.cur);
}

// when zoomed, scroll the view, never the page, to bring frame k's node to its middle if it is out of sight
function followActive(p, k) {
  const active = p.values[p.patches[k]?.a];
  if (!active || !p.shown) return;
  const view = p.view.getBoundingClientRect();
  const node = active.g.getBoundingClientRect();
  if (node.left < view.left || node.right > view.right)
    p.view.scrollLeft += (node.left + node.right - view.left - view.right) / 2;
  if (node.top < view.top || node.bottom > view.bottom)
    p.view.scrollTop += (node.top + node.bottom - view.top - view.bottom) / 2;
}

const utf8 = new TextDecoder();

export default function (component) {
  const { setStateValue, parentElement } = component;
  const root = parentElement.querySelector('.player') || parentElement.appendChild(Object.assign(document.createElement('div'), { className: 'player' }));
  const p = root.__player || (root.__player = makePlayer(root));
  p.report = (k) => setStateValue('frame', k);
  // one line of JSON for this run, then the layout's body, read only when the layout is new
  const bytes = component.data;
  const cut = bytes.indexOf(10);
  const data = JSON.parse(utf8.decode(bytes.subarray(0, cut)));
  const wasPlaying = !!p.timer;
  if (data.layout !== p.layout) {
    stop(p);
    load(p, JSON.parse(utf8.decode(bytes.subarray(cut + 1))));
    p.layout = data.layout;
  }
  if (data.speed !== p.speed) {
    p.speed = data.speed;
    if (wasPlaying && p.timer) { clearInterval(p.timer); p.timer = null; play(p); }
  }
  if (JSON.stringify(data.goto) !== p.token) {
    p.token = JSON.stringify(data.goto);
    p.told = data.goto[2]; // the frame Python holds: on a first load, the one it asked for
    go(p, data.goto[1], false);
  }
}
