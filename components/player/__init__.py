"""The graph as a player in the browser: laid out once by Graphviz's dot, then each frame only patches texts
and colours, and steps and plays with no round trip to the server. It reports the frame it shows."""

import json
import os
import shutil
from pathlib import Path

import graphviz
import streamlit as st

from components.graph import blank_label, build_dot, hot_edges, value_look

HERE = Path(__file__).parent
_PLAYER = st.components.v2.component(
    'backprop_graph_player', css=(HERE / 'player.css').read_text(), js=(HERE / 'player.js').read_text()
)


def can_lay_out():
    """Whether this server has Graphviz's dot. BACKPROP_RENDERER=chart asks for the fallback anyway (tests use it)."""
    return os.environ.get('BACKPROP_RENDERER') != 'chart' and shutil.which('dot') is not None


def layout_svg(trace, frame, width):
    """The graph laid out once, as SVG. Every frame has this layout: only texts and colours differ."""
    svg = graphviz.Source(build_dot(trace, frame, width).source).pipe(format='svg', encoding='utf-8')
    return svg[svg.index('<svg') :]


def frame_patches(trace, all_frames, width):
    """Frame 0 whole, then for each frame only what changed: linear in the graph and the number of frames.

    A patch: 'v' [[node, data text, grad text, grad state, mark]], 'o' the op whose _backward runs (-1: none),
    'e' [['op_slot', edge label or '']], 'a' the node the frame is about.
    """
    final_after = trace.final_after()
    grads = [None] * len(trace.nodes)
    looks, labels, patches = {}, {}, []
    previous = None
    for frame in all_frames:
        if frame.kind == 'seed':
            grads[trace.output] = 1.0
        elif frame.kind == 'backward':
            for c in trace.steps[frame.steps_done - 1].contributions:
                grads[c.child] = c.after
        if previous is None:
            candidates = range(len(trace.nodes))
        else:
            candidates = {previous.node, frame.node, trace.output} - {-1}
            if frame.kind == 'backward':
                candidates |= set(trace.nodes[frame.node].children)
        changed = []
        for i in sorted(candidates):
            look = value_look(trace, frame, i, grads, final_after, width)
            if looks.get(i) != look:
                looks[i] = look
                changed.append([i, *look])
        hot = {f'{i}_{slot}': text for (i, slot), text in hot_edges(trace, frame, width).items()}
        edges = [
            [key, hot.get(key, '')] for key in sorted(set(labels) | set(hot)) if labels.get(key, '') != hot.get(key, '')
        ]
        labels = hot
        patches.append({'v': changed, 'o': frame.node if hot else -1, 'e': edges, 'a': frame.node})
        previous = frame
    return patches


def encode_body(svg, patches, captions, width):
    """The bulk of what the player is sent, for one layout and its frames: encoded once, then cached."""
    body = {'svg': svg, 'patches': patches, 'captions': captions, 'blank': blank_label(width)}
    return json.dumps(body, separators=(',', ':')).encode()


def held_frame(default, key='graph'):
    """The frame Python holds for the player: its last report, or `default` before it has made one."""
    return (st.session_state.get(key) or {}).get('frame', default)


def graph_player(layout, body, speed, goto, key='graph'):
    """Draw the player; return the frame it shows.

    `goto` [token, frame, held]: a new token moves it to `frame`; `held` is the frame Python holds at that
    moment, which the player then need not report. It is sent one line of JSON, a newline, then `body`,
    which only changes with `layout`: the browser reads the body only for a new layout. While nothing changes,
    the message is the same bytes from run to run, so Streamlit does not send it again.
    """
    head = json.dumps({'layout': layout, 'speed': speed, 'goto': goto}).encode()
    result = _PLAYER(key=key, data=head + b'\n' + body, default={'frame': goto[1]}, on_frame_change=lambda: None)
    return result.frame
