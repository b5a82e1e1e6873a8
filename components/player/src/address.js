// The address bar: it always links to the frame shown (step=3, step=end for the last), replaced in place so that Back
// never walks through frames, and written at most every URL_EVERY_MS; and a link too long for the server, said
// so. The pure parts (the step a frame is written as, the link with it, what a long link's notice says) are
// exported for the tests.

// Chrome refuses more than ~100 history.replaceState calls in 10 s; playing at 10 steps/s would reach that
export const URL_EVERY_MS = 300;
// Streamlit drops a query string of more than these parameters or characters without a word
const MOST_PARAMETERS = 1000;
const MOST_CHARACTERS = 512 * 1024;

// frame k of n as a link writes it: its number, or 'end' for the last, which a link keeps whatever the count
// (state.py reads both)
export const stepParam = (k, n) => (k === n - 1 ? 'end' : String(k));

// the link `href` with frame k of n in it, or null where it has that step already (nothing to write)
export function linkWithStep(href, k, n) {
  const url = new URL(href);
  const step = stepParam(k, n);
  if (url.searchParams.get('step') === step) return null;
  url.searchParams.set('step', step);
  return url.href;
}

// how long until the address bar may be written again, in ms, when it was last written at `written` (ms)
export const urlWait = (written, now) => Math.max(0, written + URL_EVERY_MS - now);

// what the page says of a query string (`search`, with its '?') that the server drops unread, or null for one it reads
export function linkNotice(search) {
  const count = [...new URLSearchParams(search).keys()].length;
  const long = search.length - 1 > MOST_CHARACTERS;
  if (count <= MOST_PARAMETERS && !long) return null;
  const what = long ? `${(search.length - 1).toLocaleString('en')} characters, more than the 512 Ki`
    : `${count} parameters, more than the 1,000`;
  return `This link has ${what} the server reads, so none of it was read: the page opened with its defaults.`;
}

export const address = {
  // the address bar always links to the frame shown: replaced in place, so Back never walks through frames
  writeUrlSoon() {
    if (this.urlTimer) return;
    const wait = urlWait(this.urlWritten, performance.now());
    this.urlTimer = setTimeout(() => { this.urlTimer = null; this.writeUrl(); }, wait);
  },

  writeUrl() {
    if (this.cur < 0) return;
    const href = linkWithStep(window.location.href, this.cur, this.n);
    if (href === null) return;
    window.history.replaceState(window.history.state, '', href);
    this.urlWritten = performance.now();
  },

  // Streamlit drops a query string of more than 1,000 parameters or 512 Ki characters without a word: say so
  checkLink() {
    const notice = linkNotice(window.location.search);
    if (notice === null) return;
    this.noticeBox.textContent = notice;
    this.noticeBox.hidden = false;
  },
};
