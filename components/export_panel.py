"""The share panel, and its exports for slides: the frame on screen as SVG, PNG or DOT, and the whole pass as a GIF,
a PDF, a PowerPoint deck or a ZIP of SVGs. exports/ makes every file on the server from the frames the page steps
through; this opens the panel (share_panel: components/share.py's link and QR code, then these) and draws the
buttons. A frame's files are made when their button is clicked, without a rerun; a whole pass is made when asked,
with a progress bar, after its turn in exports.queue.LINE, or had from another session that asked for the same
(cache.made_file), and each file made stays for this session until the scenario changes, within SESSION_FILE_BYTES."""

import dataclasses
import datetime
import functools
import hashlib
import io
import json
import zipfile
from dataclasses import dataclass

import streamlit as st

import exports
import state
from components.markdown import md
from components.player import lesson_run
from components.share import link_url, share_dialog, students_links
from engine.exercise import METHODS
from engine.forms import FORMS
from engine.frames import clamp_frame, frames
from exports import lesson
from exports.plots import batch_pages
from server import layout
from server.cache import kept_file, made_file, session_allowance
from server.streamlit_private import session_waiting
from view import names
from view.learning import tail_length
from view.modes import MODE
from view.scene import exact_key

PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation'
# label, file extension, mime type, the function of exports/ that makes it
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
DECKS = ('pdf', 'pptx')  # the files that end with a batch's plots (exports/plots.py)
UNITS = {'gif': 'picture', 'pdf': 'page', 'pptx': 'slide', 'zip': 'SVG'}  # what the progress bar counts
MADE = 'export_made'  # session state: (file_scenario, {extension: bytes, or None once let go for room}), oldest first
MB = 2**20
# the whole-pass files a session keeps: all the mlp's (its deck, PDF and ZIP; its GIF is refused), twice over
# (bench/results/exports.txt has their bytes); a class on one scenario holds the same bytes once (cache.made_file)
SESSION_FILE_BYTES = 16 * MB


@dataclass(frozen=True)
class Shown:
    """What is on screen: the trace, its frames, the frame shown, and how the page drew them."""

    trace: object
    frames: list
    index: int
    width: int
    quick: bool  # the page's layout was the quick one: the exports use it too, so they are the same picture
    stem: str  # names.file_stem(...): what the files are called
    key: tuple  # what the whole pass depends on: the expression, its inputs and the frames
    count: int | None = None  # the count the page reads the frames' numbers against (names.frame_numbers)
    to_end: bool = True  # the frames reach the pass's end (a quiz holds back those after its question)
    questions: list | None = None  # the frames with a question before each step, where the page has none and all
    keep: tuple | None = None  # the indices of the frames a whole-pass file holds (exports.chosen_frames): all if None
    seconds: int = 2  # a GIF's seconds a frame (exports.GIF_SECONDS)
    shape: str = 'wide'  # the shape the player showed the frame in (graph.SHAPES): the frame's files are drawn in it
    mode: str = 'watch'  # the mode in force (view/modes.py), and the right trace beside `trace` where it has one
    right: object = None
    batch: object = None  # a batch's view.batch.BatchLearning: its plots are the PDF's and the deck's last pages
    lesson: object = None  # a Lesson: the pass as one page that steps on its own; None where there is none


def share_panel(scene, page, drawn, shape='wide'):
    """The share panel for the frame `page` names (page.frame, END for the last) of `scene` (a view.scene.Scene): a
    link to the page at that frame, its QR code, and the exports, the frames numbered as the page's caption numbers
    them (names.frame_numbers). `drawn`: what the player was sent (components/player's Run), whose layout, quick or
    not, the exports use too, and which a lesson in one file holds; `shape`: the shape the player
    showed the frame in (state.shape_to_share), which the frame's files are drawn in."""
    trace, all_frames = scene.trace, list(scene.frames)
    count = scene.in_pass + tail_length(trace, scene.learning)  # as the caption counts
    index = clamp_frame(page.frame, len(all_frames))
    asked = any(f.ask for f in all_frames)
    to_end = len(all_frames) == len(frames(trace, page.forward, page.leaves, ask=asked, wrt=scene.wrt))
    shown = Shown(
        trace, all_frames, index=index, width=scene.width, quick=drawn.quick,
        stem=names.file_stem(scene.expression_key, scene.inputs), key=(*scene.key, count), count=count, to_end=to_end,
        shape=shape, mode=scene.mode, right=scene.right, batch=scene.batch,
        questions=None if asked or not to_end or scene.wrt >= 0  # forward mode asks no question
        else frames(trace, page.forward, page.leaves, ask=True, hide=page.hide),
    )  # fmt: skip
    query = state.to_query(page)
    link = link_url(st.context.url or '', query)
    opening = clamp_frame(page.frame, count)  # learning's frames after the pass too
    to_page = {k: v for k, v in query.items() if k not in NOT_IN_LESSON_LINK}
    to_page = students_links(link_url(st.context.url or '', to_page))[0][0].url
    shown = dataclasses.replace(shown, lesson=lesson_of(drawn, scene, page, opening, to_page))
    allowance, waiting = session_allowance(), session_waiting()
    share_dialog(
        link,
        md(names.frame_title(trace, all_frames, index, count)),
        lambda: show_exports(shown, allowance, waiting),
    )


