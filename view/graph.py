"""The computational graph at one frame, as DOT built with the graphviz package, laid out like micrograd's draw_dot."""

import functools
import html

import graphviz

from engine import ops
from engine.forward import terms
from engine.frames import Frame, grads_at
from engine.ieee import same, same_grad
from view.numbers import HIDDEN, NOT_COMPUTED, fmt, padded, product_sign
from view.palette import (
    ACCUMULATING_FILL,
    ACTIVE,
    FAINT,
    FINAL_FILL,
    FONT,
    FORWARD,
    HIDDEN_KEY,
    HOT_WIDTH,
    INK,
    KEYS,
    LOST_KEY,
    NOT_COMPUTED_KEY,
    PAGE_KEYS,
    PLAYER_STYLE,
    SECONDARY,
    SEED,
    TANGENT_KEYS,
    TEXT_COLOURS,
    UNDEFINED,
    WRONG_FILL,
    css_colour,
)


def value_look(trace, frame, i, grads, final_after, width, right=None, right_grads=None):
    """How value node i looks at `frame`: (data text, grad text, grad state, mark).

    grad state: 'none' (not computed), 'accumulating' (more += to come), 'final', 'wrong' (final, and not the right
    grad, wrong_grads: on the `=` engine what += gives, beside a student's bodies `right`'s; and where `right_grads`
    are given, not the right engine's grad at this frame, one not computed where the right one is included) or
    'hidden' (shows '?');
    mark: 'active' (its _backward runs), 'seed' (out.grad = 1 is set), 'forward' (just computed), 'lost' (an `=` wrote
    over its grad now, throwing a contribution away: lost) or ''.
    A grad in frame.hidden shows '?'.
    """
    grad = grads[i]
    if grad is None:
        state = 'none'
    elif i in frame.hidden:
        state = 'hidden'  # neither final nor more to come: that would tell part of the answer
    elif frame.wrt >= 0:  # forward mode: a tangent is worked out once, at its op's frame
        state = 'final'
    elif frame.steps_done >= final_after[i]:
        state = 'wrong' if i in wrong_grads(trace, right) else 'final'
    else:
        state = 'accumulating'
    if right_grads is not None and state != 'hidden' and not same_grad(grad, right_grads[i]):
        state = 'wrong'
    mark = ''
    if i == frame.node:
        mark = {'seed': 'seed', 'backward': 'active', 'tangent': 'active'}.get(frame.kind, 'forward')
    elif frame.kind == 'inputs' and i == frame.wrt:  # forward mode's seed: the input's own tangent, 1
        mark = 'seed'
    elif any(c.child == i for _, c in lost(trace, frame)):  # on its box, which every shape shows: not every shape
        mark = 'lost'  # labels its edges, and a*a's edge from a can be a stub too short to see
    data = trace.nodes[i].data if frame.has_data(trace, i) else None
    grad_text = HIDDEN.center(width) if grad is not None and i in frame.hidden else padded(grad, width)
    return padded(data, width), grad_text, state, mark


def frame_looks(trace, frame, width, right=None):
    """Every value's look at `frame` (value_look), in node order."""
    grads, final_after = grads_at(trace, frame), trace.final_after()
    return [
        value_look(trace, frame, i=i, grads=grads, final_after=final_after, width=width, right=right)
        for i in range(len(trace.nodes))
    ]


def label_width(trace, width):
    """The width of a local gradient on an edge label: the widest any step of this trace writes, at least `width`."""
    return max([width] + [len(fmt(c.local_grad)) for step in trace.steps for c in step.contributions])


@functools.lru_cache(maxsize=16)  # a trace is read-only once made: what it gets wrong is worked out once
def wrong_grads(trace, right=None):
    """The nodes whose final grad is not the right one, nan equal to nan: `right`'s, the right engine's trace of the
    same graph (beside a student's bodies), or where none is given, what += gives (plus_equals_grads, worked out from
    the trace itself): on the `=` engine the grads it got wrong, on += none."""
    rights = right.final_grads() if right is not None else plus_equals_grads(trace)
    pairs = enumerate(zip(trace.final_grads(), rights))
    return frozenset(i for i, (g, r) in pairs if not same(g, r))


