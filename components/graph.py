"""The computational graph at one frame, as DOT built with the graphviz package, laid out like micrograd's draw_dot."""

import html

import graphviz
import streamlit as st

from components.numbers import HIDDEN, padded
from engine import ops
from engine.frames import grads_at, hidden_grads

# Okabe-Ito colours: safe for colour-blind viewers, and strong enough for a projector
ACTIVE = '#D55E00'  # vermillion: the node whose _backward runs, and the edges it writes along
FORWARD = '#0072B2'  # blue: the node the forward pass just computed
FINAL_FILL = '#CDE7F7'  # light sky blue: this grad is final
ACCUMULATING_FILL = '#FFF1B8'  # light yellow: this grad has more += to come
INK = '#1A1A1A'
FAINT = '#8A8A8A'
UNDEFINED = '#A0307A'  # reddish purple, darker than Okabe-Ito's for text: a number that is nan or ±inf
ACTIVE_TINT = '#FBDCC6'  # a tint of the vermillion: the node table's row of the node the frame is about
NOT_FINITE = ('nan', 'inf', '−inf')
TEXT_COLOURS = {**dict.fromkeys(NOT_FINITE, UNDEFINED), HIDDEN: ACTIVE}  # texts in a number's place
FONT = 'Courier,monospace'  # Courier metrics for the layout; any monospace font in the browser
SCREEN_FONT = '"DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace'  # the browser's monospace font
MARK_WIDTH, HOT_WIDTH = '3', '2.5'  # the pen of a marked box, and of the op and edges a _backward writes along

# the same colours, fonts and pens for the player's stylesheet (components/player/player.css uses var(--active)
# and so on): written here once, sent at the head of the legend, which the player puts in its page
CSS_VARIABLES = {
    '--active': ACTIVE, '--forward': FORWARD, '--final-fill': FINAL_FILL, '--accumulating-fill': ACCUMULATING_FILL,
    '--ink': INK, '--faint': FAINT, '--undefined': UNDEFINED, '--active-tint': ACTIVE_TINT,
    '--screen-font': SCREEN_FONT, '--mark-width': MARK_WIDTH, '--hot-width': HOT_WIDTH,
}  # fmt: skip
PLAYER_STYLE = '<style>.player {' + ' '.join(f'{name}: {value};' for name, value in CSS_VARIABLES.items()) + '}</style>'


def value_look(trace, frame, i, grads, final_after, width, hidden=frozenset()):
    """How value node i looks at `frame`: (data text, grad text, grad state, mark).

    grad state: 'none' (not computed), 'accumulating' (more += to come) or 'final';
    mark: 'active' (its _backward runs, or it is seeded), 'forward' (just computed) or ''.
    `hidden`: the nodes whose grad shows '?' (engine.frames.hidden_grads).
    """
    grad = grads[i]
    if grad is None:
        state = 'none'
    elif frame.steps_done >= final_after[i]:
        state = 'final'
    else:
        state = 'accumulating'
    mark = ''
    if i == frame.node:
        mark = 'active' if frame.kind in ('seed', 'backward') else 'forward'
    data = trace.nodes[i].data if frame.has_data(trace, i) else None
    grad_text = HIDDEN.center(width) if grad is not None and i in hidden else padded(grad, width)
    return padded(data, width), grad_text, state, mark


def hot_edges(trace, frame, width, hidden=frozenset()):
    """{(op node, input slot): label} for the edges the current _backward writes along; '?' into a hidden grad."""
    if frame.kind != 'backward':
        return {}
    step = trace.steps[frame.steps_done - 1]
    return {
        (step.node, c.slot): f'+= {HIDDEN.center(width) if c.child in hidden else padded(c.amount, width)}'
        for c in step.contributions
    }


def blank_label(width):
    """What an edge into an op shows when it carries nothing now: as wide as any amount, so labels never move nodes."""
    return ' ' * (width + 3)


STATE_STYLE = {
    'none': {'style': 'rounded', 'fillcolor': 'white'},
    'accumulating': {'style': 'rounded,filled,dashed', 'fillcolor': ACCUMULATING_FILL},
    'final': {'style': 'rounded,filled', 'fillcolor': FINAL_FILL},
}
MARK_STYLE = {
    '': {},
    'active': {'color': ACTIVE, 'penwidth': MARK_WIDTH},
    'forward': {'color': FORWARD, 'penwidth': MARK_WIDTH},
}
HOT = {'color': ACTIVE, 'penwidth': HOT_WIDTH, 'fontcolor': ACTIVE}