def show_exports(shown, allowance, waiting):
    """The export buttons for `shown`. `allowance`: the session's layout.Allowance for dot time; `waiting()`: whether
    the visitor is still there (a whole-pass export stops when they leave)."""
    can_draw = layout.has_dot()
    frame = shown.frames[shown.index]
    name = shown.stem + names.frame_suffix(shown.frames, shown.index, shown.count)
    st.markdown('**This frame, for a slide**')
    picture = {'trace': shown.trace, 'frame': frame, 'width': shown.width, 'quick': shown.quick, 'shape': shown.shape,
               'right': shown.right}  # fmt: skip
    if not can_draw:  # the player laid this frame out in the browser, so the browser saves it; the DOT needs no dot
        browser_save_buttons([file for file in FRAME_FILES if file[3] is not None])
    served = FRAME_FILES if can_draw else [file for file in FRAME_FILES if file[3] is None]
    # a PNG on its own (a slide, a chat) says what it shows: the expression, the frame, what it does
    titled = {'png': {'title': exports.png_title(shown.trace, shown.frames, shown.index, shown.count)}}
    for column, (label, ext, mime, make) in zip(st.columns(len(FRAME_FILES)), served):
        # made when clicked, without a rerun; the DOT source at once
        made = {**picture, **titled.get(ext, {})}
        data = exports.frame_dot(**picture) if make is None else functools.partial(make, **made, allowance=allowance)
        column.download_button(
            label, data, f'{name}.{ext}', mime, on_click='ignore', icon=':material/download:', width='stretch'
        )
    if not can_draw:
        kinds = ', '.join([label for label, *_ in PASS_FILES] + [LESSON_LABEL])
        st.info(exports.no_dot(f'The whole pass ({kinds})'), icon=':material/info:')
        return
    show_lesson(shown)

    shown = choose_frames(shown)
    if shown is None:
        return
    kept = _kept(shown)
    for column, (label, ext, mime, make) in zip(st.columns(len(PASS_FILES)), PASS_FILES):
        kind = made_as(shown, ext)
        if kept.get(kind) is not None:
            _download(column, shown, label=label, ext=ext, mime=mime, data=kept[kind])
            continue
        if column.button(f'Make the {label}', key=f'make_{ext}', width='stretch'):
            make = functools.partial(make or functools.partial(exports.pass_zip, stem=shown.stem), keep=shown.keep)
            if ext == 'gif':
                make = functools.partial(make, seconds=shown.seconds)
            _make_pass(shown, (label, ext, mime), make=make, allowance=allowance, waiting=waiting, kept=kept)
        if kind in kept:  # made in this session, then let go for a newer file
            column.caption(f'Let go to keep newer files within {SESSION_FILE_BYTES // MB} MB: make it again.')


def with_lesson(zip_data, shown):
    """The ZIP of the whole pass (as made for every session asking for its scenario: cache.made_file) with this
    page's lesson in one file beside its SVGs, as {stem}.html, where it has one within lesson.MOST_BYTES: the lesson
    is the page's own (its views, its opening frame, its link), so it is added when its download is clicked."""
    made = shown.lesson
    if made is None or MODE[shown.mode].asks or made.size() > lesson.MOST_BYTES:
        return zip_data
    out = io.BytesIO(zip_data)
    with zipfile.ZipFile(out, 'a', zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f'{shown.stem}.html', made.html())
    return out.getvalue()


LESSON_LABEL = 'Interactive page (HTML)'
NOT_IN_LESSON_LINK = ('class', 'present', 'table')  # a lesson's link to the page: a class is over, a projector's view
NO_LESSON = (
    '{mode} checks each answer on the page, so it has no lesson in one file. Switch to *Watch backward()* for a '
    'page that steps through this pass on its own, with *Hide new grads* to keep the answers for the class.'
)


