"""Forward mode's own parts, built with no Streamlit: the check at its last frame (the output's tangent beside the
backward pass's grad and a finite difference), what getting every grad costs each way, and the chain rule as a sum
over the paths from the input to the output. The frames themselves are drawn as every mode's are (view/graph.py,
view/explanation.py read a frame's tangents from engine/forward.py)."""

import html
import math

import pandas as pd

from engine import forward
from view.explanation import agrees, partial
from view.numbers import fmt, number, product_sign

PATHS_UP_TO = 60  # values: a graph this small has its paths listed; a bigger one, its count of paths alone
MAX_PATHS = 12  # the paths listed at most: past them the page says how many more there are


def summary_html(trace, wrt, numeric):
    """At the last frame: the output's tangent, the backward pass's grad of the same input, and the central finite
    difference (`numeric`, {input name: difference}; None where it is not worked out); every text escaped."""
    name, by = trace.nodes[-1].name, trace.nodes[wrt].name
    tangent, grad = forward.tangents(trace, wrt)[-1], trace.final_grads()[wrt]
    rows = {'forward mode: the output’s tangent': fmt(tangent), f'backward pass: {by}.grad': fmt(grad)}
    if numeric is not None and by in numeric:
        rows['finite difference'] = fmt(numeric[by])
    table = pd.DataFrame({'way': list(rows), f'∂{name}/∂{by}': list(rows.values())})
    out = html.escape(partial(trace, len(trace.nodes) - 1, wrt))
    said = f'<b>Done.</b> {out}: the forward pass’s tangent and the backward pass’s grad are {agrees(tangent, grad)}.'
    return f'<p>{said}</p>' + table.to_html(index=False, escape=True, border=0, classes='check')


def costs(trace, params=()):
    """What getting grads costs each way on this graph, as a table (pandas), a row per count and a column per way
    (narrow enough for a phone): the passes and the local-gradient multiplications for every input's grad, and for
    the parameters' (`params`, their names) where the graph has some. One multiplication per op input a pass: forward
    mode's local gradient × the tangent coming in, the backward pass's local gradient × out.grad."""
    n = forward.counts(trace)
    rows = [('every input’s grad', n.inputs)] + ([('the parameters’ grads', len(params))] if params else [])
    counts = []
    for what, many in rows:
        counts += [
            (f'passes for {what} ({many:,})', many, 1),
            ('multiplications', many * n.edges, n.edges),
        ]
    return pd.DataFrame(
        {
            'to get': [what for what, _, _ in counts],
            'forward mode': [f'{f:,}' for _, f, _ in counts],
            'backward pass': [f'{b:,}' for _, _, b in counts],
        }
    )


def costs_words(trace, params=()):
    """The count in words: why training runs backward, and when forward mode would win."""
    n = forward.counts(trace)
    many = len(params) or n.inputs
    what = f'the {len(params)} parameters’ grads' if params else f'the {n.inputs} inputs’ grads'
    if many == 1:
        what = 'the one input’s grad'
    edges = f'{n.edges:,} op input{"s" if n.edges != 1 else ""}'
    said = (
        f'One forward-mode pass gives the derivative by one input, multiplying a local gradient by a tangent at each '
        f'of the graph’s {edges}: {what} take {many:,} pass{"es" if many != 1 else ""}, '
        f'{many * n.edges:,} multiplications. One backward pass gives every input’s grad at once, with '
        f'{n.edges:,} multiplications. (Counted as a plain pass runs: every multiplication, a zero tangent’s too.) '
    )
    if many > 1:
        said += 'So training, one loss and many parameters, runs backward. '
    return said + (
        'Forward mode wins the other way round: one input and many outputs (every point of a curve, by one '
        'setting) is one forward pass, and a backward pass per output.'
    )


def shown_product(path):
    """A path's product as its table writes it, with '≈' where the local gradients as shown do not multiply out to
    it (numbers.equals)."""
    sign = product_sign(path.product, *path.local_grads)
    return number(path.product) if sign == '=' else f'≈ {number(path.product)}'


def path_name(trace, path):
    """The values along a path, an op that uses a value twice with the use it goes through: 'a → a*a (use 2) → out'."""
    names = [trace.nodes[path.nodes[0]].name]
    for before, op, slot in zip(path.nodes, path.nodes[1:], path.slots):
        twice = trace.nodes[op].children.count(before) > 1
        names.append(f'{trace.nodes[op].name} (use {slot + 1})' if twice else trace.nodes[op].name)
    return ' → '.join(names)


def paths_text(trace, wrt):
    """The chain rule as a sum over paths: (a table of the paths listed, one row each: the values along it, its
    local gradients and their product; the words under it: how many paths, and that their products sum to the
    output's tangent). None for a graph past PATHS_UP_TO."""
    if len(trace.nodes) > PATHS_UP_TO:
        return None
    found = forward.paths(trace, wrt, MAX_PATHS)
    table = pd.DataFrame(
        {
            'path': [path_name(trace, p) for p in found.shown],
            'local gradients': [' × '.join(number(g) for g in p.local_grads) for p in found.shown],
            'product': [shown_product(p) for p in found.shown],
        }
    )
    tangent = forward.tangents(trace, wrt)[-1]
    out, by = partial(trace, len(trace.nodes) - 1, wrt), trace.nodes[wrt].name
    if found.count == 0:
        return table, f'No path leads from {by} to the output: {out} = 0.'
    ways = f'{found.count:,} path{"s" if found.count != 1 else ""}'
    if len(found.shown) < found.count:
        listed = f'The first {len(found.shown)} of the {ways} from {by} to the output are listed. '
        summed = f'Their products, over all {ways}, sum to'
    else:
        listed = f'The {ways} from {by} to the output, each use of a value a path of its own. '
        total = math.fsum(p.product for p in found.shown)
        summed = f'Their products sum to {number(total)}:'
    return table, f'{listed}{summed} {out} = {number(tangent)}, the chain rule’s sum over paths.'