def plus_equals_grads(trace):
    """Each node's final grad as += gives it, from a trace of the same graph on either engine: the seed 1, then step by
    step `child.grad += local_grad × out.grad`, the grads starting at 0.0 as a Value's do. The local gradients are the
    data's alone, the same on both engines, and each _backward line writes `E * out.grad` (or ±out.grad), whose E is
    the local gradient exactly: so these are the += engine's floats, bit for bit."""
    grads = [0.0] * len(trace.nodes)
    grads[trace.output] = 1.0
    for step in trace.steps:
        upstream = grads[step.node]
        for c in step.contributions:
            grads[c.child] += c.local_grad * upstream
    return grads


def hot_edges(trace, frame, width, local_width=None):
    """{(op node, input slot): label} for the edges the current _backward writes along; '?' into a grad the frame
    hides.

    A label is the chain rule, `local gradient × upstream grad` over `+= amount` (`= amount` on the `=` engine, as its
    code writes it), with '≈' where the factors as shown do not work out to it: the amount is what the line adds to the
    grad, not the grad it makes, which the box shows. A blank line stands between them where the edge runs through
    (build_dot), every number padded so that the label is as wide as blank_label.
    """
    if frame.kind == 'tangent':
        return tangent_edges(trace, frame, width, local_width)
    if frame.kind != 'backward':
        return {}
    local_width = local_width or label_width(trace, width)
    step, hidden = trace.steps[frame.steps_done - 1], frame.hidden
    upstream = HIDDEN.center(width) if step.node in hidden else padded(step.out_grad, width)
    labels = {}
    for c in step.contributions:  # into a hidden grad, its local gradient is asked for too: '? × −2.0000 += ?'
        sign = -1 if c.how == '-=' else 1  # a line that subtracts: its label says so, `-= amount`
        local = HIDDEN.center(local_width) if c.child in hidden else padded(sign * c.local_grad, local_width)
        product = f'{local} × {upstream}'
        amount = HIDDEN.center(width) if c.child in hidden else padded(sign * c.amount, width)
        how = c.how  # and '≈' after it where the factors as shown do not work out to the amount: '+= ≈ -0.8399'
        if c.child not in hidden and step.node not in hidden:
            how += ' ≈' * (product_sign(sign * c.amount, sign * c.local_grad, step.out_grad) == '≈')
        # a body that writes one input on two lines: its edge shows the last (the explanation gives each)
        labels[step.node, c.slot] = edge_label(product, f'{how} {amount}')
    return labels


def edge_label(product, result):
    """An edge's label: the product over a blank line (where the edge runs through, build_dot) over the result,
    right-aligned under it, every line as wide as the product."""
    return f'{product}\n{" " * len(product)}\n{result.rjust(len(product))}'


def tangent_edges(trace, frame, width, local_width=None):
    """Forward mode: {(op node, input slot): label} for the edges into the op whose tangent `frame` works out, each
    `local gradient × tangent coming in` over `= its share`; the box sums the shares. Into a tangent the frame
    hides, the local gradient and the share are asked for, as a backward step's are (hot_edges)."""
    local_width = local_width or label_width(trace, width)
    asked = frame.node in frame.hidden
    labels = {}
    for t in terms(trace, frame.wrt, frame.node):
        local = HIDDEN.center(local_width) if asked else padded(t.local_grad, local_width)
        tangent = HIDDEN.center(width) if t.child in frame.hidden else padded(t.tangent_in, width)
        product = f'{local} × {tangent}'
        amount = HIDDEN.center(width) if asked else padded(t.amount, width)
        sign = '=' if asked else product_sign(t.amount, t.local_grad, t.tangent_in)
        labels[frame.node, t.slot] = edge_label(product, f'{sign} {amount}')
    return labels


def lost(trace, frame):
    """On the `=` engine (engine/assign.py) or a student's bodies, [((k, j): a contribution thrown away, trace.steps[k]
    .contributions[j]; the contribution that threw it away)] at `frame`: empty but at an assignment that replaced a
    grad an earlier write had set."""
    if frame is None or frame.kind != 'backward' or frame.ask:
        return []
    step = trace.steps[frame.steps_done - 1]
    return [(c.overwrote, c) for c in step.contributions if c.overwrote is not None]