@dataclass(frozen=True)
class Lesson:
    """The pass as one page that steps on its own (exports/lesson.py): `run`, what its player is sent (components/
    player's lesson_run, bytes); the rest, lesson_html's. Its size is said before it is made (size), and it is made
    when its button is clicked (html)."""

    run: tuple
    title: str
    about: str | None
    link: str
    code: tuple

    def size(self):
        """Its bytes, within a few kB over (lesson.size_of), without making it."""
        return lesson.size_of(*self.run, title=self.title, code=self.code)

    def html(self):
        """Its bytes, kept (cache.kept_file) by a digest of all it is made from, its date included."""
        made = datetime.date.today().isoformat()
        digest = hashlib.sha256()
        for part in (*self.run, json.dumps([self.title, self.about, self.link, self.code, made]).encode()):
            digest.update(hashlib.sha256(part).digest())
        return kept_file(('lesson', digest.hexdigest()), lambda: lesson.lesson_html(
            *self.run, title=self.title, about=self.about, link=self.link, code=self.code, made=made
        ).encode())  # fmt: skip


def lesson_of(drawn, scene, page, index, link):
    """The Lesson of `scene` as the player was sent it (`drawn`, a Run), at frame `index`, as `page` shows it,
    linking to the page at `link`; None where the browser lays the graph out (lesson_run)."""
    run = lesson_run(drawn, scene, page, index)
    if run is None:
        return None
    what = FORMS[scene.form].what  # the student's text for each op, as typed: its body, or its local_grads
    code = tuple((f'{METHODS[name]}: its {what}', text) for name, text in scene.bodies)
    return Lesson(run, scene.expression.title, scene.expression.lesson, link, code)


def show_lesson(shown):
    """The button that saves the pass as one page that steps on its own, made when clicked; where the mode checks
    answers on the page, or the page would be too big, why not."""
    st.markdown('**The whole pass, as one page that steps on its own** — for an LMS, a slide deck or offline')
    mode = MODE[shown.mode]
    if mode.asks:
        st.info(NO_LESSON.format(mode=mode.label), icon=':material/quiz:')
        return
    if shown.lesson is None:  # the browser laid the graph out (show_exports says what the server needs)
        return
    size = shown.lesson.size()
    if size > lesson.MOST_BYTES:
        st.warning(lesson.too_big(size), icon=':material/picture_as_pdf:')
        return
    st.download_button(
        f'{LESSON_LABEL} (about {lesson.size_words(size)})', shown.lesson.html, f'{shown.stem}.html', 'text/html',
        on_click='ignore', icon=':material/download:',
        help='One HTML file with the player, the graph and every frame: it steps with no server and no network.',
    )  # fmt: skip


def choose_frames(shown):
    """What the whole-pass files hold, as the lecturer chooses it: which frames (exports.FRAME_CHOICES), from which
    frame to which, a question before each step, and a GIF's seconds a frame. `shown` with its frames, `keep`, key
    and seconds set to the choice, or None, with the reason on the page, where the choice leaves nothing."""
    st.markdown('**The whole pass, for slides**')
    which, asking = st.columns([3, 2], vertical_alignment='bottom')
    choice = 'all'  # forward mode's frames have no backward step and no leaf's to leave out: nothing to choose
    if shown.frames[0].wrt < 0:
        choice = which.segmented_control(
            'Frames', list(exports.FRAME_CHOICES), format_func=exports.FRAME_CHOICES.get, default='all',
            required=True, key='export_choice',
        )  # fmt: skip
    questions = shown.questions is not None and asking.toggle(
        'A question before each step', key='export_questions',
        help='A picture of each step with its new grads as ?, as Hide new grads shows them, before the one that '
        'answers it.',
    )  # fmt: skip
    all_frames = shown.questions if questions else shown.frames
    numbers, _ = names.frame_numbers(all_frames, shown.count)
    first, last = 1, numbers[-1]
    if last > 1:  # the key follows the pass's length: a new scenario starts from its whole range
        first, last = st.slider('From frame … to frame …', 1, last, (1, last), key=f'export_range_{last}')
    seconds = st.segmented_control(
        'A GIF frame for', exports.GIF_SECONDS, format_func=lambda s: f'{s} s', default=2, required=True,
        key='export_seconds',
    )  # fmt: skip
    try:
        keep = exports.chosen_frames(shown.trace, all_frames, choice=choice, first=first, last=last, count=shown.count)
    except exports.ExportRefused as refused:
        st.warning(refused.message, icon=':material/filter_alt_off:')
        return None
    st.markdown(exports.pass_contents(all_frames, shown.count, shown.to_end, keep))
    if len(keep) > exports.EXPORT_FRAMES:
        st.info(exports.too_many(len(keep)), icon=':material/filter_alt:')
    key = (*shown.key, choice, first, last, questions)
    return dataclasses.replace(shown, frames=all_frames, keep=tuple(keep), key=key, seconds=seconds)


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


