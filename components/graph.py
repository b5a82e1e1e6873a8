"""The computational graph at one frame, as DOT built with the graphviz package, laid out like micrograd's draw_dot."""

import html

import graphviz
import streamlit as st

from components.numbers import padded
from engine.frames import grads_at

# Okabe-Ito colours: safe for colour-blind viewers, and strong enough for a projector
ACTIVE = '#D55E00'  # vermillion: the node whose _backward runs, and the edges it writes along
ACTIVE_FILL = '#FBDCC6'
FORWARD = '#0072B2'  # blue: the node the forward pass just computed
FINAL_FILL = '#CDE7F7'  # light sky blue: this grad is final
ACCUMULATING_FILL = '#FFF1B8'  # light yellow: this grad has more += to come
INK = '#1A1A1A'
FAINT = '#8A8A8A'
FONT = 'Courier,monospace'  # Courier metrics for the layout; any monospace font in the browser
OP_SYMBOLS = {'*': '×', '-': '−', '/': '÷', 'neg': '−x'}


def op_symbol(op):
    if op.startswith('**'):
        return f'x^{op[2:]}'
    return OP_SYMBOLS.get(op, op)


def build_dot(trace, frame, width):
    """The graph at `frame`, every number padded to `width` characters."""
    grads = grads_at(trace, frame)
    final_after = trace.final_after()
    step = trace.steps[frame.steps_done - 1] if frame.kind == 'backward' else None
    hot_slots = {(c.child, c.slot): c for c in step.contributions} if step else {}

    dot = graphviz.Digraph(
        graph_attr={'rankdir': 'LR', 'bgcolor': 'white', 'forcelabels': 'true', 'nodesep': '0.3', 'ranksep': '0.5'},
        node_attr={'fontname': FONT, 'fontsize': '14', 'color': INK, 'fontcolor': INK},
        edge_attr={'color': FAINT, 'arrowsize': '0.7', 'fontname': FONT, 'fontsize': '14'},
    )
    for i, node in enumerate(trace.nodes):
        has_data = frame.has_data(trace, i)
        grad = grads[i]
        if grad is None:
            fill, style = 'white', 'rounded'
        elif frame.steps_done >= final_after[i]:
            fill, style = FINAL_FILL, 'rounded,filled'
        else:
            fill, style = ACCUMULATING_FILL, 'rounded,filled,dashed'
        border, pen = INK, '1'
        if i == frame.node and frame.kind in ('seed', 'backward'):
            border, pen = ACTIVE, '3'
        elif i == frame.node:
            border, pen = FORWARD, '3'
        label = _value_label(node.name, node.data if has_data else None, grad, width, has_data)
        dot.node(node.id, label=label, shape='box', style=style, fillcolor=fill, color=border, penwidth=pen)
        if node.op:
            op_id = f'{node.id}_op'
            is_hot = step is not None and step.node == i
            hot = {'color': ACTIVE, 'penwidth': '2.5'} if is_hot else {}
            dot.node(op_id, label=op_symbol(node.op), shape='circle', width='0.45', margin='0.02', **hot)
            for slot, child in enumerate(node.children):
                # every edge into an op has a label of the same width, blank unless it carries a
                # contribution now: so labels never change the layout
                c = hot_slots.get((child, slot)) if is_hot else None
                text = f'+= {padded(c.amount, width)}' if c else ' ' * (width + 3)
                colours = {'color': ACTIVE, 'penwidth': '2.5', 'fontcolor': ACTIVE} if c else {}
                dot.edge(trace.nodes[child].id, op_id, label=text, **colours)
            dot.edge(op_id, node.id, **hot)
    return dot


def _value_label(name, data, grad, width, has_data):
    """micrograd's box of name, data and grad, stacked to keep the graph narrow (an HTML-like label, text escaped).

    The rule under the name is a cell border: the browser's renderer cannot redraw an <hr/> between frames.
    """
    rows = ''
    for title, value, known in (('data', data, has_data), ('grad', grad, grad is not None)):
        colour = INK if known else FAINT
        text = html.escape(padded(value, width))
        rows += (
            f'<tr><td align="left"><font color="{FAINT}">{title}</font></td>'
            f'<td align="right"><font color="{colour}">{text}</font></td></tr>'
        )
    return (
        '<<table border="0" cellborder="0" cellspacing="0" cellpadding="1">'
        f'<tr><td colspan="2" border="1" sides="b"><b>{html.escape(name)}</b></td></tr>{rows}</table>>'
    )


# Streamlit's stylesheet sets its own sans font on chart text; the layout was measured for a monospace one
MONOSPACE_TEXT = (
    '<style>[data-testid="stGraphVizChart"] svg text '
    '{font-family: "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace !important}</style>'
)


def _swatch(fill, border, text, dashed=False, width=1):
    line = 'dashed' if dashed else 'solid'
    box = (
        'display:inline-block;width:1.4em;height:0.9em;border-radius:3px;'
        f'background:{fill};border:{width}px {line} {border}'
    )
    return f'<span style="margin-right:1.2em;white-space:nowrap"><span style="{box}"></span> {text}</span>'


LEGEND = (
    '<div style="font-size:0.85rem;color:#444">'
    + _swatch('white', INK, 'grad not computed yet (·)')
    + _swatch(ACCUMULATING_FILL, INK, 'grad has more += to come', dashed=True)
    + _swatch(FINAL_FILL, INK, 'grad is final')
    + _swatch('white', ACTIVE, 'its _backward runs now; orange edges carry the amounts', width=3)
    + _swatch('white', FORWARD, 'just computed (forward)', width=3)
    + '</div>'
)


def show_graph(dot):
    st.html(MONOSPACE_TEXT)
    st.graphviz_chart(dot, width='stretch')
    st.html(LEGEND)
