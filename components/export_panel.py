"""The share panel, and its exports for slides: the frame on screen as SVG, PNG or DOT, and the whole pass as a GIF,
a PDF, a PowerPoint deck or a ZIP of SVGs. exports.py makes every file on the server from the frames the page steps
through; this opens the panel (share_panel: components/share.py's link and QR code, then these) and draws the
buttons. A frame's files are made when their button is clicked, without a rerun; a whole pass is made when asked,
with a progress bar, and kept for this session until the picture changes."""

import functools
from dataclasses import dataclass

import streamlit as st

import exports
import layout
import state
from components.markdown import md
from components.share import link_url, share_dialog
from engine.frames import clamp_frame, frames
from shared import session_allowance, session_waiting

PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation'
# label, file extension, mime type, the function of exports.py that makes it
FRAME_FILES = (
    ('SVG (vector)', 'svg', 'image/svg+xml', exports.frame_svg),
    ('PNG (2× size, on white)', 'png', 'image/png', exports.frame_png),
    ('DOT source', 'dot', 'text/vnd.graphviz', None),  # exports.frame_dot, made at once: it needs no dot
)
PASS_FILES = (
    ('GIF', 'gif', 'image/gif', exports.pass_gif),
    ('PDF', 'pdf', 'application/pdf', exports.pass_pdf),
    ('PowerPoint', 'pptx', PPTX, exports.pass_pptx),
    ('ZIP of SVGs', 'zip', 'application/zip', None),  # exports.pass_zip, which also needs the files' stem
)
UNITS = {'gif': 'picture', 'pdf': 'page', 'pptx': 'slide', 'zip': 'SVG'}  # what the progress bar counts
MADE = 'export_made'  # session state: (what the pass depends on, extension, bytes), the last pass file made


@dataclass(frozen=True)
class Shown:
    """What is on screen: the trace, its frames, the frame shown, and how the page drew them."""

    trace: object
    frames: list
    index: int
    width: int
    quick: bool  # the page's layout was the quick one: the exports use it too, so they are the same picture
    hide: str  # which grads the page hides ('none', 'new', 'all'): a slide can ask the room too
    stem: str  # exports.file_stem(...): what the files are called
    key: tuple  # what the whole pass depends on: the expression, its inputs and the frames
    of: int | None = None  # the count the page reads the frames' numbers against (exports.frame_numbers)
    whole: bool = True  # the frames reach the pass's end (a quiz holds back those after its question)


def share_panel(page, expression, values, trace, all_frames, width, quick, of=None):
    """The share panel for the frame `page` names (page.frame, END for the last) of `expression` at `values`
    ({name: value}): a link to the page at that frame, its QR code, and the exports. `quick`: whether the page's
    layout was the quick one; `of`: the count the page's caption reads the frames' numbers against, where it
    counts more than `all_frames` (exports.frame_numbers): the panel and the files number them as the page does."""
    index = clamp_frame(page.frame, len(all_frames))
    asked = any(f.ask for f in all_frames)
    whole = len(all_frames) == len(frames(trace, page.forward, page.leaves, ask=asked))
    shown = Shown(
        trace, all_frames, index, width, quick, page.hide, stem=exports.file_stem(expression.key, values),
        key=(expression.key, tuple(values.items()), page.forward, page.leaves, page.hide, page.mode, len(all_frames),
             of),
        of=of, whole=whole,
    )  # fmt: skip
    allowance, waiting = session_allowance(), session_waiting()
    share_dialog(
        link_url(st.context.url or '', state.to_query(page)),
        md(exports.frame_title(trace, all_frames, index, of)),
        lambda: show_exports(shown, allowance, waiting),
    )


