"""The graph as a player in the browser: laid out once, by the server's Graphviz dot or, on a server without it,
by Graphviz compiled to WebAssembly in the browser (static/graphviz/, in a Web Worker), then each frame only patches
texts and colours. Stepping and playing happen in the browser, and so does everything that follows the frame: the
caption, the explanation, the node table and the grad check are sent once per expression and inputs, as HTML
and patches that Python made, and drawn there. A step costs the server nothing.

The page draws it with one call, show_player, and sends it to a link's frame with go_to; it draws the sidebar's
controls once the player says its first graph is painted (painted)."""

import json
import secrets
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

import state
from exports import picture
from server import cache, layout
from server.layout import QUICK_NOTE, LayoutRefused, has_dot, lay_out, quickened
from server.rooms import STUDENT
from server.streamlit_private import session_waiting
from view.graph import SHAPES, VALUE_ROWS, VALUE_TEXTS, build_dot, row_titles
from view.names import file_stem
from view.player_body import make_body

HERE = Path(__file__).parent
# player.js: the modules in src/ joined by esbuild (npm run build in this folder; node --test checks it is fresh)
_PLAYER = st.components.v2.component(
    'backprop_graph_player', css=(HERE / 'player.css').read_text(), js=(HERE / 'player.js').read_text()
)
GRAPHVIZ_JS = 'app/static/graphviz/index.js'  # static/graphviz/, served by Streamlit (server.enableStaticServing)
FONTS = 'app/static/fonts/'  # static/fonts/: the page's font, DejaVu Sans Mono (scripts/update-fonts.sh)
GOTO = 'player_goto'  # session state: where the page last sent the player, {'id', 'frame', 'open'} (go_to)
NO_GOTO = {'id': 0, 'frame': 0, 'open': True}  # before any: the first frame


def go_to(frame, opening):
    """Send the player to `frame` (state.END: its last) when it is next drawn: a goto with a new id.

    An `opening` goto (a visitor's first run) moves only a player that shows nothing yet: after a server restart,
    a page that shows a frame reconnects to a new session, whose first run must not move it.
    """
    goto = st.session_state.get(GOTO, NO_GOTO)
    st.session_state[GOTO] = {'id': goto['id'] + 1, 'frame': frame, 'open': opening}


PAINTED = 'player_painted'  # session state: the player said this session's first graph is on screen
SESSION = 'player_session'  # session state: the name the player tells it by (a reconnected page has a new one)


def painted():
    """Whether this session's first graph is on screen, as the player says after painting it (src/player.js's
    tellPainted), or no graph comes: the page draws the sidebar's controls after it, as React drawing them first
    delayed the graph by a third (bench/bench_first_graph.py)."""
    return st.session_state.get(PAINTED, False)


def _painted():
    st.session_state[PAINTED] = True


TOASTS = 'player_toasts'  # session state: what a run before the first paint has to say of its link, said after it


def link_toast(text, icon):
    """st.toast for what a link's run says of the link. Before the first graph is painted it is kept, and said by
    say_kept_toasts in a run after: the run that draws the controls follows the first at once, and a toast of the
    run before may be cleared before the browser ever shows it."""
    if painted():
        st.toast(text, icon=icon)
    else:
        st.session_state.setdefault(TOASTS, []).append((text, icon))


def say_kept_toasts():
    """The toasts link_toast kept, once: in the run that draws the controls (after the paint, or at once where no
    graph comes)."""
    for text, icon in st.session_state.pop(TOASTS, []):
        st.toast(text, icon=icon)


def send_to(frame):
    """Send the player to `frame` at once, even if it shows one already."""
    go_to(frame, opening=False)


def show_player(scene, page, room=None):
    """The graph player for `scene` (a view.scene.Scene), drawn as `page` (a state.PageState) asks: its speed, the
    presentation view, the node table's answers. `room`: a live class (components/live.py): {'code', 'secret',
    'lead'} posts each frame to the class, {'code', 'follow'} follows it; None: neither.

    The layout and the body come from cache.py's caches, the body kept by the scene's key; dot runs on the
    visitor's allowance, and when the graph cannot be laid out the page says why and stops. Returns (the frame whose
    Share button was clicked in this run, as the browser sent it, or None; what it was sent, a Run, whose layout,
    quick or not, the exports then use too; what it said of a live class).
    """
    run = player_run(scene)
    goto = st.session_state.get(GOTO, NO_GOTO)
    stem = file_stem(scene.expression_key, scene.inputs)
    share_at, said = graph_player(
        run.layout, (run.graph_name, run.graph), body=run.body, speed=page.speed, answers=page.final_grads_shown,
        goto=goto, present=page.present, table=page.table, length=scene.length, stem=stem, room=room,
        contrast=page.contrast,
    )  # fmt: skip
    return share_at, run, said


@dataclass(frozen=True)
class Run:
    """What the player is sent of a scene: its body's name and bytes, its graph's name and JSON (the layout, or the
    DOT the browser lays out: `laid_out`), and whether the layout is the quick one."""

    layout: str
    body: bytes
    graph_name: str
    graph: bytes
    laid_out: bool
    quick: bool


