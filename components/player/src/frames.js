// The frames: what the page sends in a run, the patches followed to a frame's look, and which frame a key, a goto
// or a class's question leads to. Pure: no DOM, so that node --test can run it (components/player/test/).
const utf8 = new TextDecoder();

// the look before frame 0: nothing drawn
export const emptyModel = () => ({ values: [], op: -1, edges: {}, lost: [] });

// the model at frame k, from the model at frame `at` (-1: none yet) and the body's patches: followed forward from
// there, or from the start when k is behind it. Returns [model, k]; the model is changed in place when it goes on
export function seekModel(model, at, patches, k) {
  if (k < at) {
    model = emptyModel();
    at = -1;
  }
  for (let j = at + 1; j <= k; j++) {
    const patch = patches[j];
    for (const [i, ...look] of patch.v) model.values[i] = look;
    model.op = patch.o;
    model.lost = patch.x || []; // the `=` engine: edges whose contribution this frame throws away
    for (const [id, label] of patch.e) model.edges[id] = label;
  }
  return [model, k];
}

// frame k kept within the pass's n frames, and not past `held`, the frame of a question the class is asked (null:
// none)
export function clampFrame(k, n, held = null) {
  return Math.max(0, Math.min(n - 1, held === null ? Infinity : held, k));
}

// the frame a key takes the player to from frame `cur` of n: ← and → a step, Home the first, End the last; null for
// any other key
export function keyFrame(key, cur, n) {
  const keys = { ArrowLeft: -1, ArrowRight: 1 };
  if (key in keys) return cur + keys[key];
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  return null;
}

// where a run of the page puts the player: at the frame shown (before any, the last one shown before a new layout),
// or where a goto it has not obeyed sends it (state.END: the last). An 'open' goto (a visitor's first run) moves
// only a player that shows nothing yet. Returns {frame, sent (a goto moved it), gotoId (the last obeyed)}
export function landing({ cur, lastFrame, gotoId, n }, goto) {
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

// one run's bytes: a line of JSON, a line with the graph (empty where the page has it by name), then the body.
// Returns [head, the graph's JSON text (null when the line is empty), the body's bytes, read only when needed]
export function splitRun(bytes) {
  const cut = bytes.indexOf(10);
  const graphEnd = bytes.indexOf(10, cut + 1);
  const head = JSON.parse(utf8.decode(bytes.subarray(0, cut)));
  const graph = graphEnd > cut + 1 ? utf8.decode(bytes.subarray(cut + 1, graphEnd)) : null;
  return [head, graph, bytes.subarray(graphEnd + 1)];
}

export const decode = (bytes) => JSON.parse(utf8.decode(bytes));

// a Map kept as a cache of its `most` newest entries: `value` under `key`, the newest last, the oldest gone first
export function remember(map, key, value, most) {
  map.delete(key);
  map.set(key, value);
  if (map.size > most) map.delete(map.keys().next().value);
}

// 'Frame 3 of 16 · what it shows': the caption under the bar, counted from 1 as everywhere people read it
// (exports.frame_numbers); the body's labels carry the count
export const caption = (body, k) => `${body.labels[k]} · ${body.captions[k]}`;

// what a screen reader hears at a frame: its caption, then each of its sums (the grads it changed, from what to what)
export function spoken(captionText, rules) {
  return [captionText, ...rules].filter(Boolean).join('. ');
}