def lost_edges(trace, frame, width, local_width=None):
    """{(op node, input slot): label} of the edges whose contribution `frame`'s assignment throws away, each with the
    label it had at its own step, its amount marked lost (lost_label). A label no frame has shown yet (Frame.unseen)
    shows '?' where it did then: one of this same step (a*a's first write), or any while every grad is hidden."""
    local_width = local_width or label_width(trace, width)
    n = len(trace.nodes)
    out = {}
    for (k, j), _ in lost(trace, frame):
        earlier = trace.steps[k]
        slot = earlier.contributions[j].slot  # the j-th line of step k: a student's body orders its lines as it likes
        if any(c.slot == slot for c in earlier.contributions[j + 1 :]):
            continue  # its edge shows a later line of that step, which wrote the same input (hot_edges)
        # unseen, step k hid then what this frame hides: its own grads (hide=new), or every grad (hide=all)
        then = Frame('backward', earlier.node, n, k + 1, hidden=frame.hidden if frame.unseen(k) else frozenset())
        labels = hot_edges(trace, then, width, local_width)
        out[earlier.node, slot] = lost_label(labels[earlier.node, slot])
    return out


LOST_MARK = '✗ lost'  # in place of a thrown-away label's `=`: no line through its numbers, which would hide a minus


def lost_label(label):
    """A label (hot_edges) whose contribution was thrown away: its product as it was, and its amount after LOST_MARK
    in place of the `=`, '1.0000 × -6.0000' over '✗ lost -6.0000', as wide as it was. Nothing is struck through: a
    line through the middle of the digits covers a minus sign, and -6 reads as 6."""
    product, _, result = label.split('\n')
    amount = result.split(maxsplit=1)[1]
    for mark in (LOST_MARK, LOST_MARK[0]):  # '✗ lost', or '✗' alone where a label is too narrow for the word
        if len(f'{mark} {amount}') <= len(product):
            return edge_label(product, f'{mark} {amount}')
    return label


THROUGH = '─'  # the blank label's middle line: its edge drawn on through it (it meets the label at its sides)


def blank_label(width, local_width=None, through=THROUGH):
    """What an edge into an op shows when it carries nothing now: as wide and tall as any label (hot_edges), so
    labels never move nodes; its middle line the edge run on through it (`through`), in the edge's colour."""
    line = ' ' * ((local_width or width) + 3 + width)
    return f'{line}\n{through * len(line)}\n{line}'


def _filled(key):
    """A grad state's look, as its legend row (palette.KEYS) draws it: the fill, and the border dashed or dotted."""
    return {'style': 'rounded,filled' + ('' if key.line == 'solid' else f',{key.line}'), 'fillcolor': key.fill}


def _marked(key):
    """A mark's look, as its legend row draws it: the border's colour and pen."""
    return {'color': key.border, 'penwidth': key.pen}


STATE_STYLE = {
    'none': {'style': 'rounded', 'fillcolor': 'white'},
    'hidden': {'style': 'rounded', 'fillcolor': 'white'},
    'accumulating': _filled(KEYS[ACCUMULATING_FILL]),
    'final': _filled(KEYS[FINAL_FILL]),
    'wrong': _filled(KEYS[WRONG_FILL]),
}
MARK_STYLE = {
    '': {}, 'active': _marked(KEYS[ACTIVE]), 'forward': _marked(KEYS[FORWARD]), 'seed': _marked(KEYS[SEED]),
    'lost': _marked(LOST_KEY),
}  # fmt: skip


def box_style(state, mark):
    """A value box's look: its grad state's fill and border (STATE_STYLE), its mark's pen; a lost mark's border dashed
    whatever the state's, as its thrown-away edge is drawn (LOST)."""
    look = {**STATE_STYLE[state], **MARK_STYLE[mark]}
    if mark == 'lost':
        pens = [part for part in look['style'].split(',') if part not in ('dashed', 'dotted')]
        look['style'] = ','.join([*pens, 'dashed'])
    return look


HOT = {'color': ACTIVE, 'penwidth': HOT_WIDTH, 'fontcolor': ACTIVE}
LOST = {'color': INK, 'style': 'dashed', 'penwidth': HOT_WIDTH, 'fontcolor': INK}  # a contribution `=` threw away
# an edge's label is a node of its own on the edge, its lines above and below the line: no amount can be read off
# a neighbouring edge, as a label beside an edge can where two edges meet
EDGE_LABEL = {'shape': 'plaintext', 'margin': '0', 'width': '0', 'height': '0', 'fontcolor': ACTIVE}
NO_LABEL = {'shape': 'point', 'width': '0', 'height': '0'}  # where the shape has no labels: the edge runs through