def player_run(scene):
    """The player's body and graph for `scene` (a view.scene.Scene), from cache.py's caches, the body kept by the
    scene's key; dot runs on the visitor's allowance, and when the graph cannot be laid out the page says why and
    stops."""
    trace, width = scene.trace, scene.width
    rows = row_titles(scene.frames[0])  # forward mode's boxes say tangent where the others say grad
    if has_dot():
        graph, quick = server_layout(scene.expression, trace, width, rows)
    else:  # the browser lays it out: the same DOT, the same budget; made once per graph, as a layout is
        make = lambda: browser_layout(trace, width, rows)  # noqa: E731
        graph = cache.laid_out(expression=scene.expression, width=width, lay_out=make, source='browser', rows=rows)
        quick = False
    key = (scene.key, 'svg' in graph)  # with the layout, or with the DOT the browser lays out
    body = cache.player_body(
        key=key,
        make=lambda: make_body(
            trace, list(scene.frames), width=width, numeric=scene.numeric, graph={}, mode=scene.mode,
            right=scene.right, learning=scene.learning, in_pass=scene.in_pass, mistakes=scene.mistakes,
            verdicts=scene.verdicts, params=scene.expression.params,
        ),
    )  # fmt: skip
    # the graph, the same for every input and frame (and most of a long chain's bytes), kept and sent apart: once
    graph_key = (scene.expression_key, width, 'svg' in graph, quick, rows)  # as cache.laid_out keeps the layouts
    encoded = cache.player_body(key=('graph', *graph_key), make=lambda: json.dumps(graph).encode())
    return Run(repr(key), body, repr(graph_key), encoded, 'svg' in graph, quick)


def lesson_run(run, scene, page, frame):
    """What a lesson's player is sent (exports/lesson.py), as three JSON texts in bytes (head, graph, body): the
    page's `run` (a Run, as show_player drew it) with the page's views (`page`, a state.PageState), opening at
    `frame` (an index of the whole pass, learning's steps after it included), with no session, class or font of the
    server's (the lesson carries its fonts). None where the browser lays the graph out: a lesson has no server to
    lay it out, and its policy allows no worker."""
    if not run.laid_out:
        return None
    head = _head(
        run.layout, run.graph_name, speed=page.speed, answers=page.final_grads_shown,
        goto={'id': 1, 'frame': frame, 'open': True}, present=page.present, table=page.table, contrast=page.contrast,
        length=scene.length, stem=file_stem(scene.expression_key, scene.inputs), fonts='', session=None, room=None,
    )  # fmt: skip
    return json.dumps(head).encode(), run.graph, run.body


FITTED_UP_TO = 60  # values: a graph this small is laid out in every shape, for the screen to choose from


def fitted_shapes(trace):
    """The shapes besides the wide one that the graph is laid out in (graph.SHAPES): a big graph has the wide one
    alone, followed by the view at a readable size."""
    return [shape for shape in SHAPES if shape != 'wide'] if len(trace.nodes) <= FITTED_UP_TO else []


def server_layout(expression, trace, width, rows=VALUE_ROWS):
    """The graph laid out by this server's dot, from cache.py's cache, as the player's body carries it ({'svg',
    'fits': {shape: svg}}), and whether it is the quick layout. When it cannot be laid out, the page says why and
    stops. A tangled graph laid out quickly gets no other shape: each would cost its budget again."""
    allowance, waiting = cache.session_allowance(), session_waiting()

    def shaped(shape):
        make = lambda: layout_svg(trace, width, waiting=waiting, allowance=allowance, shape=shape, rows=rows)  # noqa: E731
        return cache.laid_out(expression=expression, width=width, lay_out=make, shape=shape, rows=rows)

    try:
        with st.spinner('Laying out the graph…', show_time=True):
            laid = shaped('wide')
            fits = {} if laid.quick else {shape: shaped(shape).svg for shape in fitted_shapes(trace)}
    except LayoutRefused as refused:
        if not painted():  # no graph will come to say so: the sidebar's controls now, to choose another
            _painted()
            st.rerun()
        st.warning(refused.message, icon=':material/hourglass_disabled:')
        st.stop()
    if laid.quick:
        st.caption(QUICK_NOTE)
    return {'svg': laid.svg, 'fits': fits}, laid.quick


def browser_layout(trace, width, rows=VALUE_ROWS):
    """What the player lays out in the browser where the server has no dot: the same value-free DOT as layout_svg's,
    the graph attributes of server/layout.py's quick layout, the same budgets, and what the page says past them.
    `url`: the Graphviz module (root-relative, under server.baseUrlPath)."""
    dot = build_dot(trace, None, width, rows=rows)
    quick = {k: v for k, v in quickened(dot).graph_attr.items() if dot.graph_attr.get(k) != v}
    base = (st.get_option('server.baseUrlPath') or '').strip('/')
    fits = {shape: build_dot(trace, None, width, shape=shape, rows=rows).source for shape in fitted_shapes(trace)}
    return {
        'dot': dot.source, 'quick': quick, 'fits': fits, 'budget': [layout.FULL_BUDGET, layout.QUICK_BUDGET],
        'tangled': layout.tangled(), 'quickNote': QUICK_NOTE, 'url': '/' + '/'.join(filter(None, [base, GRAPHVIZ_JS])),
    }  # fmt: skip


