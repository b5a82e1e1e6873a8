"""Forward mode's own parts, built with no Streamlit: the check at its last frame (the output's tangent beside the
backward pass's grad and a finite difference), what getting every grad costs each way, and the chain rule as a sum
over the paths from the input to the output. The frames themselves are drawn as every mode's are (view/graph.py,
view/explanation.py read a frame's tangents from engine/forward.py)."""

import html
import math

import pandas as pd

from engine import forward
from view.explanation import agrees, partial
from view.numbers import flushed, fmt_all, needs_e, number, product_sign
from view.summary import untrusted

PATHS_UP_TO = 60  # values: a graph this small has its paths listed; a bigger one, its count of paths alone
MAX_PATHS = 12  # the paths listed at most: past them the page says how many more there are


def summary_html(trace, wrt, numeric, params=()):
    """At the last frame: the output's tangent, the backward pass's grad of the same input, and the central finite
    difference (`numeric`, {input name: difference}; None where it is not worked out); then what getting every
    input's grad, and the parameters' (`params`, their names) where the graph has some, costs each way (costs_html).
    Every text escaped."""
    name, by = trace.nodes[-1].name, trace.nodes[wrt].name
    tangent, grad = forward.tangents(trace, wrt)[-1], trace.final_grads()[wrt]
    check = numeric.get(by) if numeric is not None else None
    shown = fmt_all([flushed(x) for x in (tangent, grad, check) if x is not None])  # one style, as every check's
    rows = {'forward mode: the output’s tangent': shown[0], f'backward pass: {by}.grad': shown[1]}
    if check is not None:  # where its own error cannot tell right from wrong, it says so (view/summary.py)
        why = math.isfinite(grad) and math.isfinite(check) and untrusted(check, grad, needs_e([grad, check]))
        rows['finite difference'] = why or shown[2]
    table = pd.DataFrame({'way': list(rows), f'∂{name}/∂{by}': list(rows.values())})
    out = html.escape(partial(trace, len(trace.nodes) - 1, wrt))
    said = f'<b>Done.</b> {out}: the forward pass’s tangent and the backward pass’s grad are {agrees(tangent, grad)}.'
    check = table.to_html(index=False, escape=True, border=0, classes='check')
    return f'<p>{said}</p>{check}{costs_html(trace, params)}'  # what each way costs, open where the pass ends


def costs_html(trace, params=()):
    """What each way costs (costs, costs_words), open at the last frame under the check, at the body's size (the
    player's tables are smaller)."""
    table = costs(trace, params).to_html(index=False, escape=True, border=0, classes='costs')
    table = table.replace('<table ', '<table style="font-size: 1rem" ', 1)
    words = html.escape(costs_words(trace, params))
    title = '<b>Why backprop runs backward: what each way costs</b>'
    return f'<p style="margin-top: 1rem">{title}</p>{table}<p>{words}</p>'


def costs(trace, params=()):
    """What getting grads costs each way on this graph, as a table (pandas), a row per count and a column per way
    (narrow enough for a phone), for every input's grad and, where the graph has some, the parameters' (`params`,
    their names). Both ways in full: reverse mode's forward pass (every op's data, every value's kept for the backward
    pass) and its backward pass (a local-gradient multiplication an op input); forward mode's pass per input, each
    computing every op's data and tangent (a multiplication an op input) and keeping nothing for a later pass."""
    n = forward.counts(trace)
    rows = [('every input’s grad', n.inputs)] + ([('the parameters’ grads', len(params))] if params else [])
    counts = []
    for what, many in rows:
        counts += [
            (f'passes for {what} ({many:,})', f'{many:,} forward', '1 forward + 1 backward'),
            ('ops computed (data)', f'{many * n.ops:,}', f'{n.ops:,}'),
            ('multiplications by a local gradient', f'{many * n.edges:,}', f'{n.edges:,}'),
        ]
    counts.append(('values kept for a later pass', '0', f'{n.values:,}'))
    return pd.DataFrame(
        {
            'to get': [what for what, _, _ in counts],
            'forward mode': [f for _, f, _ in counts],
            'reverse mode (backprop)': [b for _, _, b in counts],
        }
    )


def costs_words(trace, params=()):
    """The counts in words: what each way does and keeps, why training runs backward, and when forward mode wins."""
    n = forward.counts(trace)
    many = len(params) or n.inputs
    what = f'the {len(params)} parameters’ grads' if params else f'the {n.inputs} inputs’ grads'
    if many == 1:
        what = 'the one input’s grad'
    ops, edges = _many(n.ops, 'op'), _many(n.edges, 'op input')
    said = (
        f'Reverse mode, backprop, runs the forward pass once, computing the data of the graph’s {ops}, and keeps '
        f'every value’s data ({n.values:,} numbers) until the backward pass, which multiplies out.grad by a local '
        f'gradient at each of the {edges}: two passes give every input’s grad at once. Forward mode keeps nothing for '
        f'later: each pass carries every value’s data and its tangent forward together, multiplying a tangent by a '
        f'local gradient at each op input, and gives the derivative by one input. So {what} take'
        f'{"s" if many == 1 else ""} {_many(many, "forward-mode pass")}: {_many(many * n.ops, "op")} computed and '
        f'{_many(many * n.edges, "multiplication")}, against reverse mode’s {n.ops:,} and {n.edges:,}. These counts '
        f'include every '
        f'multiplication a pass does, even by a tangent of 0 (an input the pass is not following): simple code does '
        f'not skip them. '
    )
    if many > 1:
        said += 'So training, one loss and many parameters, runs backward, and pays for it in memory. '
    return said + (
        'Forward mode wins the other way round: one input and many outputs (every point of a curve, by one '
        'setting) is one forward pass, and a backward pass per output.'
    )


def _many(count, word):
    """'5 ops', '1 op', '2 forward-mode passes'."""
    return f'{count:,} {word}{("es" if word.endswith("s") else "s") if count != 1 else ""}'


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
