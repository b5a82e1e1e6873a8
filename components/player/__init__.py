"""The graph as a player in the browser: laid out once, by the server's Graphviz dot or, on a server without it,
by Graphviz compiled to WebAssembly in the browser (static/graphviz/, in a Web Worker), then each frame only patches
texts and colours. Stepping and playing happen in the browser, and so does everything that follows the frame: the
caption, the explanation, the node table and the grad check are sent once per expression and inputs, as HTML
and patches that Python made, and drawn there. A step costs the server nothing.

The page draws it with one call, show_player, and sends it to a link's frame with go_to."""

import json
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import layout
import picture
import shared
from components.bug import bug_caption, bug_parts, bug_summary_html
from components.depth_plot import depth_plots
from components.explanation import caption, explain, explanation_html, frame_rules
from components.graph import (
    LEGEND,
    LOST_LEGEND,
    SHAPES,
    blank_label,
    build_dot,
    hot_edges,
    label_width,
    lost_edges,
    value_look,
)
from components.learning import learning_tail
from components.node_table import table_columns
from components.numbers import HIDDEN, fmt
from components.summary import grad_check, summary_html
from engine.frames import frames, hidden_grads
from exports import file_stem, frame_labels, frame_suffixes
from layout import QUICK_NOTE, LayoutRefused, has_dot, lay_out, quickened

HERE = Path(__file__).parent
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


def went_back_or_forward():
    """Whether this run is the browser's Back or Forward (state.follow_link). Streamlit keeps that on the run's
    context and has no public call for it; where it has none, True: every link that arrives is followed."""
    return getattr(get_script_run_ctx(), 'is_history_navigation', True)


def send_to(frame):
    """Send the player to `frame` at once, even if it shows one already."""
    go_to(frame, opening=False)


def show_player(
    expression, values, trace, all_frames, width, numeric, page, mode='watch', right=None, learning=None, of=None
):
    """The graph player for `expression` at `values` ({name: value}), whose trace, frames, number width and
    finite-difference check are `trace`, `all_frames`, `width`, `numeric`, drawn as `page` (a state.PageState) asks,
    in `mode` (state.MODES), with the `+=` trace `right` beside the `=` one, or one step of `learning` after it;
    `of`: the frames of the whole pass, where `all_frames` are fewer (a quiz sends those up to its question).

    The layout and the body come from shared.py's caches; dot runs on the visitor's allowance, and when the graph
    cannot be laid out the page says why and stops. Returns (the frame whose Share button was clicked in this run,
    as the browser sent it, or None; whether the layout is the quick one, which the exports then use too).
    """
    if has_dot():
        graph, quick = server_layout(expression, trace, width)
    else:  # the browser lays it out: the same DOT, the same budget; made once per graph, as a layout is
        make = lambda: browser_layout(trace, width)  # noqa: E731
        graph, quick = shared.laid_out(expression=expression, width=width, lay_out=make, source='browser'), False
    inputs = tuple(values.items())
    in_pass = len(frames(trace, page.forward, page.leaves))  # as watched: what a quiz's caption counts too
    # what of the page decides the frames and their looks: a quiz sends the frames up to its question
    view = (page.forward, page.leaves, page.hide, mode, len(all_frames), numeric is None, learning and learning.key,
            'svg' in graph)  # fmt: skip
    body = shared.player_body(
        expression=expression, values=inputs, view=view,
        make=lambda: make_body(trace, all_frames, width, numeric, graph, page.hide, right, learning, in_pass),
    )  # fmt: skip
    name = repr((expression.key, inputs, view))  # what the body is for, as shared.py keeps it
    goto = st.session_state.get(GOTO, NO_GOTO)
    answers = page.final_grads_shown
    stem = file_stem(expression.key, values)
    share_at = graph_player(
        name, body, page.speed, answers, goto, present=page.present, table=page.table, of=of, stem=stem
    )
    return share_at, quick


FITTED_UP_TO = 60  # values: a graph this small is laid out in every shape, for the screen to choose from


def fitted_shapes(trace):
    """The shapes besides the wide one that the graph is laid out in (graph.SHAPES): a big graph has the wide one
    alone, followed by the view at a readable size."""
    return [shape for shape in SHAPES if shape != 'wide'] if len(trace.nodes) <= FITTED_UP_TO else []


