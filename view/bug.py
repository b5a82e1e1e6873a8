"""The `=` bug beside `+=`: the same graph run on engine.assign, whose `_backward` assigns each grad instead of adding
to it. What the page adds to that trace's frames: the contribution an assignment threw away (marked lost on its
edge, named in the explanation), each grad beside what `+=` gives at the same frame (a final grad that differs has
a look of its own on the graph), and at the end which inputs' grads are wrong next to the finite-difference check."""

import html
import math

import pandas as pd

from engine import PRESETS
from engine.frames import grads_at
from engine.ieee import same
from view.explanation import owner, shown
from view.graph import lost
from view.node_table import STATE_WORDS as TABLE_WORDS
from view.numbers import flushed, fmt_all, needs_e, number
from view.summary import CHECK, UNDEFINED, untrusted

# its parts beside the right trace, as view/modes.py names them: the node table's column of what += gives at the same
# frame; on the `=` engine a grad still to be written is not to be added to (each write replaces the last), and a
# final grad can be wrong (graph.wrong_grads), as its box shows (the legend has the looks the frames draw:
# graph.legend_keys); a grad that differs from += while more writes are to come is not drawn wrong: that is the bug
# at work, each step's loss named
COLUMN = 'grad with +='
STATE_WORDS = {**TABLE_WORDS, 'accumulating': 'has more = to come', 'wrong': 'is final but wrong: += gives another'}
EVERY_FRAME = False


def reused(trace):
    """The values used more than once (by two ops, or twice by one, as in a*a): the only grads `=` can get wrong."""
    uses = [0] * len(trace.nodes)
    for node in trace.nodes:
        for child in node.children:
            uses[child] += 1
    return [i for i, n in enumerate(uses) if n > 1]


def no_reuse_note(trace):
    """Why `=` gives the right grads on this graph, or '' where it does not."""
    if reused(trace):
        return ''
    return (
        'No value in this graph is used twice, so every grad is written exactly once, and `=` writes what `+=` '
        'would have added to 0: every grad comes out right. The bug shows only where a value is reused: try '
        f'"{PRESETS["reuse"].menu}" or "{PRESETS["a_plus_a"].menu}".'
    )


BUG_NOTE = (
    'The same backward pass with one slip: every `_backward` writes `x.grad = …` where micrograd writes '
    '`x.grad += …`. A value used twice keeps only its last use’s contribution. At the step where `=` throws one '
    'away, the caption says how much, and the box whose grad it wrote over has a thick dashed border (where the edges '
    'carry their sums, the dashed edge it came along says `✗ lost`); a final grad that came out wrong (`+=` gives '
    'another) is lilac with a dotted border; the table puts what `+=` gives beside each grad, in bold where they '
    'differ.'
)  # to a student: what runs and how to read it, not which files hold it; only what every shape of the graph draws


def frame_texts(trace, right, frames, labels, mistakes):
    """(what each frame's caption adds, the explanation parts it adds, the frames the slider marks: none)."""
    return [bug_caption(trace, f) for f in frames], [bug_parts(trace, right, f) for f in frames], []


def bug_caption(trace, frame):
    """What the caption adds where `=` throws a contribution away: ' · = throws away a.grad's 3.0000' (or '?',
    where no frame has shown it yet: Frame.unseen)."""
    thrown = [
        f'{owner(trace.nodes[c.child].name)}.grad’s ' + shown(trace.steps[k].contributions[j].amount, frame.unseen(k))
        for (k, j), c in lost(trace, frame)
    ]
    return f' · = throws away {", ".join(thrown)}' if thrown else ''


def bug_parts(trace, right, frame):
    """Explanation parts (view.explanation's form) for `frame` of the `=` trace: what was lost here, and
    the grads that differ from `+=`'s at this frame. A grad the frame hides is neither given (what `=` wrote, what
    `+=` would have) nor said to differ."""
    hidden = frame.hidden
    parts = lost_parts(trace, right, frame)
    if frame.kind in ('backward', 'seed'):
        wrong, ok = grads_at(trace, frame), grads_at(right, frame)
        differ = [i for i, (g, r) in enumerate(zip(wrong, ok)) if g is not None and i not in hidden and not same(g, r)]
        visible = ' shown' if hidden else ''
        if differ:
            rows = [[('c', f'{owner(trace.nodes[i].name)}.grad'), ('', ': = gives '), ('b', number(wrong[i])),
                     ('', ', += gives '), ('b', number(ok[i]))] for i in differ]  # fmt: skip
            parts += [('p', [('b', 'Beside +=: '), ('', f'the grads{visible} that differ so far.')]), ('list', rows)]
        elif frame.kind == 'backward':
            parts.append(('p', [('b', 'Beside +=: '), ('', f'every grad{visible} so far is what += gives.')]))
    return parts


