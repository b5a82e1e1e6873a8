"""Your `_backward` (mode=code): the student's own bodies for `+`, `×` and `tanh` (engine/exercise.py) run on the
graph, beside the right engine. What the page adds to that trace's frames: the first frame where a grad of theirs
differs from the right one, marked in the caption and on the slider; there, what their line did against what the
chain rule asks, in a student's words; at every step, the grads that differ so far; at the end, each input's grad
beside the right one and the finite difference. Plain data and escaped HTML, as the explanation's."""

import ast
import html
import math
import re
from types import SimpleNamespace

from engine import diagnosis, exercise, ops, sandbox
from engine.code import INPUTS, backward_source, grad_writes
from engine.frames import grads_at
from engine.ieee import same_grad
from engine.local_grads import right_entries
from view.bug import bug_check, lost_parts
from view.explanation import owner, scope
from view.node_table import STATE_WORDS as TABLE_WORDS
from view.numbers import equals, number
from view.worked import Unreadable, factor, shown_scope, worked, write

NAMES = {op: name for name, op in exercise.OPS.items()}  # '+' -> 'add'
# its parts beside the right trace, as view/modes.py names them: the node table's column of the right engine's grads,
# and a grad of theirs that is not the right one at a frame is wrong there, whether final or not
COLUMN = 'right grad'
STATE_WORDS = {**TABLE_WORDS, 'wrong': 'is wrong: the right engine gives another'}
EVERY_FRAME = True


def differing(trace, right, frame):
    """The nodes whose grad at `frame` is not the right engine's (one not written where the right one adds a number to
    its 0.0, too; but not where it adds 0: the grad is the same 0, engine.ieee.same_grad)."""
    yours, ok = grads_at(trace, frame), grads_at(right, frame)
    return [i for i, (g, r) in enumerate(zip(yours, ok)) if not same_grad(g, r)]


def first_difference(trace, right, frames):
    """The index of the first frame where a grad of theirs differs from the right one, or None."""
    return next((k for k, f in enumerate(frames) if f.kind == 'backward' and differing(trace, right, f)), None)


def frame_texts(trace, right, frames, labels, mistakes):
    """(what each frame's caption adds, the explanation parts it adds, the frames the slider marks): the first frame
    where a grad of theirs differs from the right one is marked, and there what their `mistakes` (engine.exercise
    .diagnose's) are is said. `labels`: each frame's 'Frame 7 of 10' as the page counts them."""
    first = first_difference(trace, right, frames)
    parts = [code_parts(trace, right, frame=f, first_here=k == first, mistakes=mistakes) for k, f in enumerate(frames)]
    return [code_caption(k, first, labels) for k in range(len(frames))], parts, [] if first is None else [first]


def code_caption(k, first, labels):
    """What each frame's caption adds: ' · first difference: Frame 7' (labels[first] says it as the page counts)."""
    if first is None:
        return ''
    if k == first:
        return ' · ✗ first difference from the right engine'
    return f' · first difference: {labels[first].lower()}'


def mistakes_at(trace, step, mistakes):
    """The mistakes (engine.diagnosis.Mistake) of the body this step runs, for the inputs it has."""
    node = trace.nodes[step.node]
    name = NAMES.get(node.op)
    return [m for m in mistakes if m.name == name and INPUTS.index(m.target) < len(node.children)]


def _local(line, code):
    """What a line multiplies out.grad by, by name and with its numbers: 'b.data = −2.0000'; or its whole E."""
    e = factor(line)
    e = e if e is not None else line.value
    if isinstance(line, ast.AugAssign) and isinstance(line.op, ast.Sub):
        e = ast.UnaryOp(ast.USub(), e)  # `-=` adds minus what it names: 'a.data' is −3 where a.data is 3
    return _worked(e, code)


def _worked(e, code):
    """A local gradient `e` (ast) by name and with its numbers: 'b.data = −2.0000'; else as written."""
    try:
        by_name, numbers = write(e, code)
    except Unreadable:
        return ast.unparse(e)
    x = sandbox.evaluate(e, _numbers(code))
    return worked(by_name, numbers, number(x), last=equals(x, sandbox.evaluate(e, _numbers(shown_scope(code)))))


def _numbers(code):
    """The scope as engine.sandbox.evaluate reads it: the Values' data and out's grad, and what the closure holds."""

    def value(role):
        return SimpleNamespace(
            data=code.data.get((role, 'data'), math.nan), grad=code.data.get((role, 'grad'), math.nan)
        )

    return {'self': value('self'), 'other': value('other'), 'out': value('out'), **code.held}


