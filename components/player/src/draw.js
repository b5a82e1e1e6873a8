// Drawing: the laid-out SVG taken apart into the parts a frame patches (value boxes, ops, edges), the node table,
// each frame's texts and colours written where they changed, the overview of a big graph, and a frame saved as a
// file. The pure parts (a box's size, a number's looks, an edge's lines, a PNG's scale) are exported for the tests.
import { emptyModel } from './frames.js';

const NOT_COMPUTED = '·';
const NOT_FINITE = ['nan', 'inf', '−inf']; // as view/numbers.py writes them
// what a screen reader hears for the graph, and for the table that carries its numbers
export const GRAPH_NAME = 'The computational graph at this frame: each value’s data and grad are in the node table below';
export const TABLE_CAPTION = 'The values at this frame';

export const HIDDEN = '?'; // a grad the class is asked to work out (view/numbers.py)
const PNG_SCALE = 2; // a frame's PNG: twice its size at 100 %, as the server's export (exports.PNG_DPI)
const PNG_PIXELS = 40e6; // at most, and at most CANVAS_SIDE px a side: a bigger graph's PNG is made smaller
const CANVAS_SIDE = 16384;

// an SVG's size at 100 %, in px, from its viewBox in pt
export function svgSize(svg) {
  const box = svg.match(/viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"/);
  return { width: (box[1] * 4) / 3, height: (box[2] * 4) / 3 }; // pt to px
}

// how a number in a value box looks: faint while not computed ('·'), marked where not finite, '?' where the class
// is asked for it; its text is padded to the box's width
export function numberLooks(text) {
  const shown = text.trim();
  return { faint: shown === NOT_COMPUTED, notFinite: NOT_FINITE.includes(shown), asked: shown === HIDDEN };
}

// an edge label's `count` lines: local gradient × upstream grad, a blank one where the edge runs, += amount (none in
// a shape without labels, where it is a point); a label with fewer lines leaves the rest empty
export function labelLines(label, count) {
  const lines = label.split('\n');
  return Array.from({ length: count }, (_, j) => lines[j] ?? '');
}

// an edge is drawn hot while its label carries a contribution that the frame does not throw away (the `=` engine's)
export const edgeHot = (label, lost) => label !== '' && !lost;

// a frame's PNG: PNG_SCALE times its size, smaller for a graph whose PNG would pass PNG_PIXELS or CANVAS_SIDE a side
export function pngScale(width, height) {
  return Math.min(PNG_SCALE, Math.sqrt(PNG_PIXELS / (width * height)), CANVAS_SIDE / width, CANVAS_SIDE / height);
}

export const drawing = {
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
    // a screen reader hears the graph as one picture with a name; its numbers are the node table's, a real table
    this.svg.setAttribute('role', 'img');
    this.svg.setAttribute('aria-label', GRAPH_NAME);
    this.svg.querySelector('title')?.remove(); // Graphviz's "G" would be read as its name
    this.values = [];
    const at = this.head.valueTexts; // where a value box's texts fall among its SVG texts (view/graph.py's VALUE_TEXTS)
    for (let i = 0; ; i++) {
      const g = this.view.querySelector(`#n${i}`);
      if (!g) break;
      const texts = g.querySelectorAll('text');
      const data = texts[at.data];
      const grad = texts[at.grad];
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
  },

  makeTable(table) {
    const cell = (tag, text) => Object.assign(document.createElement(tag), { textContent: text });
    const t = document.createElement('table');
    t.createCaption().textContent = TABLE_CAPTION;
    const head = t.createTHead().insertRow();
    // view/node_table.py's columns: node, op, data, grad now, on the `=` engine the grad += gives (beside),
    // the grad's state in the legend's words (when it sends them), and the answers last
    const titles = table.columns || ['node', 'op', 'data', 'grad now', 'final grad'];
    titles.forEach((title, j) => {
      const th = head.appendChild(cell('th', title));
      th.scope = 'col';
      th.classList.toggle('state', j === this.stateCell(table));
    });
    const rows = t.createTBody();
    table.names.forEach((name, i) => {
      const row = rows.insertRow();
      const beside = table.beside ? [''] : [];
      const state = table.states ? [''] : [];
      for (const text of [name, table.ops[i], '', '', ...beside, ...state, table.finals[i]]) row.appendChild(cell('td', text));
      row.replaceChild(Object.assign(cell('th', name), { scope: 'row' }), row.cells[0]); // each row named by its value
      if (table.states) row.cells[this.stateCell(table)].classList.add('state');
      this.values[i].row = row;
    });
    this.tableBox.replaceChildren(t);
  },

  // the cell of the grad's state in words: after the += column, where there is one
  stateCell(table) {
    return table.beside ? 5 : 4;
  },

  render() {
    const m = this.model;
    this.values.forEach((v, i) => {
      const look = m.values[i];
      if (!look || look === v.look) return;
      const [data, grad, state, mark, beside] = look;
      v.data.textContent = data;
      v.grad.textContent = grad;
      const dataLooks = numberLooks(data), gradLooks = numberLooks(grad);
      v.data.classList.toggle('faint', dataLooks.faint);
      v.grad.classList.toggle('faint', gradLooks.faint);
      v.data.classList.toggle('not-finite', dataLooks.notFinite);
      v.grad.classList.toggle('not-finite', gradLooks.notFinite);
      v.grad.classList.toggle('asked', gradLooks.asked);
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
      const lines = labelLines(label || this.body.blank, e.texts.length);
      e.texts.forEach((t, j) => { t.textContent = lines[j]; });
      for (const part of [e.g, ...e.parts]) {
        part.classList.toggle('hot', edgeHot(label, lost));
        part.classList.toggle('lost', lost);
      }
      e.label = label;
      e.lost = lost;
    }
  },

  // the overview: the graph as laid out, as a picture (a big graph's SVG is large: a copy in the page would double
  // its nodes), without the frame's colours; over it the part in view and the active node, moved as the view scrolls
  // and the frame changes
  drawOverview() {
    if (this.mapUrl) URL.revokeObjectURL(this.mapUrl);
    this.mapUrl = null;
    const picture = this.standalone ? inlineCopy(this.shapes[this.shape]) : Object.assign(document.createElement('img'), { alt: '' });
    if (!this.standalone) picture.src = this.mapUrl = URL.createObjectURL(new Blob([this.shapes[this.shape]], { type: 'image/svg+xml' }));
    const mark = (name) => Object.assign(document.createElement('div'), { className: name });
    this.inView = mark('in-view');
    this.here = mark('here');
    this.map.replaceChildren(picture, this.inView, this.here);
  },

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
  },

  // a graph bigger than its view: at each edge beyond which more of it lies, a shade and an arrow, so that a box cut
  // there reads as cut
  markEdges() {
    const v = this.view;
    const beyond = {
      left: v.scrollLeft > 1, right: v.scrollLeft + v.clientWidth < v.scrollWidth - 1,
      up: v.scrollTop > 1, down: v.scrollTop + v.clientHeight < v.scrollHeight - 1,
    };
    for (const [side, more] of Object.entries(beyond)) this.more[side].hidden = !more;
  },

  // this frame as a file, from the SVG on screen: 'svg' (its looks written into it, so it stands alone) or 'png'
  // (PNG_SCALE times its size, on white). For a graph this browser laid out, where the server cannot draw one
  saveFrame(kind) {
    if (!this.svg) return;
    const copy = standalone(this.svg, this.natural, this.naturalHeight);
    const name = `${this.stem}${this.body.files[this.cur]}`; // '_f03', the frame's number: exports.frame_suffix
    const text = new XMLSerializer().serializeToString(copy);
    const svgBlob = new Blob([text], { type: 'image/svg+xml' });
    if (kind === 'svg') return download(svgBlob, `${name}.svg`);
    const scale = pngScale(this.natural, this.naturalHeight);
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
  },
};

// the looks the player's stylesheet gives an SVG's parts, written into a copy of it, so that it stands alone
const LOOKS = ['fill', 'stroke', 'stroke-width', 'stroke-dasharray', 'font-family', 'font-size', 'font-weight',
  'text-decoration', 'white-space'];
// a lesson's overview (its file allows no blob: picture): the graph's SVG in the page, with no ids to be found in
// place of the graph's own, and hidden from a screen reader as the picture's empty alt hides it
function inlineCopy(svg) {
  const box = document.createElement('div');
  box.innerHTML = svg;
  const copy = box.querySelector('svg');
  copy.querySelectorAll('[id]').forEach((e) => e.removeAttribute('id'));
  const [, , width, height] = (copy.getAttribute('viewBox') || '0 0 4 3').split(/\s+/).map(Number);
  for (const name of ['id', 'width', 'height']) copy.removeAttribute(name);
  copy.style.aspectRatio = `${width} / ${height}`; // as wide as the picture's 90 px height makes it, as an <img>
  copy.setAttribute('aria-hidden', 'true');
  copy.classList.add('picture');
  return copy;
}

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

// a button's look: its icon, and its word, which a phone leaves out (player.css); its name says both
export function labelButton(button, icon, word) {
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