def lost_parts(trace, right, frame):
    """For each contribution an `=` at `frame` throws away (on the `=` engine, or in a student's body): what it
    replaced, and what the grad would be with += (`right`'s, the right engine's, at this frame)."""
    parts = []
    for (k, j), c in lost(trace, frame):
        earlier = trace.steps[k]
        thrown = earlier.contributions[j]
        child = owner(trace.nodes[c.child].name)
        by = trace.nodes[earlier.node].name
        line = 'its first line' if j == 0 else f'its line {j + 1}'  # a student's body may throw away any of its own
        same = f' (this same step, {line})' if k == frame.steps_done - 1 else ''
        should = right.grads(frame.steps_done)[c.child]  # the same frame on the += engine
        asked = c.child in frame.hidden
        said = [
            ('b', '= threw a contribution away. '), ('c', f'{child}.grad = …'),
            ('', f' replaced {shown(thrown.amount, frame.unseen(k))}, which {by}’s _backward had put '
                 f'there{same}, with {shown(c.amount, asked)}. With '), ('c', '+='),
            ('', f' it would have added to it, and {child}.grad would be {shown(should, asked)} after this step.'),
        ]  # fmt: skip
        parts.append(('p', said))
    return parts


def bug_check(trace, right, numeric, named=('grad with =', 'grad with +=', '= is'), agrees='+='):
    """Each input's grad with `=` and with `+=`, beside the finite difference that says which is right, all numbers in
    one style. `named`: the columns of the two grads and the verdict; `agrees`: what the verdict says a wrong grad's
    difference agrees with (view/exercise.py names them for a student's bodies and the right engine). A grad is wrong
    where the grader says so, at 9 decimals (engine/grader.py); the difference is said to agree with `agrees` only
    where its own error tells the two grads apart, and is shown only where that error is small (summary.untrusted)."""
    output_finite = math.isfinite(trace.nodes[-1].data)
    pairs = [(node.name, w, r) for node, w, r in zip(trace.nodes, trace.final_grads(), right.final_grads())
             if node.is_input]  # fmt: skip
    e = needs_e([flushed(g) for _, w, r in pairs for g in (w, r)])
    rows = []
    for name, w, r in pairs:
        d = numeric.get(name, math.nan)
        why = untrusted(d, r, e)
        error = getattr(d, 'error', 0.0)
        if not (output_finite and math.isfinite(r)):
            check = verdict = UNDEFINED
        else:
            check = why or fmt_all([flushed(d)], e)[0]
            if same(round(w, 9), round(r, 9)):
                verdict = 'right'
            elif not why and abs(d - r) <= error and not abs(d - w) <= error:  # w may be nan
                verdict = f'WRONG: the finite difference agrees with {agrees}'
            else:
                verdict = f'WRONG: {agrees} gives another; the finite difference cannot tell which is right here'
        shown = fmt_all([flushed(w), flushed(r)], e)
        if verdict.startswith('WRONG') and shown[0] == shown[1]:  # apart past the digits shown: as the grader says them
            verdict += f' ({round(w, 9)!r} against {round(r, 9)!r}, at the 9 decimals the grader rounds to)'
        rows.append((name, *shown, check, verdict))
    columns = ['input', named[0], named[1], 'finite difference', named[2]]
    return pd.DataFrame({column: [row[j] for row in rows] for j, column in enumerate(columns)})


def summary_html(trace, right, numeric, mistakes=(), verdicts=()):
    """At the end: the check as HTML, every cell escaped, and a line on what it shows."""
    table = bug_check(trace, right, numeric)
    wrong = [name for name, verdict in zip(table['input'], table['= is']) if verdict.startswith('WRONG')]
    if wrong:
        said = f'With = the grads of {", ".join(wrong)} are wrong: each kept only its last use’s contribution.'
    else:
        said = no_reuse_note(trace).replace('`', '') or 'With = every input’s grad came out right here.'
    intro = f'<p><b>Done.</b> {html.escape(said)} {html.escape(CHECK)}</p>'
    return intro + table.to_html(index=False, escape=True, border=0, classes='check')
