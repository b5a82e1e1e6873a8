// A lesson in one file (exports/lesson.py): the page's player, stepping on its own with no server. The file holds
// the run the page's player was sent, as three JSON blocks (the head, the laid-out graph and the body), and the
// page's font as a subset; this reads them, adds the font and draws the player, as the component's entry does.
import { Player } from './player.js';

// the run's three parts, joined as the component is sent them (src/frames.js's splitRun reads them)
export function runOf(head, graph, body) {
  return new TextEncoder().encode(`${head}\n${graph}\n${body}`);
}

// base64 (a font's bytes in the file) as an ArrayBuffer: the file's policy allows no data: font, and a FontFace
// made of bytes fetches nothing
export function bytesOf(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes.buffer;
}

// the page's views a lesson switches itself, as the page's sidebar does: {its button's class: the head's field}
export const VIEWS = { present: 'present', contrast: 'contrast' };

// the head with one view switched, the frame kept: the same goto, which the player has obeyed already
export const switched = (head, view) => ({ ...head, [view]: !head[view] });

// a window with room for the lesson's words above the graph: not a phone's, nor a small iframe's
export const roomy = ({ innerWidth, innerHeight }) => innerWidth > 640 && innerHeight > 600;

export function startLesson(doc) {
  const block = (name) => doc.getElementById(`lesson-${name}`).textContent;
  const fonts = JSON.parse(block('fonts'));
  for (const { family, weight, data } of fonts) doc.fonts.add(new FontFace(family, bytesOf(data), { weight }));
  const player = new Player(doc.querySelector('.player'), { standalone: true });
  player.update(runOf(block('head'), block('graph'), block('body')));
  const show = () => {
    for (const [name, view] of Object.entries(VIEWS)) {
      doc.querySelector(`.views .${name}`)?.setAttribute('aria-pressed', String(!!player.head[view]));
    }
    doc.body.classList.toggle('present', !!player.head.present); // the page's whole width, for a projector
  };
  // on a phone, in a small iframe (a slide, an LMS page) and on a projector, what the lesson is about folds into one
  // line, which opens on a tap: the graph has the room
  const about = doc.querySelector('details.about');
  if (about && (player.head.present || !roomy(doc.defaultView))) about.open = false;
  for (const [name, view] of Object.entries(VIEWS)) {
    const button = doc.querySelector(`.views .${name}`);
    if (button) button.onclick = () => { player.head = switched(player.head, view); player.apply(player.head); show(); };
  }
  show();
  return player;
}

if (typeof document !== 'undefined' && document.getElementById('lesson-head')) startLesson(document);