def mistake_parts(trace, step, mistakes):
    """At the first difference: for each input whose line is wrong, what the student's line did against what the chain
    rule asks, and the class of mistake, in a student's words; where the body waits, refused by the sandbox
    (engine/bodies.py), that it cannot run yet."""
    node = trace.nodes[step.node]
    code = scope(trace, step)
    symbol = ops.symbol(node.op)
    method = exercise.METHODS.get(NAMES.get(node.op), '')
    said_op = symbol if symbol == method else f'{symbol} ({method})'  # '× (__mul__)', 'tanh'
    grads = getattr(trace.backward_fn(step.node), 'grads', None)  # microgpt's form (engine/local_grads.py)
    if grads is not None:
        return tuple_parts(trace, step, mistakes, grads, said_op)
    if getattr(trace.backward_fn(step.node), 'waits', False):  # refused by the sandbox: it never ran (engine/bodies.py)
        said = 'Until it can, it passes nothing back to its inputs, and the graph runs your other bodies around it.'
        return [('p', [('b', f'First difference: your {said_op} cannot run yet (its error is under its box). '),
                       ('', said)])]  # fmt: skip
    parts = []
    for m in mistakes_at(trace, step, mistakes):
        child = owner(trace.nodes[node.children[INPUTS.index(m.target)]].name)
        right = exercise.right_lines(node.op)[INPUTS.index(m.target)]
        yours = [s for slot, _, s in grad_writes(trace.backward_fn(step.node)) if INPUTS[slot] == m.target]
        runs = [('b', f'First difference: your {said_op}, for {m.target} = {child}. ')]
        if m.kind in ('pass', 'missing'):
            runs += [('', f'Your _backward never writes {m.target}.grad, so {child}.grad gets nothing from '
                          f'{node.name}. The chain rule asks for '), ('c', ast.unparse(right)),
                     ('', f': local gradient {_local(right, code)}.')]  # fmt: skip
        else:
            source = backward_source(trace.backward_fn(step.node))  # each line as typed: `self.grad += local`
            said = ', then '.join(f'`{ast.get_source_segment(source, s) or ast.unparse(s)}`' for s in yours)
            runs += [('', 'Your line '), ('c', said.strip('`')), ('', f' gives {child} the local gradient '),
                     ('c', _local(yours[-1], code)), ('', f'; the local gradient of {node.name} for {child} is '),
                     ('c', _local(right, code)), ('', ', as '), ('c', ast.unparse(right)),
                     ('', ' has it.')]  # fmt: skip
        runs += [('br', ''), ('b', 'What went wrong: '), ('', diagnosis.MISTAKES[m.kind] + '.')]
        parts.append(('p', runs))
    return parts


def tuple_parts(trace, step, mistakes, grads, said_op):
    """mistake_parts in microgpt's form: for each input whose local_grads entry is wrong, what it gave against the
    right entry (read off value.py's line), and the slip, in a student's words; where the tuple waits, that it cannot
    run yet."""
    if getattr(grads, 'waits', False):
        said = 'Until they can, the loop passes nothing back from it, and the graph runs your other tuples.'
        return [('p', [('b', f'First difference: your {said_op}’s local_grads cannot run yet (its error is under its '
                             'box). '), ('', said)])]  # fmt: skip
    node, code, parts = trace.nodes[step.node], scope(trace, step), []
    for m in mistakes_at(trace, step, mistakes):
        slot = INPUTS.index(m.target)
        child = owner(trace.nodes[node.children[slot]].name)
        right = right_entries(node.op)[slot]
        runs = [('b', f'First difference: your {said_op}’s local_grads, for {m.target} = {child}. ')]
        if slot >= len(grads.entries):
            runs += [('', f'Your tuple has no entry for {m.target}: zip stops at the shorter, so {child}.grad gets '
                          f'nothing from {node.name}. Its local gradient is '), ('c', _worked(right, code)),
                     ('', ', the right entry, '), ('c', ast.unparse(right)), ('', '.')]  # fmt: skip
        else:
            runs += [('', 'Your entry '), ('c', m.yours[0]), ('', f' gives {child} the local gradient '),
                     ('c', _worked(grads.entries[slot], code)),
                     ('', f'; the local gradient of {node.name} for {child} is '), ('c', _worked(right, code)),
                     ('', ', the right entry, '), ('c', ast.unparse(right)), ('', '.')]  # fmt: skip
        runs += [('br', ''), ('b', 'What went wrong: '), ('', m.words + '.')]
        parts.append(('p', runs))
    return parts