def build_dot(trace, frame, width, hide='none'):
    """The graph at `frame`, numbers padded to `width`. Ids: n3, n3_op, e3_0 (op 3's input 0), e3_out, stops b3_0.

    With frame None, every number is a placeholder of the same width: the layout without anyone's values.
    `hide` (engine.frames.HIDE): which grads show '?'.
    """
    if frame is None:
        blank = padded(None, width)
        looks = [(blank, blank, 'none', '')] * len(trace.nodes)
        hot = {}
    else:
        grads, hidden = grads_at(trace, frame), hidden_grads(trace, frame, hide)
        final_after = trace.final_after()
        looks = [value_look(trace, frame, i, grads, final_after, width, hidden) for i in range(len(trace.nodes))]
        hot = hot_edges(trace, frame, width, hidden)
    active_op = frame.node if hot else None
    dot = graphviz.Digraph(
        graph_attr={'rankdir': 'LR', 'bgcolor': 'white', 'forcelabels': 'true', 'nodesep': '0.3', 'ranksep': '0.5'},
        node_attr={'fontname': FONT, 'fontsize': '14', 'color': INK, 'fontcolor': INK},
        edge_attr={'color': FAINT, 'arrowsize': '0.7', 'fontname': FONT, 'fontsize': '14'},
    )
    bus_stops = _draw_buses(dot, trace)
    for i, node in enumerate(trace.nodes):
        data, grad, state, mark = looks[i]
        label = _value_label(node.name, data, grad, state != 'none', frame is not None and frame.has_data(trace, i))
        dot.node(node.id, label=label, id=node.id, shape='box', **STATE_STYLE[state], **MARK_STYLE[mark])
        if node.op:
            op_id = f'{node.id}_op'
            op_hot = HOT if i == active_op else {}
            dot.node(op_id, label=ops.symbol(node.op), id=op_id, shape='circle', width='0.45', margin='0.02', **op_hot)
            for slot, child in enumerate(node.children):
                text = hot.get((i, slot))
                source = bus_stops.get((i, slot), trace.nodes[child].id)
                dot.edge(source, op_id, label=text or blank_label(width), id=f'e{i}_{slot}', **(HOT if text else {}))
            dot.edge(op_id, node.id, id=f'e{i}_out', **op_hot)
    return dot


BUS_USES = 5  # a value used this often reaches its uses along one line, not an edge each


def _draw_buses(dot, trace):
    """For each value used BUS_USES times or more: a line of small stops from it, one stop before each use.

    The edges from a value to uses far apart (the chain's w feeds every step) would cost dot's layout
    time that grows much faster than the graph: 40 steps took 30 s. Along a line, each edge is short.
    Returns {(op node, input slot): the stop its edge starts from}.
    """
    uses = {}
    for i, node in enumerate(trace.nodes):
        for slot, child in enumerate(node.children):
            uses.setdefault(child, []).append((i, slot))
    stops = {}
    for child, places in uses.items():
        if len(places) < BUS_USES:
            continue
        previous = trace.nodes[child].id
        for i, slot in places:  # in forward order, so the line runs left to right
            stop = f'b{i}_{slot}'
            dot.node(stop, shape='point', width='0.05', id=stop, color=FAINT)
            dot.edge(previous, stop, arrowhead='none', id=f'{stop}_line')
            previous = stops[i, slot] = stop
    return stops


# a value box's texts in the SVG, in the order of its label's cells: the name, then each row's title and number;
# the player finds the numbers it patches by these indexes (a test lays a box out with dot and checks them)
VALUE_ROWS = ('data', 'grad')
VALUE_TEXTS = {'name': 0, **{row: 2 + 2 * k for k, row in enumerate(VALUE_ROWS)}}  # name 0, data 2, grad 4


def _value_label(name, data_text, grad_text, has_grad, has_data):
    """micrograd's box of name, data and grad, stacked to keep the graph narrow (an HTML-like label, text escaped).

    The rule under the name is a cell border: the browser's renderer cannot redraw an <hr/> between frames.
    """
    rows = ''
    for title, text, known in zip(VALUE_ROWS, (data_text, grad_text), (has_data, has_grad)):
        colour = TEXT_COLOURS.get(text.strip(), INK if known else FAINT)
        text = html.escape(text)
        rows += (
            f'<tr><td align="left"><font color="{FAINT}">{title} </font></td>'
            f'<td align="right"><font color="{colour}">{text}</font></td></tr>'
        )
    return (
        '<<table border="0" cellborder="0" cellspacing="0" cellpadding="2">'
        f'<tr><td colspan="2" border="1" sides="b"><b>{html.escape(name)}</b></td></tr>{rows}</table>>'
    )


# Streamlit's stylesheet sets its own sans font on chart text; the layout was measured for a monospace one
MONOSPACE_TEXT = f'<style>[data-testid="stGraphVizChart"] svg text {{font-family: {SCREEN_FONT} !important}}</style>'


def _swatch(fill, border, text, dashed=False, width=1):
    line = 'dashed' if dashed else 'solid'
    box = (
        'display:inline-block;width:1.4em;height:0.9em;border-radius:3px;'
        f'background:{fill};border:{width}px {line} {border}'
    )
    return f'<span style="margin-right:1.2em;white-space:nowrap"><span style="{box}"></span> {text}</span>'


LEGEND = (
    PLAYER_STYLE  # inert in the fallback, which has no .player
    + '<div style="font-size:0.85rem;color:#444">'
    + _swatch('white', INK, 'grad not computed yet (·)')
    + _swatch(ACCUMULATING_FILL, INK, 'grad has more += to come', dashed=True)
    + _swatch(FINAL_FILL, INK, 'grad is final')
    + _swatch('white', ACTIVE, 'its _backward runs now; orange edges carry the amounts', width=3)
    + _swatch('white', FORWARD, 'just computed (forward)', width=3)
    + f'<span style="white-space:nowrap"><b style="color:{UNDEFINED}">nan / inf</b> not a finite number</span>'
    + '</div>'
)


def show_legend():
    st.html(LEGEND)


def show_graph(dot):
    st.html(MONOSPACE_TEXT)
    st.graphviz_chart(dot, width='stretch')
    show_legend()