def file_scenario(shown):
    """What the whole-pass files of `shown` are made from, its floats by their bits (view.scene.exact_key): the same for
    two sessions only where their files are the same bytes."""
    return exact_key((shown.key, shown.width, shown.quick))


def made_as(shown, ext):
    """What a whole-pass file of `ext` is kept and shared as, besides its scenario: a GIF by its seconds a frame too,
    so another frame time is another file, and changing it leaves the other kinds' files be."""
    return f'{ext} at {shown.seconds} s' if ext == 'gif' else ext


def _kept(shown):
    """This session's whole-pass files of the scenario shown, {extension: bytes, or None once let go for room}, oldest
    first; another scenario's are let go."""
    scenario = file_scenario(shown)
    if st.session_state.get(MADE, (None,))[0] != scenario:
        st.session_state[MADE] = (scenario, {})
    return st.session_state[MADE][1]


def _keep(kept, ext, data):
    """Keep `data` as the file of `ext` among `kept`, letting the oldest go while they are more than
    SESSION_FILE_BYTES; False, keeping nothing, when it alone is."""
    if len(data) > SESSION_FILE_BYTES:
        return False
    kept.pop(ext, None)
    kept[ext] = data
    for older in kept:  # oldest first; `data` itself fits
        if sum(len(v) for v in kept.values() if v is not None) <= SESSION_FILE_BYTES:
            break
        kept[older] = None
    return True


def _download(place, shown, label, ext, mime, data):
    served = functools.partial(with_lesson, data, shown) if ext == 'zip' else data  # its lesson added when clicked
    place.download_button(
        f'{label} ({len(data) / MB:.1f} MB)', served, f'{shown.stem}.{ext}', mime, on_click='ignore', type='primary',
        icon=':material/download:', width='stretch',
    )  # fmt: skip


def ordinal(n):
    """'1st', '2nd', '3rd', '4th', '11th', '22nd': a place in line."""
    return f'{n}{"th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")}'


def _make_pass(shown, file, make, allowance, waiting, kept):
    """Make one whole-pass file (`file`: its label, extension and mime type), or have it from a session that made the
    same (cache.made_file), with a progress bar: while it waits its turn (exports.queue.LINE), its place in line and
    how long, then each picture drawn. Kept among this session's files (`kept`, _keep), or, too big to keep,
    offered once."""
    label, ext, mime = file
    unit = UNITS[ext]  # the pictures it draws, not the frames' numbers: a quiz's question is a picture of its own
    pictures = len(shown.frames if shown.keep is None else shown.keep)
    bar = st.progress(0.0, text=f'Drawing {unit} 1 of {pictures}…')

    def drawn(tell):  # made here, in this session's turn and on its allowance; tell() shows every session waiting
        def progress(done, total):
            tell(done / total, f'Drawing {unit} {min(done + 1, total)} of {total}…')

        def told(place, seconds):
            tell(0.0, f'{ordinal(place)} in line, about {seconds} s')

        with exports.queue.LINE.turn(ext, pictures, waiting, told):
            progress(0, pictures)
            pages = {'appendix': batch_pages(shown.batch)} if shown.batch is not None and ext in DECKS else {}
            return make(
                shown.trace, shown.frames, shown.width, quick=shown.quick, progress=progress,
                allowance=allowance, waiting=waiting, count=shown.count, mode=shown.mode, right=shown.right, **pages,
            )  # fmt: skip

    try:
        data = made_file(
            (file_scenario(shown), made_as(shown, ext)),
            drawn,
            waiting,
            lambda done, text: bar.progress(done, text=text),
        )
    except exports.ExportRefused as refused:
        bar.empty()
        st.warning(refused.message, icon=':material/hourglass_disabled:')
        return
    except layout.VisitorLeft:
        return  # nobody is there to see it
    if not _keep(kept, made_as(shown, ext), data):
        bar.empty()
        st.warning(
            f'This {label} is {len(data) / MB:.1f} MB, more than the {SESSION_FILE_BYTES // MB} MB of files this page '
            'keeps for each visitor: download it now, it is not kept.',
            icon=':material/download:',
        )
        _download(st, shown, label=label, ext=ext, mime=mime, data=data)
        return
    st.rerun(scope='fragment')  # the dialog again, with this file's download button in place of "Make"