def code_parts(trace, right, frame, first_here, mistakes):
    """Explanation parts (view.explanation's form) added at `frame` of the student's trace: at the first difference,
    what went wrong; at each backward step, the grads that differ from the right engine's so far. A grad
    the frame hides is neither given nor said to differ."""
    parts = []
    step = trace.steps[frame.steps_done - 1] if frame.kind == 'backward' else None
    op = trace.nodes[step.node].op if step is not None else ''
    if op and op not in NAMES:  # the exercise has three ops: the others are the engine's own
        said = f'{ops.symbol(op)} runs the engine’s own _backward, above, not one of yours.'
        parts.append(('p', [('b', 'Not part of the exercise: '), ('', said)]))
    parts += lost_parts(trace, right, frame)
    if first_here and step is not None:
        parts += mistake_parts(trace, step, mistakes)
    if frame.kind != 'backward':
        return parts
    hidden = frame.hidden
    yours, ok = grads_at(trace, frame), grads_at(right, frame)
    differ = [i for i in differing(trace, right, frame) if i not in hidden]
    if differ:
        rows = [[('c', f'{owner(trace.nodes[i].name)}.grad'), ('', ': yours '), ('b', number(yours[i])),
                 ('', ', right '), ('b', number(ok[i]))] for i in differ]  # fmt: skip
        parts += [('p', [('b', 'Beside the right engine: '), ('', 'the grads that differ so far.')]), ('list', rows)]
    else:
        parts.append(('p', [('b', 'Beside the right engine: '), ('', 'every grad so far is the right one.')]))
    return parts


def summary_html(trace, right, numeric, mistakes=(), verdicts=()):
    """At the end: each input's grad from the student's bodies and from the right engine, beside the finite
    difference, as HTML, every cell escaped; first, what it shows, never against the grader: where this graph's grads
    are right and the grader's `verdicts` (engine/grader.py) are not, it says so at once; and each slip of `mistakes`
    (engine.diagnosis.Mistake) in a student's words, with the line to write."""
    table = bug_check(
        trace, right, numeric=numeric, named=('your grad', 'right grad', 'yours is'), agrees='the right engine'
    )
    wrong = [name for name, verdict in zip(table['input'], table['yours is']) if verdict.startswith('WRONG')]
    tuples = _tuples(trace)
    said = html.escape(_graph_said(wrong, verdicts, mistakes, tuples))
    slips = ''.join(f'<li>{slip_html(m, tuples)}</li>' for m in mistakes)
    slips = f'<ul>{slips}</ul>' if slips else ''
    return f'<p><b>Done.</b> {said}</p>{slips}' + table.to_html(index=False, escape=True, border=0, classes='check')


SHOW_WHERE = 'Show me where it fails'  # components/code.py's button: the smallest graded expression that fails


def _graph_said(wrong, verdicts, mistakes, tuples):
    """The summary's first sentence: this graph's grads, and the grader's verdicts beside them."""
    yours = 'tuples' if tuples else 'bodies'
    failing = [v.expression for v in verdicts if v.wrong]
    waits = [v.expression for v in verdicts if v.waits]
    if wrong:
        return f'Your {yours} give wrong grads for {", ".join(wrong)}.'
    if failing:
        where = ' where a value is used twice' if any(m.kind == 'assign' for m in mistakes) else ''
        return (
            f'Every input’s grad is right on this graph, but your {yours} are wrong{where}: the grader finds them '
            f'wrong on {listed(failing)}. To watch it fail step by step, press “{SHOW_WHERE}” under the graph.'
        )
    if waits:
        return f'Every input’s grad is right on this graph; the grader waits for your {listed(waits)} to run.'
    if verdicts:
        return (
            f'Every input’s grad is right, and the grader finds your {yours} right on all {len(verdicts)} of its '
            'expressions.'
        )
    return 'Every input’s grad is right.'


def listed(items, word='and'):
    """'a', 'a and b', 'a, b and c' (or another `word`: 'a, b or c')."""
    return items[0] if len(items) == 1 else f'{", ".join(items[:-1])} {word} {items[-1]}'


def slip_html(mistake, tuples=False):
    """One slip, escaped: where (the method, and its line for an input, or microgpt's entry), what went wrong in a
    student's words (diagnosis.MISTAKES, local_grads.MISTAKES), and the right line to write."""
    method = html.escape(exercise.METHODS[mistake.name])
    right = html.escape(mistake.right)
    if tuples:
        where = f'In <code>{method}</code>’s local_grads, the entry for {html.escape(mistake.target)}'
        fix = f'The right entry: <code>{right}</code>.'
    else:
        where = f'In <code>{method}</code>, the line for <code>{html.escape(mistake.target)}.grad</code>'
        fix = f'Write <code>{right}</code>.'
    return f'{where}: {_as_code(mistake.words)}. {fix}'


# in a slip's words, what a student types: `pass`, =, +=, -=, out.grad, out.data, in a code font
TYPED = re.compile(r'`([^`]+)`|(?<![\w.=+-])(\+=|-=|=|out\.grad|out\.data)(?![\w=])')


def _as_code(words):
    """`words`, escaped, with what a student types in <code>."""
    return TYPED.sub(lambda m: f'<code>{m.group(1) or m.group(2)}</code>', html.escape(words, quote=False))


def _tuples(trace):
    """Whether the trace ran a student's local_grads (microgpt's form): its closures say (engine/local_grads.py)."""
    return any(getattr(trace.backward_fn(i), 'grads', None) is not None for i in range(len(trace.nodes)))