def server_layout(expression, trace, width):
    """The graph laid out by this server's dot, from shared.py's cache, as the player's body carries it ({'svg',
    'fits': {shape: svg}}), and whether it is the quick layout. When it cannot be laid out, the page says why and
    stops. A tangled graph laid out quickly gets no other shape: each would cost its budget again."""
    allowance, waiting = shared.session_allowance(), shared.session_waiting()

    def shaped(shape):
        make = lambda: layout_svg(trace, width, waiting, allowance, shape)  # noqa: E731
        return shared.laid_out(expression=expression, width=width, lay_out=make, shape=shape)

    try:
        with st.spinner('Laying out the graph…', show_time=True):
            laid = shaped('wide')
            fits = {} if laid.quick else {shape: shaped(shape).svg for shape in fitted_shapes(trace)}
    except LayoutRefused as refused:
        st.warning(refused.message, icon=':material/hourglass_disabled:')
        st.stop()
    if laid.quick:
        st.caption(QUICK_NOTE)
    return {'svg': laid.svg, 'fits': fits}, laid.quick


def browser_layout(trace, width):
    """What the player lays out in the browser where the server has no dot: the same value-free DOT as layout_svg's,
    the graph attributes of layout.py's quick layout, the same budgets, and what the page says past them.
    `url`: the Graphviz module (root-relative, under server.baseUrlPath)."""
    dot = build_dot(trace, None, width)
    quick = {k: v for k, v in quickened(dot).graph_attr.items() if dot.graph_attr.get(k) != v}
    base = (st.get_option('server.baseUrlPath') or '').strip('/')
    fits = {shape: build_dot(trace, None, width, shape=shape).source for shape in fitted_shapes(trace)}
    return {
        'dot': dot.source, 'quick': quick, 'fits': fits, 'budget': [layout.FULL_BUDGET, layout.QUICK_BUDGET],
        'tangled': layout.tangled(), 'quickNote': QUICK_NOTE, 'url': '/' + '/'.join(filter(None, [base, GRAPHVIZ_JS])),
    }  # fmt: skip


def layout_svg(trace, width, waiting=lambda: True, allowance=None, shape='wide'):
    """The graph laid out once in `shape` (a layout.Layout), with no one's numbers in it: every frame has this
    layout, only texts and colours differ, and frame 0's patch writes every number. So a layout shared between
    visitors holds none of their values. Within layout.py's budget, or LayoutRefused."""
    return lay_out(build_dot(trace, None, width, shape=shape), waiting, allowance)


def frame_patches(trace, all_frames, width, hide='none', right=None):
    """Frame 0 whole, then for each frame only what changed: linear in the graph and the number of frames.

    A patch: 'v' [[node, data text, grad text, grad state, mark]], 'o' the op whose _backward runs (-1: none),
    'e' [['op_slot', edge label (its lines joined by a newline) or '']], 'a' the node the frame is about, and on
    the `=` engine 'x' ['op_slot'], the edges whose contribution this frame throws away, each drawn dashed in ink
    with the label it had, its amount marked lost (graph.lost_label).
    `hide`: which grads show '?'. With `right`, the `+=` trace of the same graph, each look has a fifth text: the
    grad `+=` gives at the frame, for the node table's column beside the `=` one.
    """
    final_after = trace.final_after()
    local_width = label_width(trace, width)
    grads = [None] * len(trace.nodes)
    right_grads = [None] * len(trace.nodes)  # on the `+=` trace: the same graph, so the same steps write them
    looks, labels, patches = {}, {}, []
    previous = None

    def touched(frame):  # the nodes a frame marks or writes: the next frame may show them otherwise
        nodes = {frame.node, trace.output} - {-1}
        return nodes | set(trace.nodes[frame.node].children) if frame.kind == 'backward' else nodes

    for frame in all_frames:
        if frame.kind == 'seed':
            grads[trace.output] = right_grads[trace.output] = 1.0
        elif frame.kind == 'backward':
            for c in trace.steps[frame.steps_done - 1].contributions:
                grads[c.child] = c.after
            for c in right.steps[frame.steps_done - 1].contributions if right is not None else ():
                right_grads[c.child] = c.after
        candidates = range(len(trace.nodes)) if previous is None else touched(previous) | touched(frame)
        hidden = hidden_grads(trace, frame, hide)
        changed = []
        for i in sorted(candidates):
            look = value_look(trace, frame, i, grads, final_after, width, hidden)
            if right is not None:
                look += (HIDDEN if i in hidden and right_grads[i] is not None else fmt(right_grads[i]),)
            if looks.get(i) != look:
                looks[i] = look
                changed.append([i, *look])
        hot = {f'{i}_{slot}': text for (i, slot), text in hot_edges(trace, frame, width, hidden, local_width).items()}
        lost = lost_edges(trace, frame, width, local_width, hide)
        thrown = {f'{i}_{slot}': text for (i, slot), text in lost.items()}
        hot = hot | thrown  # an edge of this same step (a*a's first): its label as thrown away (graph.lost_label)
        edges = [
            [key, hot.get(key, '')] for key in sorted(set(labels) | set(hot)) if labels.get(key, '') != hot.get(key, '')
        ]
        labels = hot
        patches.append({'v': changed, 'o': frame.node if hot else -1, 'e': edges, 'a': frame.node})
        if thrown:
            patches[-1]['x'] = sorted(thrown)
        previous = frame
    return patches


