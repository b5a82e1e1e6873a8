// Built by esbuild from src/ (npm run build): edit the modules there, not this file.
(() => {
  // src/address.js
  var URL_EVERY_MS = 300;
  var MOST_PARAMETERS = 1e3;
  var MOST_CHARACTERS = 512 * 1024;
  var stepParam = (k, n) => k === n - 1 ? "end" : String(k);
  function linkWithStep(href, k, n) {
    const url = new URL(href);
    const step = stepParam(k, n);
    if (url.searchParams.get("step") === step) return null;
    url.searchParams.set("step", step);
    return url.href;
  }
  var urlWait = (written, now) => Math.max(0, written + URL_EVERY_MS - now);
  function linkNotice(search) {
    const count = [...new URLSearchParams(search).keys()].length;
    const long = search.length - 1 > MOST_CHARACTERS;
    if (count <= MOST_PARAMETERS && !long) return null;
    const what = long ? `${(search.length - 1).toLocaleString("en")} characters, more than the 512 Ki` : `${count} parameters, more than the 1,000`;
    return `This link has ${what} the server reads, so none of it was read: the page opened with its defaults.`;
  }
  var address = {
    // the address bar always links to the frame shown: replaced in place, so Back never walks through frames
    writeUrlSoon() {
      if (this.urlTimer) return;
      const wait = urlWait(this.urlWritten, performance.now());
      this.urlTimer = setTimeout(() => {
        this.urlTimer = null;
        this.writeUrl();
      }, wait);
    },
    writeUrl() {
      if (this.cur < 0) return;
      const href = linkWithStep(window.location.href, this.cur, this.n);
      if (href === null) return;
      window.history.replaceState(window.history.state, "", href);
      this.urlWritten = performance.now();
    },
    // Streamlit drops a query string of more than 1,000 parameters or 512 Ki characters without a word: say so
    checkLink() {
      const notice = linkNotice(window.location.search);
      if (notice === null) return;
      this.noticeBox.textContent = notice;
      this.noticeBox.hidden = false;
    }
  };

  // src/frames.js
  var utf8 = new TextDecoder();
  var emptyModel = () => ({ values: [], op: -1, edges: {}, lost: [] });
  function seekModel(model, at, patches, k) {
    if (k < at) {
      model = emptyModel();
      at = -1;
    }
    for (let j = at + 1; j <= k; j++) {
      const patch = patches[j];
      for (const [i, ...look] of patch.v) model.values[i] = look;
      model.op = patch.o;
      model.lost = patch.x || [];
      for (const [id, label] of patch.e) model.edges[id] = label;
    }
    return [model, k];
  }
  function clampFrame(k, n, held = null) {
    return Math.max(0, Math.min(n - 1, held === null ? Infinity : held, k));
  }
  function keyFrame(key, cur, n) {
    const keys = { ArrowLeft: -1, ArrowRight: 1 };
    if (key in keys) return cur + keys[key];
    if (key === "Home") return 0;
    if (key === "End") return n - 1;
    return null;
  }
  function landing({ cur, lastFrame, gotoId, n }, goto) {
    const fresh = cur < 0 && gotoId === null;
    let target = cur < 0 ? lastFrame : cur;
    let sent = false;
    if (goto.id !== gotoId) {
      gotoId = goto.id;
      sent = fresh || !goto.open;
      if (sent) target = goto.frame;
    }
    return { frame: clampFrame(target, n), sent, gotoId };
  }
  function splitRun(bytes) {
    const cut = bytes.indexOf(10);
    const graphEnd = bytes.indexOf(10, cut + 1);
    const head = JSON.parse(utf8.decode(bytes.subarray(0, cut)));
    const graph = graphEnd > cut + 1 ? utf8.decode(bytes.subarray(cut + 1, graphEnd)) : null;
    return [head, graph, bytes.subarray(graphEnd + 1)];
  }
  var decode = (bytes) => JSON.parse(utf8.decode(bytes));
  function remember(map, key, value, most) {
    map.delete(key);
    map.set(key, value);
    if (map.size > most) map.delete(map.keys().next().value);
  }
  var caption = (body, k) => `${body.labels[k]} · ${body.captions[k]}`;
  function spoken(captionText, rules) {
    return [captionText, ...rules].filter(Boolean).join(". ");
  }

  // src/draw.js
  var NOT_COMPUTED = "·";
  var NOT_FINITE = ["nan", "inf", "−inf"];
  var GRAPH_NAME = "The computational graph at this frame: each value’s data and grad are in the node table below";
  var TABLE_CAPTION = "The values at this frame";
  var HIDDEN = "?";
  var PNG_SCALE = 2;
  var PNG_PIXELS = 4e7;
  var CANVAS_SIDE = 16384;
  function svgSize(svg) {
    const box = svg.match(/viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"/);
    return { width: box[1] * 4 / 3, height: box[2] * 4 / 3 };
  }
  function numberLooks(text) {
    const shown = text.trim();
    return { faint: shown === NOT_COMPUTED, notFinite: NOT_FINITE.includes(shown), asked: shown === HIDDEN };
  }
  function labelLines(label, count) {
    const lines = label.split("\n");
    return Array.from({ length: count }, (_, j) => lines[j] ?? "");
  }
  var edgeHot = (label, lost) => label !== "" && !lost;
  function pngScale(width, height) {
    return Math.min(PNG_SCALE, Math.sqrt(PNG_PIXELS / (width * height)), CANVAS_SIDE / width, CANVAS_SIDE / height);
  }
  var drawing = {
    drawShape(name) {
      this.view.innerHTML = this.shapes[name];
      this.shape = name;
      this.root.dataset.shape = name;
      this.root.classList.toggle("sums", name !== "wide");
      this.svg = this.view.querySelector("svg");
      this.natural = this.sizes[name].width;
      this.naturalHeight = this.sizes[name].height;
      this.svg.removeAttribute("width");
      this.svg.removeAttribute("height");
      this.svg.setAttribute("role", "img");
      this.svg.setAttribute("aria-label", GRAPH_NAME);
      this.svg.querySelector("title")?.remove();
      this.values = [];
      const at = this.head.valueTexts;
      for (let i = 0; ; i++) {
        const g = this.view.querySelector(`#n${i}`);
        if (!g) break;
        const texts = g.querySelectorAll("text");
        const data = texts[at.data];
        const grad = texts[at.grad];
        g.classList.add("v");
        data.classList.add("value");
        grad.classList.add("value");
        this.values.push({ g, data, grad, row: null, look: null });
      }
      this.ops = {};
      this.view.querySelectorAll('g.node[id$="_op"]').forEach((g) => {
        const i = g.id.slice(1, -3);
        g.classList.add("op");
        this.ops[i] = [g, this.view.querySelector(`#e${i}_out`)];
      });
      this.edges = {};
      this.view.querySelectorAll('g.node[id^="l"]').forEach((g) => {
        const key = g.id.slice(1);
        const parts = [`#e${key}`, `#e${key}_in`].map((id) => this.view.querySelector(id)).filter(Boolean);
        g.classList.add("lab");
        this.edges[key] = { g, parts, texts: [...g.querySelectorAll("text")], label: null, lost: false };
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
      const t = document.createElement("table");
      t.createCaption().textContent = TABLE_CAPTION;
      const head = t.createTHead().insertRow();
      const titles = table.columns || ["node", "op", "data", "grad now", "final grad"];
      titles.forEach((title, j) => {
        const th = head.appendChild(cell("th", title));
        th.scope = "col";
        th.classList.toggle("state", j === this.stateCell(table));
      });
      const rows = t.createTBody();
      table.names.forEach((name, i) => {
        const row = rows.insertRow();
        const beside = table.beside ? [""] : [];
        const state = table.states ? [""] : [];
        for (const text of [name, table.ops[i], "", "", ...beside, ...state, table.finals[i]]) row.appendChild(cell("td", text));
        row.replaceChild(Object.assign(cell("th", name), { scope: "row" }), row.cells[0]);
        if (table.states) row.cells[this.stateCell(table)].classList.add("state");
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
        v.data.classList.toggle("faint", dataLooks.faint);
        v.grad.classList.toggle("faint", gradLooks.faint);
        v.data.classList.toggle("not-finite", dataLooks.notFinite);
        v.grad.classList.toggle("not-finite", gradLooks.notFinite);
        v.grad.classList.toggle("asked", gradLooks.asked);
        v.g.setAttribute("class", `node v ${state} ${mark}`);
        v.row.cells[2].textContent = data.trim();
        v.row.cells[3].textContent = grad.trim();
        if (beside !== void 0) {
          v.row.cells[4].textContent = beside;
          v.row.cells[4].classList.toggle("differs", beside !== grad.trim());
        }
        if (this.body.table.states) v.row.cells[this.stateCell(this.body.table)].textContent = this.body.table.states[state];
        v.look = look;
      });
      for (const [id, [g, out]] of Object.entries(this.ops)) {
        const hot = +id === m.op;
        g.classList.toggle("hot", hot);
        if (out) out.classList.toggle("hot", hot);
      }
      for (const [id, e] of Object.entries(this.edges)) {
        const label = m.edges[id] || "";
        const lost = m.lost.includes(id);
        if (label === e.label && lost === e.lost) continue;
        const lines = labelLines(label || this.body.blank, e.texts.length);
        e.texts.forEach((t, j) => {
          t.textContent = lines[j];
        });
        for (const part of [e.g, ...e.parts]) {
          part.classList.toggle("hot", edgeHot(label, lost));
          part.classList.toggle("lost", lost);
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
      const picture = this.standalone ? inlineCopy(this.shapes[this.shape]) : Object.assign(document.createElement("img"), { alt: "" });
      if (!this.standalone) picture.src = this.mapUrl = URL.createObjectURL(new Blob([this.shapes[this.shape]], { type: "image/svg+xml" }));
      const mark = (name) => Object.assign(document.createElement("div"), { className: name });
      this.inView = mark("in-view");
      this.here = mark("here");
      this.map.replaceChildren(picture, this.inView, this.here);
    },
    // shown only while the graph is bigger than the view (zoom decides); at frame k, read before the frame's texts are
    // written, so that a step forces no second layout
    markOverview(k = this.cur) {
      if (!this.svg || !this.inView || this.overview.hidden) return;
      const shown = this.svg.getBoundingClientRect();
      if (!shown.width) return;
      const place = (r, el) => {
        const left = Math.max(r.left, shown.left), top = Math.max(r.top, shown.top);
        Object.assign(el.style, {
          left: `${100 * (left - shown.left) / shown.width}%`,
          top: `${100 * (top - shown.top) / shown.height}%`,
          width: `${100 * Math.max(0, Math.min(r.right, shown.right) - left) / shown.width}%`,
          height: `${100 * Math.max(0, Math.min(r.bottom, shown.bottom) - top) / shown.height}%`
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
        left: v.scrollLeft > 1,
        right: v.scrollLeft + v.clientWidth < v.scrollWidth - 1,
        up: v.scrollTop > 1,
        down: v.scrollTop + v.clientHeight < v.scrollHeight - 1
      };
      for (const [side, more] of Object.entries(beyond)) this.more[side].hidden = !more;
    },
    // this frame as a file, from the SVG on screen: 'svg' (its looks written into it, so it stands alone) or 'png'
    // (PNG_SCALE times its size, on white). For a graph this browser laid out, where the server cannot draw one
    saveFrame(kind) {
      if (!this.svg) return;
      const copy = standalone(this.svg, this.natural, this.naturalHeight);
      const name = `${this.stem}${this.body.files[this.cur]}`;
      const text = new XMLSerializer().serializeToString(copy);
      const svgBlob = new Blob([text], { type: "image/svg+xml" });
      if (kind === "svg") return download(svgBlob, `${name}.svg`);
      const scale = pngScale(this.natural, this.naturalHeight);
      const image = new Image();
      const url = URL.createObjectURL(svgBlob);
      image.onload = () => {
        const canvas = Object.assign(document.createElement("canvas"), {
          width: Math.round(this.natural * scale),
          height: Math.round(this.naturalHeight * scale)
        });
        const paint = canvas.getContext("2d");
        paint.fillStyle = "white";
        paint.fillRect(0, 0, canvas.width, canvas.height);
        paint.drawImage(image, 0, 0, canvas.width, canvas.height);
        URL.revokeObjectURL(url);
        canvas.toBlob((png) => download(png, `${name}.png`), "image/png");
      };
      image.src = url;
    }
  };
  var LOOKS = [
    "fill",
    "stroke",
    "stroke-width",
    "stroke-dasharray",
    "font-family",
    "font-size",
    "font-weight",
    "text-decoration",
    "white-space"
  ];
  function inlineCopy(svg) {
    const box = document.createElement("div");
    box.innerHTML = svg;
    const copy = box.querySelector("svg");
    copy.querySelectorAll("[id]").forEach((e) => e.removeAttribute("id"));
    const [, , width, height] = (copy.getAttribute("viewBox") || "0 0 4 3").split(/\s+/).map(Number);
    for (const name of ["id", "width", "height"]) copy.removeAttribute(name);
    copy.style.aspectRatio = `${width} / ${height}`;
    copy.setAttribute("aria-hidden", "true");
    copy.classList.add("picture");
    return copy;
  }
  function standalone(svg, width, height) {
    const copy = svg.cloneNode(true);
    const from = [svg, ...svg.querySelectorAll("*")];
    const to = [copy, ...copy.querySelectorAll("*")];
    from.forEach((e, i) => {
      if (!(e instanceof SVGGraphicsElement) || e.tagName === "g") return;
      const style = getComputedStyle(e);
      to[i].setAttribute("style", LOOKS.map((p) => `${p}:${style.getPropertyValue(p)}`).join(";"));
    });
    copy.removeAttribute("style");
    copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    copy.setAttribute("width", `${width}px`);
    copy.setAttribute("height", `${height}px`);
    return copy;
  }
  function labelButton(button, icon, word) {
    const mark = Object.assign(document.createElement("span"), { textContent: icon });
    mark.setAttribute("aria-hidden", "true");
    button.replaceChildren(mark, Object.assign(document.createElement("span"), { textContent: ` ${word}`, className: "word" }));
    button.setAttribute("aria-label", word);
  }
  function download(blob, name) {
    const a = Object.assign(document.createElement("a"), { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1e4);
  }

  // src/answers.js
  function number(x) {
    return Number(x).toLocaleString("en", { maximumFractionDigits: 4, useGrouping: false }).replace("-", "−");
  }
  function flipSign(text) {
    const shown = text.trim();
    return shown.startsWith("-") ? shown.slice(1) : `-${shown}`;
  }
  function answersOf(pairs) {
    const answers2 = {};
    for (const [node, text] of pairs) if (text.trim()) answers2[node] = text.trim();
    return answers2;
  }
  function verdictLine(item) {
    const right = item.group === "right";
    const yours = item.answer === null ? "you did not answer" : `you said ${number(item.answer)}`;
    const why = right || item.answer === null ? "" : ` · ${item.says}`;
    return [right ? "right" : "wrong", `${right ? "✓" : "✗"} ${item.label} = ${number(item.right)} (${yours})${why}`];
  }
  function questionCaption(label, question) {
    const names = question.asked.map((item) => item.label).join(", ");
    return `${label} · Question ${question.id}: ${names} after this _backward?`;
  }
  var SENT_WORDS = "Sent ✓ You can change it until the reveal.";
  var answers = {
    // an open question the class is asked, not yet revealed: its frame hides what it asks, and no one steps past it
    asking() {
      return !!this.question && !this.question.revealed;
    },
    // on a follower's phone: the question's boxes, then, once revealed, each answer against the right grad
    showQuestion(question, fresh) {
      if (question.revealed) return this.showVerdict(question);
      if (!fresh) return;
      const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
      const head = el("div", { className: "ask-head", textContent: `Question ${question.id}: what is each grad after this _backward?` });
      const form = el("form", { className: "ask-form" });
      for (const item of question.asked) {
        const label = el("label");
        const input = el("input", { type: "text", inputMode: "decimal", autocomplete: "off", maxLength: 40, placeholder: "your answer" });
        input.dataset.node = item.node;
        const flip = el("button", { type: "button", className: "sign", textContent: "±", title: "Change the sign" });
        flip.onclick = () => {
          input.value = flipSign(input.value);
          input.focus();
        };
        label.append(el("span", { textContent: `${item.label} =` }), input, flip);
        form.append(label);
      }
      const send = el("button", { type: "submit", className: "primary", textContent: "Send" });
      const said = el("div", { className: "said", role: "status" });
      form.append(send);
      form.onsubmit = (e) => {
        e.preventDefault();
        this.sendAnswer(question, form, said);
      };
      this.askBox.append(head, form, said);
      this.showSent(question, form, said);
    },
    // the answer this student sent already (a reload, a lost network): in the boxes, and said as sent
    async showSent(question, form, said) {
      let got;
      try {
        const r = await fetch(`${this.classRoom.api}/answer?student=${encodeURIComponent(this.student)}`);
        if (!r.ok) return;
        got = await r.json();
      } catch {
        return;
      }
      const inputs = [...form.querySelectorAll("input")];
      if (got.question !== question.id || !got.answers || said.textContent || inputs.some((input) => input.value)) return;
      for (const input of inputs) if (input.dataset.node in got.answers) input.value = number(got.answers[input.dataset.node]);
      said.textContent = SENT_WORDS;
    },
    async sendAnswer(question, form, said) {
      const answers2 = answersOf([...form.querySelectorAll("input")].map((input) => [input.dataset.node, input.value]));
      if (!Object.keys(answers2).length) {
        said.textContent = "Type a number first.";
        return;
      }
      said.textContent = "Sending…";
      const body = JSON.stringify({ student: this.student, question: question.id, answers: answers2 });
      for (let attempt = 0; attempt < 4; attempt++) {
        try {
          const r = await fetch(`${this.classRoom.api}/answer`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
          const got = await r.json();
          said.textContent = r.ok ? SENT_WORDS : got.error;
          said.classList.toggle("bad", !r.ok);
          return;
        } catch {
          await new Promise((done) => setTimeout(done, 500 * (attempt + 1)));
        }
      }
      said.textContent = "Your answer could not be sent: check the connection and send it again.";
      said.classList.add("bad");
    },
    async showVerdict(question) {
      if (!this.classRoom?.follow) return;
      let got;
      try {
        const r = await fetch(`${this.classRoom.api}/verdict?student=${encodeURIComponent(this.student)}`);
        got = await r.json();
        if (!r.ok) throw new Error(got.error);
      } catch {
        return;
      }
      if (this.question?.id !== question.id) return;
      const lines = got.asked.map((item) => {
        const [className, textContent] = verdictLine(item);
        return Object.assign(document.createElement("div"), { className, textContent });
      });
      this.askBox.replaceChildren(Object.assign(document.createElement("div"), { className: "ask-head", textContent: `Question ${question.id}, revealed` }), ...lines);
      this.askBox.hidden = false;
    },
    // the question's frame, before the reveal: what it asks shows '?', and so do the sums and words that give it away
    mask(k) {
      const asked = this.question.asked;
      for (const item of asked) {
        const v = this.values[+item.node];
        if (!v) continue;
        v.grad.textContent = HIDDEN;
        v.grad.classList.add("asked");
        v.row.cells[3].textContent = HIDDEN;
        v.look = null;
      }
      for (const e of Object.values(this.edges)) {
        (this.body.blank || "").split("\n").forEach((line, j) => {
          if (e.texts[j]) e.texts[j].textContent = line;
        });
        e.label = null;
      }
      this.captionBox.textContent = questionCaption(this.body.labels[k], this.question);
      this.explainBox.replaceChildren();
      this.summaryBox.replaceChildren();
      this.plotBox.replaceChildren();
    }
  };

  // src/grads.js
  function pointWords(together) {
    return `Your point: ${together.point} of ${together.of}. Step through its pass, then send its grads to the class.`;
  }
  function sentWords(share) {
    const adds = Object.entries(share.grads).map(([name, g]) => `${name}.grad += ${fixed(g)}`).join(", ");
    return `Sent ✓ point ${share.point}: ${adds}. The projector adds every phone’s; its step brings the new parameters.`;
  }
  var fixed = (x) => Number(x).toFixed(4).replace("-", "−");
  var UNREACHABLE_WORDS = "The class cannot be reached just now: send again in a moment.";
  var grads = {
    // the box, on a phone learning together (the page's room says its point), else hidden and empty
    showGradsBox(room) {
      const together = room?.follow ? room.together : null;
      const key = together ? `${room.code}:${together.point}:${together.of}` : null;
      if (key === this.gradsKey) return;
      this.gradsKey = key;
      this.gradsBox.replaceChildren();
      const shown = !this.gradsBox.hidden;
      this.gradsBox.hidden = !together;
      if (shown !== !!together) this.refit();
      if (!together) return;
      const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
      const said = el("div", { className: "said", role: "status" });
      const send = el("button", { type: "button", className: "primary", textContent: "Send my grads to the class" });
      send.onclick = () => this.sendGrads(said);
      this.gradsBox.append(el("div", { className: "ask-head", textContent: pointWords(together) }), send, said);
      this.keepInSight();
    },
    async sendGrads(said) {
      const { api } = this.classRoom;
      said.className = "said";
      said.textContent = "Sending…";
      try {
        const r = await fetch(`${api}/grads`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ student: this.student, scenario: this.scenario() })
        });
        const got = await r.json();
        said.className = r.ok ? "said right" : "said bad";
        said.textContent = r.ok ? sentWords(got) : got.error;
      } catch {
        said.className = "said bad";
        said.textContent = UNREACHABLE_WORDS;
      }
    }
  };

  // src/layout.js
  var PROGRESS_MS = 250;
  var KEPT_LAYOUTS = 8;
  var WORKER_SOURCE = `
let graphviz = null;
onmessage = async ({ data }) => {
  try {
    if (data.url) { graphviz = await (await import(data.url)).Graphviz.load(); postMessage({ ready: true }); }
    else postMessage({ svg: graphviz.dot(data.dot) });
  } catch (error) { postMessage({ error: String((error && error.message) || error) }); }
};`;
  var BrowserGraphviz = class {
    constructor() {
      this.worker = null;
      this.ready = null;
      this.url = null;
      this.cancel = null;
    }
    start(url) {
      const source = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "text/javascript" }));
      const worker = this.worker = new Worker(source, { type: "module" });
      URL.revokeObjectURL(source);
      this.url = url;
      this.ready = new Promise((resolve, reject) => {
        worker.onmessage = ({ data }) => data.ready ? resolve() : reject(new Error(data.error));
        worker.onerror = (e) => {
          e.preventDefault();
          reject(new Error(e.message || "Graphviz did not load"));
        };
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
      if (!this.worker || this.url !== url) {
        this.end();
        this.start(url);
      }
      const worker = this.worker;
      let cancelled = false;
      this.cancel = () => {
        cancelled = true;
      };
      try {
        await this.ready;
      } catch (error) {
        this.end();
        throw error;
      }
      if (cancelled || worker !== this.worker) return { svg: null, cancelled: true };
      return new Promise((resolve, reject) => {
        const finish = (result) => {
          clearTimeout(timer);
          this.cancel = null;
          resolve(result);
        };
        const timer = setTimeout(() => {
          this.end();
          finish({ svg: null, cancelled: false });
        }, ms);
        this.cancel = () => {
          this.end();
          finish({ svg: null, cancelled: true });
        };
        worker.onmessage = ({ data }) => {
          if (data.error) {
            clearTimeout(timer);
            this.cancel = null;
            this.end();
            reject(new Error(data.error));
          } else finish({ svg: data.svg, cancelled: false });
        };
        worker.postMessage({ dot });
      });
    }
  };
  var browserGraphviz = new BrowserGraphviz();
  function withGraphAttributes(dot, attributes) {
    const set = Object.entries(attributes).map(([k, v]) => `${k}="${v}"`).join(" ");
    return dot.replace(/\}\s*$/, `graph [${set}]
}`);
  }
  var progress = (ms) => `Laying out the graph… ${(ms / 1e3).toFixed(1)} s`;
  var layingOut = {
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
          const [full, quick] = body.budget.map((s) => s * 1e3);
          let run = await browserGraphviz.run(body.url, body.dot, full);
          let isQuick = false;
          if (run.svg === null && !run.cancelled) {
            run = await browserGraphviz.run(body.url, withGraphAttributes(body.dot, body.quick), quick);
            isQuick = true;
          }
          if (run.cancelled || this.layout !== name) return;
          if (run.svg === null) return this.tell(body.tangled);
          const shapes = { wide: run.svg };
          for (const [shape, dot] of Object.entries(isQuick ? {} : body.fits || {})) {
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
        remember(this.layouts, key, laid, KEPT_LAYOUTS);
      }
      if (this.layout !== name) return;
      this.tell(laid.quick ? body.quickNote : "");
      this.load(body, laid.shapes);
      this.root.dataset.laidOut = `browser ${laid.ms.toFixed(0)}`;
      this.root.dataset.layouts = this.layouts.size;
      this.apply(this.head);
    },
    // the line on the browser's layout above the caption: a progress line, or why there is no graph (empty: none)
    tell(text) {
      this.layingBox.textContent = text;
      this.layingBox.hidden = !text;
    }
  };

  // src/live.js
  function scenarioOf(search, private_) {
    const kept = {};
    for (const [k, v] of new URLSearchParams(search)) if (!private_.includes(k)) kept[k] = v;
    return kept;
  }
  function sameScenario(a, b) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => a[k] === b[k]);
  }
  function classLink(pathname, search, room, held) {
    const own = {};
    for (const [k, v] of new URLSearchParams(search)) if (room.own.includes(k)) own[k] = v;
    const query = new URLSearchParams({ class: room.code, ...held.scenario, ...own, step: String(held.frame) });
    return `${pathname}?${query}`;
  }
  var isStudentId = (id, pattern) => new RegExp(`^(?:${pattern})$`).test(id || "");
  function followingWords(following) {
    return following ? ["● Following", " the class", "● Following the class"] : ["↺ Rejoin", "On my own · back to the class", "On my own · back to the class"];
  }
  var lostWords = (code) => `The class ${code} is no longer on the server: ask your lecturer for its new code. This page goes on on its own.`;
  var STEP_SLOW_MS = 2e3;
  var STEP_WAIT_MS = 8e3;
  var BACK_MS = 4e3;
  var STEP_SLOW_WORDS = "This step has not reached the class yet: sending it again until it does…";
  var STEP_LANDED_WORDS = "✓ The class has your step now.";
  var BACK_WORDS = "✓ Back with the class, at its frame.";
  var LEAD_CHECK_MS = 1e3;
  var retryDelay = (tries) => Math.min(4e3, 500 * 2 ** tries);
  var live = {
    // a live class: the room this run names (none, the lead's, a follower's)
    joinRoom(room) {
      const code = room?.code || null;
      if (code !== this.classRoom?.code || !!room?.follow !== !!this.classRoom?.follow) {
        this.roomTurn += 1;
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
      const kept = "backprop-class-lead";
      try {
        if (room?.lead) window.sessionStorage.setItem(kept, JSON.stringify({ code: room.code, secret: room.secret }));
        else if (before?.lead) window.sessionStorage.removeItem(kept);
        else if (this.head?.present && !room && this.head.session && this.leadOffered !== this.head.session) {
          this.leadOffered = this.head.session;
          const lead = JSON.parse(window.sessionStorage.getItem(kept) || "null");
          if (lead) this.component?.setStateValue("lead", { ...lead, session: this.head.session });
        }
      } catch {
      }
    },
    // a follower: its id in the room (minted by the server at its first join, then kept by this browser for the room:
    // a reload or a lost network is the same student), the class's events, what ends them
    async follow(room) {
      const turn = this.roomTurn, kept = `backprop-class-${room.code}`;
      let id = null;
      try {
        id = window.localStorage.getItem(kept);
      } catch {
      }
      if (!isStudentId(id, room.student)) {
        id = await this.joinClass(room, turn);
        if (!id) return;
        try {
          window.localStorage.setItem(kept, id);
        } catch {
        }
      }
      if (this.roomTurn !== turn || this.events) return;
      this.student = id;
      this.sayStudent();
      const url = `${room.api}/events?student=${encodeURIComponent(id)}`;
      this.events = new EventSource(url);
      this.events.onmessage = (e) => {
        this.followed = true;
        if (this.classNotice) this.tellBack(BACK_WORDS);
        this.classNotice = false;
        this.classState = JSON.parse(e.data);
        this.setQuestion(this.classState.question || null);
        if (this.following) this.toClass();
      };
      this.events.addEventListener("ended", (e) => this.leaveClass(JSON.parse(e.data).message));
      this.events.addEventListener("away", (e) => this.tellClass(JSON.parse(e.data).message));
      this.events.onerror = () => {
        if (this.events?.readyState !== EventSource.CLOSED) return;
        const again = () => setTimeout(() => {
          if (this.classRoom?.code === room.code && !this.events) this.follow(room);
        }, 3e3);
        this.events.close();
        this.events = null;
        fetch(url).then((r) => {
          if (r.ok) {
            r.body?.cancel();
            again();
          } else if (r.status === 503) r.json().then((j) => {
            this.tellClass(j.error);
            again();
          });
          else if (r.status === 404 && this.followed) this.leaveClass(lostWords(room.code));
          else if (r.status === 403 && !this.joinedAgain) {
            this.joinedAgain = true;
            try {
              window.localStorage.removeItem(kept);
            } catch {
            }
            this.follow(room);
          } else r.json().then((j) => this.leaveClass(j.error));
        }).catch(() => {
          this.tellClass("The class cannot be reached just now: trying again…");
          again();
        });
      };
    },
    // the page sends the student's bodies under their id (code mode): it is told once the run that follows the graph's
    // paint has come (its head names no session), never between the paint and that run, whose trigger a run asked for
    // by a state value meanwhile would lose (the sidebar's controls would then never come)
    sayStudent() {
      if (!this.student || this.studentSaid === this.student || !this.head || this.head.session) return;
      this.studentSaid = this.student;
      this.component?.setStateValue("student", this.student);
    },
    // a new student in `room`: the id the server mints for them, or null once the page says why it cannot join (full,
    // closed to new students, ended); while the store cannot be reached, or this network has joined too often this
    // minute, it says so and tries again
    async joinClass(room, turn) {
      while (this.roomTurn === turn) {
        let wait = 3;
        try {
          const r = await fetch(`${room.api}/join`, { method: "POST" });
          const got = await r.json();
          if (r.ok) return got.student;
          if (r.status === 429) wait = Number(r.headers.get("Retry-After")) || 10;
          else if (r.status !== 503) {
            this.leaveClass(got.error);
            return null;
          }
          this.tellClass(got.error);
        } catch {
          this.tellClass("The class cannot be reached just now: trying again…");
        }
        await new Promise((done) => setTimeout(done, wait * 1e3));
      }
      return null;
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
      setTimeout(() => {
        if (!this.classNotice && this.noticeBox.textContent === message) this.noticeBox.hidden = true;
      }, BACK_MS);
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
      this.root.dataset.asked = question ? question.frame : "";
      if (!question || question.id !== before?.id) this.askBox.replaceChildren();
      if (question && this.classRoom?.follow !== false && this.student) this.showQuestion(question, question.id !== before?.id);
      const shown = !this.askBox.hidden;
      this.askBox.hidden = !this.askBox.childElementCount;
      if (this.body && this.cur >= 0) {
        const k = question && !question.revealed ? question.frame : this.cur;
        this.cur = -1;
        this.go(k);
      }
      if (shown !== !this.askBox.hidden) this.refit();
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
      if (step !== this.posted || !this.classRoom?.lead) return;
      const { api, secret } = this.classRoom;
      const slow = setTimeout(() => {
        if (step === this.posted) this.tellClass(STEP_SLOW_WORDS);
      }, STEP_SLOW_MS);
      const again = () => {
        clearTimeout(slow);
        setTimeout(() => this.sendStep(step, tries + 1), retryDelay(tries));
      };
      fetch(`${api}/step`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Class-Secret": secret },
        body: step,
        signal: AbortSignal.timeout(STEP_WAIT_MS)
      }).then((r) => {
        if (r.ok) {
          clearTimeout(slow);
          if (this.classNotice && step === this.posted) {
            this.classNotice = false;
            this.tellBack(STEP_LANDED_WORDS);
          }
        } else if (r.status >= 500) again();
        else {
          clearTimeout(slow);
          if (step === this.posted) this.posted = null;
        }
      }).catch(again);
    },
    // a follower: to the class's frame, in place; to the class's link where its scenario is another (a rerun then)
    toClass() {
      const held = this.classState;
      if (!held || !this.classRoom?.follow) return;
      if (sameScenario(this.scenario(), held.scenario)) {
        if (this.body && held.frame !== this.cur) {
          this.go(held.frame);
          this.keepInSight();
        }
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
      const short = Object.assign(document.createElement("span"), { textContent: icon, className: this.following ? "" : "icon" });
      this.followButton.replaceChildren(short, Object.assign(document.createElement("span"), { textContent: word, className: "word" }));
      this.followButton.setAttribute("aria-label", full);
      this.followButton.classList.toggle("primary", !this.following);
      this.root.dataset.following = this.classRoom?.follow ? String(this.following) : "";
    }
  };

  // src/viewport.js
  var TEXT_PX = 14 * 4 / 3;
  var MIN_TEXT_PX = 16.5;
  var MOST = 1.6;
  var NARROW_PX = 640;
  var EDGE_PX = 12;
  var PHONE_TEXT_PX = 12.2;
  var RULES_PX = 56;
  var BETTER = 1.1;
  var OVERVIEW_GAP_PX = 8;
  var SWIPE_PX = 50;
  var BUSY_MS = 1200;
  var SETTLE_MS = [150, 400, 800, 1500];
  var TYPING = 'textarea, select, [contenteditable="true"], [role="listbox"], input:not([type="checkbox"]):not([type="range"])';
  var PRESENT_MOST = 2.5;
  var BOTTOM_PX = 12;
  var SCROLLBAR_PX = 16;
  var floorFor = (windowWidth) => windowWidth <= NARROW_PX ? PHONE_TEXT_PX : MIN_TEXT_PX;
  function chooseShape(sizes, width, height, present, floor) {
    const names = Object.keys(sizes);
    const most = present ? PRESENT_MOST : MOST;
    const whole = (name) => TEXT_PX * Math.min(width / sizes[name].width, height / sizes[name].height, most);
    const fits = names.filter((name) => whole(name) >= floor);
    if (!present && fits.includes("wide")) return ["wide", whole("wide")];
    const best = (fits.length ? fits : names).reduce((a, name) => whole(name) > whole(a) * (present ? BETTER : 1) ? name : a);
    return [best, whole(best)];
  }
  var pageScaleOf = (across, down, floor) => Math.max(floor / TEXT_PX, Math.min(across, down, MOST));
  var readableScaleOf = (viewHeight, naturalHeight, floor) => Math.max(floor / TEXT_PX, Math.min(1, (viewHeight - SCROLLBAR_PX) / naturalHeight));
  function around(rs) {
    return {
      left: Math.min(...rs.map((r) => r.left)),
      top: Math.min(...rs.map((r) => r.top)),
      right: Math.max(...rs.map((r) => r.right)),
      bottom: Math.max(...rs.map((r) => r.bottom))
    };
  }
  var along = (lo, hi, viewLo, viewHi) => lo >= viewLo && hi <= viewHi ? 0 : (lo + hi - viewLo - viewHi) / 2;
  function scrollToSee(active, inputs, outputs, view, width, height) {
    const alone = around([active]);
    const wanted = [around([active, ...inputs, ...outputs]), around([active, ...inputs]), around([active, ...outputs]), alone].find((b) => b.right - b.left <= width && b.bottom - b.top <= height) || alone;
    return [along(wanted.left, wanted.right, view.left, view.left + width), along(wanted.top, wanted.bottom, view.top, view.top + height)];
  }
  function boxIntoWindow(box, top, bottom) {
    if (box.bottom > bottom) return Math.min(box.bottom - bottom + EDGE_PX, box.top - top - EDGE_PX);
    return box.top < top ? box.top - top - EDGE_PX : 0;
  }
  function barIntoWindow(root, view, end, top, bottom) {
    const start = end - root <= bottom - top ? root : view;
    return start < top ? start - top : end > bottom ? Math.min(end - bottom, start - top) : 0;
  }
  function swipeStep(dx, dy) {
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < 2 * Math.abs(dy)) return 0;
    return dx < 0 ? 1 : -1;
  }
  function rowScroll(rowTop, rowHeight, head, scrollTop, height) {
    if (rowTop - head < scrollTop || rowTop + rowHeight > scrollTop + height) return rowTop - head - (height - head - rowHeight) / 2;
    return null;
  }
  var viewport = {
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
      const overview = this.overview.hidden ? 0 : this.overview.offsetHeight + OVERVIEW_GAP_PX;
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
        if (y === "auto" || y === "scroll") return e;
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
      } else if (this.scale === void 0) this.zoom(void 0);
    },
    // the presentation view: the graph takes the window's height below the title and the sums, which keep the room
    // their longest texts need, so that no frame moves the graph, and above the legend
    fitStage() {
      this.captionBox.style.minHeight = this.rulesBox.style.minHeight = this.view.style.height = "";
      if (!this.present || !this.body) return this.zoom(this.scale);
      const [caption2, rules] = this.longest();
      this.captionBox.style.minHeight = `${caption2}px`;
      this.rulesBox.style.minHeight = `${rules}px`;
      let scrolled = 0;
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
      const longest = (texts) => texts.reduce((a, b) => b.length > a.length ? b : a, "");
      const most = (a, b) => b.length > a.length || b.length === a.length && longest(b).length > longest(a).length ? b : a;
      const shown = this.captionBox.textContent;
      this.captionBox.textContent = `${longest(this.body.labels)} · ${longest(this.body.captions)}`;
      const caption2 = this.captionBox.offsetHeight;
      this.captionBox.textContent = shown;
      const sums = this.root.classList.contains("sums");
      this.root.classList.add("sums");
      this.showRules(this.body.rules.reduce(most, []));
      const rules = this.rulesBox.offsetHeight;
      const margins = outerMargins(this.rulesBox);
      this.root.classList.toggle("sums", sums);
      this.showRules(this.rulesAt(this.cur));
      return [caption2, rules, margins];
    },
    // the page's view keeps room under the bar for the caption and the sums at their longest (room), so that no frame's
    // texts push the active node out of the window; they take only this frame's height, so no blank band stands
    // over the graph
    reserveRoom() {
      if (this.present) return;
      this.captionBox.style.minHeight = this.rulesBox.style.minHeight = "";
      if (!this.body) return;
      const [caption2, rules, margins] = this.longest();
      const line = Math.max(caption2 + outerMargins(this.captionBox), this.followButton.hidden ? 0 : this.followButton.offsetHeight);
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
      if (scale !== void 0) this.shown = scale;
      else if (this.present) this.shown = this.fitScale() < this.floorPx() / TEXT_PX ? this.readableScale() : null;
      else this.shown = this.pageScale();
      const fitted = this.present ? `${this.natural * Math.min(this.fitScale(), PRESENT_MOST)}px` : "100%";
      this.svg.style.width = this.shown ? `${this.natural * this.shown}px` : fitted;
      this.svg.style.maxWidth = this.shown || this.present ? "none" : `${this.natural * MOST}px`;
      this.svg.style.height = "auto";
      const view = this.view;
      const fitHeight = () => {
        view.style.maxHeight = this.present ? "" : `${this.room() + SCROLLBAR_PX}px`;
      };
      fitHeight();
      const sideways = view.scrollWidth > view.clientWidth + 1;
      const hidden = !sideways && view.scrollHeight <= view.clientHeight + 1;
      if (hidden !== this.overview.hidden) {
        this.overview.hidden = hidden;
        fitHeight();
      }
      view.style.touchAction = sideways ? "" : "pan-y pinch-zoom";
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
      if (this.bestShape(this.view.clientWidth + sidebar.offsetWidth)[1] < this.floorPx()) return;
      this.sidebarClosedFor = this.shapes.wide;
      close.click();
    },
    // on a touch screen a sideways swipe on the graph steps, unless the graph scrolls sideways there
    swipes() {
      let start = null;
      this.view.addEventListener("touchstart", (e) => {
        start = e.touches.length === 1 ? e.touches[0] : null;
      }, { passive: true });
      this.view.addEventListener("touchend", (e) => {
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
    }
  };
  function outerMargins(e) {
    const style = getComputedStyle(e);
    return (parseFloat(style.marginTop) || 0) + (parseFloat(style.marginBottom) || 0);
  }

  // src/player.js
  var PHONE_PAGE_STYLE = `@media (max-width: ${NARROW_PX}px) {
  [data-testid="stMainBlockContainer"] { padding-left: 0.5rem; padding-right: 0.5rem; } }`;
  var KEPT_GRAPHS = 16;
  var SKIP_STYLE = `.backprop-skip { position: fixed; left: 0.5rem; top: -4rem; z-index: 1000100; padding: 0.6rem 1rem;
  background: #fff; color: #0e1117; border: 2px solid #0b5cad; border-radius: 0.5rem; font: 600 1rem sans-serif; }
.backprop-skip:focus { top: 0.5rem; }`;
  var SKIP_WORDS = "Skip to the graph player";
  var PAN = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  function skipLink(focus) {
    let link = document.getElementById("backprop-skip");
    if (!link) {
      document.head.append(Object.assign(document.createElement("style"), { textContent: SKIP_STYLE }));
      link = Object.assign(document.createElement("a"), { id: "backprop-skip", className: "backprop-skip", href: "#", textContent: SKIP_WORDS });
      document.body.prepend(link);
    }
    link.onclick = (e) => {
      e.preventDefault();
      focus();
    };
  }
  function reducedMotion() {
    return window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
  }
  var GRAPHS = window.__backpropGraphs ||= /* @__PURE__ */ new Map();
  var Player = class {
    // `standalone`: a lesson in one file (src/lesson.js), with no Streamlit around it and no server: the page's own
    // styles, the address bar and the share button are the page's, and the file's policy forbids a blob: picture
    constructor(root, { standalone: standalone2 = false } = {}) {
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
      if (!standalone2 && !document.getElementById("backprop-phone-page")) {
        document.head.append(Object.assign(document.createElement("style"), { id: "backprop-phone-page", textContent: PHONE_PAGE_STYLE }));
      }
      if (!standalone2) skipLink(() => this.root.isConnected && this.view.focus());
      $(".share").hidden = standalone2;
      this.root = root;
      this.view = $(".view");
      this.overview = $(".overview");
      this.map = $(".map");
      this.slider = $(".slider");
      this.captionBox = $(".caption");
      this.saidBox = $(".heard");
      this.rulesBox = $(".rules");
      this.legendBox = $(".legend");
      this.noticeBox = $(".notice");
      this.layingBox = $(".laying");
      this.explainBox = $(".explain");
      this.summaryBox = $(".summary");
      this.plotBox = $(".plot");
      this.tableBox = $(".table");
      this.playButton = $(".play");
      this.prevButton = $(".prev");
      this.nextButton = $(".next");
      this.svg = null;
      this.shapes = {};
      this.sizes = {};
      this.shape = null;
      this.inView = null;
      this.here = null;
      this.mapUrl = null;
      this.pinned = null;
      this.sidebarClosedFor = null;
      this.natural = 0;
      this.naturalHeight = 0;
      this.values = [];
      this.ops = {};
      this.edges = {};
      this.body = null;
      this.n = 0;
      this.of = 0;
      this.model = emptyModel();
      this.modelAt = -1;
      this.cur = -1;
      this.timer = null;
      this.speed = 2;
      this.scale = void 0;
      this.shown = null;
      this.layout = null;
      this.gotoId = null;
      this.activeRow = null;
      this.urlTimer = null;
      this.urlWritten = 0;
      this.standalone = standalone2;
      this.component = null;
      this.paintedFor = null;
      this.present = false;
      this.head = null;
      this.layouts = /* @__PURE__ */ new Map();
      this.lastFrame = 0;
      this.stem = "graph";
      this.classRoom = null;
      this.events = null;
      this.classState = null;
      this.following = true;
      this.question = null;
      this.student = null;
      this.studentSaid = null;
      this.roomTurn = 0;
      this.joinedAgain = false;
      this.askBox = $(".ask");
      this.gradsBox = $(".grads");
      this.gradsKey = null;
      this.classNotice = false;
      this.followed = false;
      this.leadOffered = null;
      this.posted = null;
      this.leadCheck = null;
      this.followButton = $(".follow");
      this.followButton.onclick = () => this.setFollowing(!this.following);
      this.stage = $(".stage");
      this.more = Object.fromEntries(["left", "right", "up", "down"].map((side) => [side, $(`.more.${side}`)]));
      this.reserve = RULES_PX;
      this.touching = false;
      this.scrolledAt = -Infinity;
      this.ownScrollTop = null;
      this.settleTimer = null;
      this.drawnAnew = false;
      $(".prev").onclick = () => {
        this.stop();
        this.step(this.cur - 1);
      };
      $(".next").onclick = () => {
        this.stop();
        this.step(this.cur + 1);
      };
      this.playButton.onclick = () => this.timer ? this.stop() : this.play();
      this.slider.oninput = () => {
        this.stop();
        this.onOwn();
        this.go(+this.slider.value);
        this.slider.value = this.cur;
      };
      this.slider.onchange = () => this.intoWindow();
      $(".out").onclick = () => this.zoom(this.shownScale() / 1.25);
      $(".in").onclick = () => this.zoom(this.shownScale() * 1.25);
      $(".fit").onclick = () => this.zoom(null);
      $(".share").onclick = () => {
        this.stop();
        this.component?.setTriggerValue("share", { frame: this.cur, shape: this.shape });
      };
      new ResizeObserver(() => this.refit()).observe(this.view);
      window.addEventListener("resize", () => this.present ? this.fitStage() : this.refit());
      this.swipes();
      this.view.addEventListener("scroll", () => {
        this.markOverview();
        this.markEdges();
      }, { passive: true });
      window.addEventListener("touchstart", () => {
        this.touching = true;
      }, { passive: true, capture: true });
      for (const end of ["touchend", "touchcancel"]) window.addEventListener(end, () => {
        this.touching = false;
      }, { passive: true, capture: true });
      document.addEventListener("scroll", (e) => {
        const scroller = e.target === document ? document.scrollingElement : e.target;
        if (scroller?.scrollTop === this.ownScrollTop) return;
        this.scrolledAt = performance.now();
        clearTimeout(this.settleTimer);
      }, { passive: true, capture: true });
      this.overview.onclick = (e) => this.lookAt(e);
      document.fonts.ready.then(() => this.present && this.fitStage());
      window.addEventListener("keydown", (e) => {
        if (!this.root.isConnected || e.defaultPrevented) return;
        const path = e.composedPath();
        const target = path[0];
        const everywhere = this.present || this.standalone;
        if ((!path.includes(root) || target.closest?.(".ask")) && (!everywhere || target.closest?.(TYPING))) return;
        const pan = e.shiftKey && PAN[e.key];
        if (pan) {
          this.view.scrollBy(pan[0] * this.view.clientWidth * 0.6, pan[1] * this.view.clientHeight * 0.6);
          e.preventDefault();
          return;
        }
        const to = keyFrame(e.key, this.cur, this.n);
        if (to !== null) {
          this.stop();
          this.step(to);
          e.preventDefault();
        } else if (e.key === " " && !target.closest?.('button, input[type="checkbox"]')) {
          this.timer ? this.stop() : this.play();
          e.preventDefault();
        }
      });
      window.addEventListener("backprop-save-frame", (e) => this.root.isConnected && this.saveFrame(e.detail));
      if (!standalone2) setInterval(() => this.root.isConnected && this.writeUrl(), 1e3);
      Object.seal(this);
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
      const list = this.root.querySelector(".marks");
      list.id ||= `marks-${Math.random().toString(36).slice(2)}`;
      list.replaceChildren(...marks.map((k) => Object.assign(document.createElement("option"), { value: k, label: this.body.labels[k] })));
      if (marks.length) this.slider.setAttribute("list", list.id);
      else this.slider.removeAttribute("list");
      this.slider.title = marks.length ? `First difference from the right engine: ${this.body.labels[marks[0]]}` : "";
    }
    // the model follows the patches; the page is written once per frame shown, only where it changed
    seek(k) {
      [this.model, this.modelAt] = seekModel(this.model, this.modelAt, this.body.patches, k);
    }
    go(k) {
      if (!this.body) return;
      k = clampFrame(k, this.n, this.asking() ? this.question.frame : null);
      if (k === this.cur) return;
      this.seek(k);
      this.followActive(k);
      this.markOverview(k);
      this.markEdges();
      this.render();
      const row = this.values[this.body.patches[k].a]?.row || null;
      if (row !== this.activeRow) {
        this.activeRow?.classList.remove("active");
        this.activeRow?.removeAttribute("aria-current");
        row?.classList.add("active");
        row?.setAttribute("aria-current", "step");
        this.activeRow = row;
      }
      const mark = this.model.values[this.body.patches[k].a]?.[3] || "";
      row?.classList.toggle("forward", mark === "forward");
      row?.classList.toggle("seed", mark === "seed");
      this.followRow(row);
      this.cur = this.lastFrame = k;
      this.slider.value = k;
      this.prevButton.disabled = k === 0;
      this.nextButton.disabled = k === this.n - 1 || this.asking() && k === this.question.frame;
      this.captionBox.textContent = caption(this.body, k);
      this.slider.setAttribute("aria-valuetext", this.body.labels[k]);
      this.showRules(this.rulesAt(k));
      this.saidBox.textContent = spoken(this.captionBox.textContent, this.rulesAt(k));
      this.explainBox.innerHTML = this.body.explanations[k];
      this.summaryBox.innerHTML = k === this.n - 1 ? this.body.summary : "";
      this.plotBox.innerHTML = this.body.plots ? this.body.plots.head + this.body.plots.parts[this.body.plots.at[k]] : "";
      if (this.asking() && k === this.question.frame) this.mask(k);
      this.explainBox.dataset.frame = k;
      this.root.dataset.frame = k;
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
      labelButton(this.playButton, "❚❚", "Pause");
      const started = performance.now();
      this.timer = setInterval(() => {
        if (this.cur >= this.n - 1) return this.stop();
        if (this.scrolledAt < started && !reducedMotion()) return this.step(this.cur + 1);
        this.onOwn();
        this.go(this.cur + 1);
      }, 1e3 / this.speed);
    }
    stop() {
      if (!this.timer) return;
      clearInterval(this.timer);
      this.timer = null;
      labelButton(this.playButton, "▶", "Play");
    }
    // the sums over the graph at frame k: none on a question's frame before the reveal (they give the answer)
    rulesAt(k) {
      return this.asking() && k === this.question.frame ? [] : this.body.rules[k] || [];
    }
    showRules(lines) {
      this.rulesBox.replaceChildren(...lines.map((line) => Object.assign(document.createElement("div"), { textContent: line })));
    }
    // one run of the page: a line of JSON for this run, a line with the graph (empty where this page has it by the
    // name head.graph), then the layout's body; the last two read only when the layout is new
    update(bytes) {
      const [head, sent, rest] = splitRun(bytes);
      this.head = head;
      let graph = GRAPHS.get(this.head.graph);
      if (sent !== null && !graph) graph = JSON.parse(sent);
      if (!graph) {
        this.component?.setTriggerValue("missing", this.head.graph);
        return;
      }
      remember(GRAPHS, this.head.graph, graph, KEPT_GRAPHS);
      this.tellPainted(this.head.session);
      if (this.head.fonts && !document.getElementById("backprop-fonts")) {
        document.head.append(Object.assign(document.createElement("style"), { id: "backprop-fonts", textContent: this.head.fonts || "" }));
      }
      if (this.layout === null && !this.standalone) this.checkLink();
      if (this.head.layout !== this.layout) {
        this.stop();
        this.layout = this.head.layout;
        const body = { ...graph, ...decode(rest) };
        if (body.svg === void 0) return this.layOutHere(body, this.head.layout);
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
      requestAnimationFrame(() => setTimeout(() => this.component?.setTriggerValue("painted", session)));
    }
    // what a run of the page says besides the body: the speed, the views, where to go
    apply(head) {
      const wasPlaying = !!this.timer;
      this.stem = head.stem || "graph";
      this.of = Math.max(this.n, head.length || 0);
      this.slider.max = this.of - 1;
      this.tableBox.classList.toggle("answers", head.answers);
      const present = !!head.present;
      this.root.classList.toggle("present", present);
      this.root.classList.toggle("with-table", !!head.table);
      this.root.classList.toggle("high-contrast", !!head.contrast);
      if (head.speed !== this.speed) {
        this.speed = head.speed;
        if (wasPlaying && this.timer) {
          this.stop();
          this.play();
        }
      }
      const before = this.cur;
      const { frame: k, sent, gotoId } = landing(this, head.goto);
      this.gotoId = gotoId;
      this.cur = -1;
      this.go(k);
      if (sent || k !== before || this.drawnAnew) this.keepInSight();
      this.drawnAnew = false;
      this.joinRoom(head.room);
      if (this.following && this.classState) this.toClass();
      if (present || this.present) {
        this.present = present;
        this.fitStage();
        if (present) this.view.focus({ preventScroll: true });
      }
    }
  };
  Object.assign(Player.prototype, drawing, viewport, address, layingOut, live, answers, grads);

  // src/lesson.js
  function runOf(head, graph, body) {
    return new TextEncoder().encode(`${head}
${graph}
${body}`);
  }
  function bytesOf(base64) {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
    return bytes.buffer;
  }
  var VIEWS = { present: "present", contrast: "contrast" };
  var switched = (head, view) => ({ ...head, [view]: !head[view] });
  var roomy = ({ innerWidth, innerHeight }) => innerWidth > 640 && innerHeight > 600;
  function startLesson(doc) {
    const block = (name) => doc.getElementById(`lesson-${name}`).textContent;
    const fonts = JSON.parse(block("fonts"));
    for (const { family, weight, data } of fonts) doc.fonts.add(new FontFace(family, bytesOf(data), { weight }));
    const player = new Player(doc.querySelector(".player"), { standalone: true });
    player.update(runOf(block("head"), block("graph"), block("body")));
    const show = () => {
      for (const [name, view] of Object.entries(VIEWS)) {
        doc.querySelector(`.views .${name}`)?.setAttribute("aria-pressed", String(!!player.head[view]));
      }
      doc.body.classList.toggle("present", !!player.head.present);
    };
    const about = doc.querySelector("details.about");
    if (about && (player.head.present || !roomy(doc.defaultView))) about.open = false;
    for (const [name, view] of Object.entries(VIEWS)) {
      const button = doc.querySelector(`.views .${name}`);
      if (button) button.onclick = () => {
        player.head = switched(player.head, view);
        player.apply(player.head);
        show();
      };
    }
    show();
    return player;
  }
  if (typeof document !== "undefined" && document.getElementById("lesson-head")) startLesson(document);
})();
