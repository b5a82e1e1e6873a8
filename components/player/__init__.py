"""The graph as a player in the browser: laid out once by Graphviz's dot, then each frame only patches texts
and colours. Stepping and playing happen in the browser, and so does everything that follows the frame: the
caption, the explanation, the node table and the grad check are sent once per expression and inputs, as HTML
and patches that Python made, and drawn there. A step costs the server nothing."""

import json
import os
import shutil
from pathlib import Path

import streamlit as st

from components.graph import LEGEND, blank_label, build_dot, hot_edges, value_look
from engine.frames import hidden_grads
from layout import lay_out

HERE = Path(__file__).parent
_PLAYER = st.components.v2.component(
    'backprop_graph_player', css=(HERE / 'player.css').read_text(), js=(HERE / 'player.js').read_text()
)


def can_lay_out():
    """Whether this server has Graphviz's dot. BACKPROP_RENDERER=chart asks for the fallback anyway (tests use it)."""
    return os.environ.get('BACKPROP_RENDERER') != 'chart' and shutil.which('dot') is not None


def layout_svg(trace, width, waiting=lambda: True, allowance=None):
    """The graph laid out once (a layout.Layout), with no one's numbers in it: every frame has this layout, only
    texts and colours differ, and frame 0's patch writes every number. So a layout shared between visitors holds
    none of their values. Within layout.py's budget, or LayoutRefused."""
    return lay_out(build_dot(trace, None, width), waiting, allowance)


def frame_patches(trace, all_frames, width, hide='none'):
    """Frame 0 whole, then for each frame only what changed: linear in the graph and the number of frames.

    A patch: 'v' [[node, data text, grad text, grad state, mark]], 'o' the op whose _backward runs (-1: none),
    'e' [['op_slot', edge label or '']], 'a' the node the frame is about. `hide`: which grads show '?'.
    """
    final_after = trace.final_after()
    grads = [None] * len(trace.nodes)
    looks, labels, patches = {}, {}, []
    previous = None

    def touched(frame):  # the nodes a frame marks or writes: the next frame may show them otherwise
        nodes = {frame.node, trace.output} - {-1}
        return nodes | set(trace.nodes[frame.node].children) if frame.kind == 'backward' else nodes

    for frame in all_frames:
        if frame.kind == 'seed':
            grads[trace.output] = 1.0
        elif frame.kind == 'backward':
            for c in trace.steps[frame.steps_done - 1].contributions:
                grads[c.child] = c.after
        candidates = range(len(trace.nodes)) if previous is None else touched(previous) | touched(frame)
        hidden = hidden_grads(trace, frame, hide)
        changed = []
        for i in sorted(candidates):
            look = value_look(trace, frame, i, grads, final_after, width, hidden)
            if looks.get(i) != look:
                looks[i] = look
                changed.append([i, *look])
        hot = {f'{i}_{slot}': text for (i, slot), text in hot_edges(trace, frame, width, hidden).items()}
        edges = [
            [key, hot.get(key, '')] for key in sorted(set(labels) | set(hot)) if labels.get(key, '') != hot.get(key, '')
        ]
        labels = hot
        patches.append({'v': changed, 'o': frame.node if hot else -1, 'e': edges, 'a': frame.node})
        previous = frame
    return patches


def encode_body(svg, patches, width, captions, explanations, table, summary, rules=()):
    """The bulk of what the player is sent, for one expression, its inputs and the forward switch: encoded once.

    captions, explanations: one per frame (plain text; HTML made by components.explanation).
    rules: one list of plain-text lines per frame, the presentation view's sums (explanation.frame_rules).
    table: {'names': [...], 'ops': [...], 'finals': [...]}, the node table's columns that no frame changes;
    the others are the value boxes' own texts. summary: the grad check's HTML, shown at the last frame.
    """
    body = {
        'svg': svg, 'patches': patches, 'blank': blank_label(width), 'legend': LEGEND,
        'captions': captions, 'explanations': explanations, 'table': table, 'summary': summary,
        'rules': list(rules) or [[] for _ in patches],
    }  # fmt: skip
    return json.dumps(body, separators=(',', ':')).encode()


def graph_player(layout, body, speed, answers, goto, present=False, table=False, key='graph'):
    """Draw the player.

    `layout` names the body: the browser reads the body only when it is new. `present`: the presentation view
    (the graph fitted to the window, the caption as a title with the sums under it), with the node table if
    `table`. `goto` {'id', 'frame', 'open'}:
    a new id moves the player to `frame`, except that an `open` goto (a visitor's first run) does not move a
    player that already shows a frame, as after a server restart, when its page reconnects to a new session.
    Each run sends one line of JSON, a newline, then `body`; while nothing changes they are the same bytes,
    so Streamlit does not send them again. Returns the frame whose Share button was clicked in this run, or None.
    """
    head = {'layout': layout, 'speed': speed, 'answers': answers, 'goto': goto, 'present': present, 'table': table}
    head = json.dumps(head).encode()
    result = _PLAYER(key=key, data=head + b'\n' + body, default={}, on_share_change=lambda: None)
    return result.get('share')
