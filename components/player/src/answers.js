// The class's answers: a question the class is asked hides, on its frame, what it asks ('?' for the grads, and the
// sums and words that give them away) until the reveal; a follower's phone shows its answer boxes, sends the answers,
// and once revealed, each answer against the right grad. The pure parts (a number as the page writes it, the sign
// flipped, the answers sent, a verdict's line, the question's caption) are exported for the tests.
import { HIDDEN } from './draw.js';

// a number as the page writes it: up to 4 decimals, a true minus sign
export function number(x) {
  return Number(x).toLocaleString('en', { maximumFractionDigits: 4, useGrouping: false }).replace('-', '−');
}

// the ± button: an answer's sign changed
export function flipSign(text) {
  const shown = text.trim();
  return shown.startsWith('-') ? shown.slice(1) : `-${shown}`;
}

// the answers sent, {node: text}, from the boxes' [node, text] pairs: each trimmed, the empty ones left out
export function answersOf(pairs) {
  const answers = {};
  for (const [node, text] of pairs) if (text.trim()) answers[node] = text.trim();
  return answers;
}

// a revealed answer's [class, line]: right or wrong, the right grad, what the student said, and why it is wrong
export function verdictLine(item) {
  const right = item.group === 'right';
  const yours = item.answer === null ? 'you did not answer' : `you said ${number(item.answer)}`;
  const why = right || item.answer === null ? '' : ` · ${item.says}`;
  return [right ? 'right' : 'wrong', `${right ? '✓' : '✗'} ${item.label} = ${number(item.right)} (${yours})${why}`];
}

// the caption of a question's frame before the reveal: its label, and what is asked
export function questionCaption(label, question) {
  const names = question.asked.map((item) => item.label).join(', ');
  return `${label} · Question ${question.id}: ${names} after this _backward?`;
}

export const SENT_WORDS = 'Sent ✓ You can change it until the reveal.';

export const answers = {
  // an open question the class is asked, not yet revealed: its frame hides what it asks, and no one steps past it
  asking() {
    return !!this.question && !this.question.revealed;
  },

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
      flip.onclick = () => { input.value = flipSign(input.value); input.focus(); };
      label.append(el('span', { textContent: `${item.label} =` }), input, flip);
      form.append(label);
    }
    const send = el('button', { type: 'submit', className: 'primary', textContent: 'Send' });
    const said = el('div', { className: 'said', role: 'status' });
    form.append(send);
    form.onsubmit = (e) => { e.preventDefault(); this.sendAnswer(question, form, said); };
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
    const inputs = [...form.querySelectorAll('input')];
    if (got.question !== question.id || !got.answers || said.textContent || inputs.some((input) => input.value)) return;
    for (const input of inputs) if (input.dataset.node in got.answers) input.value = number(got.answers[input.dataset.node]);
    said.textContent = SENT_WORDS;
  },

  async sendAnswer(question, form, said) {
    const answers = answersOf([...form.querySelectorAll('input')].map((input) => [input.dataset.node, input.value]));
    if (!Object.keys(answers).length) { said.textContent = 'Type a number first.'; return; }
    said.textContent = 'Sending…';
    const body = JSON.stringify({ student: this.student, question: question.id, answers });
    for (let attempt = 0; attempt < 4; attempt++) { // a replica lost on the way: the same answer again, counted once
      try {
        const r = await fetch(`${this.classRoom.api}/answer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
        const got = await r.json();
        said.textContent = r.ok ? SENT_WORDS : got.error;
        said.classList.toggle('bad', !r.ok);
        return;
      } catch {
        await new Promise((done) => setTimeout(done, 500 * (attempt + 1)));
      }
    }
    said.textContent = 'Your answer could not be sent: check the connection and send it again.';
    said.classList.add('bad');
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
      return Object.assign(document.createElement('div'), { className, textContent });
    });
    this.askBox.replaceChildren(Object.assign(document.createElement('div'), { className: 'ask-head', textContent: `Question ${question.id}, revealed` }), ...lines);
    this.askBox.hidden = false;
  },

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
    this.captionBox.textContent = questionCaption(this.body.labels[k], this.question);
    this.explainBox.replaceChildren();
    this.summaryBox.replaceChildren();
    this.plotBox.replaceChildren();
  },
};