def layout_svg(trace, width, waiting=lambda: True, allowance=None, shape='wide', rows=VALUE_ROWS):
    """The graph laid out once in `shape` (a layout.Layout), with no one's numbers in it: every frame has this
    layout, only texts and colours differ, and frame 0's patch writes every number. So a layout shared between
    visitors holds none of their values. Within server/layout.py's budget, or LayoutRefused."""
    return lay_out(build_dot(trace, None, width, shape=shape, rows=rows), waiting, allowance)


def font_faces():
    """The page's @font-face rules for DejaVu Sans Mono, served from static/fonts/ (under server.baseUrlPath): the
    graph is drawn in it on every machine (a Mac has none of its own), as its exported files are (exports.picture)."""
    base = (st.get_option('server.baseUrlPath') or '').strip('/')
    url = '/' + '/'.join(filter(None, [base, FONTS]))
    return ' '.join(
        f"@font-face {{ font-family: '{picture.FAMILY}'; font-weight: {weight}; font-display: swap; "
        f"src: url('{url}{file.name}') format('truetype'); }}"
        for weight, file in picture.FONT_FILES.items()
    )


SENT = 'player_graphs'  # session state: the names of the graphs this session's player was sent, the newest last
SENT_KEPT = 8  # that many: the page keeps twice as many (src/player.js's KEPT_GRAPHS)


def _graph_missing():
    """The page lacks a graph it was taken to have (it skipped the run that sent it): send every graph again."""
    st.session_state[SENT] = []


def _head(layout, graph, **views):
    """A run's head, the line before the graph and the body (graph_player): `layout` names the body, `graph` the
    graph; `views`, the rest graph_player describes."""
    return {'layout': layout, 'graph': graph, 'valueTexts': VALUE_TEXTS, **views}


def graph_player(
    layout, graph, body, speed, answers, goto, present=False, table=False, key='graph', length=None, stem='graph',
    room=None, contrast=False,
):  # fmt: skip
    """Draw the player.

    `layout` names the body: the browser reads the body only when it is new. `present`: the presentation view
    (the graph fitted to the window, the caption as a title with the sums under it), with the node table if
    `table`; `contrast`: the high-contrast look (view/palette.py's HIGH_CONTRAST). `goto`, a dict {'id', 'frame',
    'open'} as go_to makes it (src/frames.js's landing reads these three fields): a new id moves the player to
    `frame`, except that an `open` goto (a visitor's first run) does not move a player that already shows a frame,
    as after a server restart, when its page reconnects to a new session.
    `length`: how many frames the whole pass has, where the body holds fewer (a quiz, up to its question).
    `stem`: the name of the files the player saves of a frame it laid out itself (names.file_stem).
    `graph`: (its name, its JSON) where `body` leaves it out: the layout or the DOT, sent once a session and named
    after that (the page keeps it; when it lacks one, it says so and gets every graph again).
    The head also says where a value box's texts fall among its SVG texts (view/graph.py's VALUE_TEXTS), which the
    player patches. Each run sends one line of JSON, a newline, the graph's line (empty once sent), a newline, then
    `body`; while nothing changes they are the same bytes, so Streamlit does not send them again. Returns what the
    Share button clicked in this run sent ({'frame', 'shape'}: the frame, and the shape it was shown in;
    state.frame_to_share and state.shape_to_share read it), or None, and what the player said of a live class
    ({'student', 'lead'}).
    """
    name, encoded = graph
    head = _head(
        layout, name, speed=speed, answers=answers, goto=goto, present=present, table=table, contrast=contrast,
        length=length, stem=stem, fonts=font_faces(),
        session=None if painted() else st.session_state.setdefault(SESSION, secrets.token_hex(8)),
        room=room and {**room, 'private': [*state.NOT_SCENARIO, *state.NOT_CLASS], 'own': state.OWN_WORK,
                       'student': STUDENT.pattern},
    )  # fmt: skip
    sent = st.session_state.setdefault(SENT, [])
    if name in sent:  # the page has it
        sent.remove(name)
        encoded = b''
    sent.append(name)
    del sent[:-SENT_KEPT]
    head = json.dumps(head).encode()
    data = b'\n'.join([head, encoded, body])
    result = _PLAYER(key=key, data=data, default={}, on_share_change=lambda: None, on_missing_change=_graph_missing,
                     on_painted_change=_painted, on_student_change=lambda: None,
                     on_lead_change=lambda: None)  # fmt: skip
    return result.get('share'), {'student': result.get('student'), 'lead': result.get('lead')}