def make_body(trace, all_frames, width, numeric, graph, hide='none', right=None, learning=None, in_pass=None):
    """The graph (server_layout's {'svg'} or browser_layout's {'dot', …}) with each frame's patch, caption,
    explanation, sums and node table, encoded for the player; the grads that `hide` names show '?' in all of them,
    and hiding every grad leaves out the grad check too, as do a last frame that hides grads and `numeric` None (a
    quiz not finished). On the `=` engine, `right` is the `+=` trace beside it; `learning`
    (components.learning.Learning) adds the frames of one step of learning after the pass. Each frame's number, as
    its caption says it, and its file's (exports.frame_numbers) count `in_pass` frames in the pass where given (a quiz
    held at its question counts the whole pass as watched)."""
    patches = frame_patches(trace, all_frames, width, hide, right)
    captions = [caption(trace, f) for f in all_frames]
    parts = [explain(trace, f, hide) for f in all_frames]
    if right is not None:
        parts = [p + bug_parts(trace, right, f, hide) for p, f in zip(parts, all_frames)]
        captions = [c + bug_caption(trace, f, hide) for c, f in zip(captions, all_frames)]
    explanations = [explanation_html(p) for p in parts]
    rules = [frame_rules(trace, f, hide) for f in all_frames]
    plots = depth_plots(trace, all_frames, hide)
    # the check, at the last frame, would show the grads it hides (hide=new without the leaves' steps)
    if hide == 'all' or numeric is None or hidden_grads(trace, all_frames[-1], hide):
        summary = ''
    elif right is not None:
        summary = bug_summary_html(trace, right, numeric)
    else:
        summary = summary_html(grad_check(trace, numeric), trace.nodes[-1].name)
    if learning is not None:
        tail = learning_tail(trace, learning, width, patches, frame_patches, all_frames)
        patches += tail.patches
        captions += tail.captions
        explanations += tail.explanations
        rules += tail.rules
        summary, plots = tail.summary, tail.plots  # the loss over the steps (the chain has no loss to learn)
    after = len(captions) - len(all_frames)  # the learning step's frames
    count = None if in_pass is None else in_pass + after
    labels, files = frame_labels(all_frames, count, after), frame_suffixes(all_frames, count, after)
    table = table_columns(trace, beside=right is not None)
    if hide != 'none' or any(f.ask for f in all_frames):
        table['finals'] = [HIDDEN] * len(trace.nodes)  # the answers are never sent where grads are asked for
    return encode_body(
        graph, patches, blank_label(width, label_width(trace, width)),
        captions=captions, explanations=explanations, rules=rules, table=table, near=neighbours(trace),
        summary=summary, plots=plots, legend=LEGEND + (LOST_LEGEND if right is not None else ''), labels=labels,
        files=files,
    )  # fmt: skip