# the shapes a graph is laid out in, each with the same ids, so that one patch draws a frame in any of them; the
# player shows the one its screen reads best (player.js pickShape). 'wide' is micrograd's: left to right, the chain
# rule on each edge. 'compact' leaves the chain rule to the sums over the graph, its boxes' row titles small and its
# spacing tight, for a laptop beside the sidebar; 'tall' is that, top to bottom, for a phone held upright
SHAPES = ('wide', 'compact', 'tall')
COMPACT = {'nodesep': '0.06', 'ranksep': '0.1'}  # inches between boxes, and between ranks: a fifth and 0.4 of wide's
TITLE_PT = '7'  # the row titles (data, grad) of a compact box; its numbers stay 14 pt, as every shape's do


def build_dot(trace, frame, width, shape='wide', right=None, rows=None):
    """The graph at `frame`, numbers padded to `width`, in `shape` (SHAPES). Ids: n3, n3_op, e3_0 (op 3's input 0,
    from its label l3_0 on; e3_0_in up to it), e3_out, stops b3_0. A label is a point in the shapes without labels.

    With frame None, every number is a placeholder of the same width: the layout without anyone's values, its boxes'
    rows titled `rows` (VALUE_ROWS, or forward mode's TANGENT_ROWS; by default the frame's). The grads in
    frame.hidden show '?'. `right`: beside a student's bodies, the right engine's trace (value_look).
    """
    rows = rows or row_titles(frame)
    labelled = shape == 'wide'
    local_width = label_width(trace, width)
    if frame is None:
        blank = padded(None, width)
        looks = [(blank, blank, 'none', '')] * len(trace.nodes)
        hot, thrown = {}, {}
    else:
        looks = frame_looks(trace, frame, width, right)
        hot = hot_edges(trace, frame, width, local_width)
        thrown = lost_edges(trace, frame, width, local_width)
    active_op = frame.node if hot else None
    # the layout's blank labels in ASCII: the browser's Graphviz measures THROUGH by its three bytes in UTF-8, three
    # times as wide as dot does; the player draws it in (player_body's blank)
    blank = blank_label(width, local_width, through=' ' if frame is None else THROUGH)
    big = {'nslimit': BIG_NSLIMIT} if len(trace.nodes) > EXACT_UP_TO else {}
    dot = graphviz.Digraph(
        graph_attr={
            'rankdir': 'TB' if shape == 'tall' else 'LR',
            'bgcolor': 'white',
            'forcelabels': 'true',
            'nodesep': '0.3',
            'ranksep': '0.25',
            **({} if labelled else COMPACT),
            **big,
        },  # fmt: skip
        node_attr={'fontname': FONT, 'fontsize': '14', 'color': INK, 'fontcolor': INK},
        edge_attr={'color': FAINT, 'arrowsize': '0.7', 'fontname': FONT, 'fontsize': '14'},
    )
    bus_stops = _draw_buses(dot, trace)
    # formula order: an op's inputs top to bottom as the formula writes them (x1, w1, then x2, w2), and the values
    # in the order they are made (a*b above a*a). dot keeps each op's in-edges in that order at twice its layout
    # time, so a big graph (one with a bus) is left to dot; there the main path is kept on one row instead
    ordered = {'ordering': 'in'} if not bus_stops and len(trace.nodes) <= ORDERED_UP_TO else {}
    row = _main_path(trace) if bus_stops and len(trace.nodes) <= STRAIGHT_UP_TO else {}
    for i, node in enumerate(trace.nodes):
        data, grad, state, mark = looks[i]
        label = _value_label(
            node.name,
            data,
            grad_text=grad,
            has_grad=state != 'none',
            has_data=data.strip() != NOT_COMPUTED,
            large_titles=labelled,
            titles=rows,
        )
        tight = {} if labelled else {'margin': '0.04,0.02'}
        dot.node(node.id, label=label, id=node.id, shape='box', **tight, **box_style(state, mark))
        if node.op:
            op_id = f'{node.id}_op'
            op_hot = HOT if i == active_op else {}
            circle = {'shape': 'circle', 'width': '0.45', 'margin': '0.02'}
            dot.node(op_id, label=ops.symbol(node.op), id=op_id, **circle, **op_hot, **ordered)
            straight = {'weight': MAIN_WEIGHT} if i in row else {}  # the main path's edges pull hardest: one row
            for slot, child in enumerate(node.children):
                # the edge runs through its label, between the label's two lines: the amount is on its own edge
                text = hot.get((i, slot))
                source = bus_stops.get((i, slot), trace.nodes[child].id)
                label_id, edge_id = f'l{i}_{slot}', f'e{i}_{slot}'
                label = (text or blank).replace('\n', '\\n')  # dot's line break
                if (i, slot) in thrown:
                    label = thrown[i, slot].replace('\n', '\\n')
                ink = {'fontcolor': INK if (i, slot) in thrown else ACTIVE if text else FAINT}
                if labelled:
                    dot.node(label_id, label=label, id=label_id, **{**EDGE_LABEL, **ink})
                else:
                    dot.node(label_id, label='', id=label_id, **NO_LABEL)
                look = {**(HOT if text else {}), **(LOST if (i, slot) in thrown else {})}
                look |= straight if row.get(i) == slot else {}
                # where it has one, into its label's left side and on from its right, each at the blank middle
                # line: an edge that ran to the label's centre came in at an angle across its own numbers
                sides = ({'headport': 'w'}, {'tailport': 'e'}) if labelled else ({}, {})
                dot.edge(source, label_id, id=f'{edge_id}_in', arrowhead='none', headclip='false', **sides[0], **look)
                dot.edge(label_id, op_id, id=edge_id, tailclip='false', **sides[1], **look)
            dot.edge(op_id, node.id, id=f'e{i}_out', **op_hot, **straight)
    return dot


