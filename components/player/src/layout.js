// The browser's layout: where the server has no dot it sends the value-free DOT, laid out here by Graphviz compiled to
// WebAssembly, once per graph, within the server's budget (the full layout, then the quick one, then the page says
// so). The pure parts (the DOT with the quick layout's attributes, the progress line) are exported for the tests.
import { remember } from './frames.js';

const PROGRESS_MS = 250; // how often the line that says the graph is being laid out counts the seconds
const KEPT_LAYOUTS = 8; // graphs laid out here that are kept: going back to one, or new inputs, lays out nothing

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

// the DOT with graph attributes set at its end, where they win over those at its head (server/layout.py's quick layout)
export function withGraphAttributes(dot, attributes) {
  const set = Object.entries(attributes).map(([k, v]) => `${k}="${v}"`).join(' ');
  return dot.replace(/\}\s*$/, `graph [${set}]\n}`);
}

// the line above the caption while the graph is laid out, `ms` after it began
export const progress = (ms) => `Laying out the graph… ${(ms / 1000).toFixed(1)} s`;

export const layingOut = {
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
      const tell = () => this.tell(progress(performance.now() - started));
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
      remember(this.layouts, key, laid, KEPT_LAYOUTS); // the most recent last: the oldest goes first
    }
    if (this.layout !== name) return;
    this.tell(laid.quick ? body.quickNote : '');
    this.load(body, laid.shapes);
    // for tests and benchmarks: who laid it out and in how many ms, and how many graphs this browser keeps laid out
    this.root.dataset.laidOut = `browser ${laid.ms.toFixed(0)}`;
    this.root.dataset.layouts = this.layouts.size;
    this.apply(this.head);
  },

  // the line on the browser's layout above the caption: a progress line, or why there is no graph (empty: none)
  tell(text) {
    this.layingBox.textContent = text;
    this.layingBox.hidden = !text;
  },
};