def neighbours(trace):
    """Per value: [its inputs, the values it feeds], which the player keeps in sight with it when it scrolls."""
    feeds = [[] for _ in trace.nodes]
    for i, node in enumerate(trace.nodes):
        for child in dict.fromkeys(node.children):
            feeds[child].append(i)
    return [[list(dict.fromkeys(node.children)), feeds[i]] for i, node in enumerate(trace.nodes)]


def encode_body(
    graph, patches, blank, captions, explanations, table, summary, rules=(), plots=None, near=(), legend=LEGEND,
    labels=None, files=None
):  # fmt: skip
    """The bulk of what the player is sent, for one expression, its inputs and the forward switch: encoded once.

    graph: the layout, {'svg': dot's SVG}, or what the browser lays out itself (browser_layout).
    blank: what an edge that carries nothing shows (graph.blank_label), its lines joined by a newline.
    captions, explanations: one per frame (plain text; HTML made by components.explanation).
    rules: one list of plain-text lines per frame, the presentation view's sums (explanation.frame_rules).
    table: {'names': [...], 'ops': [...], 'finals': [...]}, the node table's columns that no frame changes;
    the others are the value boxes' own texts. summary: the grad check's HTML, shown at the last frame.
    plots: the chain's |grad| plot (components.depth_plot.depth_plots) or learning's loss plot
    (components.learning.loss_plots), or None where neither applies.
    near: per value, [its inputs, the values it feeds] (neighbours), kept in sight with it when the view scrolls.
    labels, files: per frame, 'Frame 3 of 16' before its caption and '_f03' in a saved frame's file name
    (exports.frame_labels, exports.frame_suffixes); by default the frames counted from 1.
    """
    body = {
        **graph, 'patches': patches, 'blank': blank, 'legend': legend,
        'captions': captions, 'explanations': explanations, 'table': table, 'summary': summary,
        'rules': list(rules) or [[] for _ in patches], 'plots': plots, 'near': list(near),
        'labels': frame_labels([], after=len(patches)) if labels is None else list(labels),
        'files': frame_suffixes([], after=len(patches)) if files is None else list(files),
    }  # fmt: skip
    return json.dumps(body, separators=(',', ':')).encode()


def font_faces():
    """The page's @font-face rules for DejaVu Sans Mono, served from static/fonts/ (under server.baseUrlPath): the
    graph is drawn in it on every machine (a Mac has none of its own), as its exported files are (picture.py)."""
    base = (st.get_option('server.baseUrlPath') or '').strip('/')
    url = '/' + '/'.join(filter(None, [base, FONTS]))
    return ' '.join(
        f"@font-face {{ font-family: '{picture.FAMILY}'; font-weight: {weight}; font-display: swap; "
        f"src: url('{url}{file.name}') format('truetype'); }}"
        for weight, file in picture.FONT_FILES.items()
    )


def graph_player(layout, body, speed, answers, goto, present=False, table=False, key='graph', of=None, stem='graph'):
    """Draw the player.

    `layout` names the body: the browser reads the body only when it is new. `present`: the presentation view
    (the graph fitted to the window, the caption as a title with the sums under it), with the node table if
    `table`. `goto`, a dict {'id', 'frame', 'open'} as go_to makes it (player.js reads these three fields):
    a new id moves the player to `frame`, except that an `open` goto (a visitor's first run) does not move a
    player that already shows a frame, as after a server restart, when its page reconnects to a new session.
    `of`: how many frames the whole pass has, where the body holds fewer (a quiz, up to its question).
    `stem`: the name of the files the player saves of a frame it laid out itself (exports.file_stem).
    Each run sends one line of JSON, a newline, then `body`; while nothing changes they are the same bytes,
    so Streamlit does not send them again. Returns what the Share button clicked in this run sent ({'frame', 'shape'}:
    the frame, and the shape it was shown in; state.frame_to_share and state.shape_to_share read it), or None.
    """
    head = {'layout': layout, 'speed': speed, 'answers': answers, 'goto': goto, 'present': present, 'table': table,
            'of': of, 'stem': stem, 'fonts': font_faces()}  # fmt: skip
    head = json.dumps(head).encode()
    result = _PLAYER(key=key, data=head + b'\n' + body, default={}, on_share_change=lambda: None)
    return result.get('share')