BUS_USES = 5  # a value used this often reaches its uses along one line, not an edge each
BUS_WIDTH = '3'  # that line's pen: thicker than an edge, so that it reads as one line with junctions on it
MAIN_WEIGHT = '20'  # how hard the main path's edges pull to be short and straight (dot's default: 1)
# values: up to here the main path is kept straight. That costs dot a good part more layout time, which chain(500)
# (1,002 values) cannot spend within layout.FULL_BUDGET (bench/results/layout.txt)
STRAIGHT_UP_TO = 650
ORDERED_UP_TO = 80  # values: the graphs drawn in formula order (build_dot)
# past EXACT_UP_TO values, dot's x-positioning (network simplex over every node, for chain(500) most of them the
# edges' label nodes) is cut to 0.2 passes a node, which brings the largest preset, chain(500), inside
# layout.FULL_BUDGET; below it, the exact layout is fast enough (bench/results/layout.txt)
EXACT_UP_TO = 400
BIG_NSLIMIT = '0.2'


def _main_path(trace):
    """{value: the input slot the path goes on through} along the output's first inputs back to a leaf: a chain's
    main path, drawn on one row (its edges weigh MAIN_WEIGHT) so that the view does not drift up and down along it.
    dot's group attribute draws it as straight but takes dot far longer on chain(500): past layout.FULL_BUDGET."""
    path, i = {}, trace.output
    while trace.nodes[i].children:
        path[i] = 0
        i = trace.nodes[i].children[0]
    path[i] = None
    return path


