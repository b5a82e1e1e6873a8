// Learning together: a follower's phone sends its share of the class's batch from a box under the player's bar.
// The server computes the grads of the point the room handed the phone, at the class's parameters, from the room's
// own scenario (the class's /grads route): the phone sends its id and the scenario it shows, never a number. The
// pure parts (the box's words, and what a sent share says) are exported for the tests.

// the box's line: the point the phone was handed
export function pointWords(together) {
  return `Your point: ${together.point} of ${together.of}. Step through its pass, then send its grads to the class.`;
}

// what a share the room took says: the point, and each grad it adds, as the page writes numbers
export function sentWords(share) {
  const adds = Object.entries(share.grads).map(([name, g]) => `${name}.grad += ${fixed(g)}`).join(', ');
  return `Sent ✓ point ${share.point}: ${adds}. The projector adds every phone’s; its step brings the new parameters.`;
}

// 4 decimals and a true minus, as the page's node table writes a grad
export const fixed = (x) => Number(x).toFixed(4).replace('-', '−');

export const UNREACHABLE_WORDS = 'The class cannot be reached just now: send again in a moment.';

export const grads = {
  // the box, on a phone learning together (the page's room says its point), else hidden and empty
  showGradsBox(room) {
    const together = room?.follow ? room.together : null;
    const key = together ? `${room.code}:${together.point}:${together.of}` : null;
    if (key === this.gradsKey) return; // the same box: what it said stays
    this.gradsKey = key;
    this.gradsBox.replaceChildren();
    const shown = !this.gradsBox.hidden;
    this.gradsBox.hidden = !together;
    if (shown !== !!together) this.refit(); // the box takes room above the graph, or gives it back
    if (!together) return;
    const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
    const said = el('div', { className: 'said', role: 'status' });
    const send = el('button', { type: 'button', className: 'primary', textContent: 'Send my grads to the class' });
    send.onclick = () => this.sendGrads(said);
    this.gradsBox.append(el('div', { className: 'ask-head', textContent: pointWords(together) }), send, said);
    this.keepInSight();
  },

  async sendGrads(said) {
    const { api } = this.classRoom;
    said.className = 'said';
    said.textContent = 'Sending…';
    try {
      const r = await fetch(`${api}/grads`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ student: this.student, scenario: this.scenario() }),
      });
      const got = await r.json();
      said.className = r.ok ? 'said right' : 'said bad';
      said.textContent = r.ok ? sentWords(got) : got.error;
    } catch {
      said.className = 'said bad';
      said.textContent = UNREACHABLE_WORDS;
    }
  },
};