def show_exports(shown, allowance, waiting):
    """The export buttons for `shown`. `allowance`: the session's layout.Allowance for dot time; `waiting()`: whether
    the visitor is still there (a whole-pass export stops when they leave)."""
    can_draw = layout.has_dot()
    frame = shown.frames[shown.index]
    name = shown.stem + exports.frame_suffix(shown.frames, shown.index, shown.of)
    st.markdown('**This frame, for a slide**')
    picture = {'trace': shown.trace, 'frame': frame, 'width': shown.width, 'quick': shown.quick, 'hide': shown.hide}
    if not can_draw:  # the player laid this frame out in the browser, so the browser saves it; the DOT needs no dot
        browser_save_buttons([file for file in FRAME_FILES if file[3] is not None])
    served = FRAME_FILES if can_draw else [file for file in FRAME_FILES if file[3] is None]
    for column, (label, ext, mime, make) in zip(st.columns(len(FRAME_FILES)), served):
        # made when clicked, without a rerun; the DOT source at once
        data = exports.frame_dot(**picture) if make is None else functools.partial(make, **picture, allowance=allowance)
        column.download_button(
            label, data, f'{name}.{ext}', mime, on_click='ignore', icon=':material/download:', width='stretch'
        )
    if not can_draw:
        names = ', '.join(label for label, *_ in PASS_FILES)
        st.info(exports.no_dot(f'The whole pass ({names})'), icon=':material/info:')
        return

    st.markdown(exports.pass_contents(shown.frames, shown.of, shown.whole))
    made = st.session_state.get(MADE)
    for column, (label, ext, mime, make) in zip(st.columns(len(PASS_FILES)), PASS_FILES):
        file_name = f'{shown.stem}.{ext}'
        if made and made[:2] == (shown.key, ext):
            column.download_button(
                f'{label} ({len(made[2]) / 2**20:.1f} MB)', made[2], file_name, mime, on_click='ignore',
                type='primary', icon=':material/download:', width='stretch',
            )  # fmt: skip
        elif column.button(f'Make the {label}', key=f'make_{ext}', width='stretch'):
            _make_pass(shown, ext, make or functools.partial(exports.pass_zip, stem=shown.stem), allowance, waiting)


# the frame's SVG and PNG from the graph the player laid out in the browser: a button asks the player (player.js,
# its 'backprop-save-frame' event) to save the frame it shows, the one this panel was opened for
_BROWSER_SAVE = st.components.v2.component(
    'backprop_browser_save',
    css='button { font: inherit; font-size: 0.95rem; padding: 0.4rem 0.8rem; margin: 0 0.5rem 0.4rem 0;'
    ' cursor: pointer; border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; background: white;'
    ' color: #31333f; } button:hover { border-color: #D55E00; color: #D55E00; }',
    js="""export default function ({ parentElement, data }) {
  const box = parentElement.querySelector('.saves')
    || parentElement.appendChild(Object.assign(document.createElement('div'), { className: 'saves' }));
  box.replaceChildren(...data.map(([label, kind]) => {
    const button = Object.assign(document.createElement('button'), { textContent: `⤓ ${label}` });
    button.onclick = () => window.dispatchEvent(new CustomEvent('backprop-save-frame', { detail: kind }));
    return button;
  }));
}""",
)


def browser_save_buttons(files):
    """Buttons that save this frame as the player drew it, for the (label, ext, …) of `files`: 'svg' and 'png'."""
    _BROWSER_SAVE(key='browser_save', data=[[label, ext] for label, ext, *_ in files])


def _make_pass(shown, ext, make, allowance, waiting):
    """Make one whole-pass file with a progress bar; keep it in the session (only the last one: bounded memory)."""
    unit = UNITS[ext]  # the pictures it draws, not the frames' numbers: a quiz's question is a picture of its own
    bar = st.progress(0.0, text=f'Drawing {unit} 1 of {len(shown.frames)}…')

    def progress(done, total):
        bar.progress(done / total, text=f'Drawing {unit} {min(done + 1, total)} of {total}…')

    try:
        data = make(
            shown.trace, shown.frames, shown.width, quick=shown.quick, hide=shown.hide, progress=progress,
            allowance=allowance, waiting=waiting, of=shown.of,
        )  # fmt: skip
    except exports.ExportRefused as refused:
        bar.empty()
        st.warning(refused.message, icon=':material/hourglass_disabled:')
        return
    st.session_state[MADE] = (shown.key, ext, data)
    st.rerun(scope='fragment')  # the dialog again, with this file's download button in place of "Make"