def _draw_buses(dot, trace):
    """For each value used BUS_USES times or more: a line of small stops from it, one stop before each use.

    The edges from a value to uses far apart (the chain's w feeds every step) would cost dot's layout
    time that grows much faster than the graph. Along a line, each edge is short.
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
            dot.node(stop, shape='point', width='0.03', id=stop, color=FAINT)  # a junction, not a value
            dot.edge(previous, stop, arrowhead='none', id=f'{stop}_line', penwidth=BUS_WIDTH)
            previous = stops[i, slot] = stop
    return stops


# a value box's texts in the SVG, in the order of its label's cells: the name, then each row's title and number;
# the player finds the numbers it patches by these indexes (a test lays a box out with dot and checks them)
VALUE_ROWS = ('data', 'grad')
VALUE_TEXTS = {'name': 0, **{row: 2 + 2 * k for k, row in enumerate(VALUE_ROWS)}}  # name 0, data 2, grad 4
TANGENT_ROWS = ('data', 'tangent')  # forward mode's: the second row is ∂value/∂(the input chosen), not a grad


def row_titles(frame):
    """The titles of a box's rows at `frame`: forward mode's where the frame carries a tangent, else VALUE_ROWS."""
    return TANGENT_ROWS if frame is not None and frame.wrt >= 0 else VALUE_ROWS


def _value_label(name, data_text, grad_text, has_grad, has_data, large_titles=True, titles=VALUE_ROWS):
    """micrograd's box of name, data and grad, stacked to keep the graph narrow (an HTML-like label, text escaped);
    the row titles at TITLE_PT unless `large_titles`.

    The rule under the name is a cell border: the browser's renderer cannot redraw an <hr/> between frames.
    """
    rows = ''
    size = '' if large_titles else f' point-size="{TITLE_PT}"'
    for title, text, known in zip(titles, (data_text, grad_text), (has_data, has_grad)):
        colour = TEXT_COLOURS.get(text.strip(), INK if known else SECONDARY)
        text = html.escape(text)
        rows += (
            f'<tr><td align="left"><font color="{SECONDARY}"{size}>{title} </font></td>'
            f'<td align="right"><font color="{colour}">{text}</font></td></tr>'
        )
    return (
        '<<table border="0" cellborder="0" cellspacing="0" cellpadding="2">'
        f'<tr><td colspan="2" border="1" sides="b"><b>{html.escape(name)}</b></td></tr>{rows}</table>>'
    )


def _swatch(key):
    """A legend row (palette.Key) in HTML: its box, or its sample texts in its colour, and its words."""
    if key.sample:  # 'nan / inf': −inf is inf with a sign, left out of the page's short row
        sample = ' / '.join(key.sample[:2])
        colour = key.colour or key.border
        return (
            f'<span style="margin-right:1.2em;white-space:nowrap"><b style="color:{css_colour(colour)}">{sample}</b> '
            f'{key.words}</span>'
        )
    width = 2 if key.line == 'dotted' else key.pen  # a 1px dotted border on a screen reads as a faint grey line
    box = (
        'display:inline-block;width:1.4em;height:0.9em;border-radius:3px;'
        f'background:{css_colour(key.fill)};border:{width}px {key.line} {css_colour(key.border)}'
    )
    return f'<span style="margin-right:1.2em;white-space:nowrap"><span style="{box}"></span> {key.words}</span>'


# which legend row each look of a box stands for: its grad state, its mark, or a text in a number's place
LOOK_KEYS = {
    NOT_COMPUTED: NOT_COMPUTED_KEY, 'accumulating': KEYS[ACCUMULATING_FILL], 'final': KEYS[FINAL_FILL],
    'seed': KEYS[SEED], 'active': KEYS[ACTIVE], 'forward': KEYS[FORWARD], 'hidden': HIDDEN_KEY, HIDDEN: HIDDEN_KEY,
    'lost': LOST_KEY, 'wrong': KEYS[WRONG_FILL], **{text: KEYS[UNDEFINED] for text in TEXT_COLOURS if text != HIDDEN},
}  # fmt: skip
# forward mode's: the same looks, said of tangents (TANGENT_KEYS, in its order)
TANGENT_LOOK_KEYS = {
    **LOOK_KEYS, **dict(zip((NOT_COMPUTED, 'final', 'seed', 'active', 'nan'), TANGENT_KEYS)),
    **{text: TANGENT_KEYS[-1] for text in TEXT_COLOURS if text != HIDDEN},
}  # fmt: skip


def legend_keys(patches, tangents=False, at=None):
    """The legend's rows (palette.Key) for the looks `patches` draw (view.patches.frame_patches: each look a box has at
    some frame is in the patch of the first frame it has it), and no other: a key to the graph shown, not to every
    graph. `at`: the indices of the frames drawn (a whole-pass file's chosen ones), all by default. `tangents`:
    forward mode's, its rows said of tangents."""
    if at is None:
        looks = [look[1:] for patch in patches for look in patch['v']]
    else:  # the looks in force at each frame drawn: the patches up to it, applied in turn
        now, looks, at = {}, [], set(at)
        for k, patch in enumerate(patches):
            now.update((look[0], look[1:]) for look in patch['v'])
            looks += now.values() if k in at else []
    drawn = {look[2] for look in looks} | {look[3] for look in looks}  # grad states and marks
    drawn |= {text.strip() for look in looks for text in look[:2]}  # data and grad texts
    table = TANGENT_LOOK_KEYS if tangents else LOOK_KEYS
    shown = {table[name] for name in drawn if name in table}
    order = (*TANGENT_KEYS, *PAGE_KEYS) if tangents else PAGE_KEYS
    return [key for key in dict.fromkeys(order) if key in shown]


def legend_html(keys):
    """The legend under the player: the rows `keys` (legend_keys), after the graph's colours as CSS variables."""
    return PLAYER_STYLE + '<div style="font-size:0.85rem;color:#444">' + ''.join(map(_swatch, keys)) + '</div>'


LEGEND = legend_html(PAGE_KEYS)  # every row a legend may have
