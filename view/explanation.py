"""The current frame in words and numbers: the op's own _backward lines, with the values plugged in (the local
gradients' arithmetic read from the code by view/worked.py).

explain() says it as plain data: a list of parts, ('p', runs), ('code', text) or ('list', [runs, ...]),
where runs are [(style, text)] with style '' (plain), 'b' (bold), 'c' (code) or 'br' (a line break).
explanation_html() is the one place that turns it into markup, escaping every text, so a name a student
typed is printed, never rendered. The player sends each frame's HTML to the browser once; the exports and the
slides' notes take the plain text (plain_text).
"""

import ast
import html
import re

from engine import Value, answers, exercise, forward, ops
from engine.code import backward_source, grad_writes, shown_source
from engine.frames import grad_at
from engine.ieee import same
from view.graph import LOST_MARK, plus_equals_grads, wrong_grads
from view.numbers import HIDDEN, as_shown, equals, number, product_sign
from view.worked import (
    INPUTS,
    Scope,
    Unreadable,
    ends,
    factor,
    local_gradient,
    made,
    owner,
    passes_through,
    where,
    write,
)


def node_formula(trace, i, numbers=False):
    """How node i is computed from its inputs, written by engine.ops.formula (the one way an op is written): by name
    ('a*b + a*a', 'x1 × w1') or with their data ('3.0000 × (−2.0000)')."""
    node = trace.nodes[i]
    args = [number(trace.nodes[c].data) if numbers else trace.nodes[c].name for c in node.children]
    return ops.formula(node.op, args, pretty=True)


def forward_sign(trace, i):
    """'=' or '≈' before node i's data where a forward line writes its inputs' numbers ('3.0000 × (−2.0000) =
    −6.0000'): the op run again on the engine's own Value, on those numbers as shown (numbers.equals)."""
    node = trace.nodes[i]
    args = [Value(as_shown(trace.nodes[c].data)) for c in node.children]
    try:
        out = ops.apply(node.op, args)
    except (ArithmeticError, ValueError):
        return '≈'  # not worked out again: not said to be exact
    return equals(node.data, out.data)


def captured_numbers(fn):
    """The numbers the closure closed over in the forward pass, e.g. t = tanh(n)."""
    cells = zip(fn.__code__.co_freevars, fn.__closure__ or ())
    return {name: cell.cell_contents for name, cell in cells if isinstance(cell.cell_contents, (int, float))}


def shown(x, hidden):
    return HIDDEN if hidden else number(x)


# a _backward's line that writes a grad: with += (engine.value), = (engine.assign, the bug), or a student's -=
GRAD_WRITE = re.compile(r'\.grad\s*[-+]?=\s*')
TIMES = f' {ops.OPS["*"].text} ', f' {ops.OPS["*"].pretty} '  # the code's * as the page writes it


def scope(trace, step):
    """What the op's code at this step refers to (view.worked.Scope): the graph's names and numbers, the closure's."""
    node = trace.nodes[step.node]
    fn = trace.backward_fn(step.node)
    names = {'out': node.name, **{k: trace.nodes[c].name for k, c in zip(INPUTS, node.children)}}
    data = {('out', 'data'): node.data, ('out', 'grad'): step.out_grad}
    data.update({(k, 'data'): trace.nodes[c].data for k, c in zip(INPUTS, node.children)})
    argument = float(ops.exponent(node.op)) if ops.op_of(node.op) is ops.OPS['**'] else None
    return Scope(names, data, captured_numbers(fn), argument)


def local_gradient_runs(trace, step, hidden=frozenset(), right=None, passing=True):
    """Per contribution, the local gradient for that input as runs: the words, then its arithmetic as code, e.g.
    [('', 'local gradient for n: '), ('c', '1 − t² = 1 − 0.7071² = 0.5000')]. Into a grad in `hidden` it is asked
    for, as the grad is: [('', 'local gradient for n: '), ('c', '?')] (even where the op passes its grad through).
    `right`: beside a student's bodies, the right engine's trace: each line's local gradient is said to be the line's,
    and where the line is its input's only one and gives another than the chain rule's, the chain rule's stands
    beside it (right_local). Without `passing` (forward mode, where no grad is passed), an op that passes its grad
    through says its local gradient alone: [('', 'local gradient for b: '), ('c', '1')]."""
    node, fn = trace.nodes[step.node], trace.backward_fn(step.node)
    code = scope(trace, step)
    right = right if node.op in exercise.OPS.values() else None  # the other ops run the engine's own lines
    out = []
    for j, c in enumerate(step.contributions):
        child = trace.nodes[c.child].name
        uses = node.children.count(c.child)
        if uses > 1:
            child = f'{child} (its use {c.slot + 1} of {uses})'
        sign = passes_through(fn, j)
        said = f'local gradient for {child}' if right is None else f'your line’s local gradient for {child}'
        if c.child in hidden:
            out.append([('', f'local gradient for {child}: '), ('c', HIDDEN)])
            continue
        if sign is None:  # an op's code the page cannot write out: its number alone
            runs = [('', f'{said}: '), ('c', local_gradient(fn, j, code, c.local_grad) or number(c.local_grad))]
        elif not passing:  # forward mode: no grad is passed here
            runs = [('', f'{said}: '), ('c', '1' if sign > 0 else '−1')]
        else:
            negated = '' if sign > 0 else ', negated'
            runs = [('', f'passes the grad through to {child}{negated}: {said.replace(f" for {child}", "")} '),
                    ('c', '1' if sign > 0 else '−1')]  # fmt: skip
        out.append(runs + (right_local(trace, right, step, j) if right is not None else []))
    return out


def right_local(trace, right, step, j):
    """Runs that say the chain rule's local gradient beside a student's line j of `step` where it is that input's only
    line and gives another: [('', ', wrong: the chain rule’s is '), ('c', 'b.data = −2.0000')]; else none. `right`:
    the right engine's trace of the same graph, which writes each input once."""
    c = step.contributions[j]
    if sum(other.slot == c.slot for other in step.contributions) > 1:
        return []  # lines that each give a part: the grads beside the right engine's say whether the whole is right
    k = trace.output - step.node
    ok = next((r for r in right.steps[k].contributions if r.slot == c.slot), None)
    if ok is None or same(ok.local_grad, c.local_grad):
        return []
    fn = right.backward_fn(step.node)
    r = right.steps[k].contributions.index(ok)
    sign = passes_through(fn, r)
    text = '1' if sign == 1 else '−1' if sign == -1 else None
    text = text or local_gradient(fn, r, scope(right, right.steps[k]), ok.local_grad) or number(ok.local_grad)
    return [('', ', wrong: the chain rule’s is '), ('c', text)]


def local_gradient_lines(trace, step, hidden=frozenset(), right=None):
    """One line per contribution: the local gradient for that input, with its numbers (plain text), e.g.
    'local gradient for n: 1 − t² = 1 − 0.7071² = 0.5000' or 'passes the grad through to x1: local gradient 1'.
    `right`: beside a student's bodies, the right engine's trace (local_gradient_runs)."""
    return [''.join(text for _, text in runs) for runs in local_gradient_runs(trace, step, hidden, right)]


def chain_rule_lines(trace, step, hidden=frozenset(), results=True):
    """One line per contribution, e.g. 'a.grad += b.data × L.grad = −2.0000 × 1.0000 = −2.0000'. Where the op
    passes its grad through (+, −, negation), there is no product to show: 'a.grad += L.grad = 1.0000', and
    'b.grad += -L.grad = −(−2.0000) = 2.0000' when negated.

    The number after the last = is the contribution, not the grad. So that the two are never read one for the other,
    a line into a grad that already had a value goes on, with `results`, to the grad it makes (grad_change):
    'a.grad += b.data × d.grad = 3.0000 × 1.0000 = 3.0000, so a.grad: −6.0000 → −3.0000' (on the `=` engine,
    '…, so a.grad: −6.0000 → 3.0000': the −6 is gone). The explanation says that on a line of its own.

    A number the closure holds that the line names is said on the line, so that exp's `e` is never read as 2.718:
    '(a*b).grad += e × exp(a*b).grad = 1.3499 × 1.0000 = 1.3499, where e = exp((a*b).data) = 1.3499'.

    Into a grad of a node in `hidden`, the local gradient is asked for as well as the grad, and all that is made
    from it: only the upstream grad, which the graph shows, is given: 'e.grad += ? × d.grad = ? × −2.0000 = ?'
    ('e.grad += ? × d.grad = ?' where the upstream grad is hidden too), whatever the op.
    """
    fn = trace.backward_fn(step.node)
    node = trace.nodes[step.node]
    source, statements = backward_source(fn), [s for _, _, s in grad_writes(fn)]
    code_lines = [ast.get_source_segment(source, s) for s in statements]
    names = {'out': owner(node.name)}
    names.update(zip(('self', 'other'), (owner(trace.nodes[c].name) for c in node.children)))
    lines, code = [], scope(trace, step)
    for j, (c, text) in enumerate(zip(step.contributions, code_lines)):
        symbolic = re.sub(r'\b(self|other|out)\b', lambda m: names[m.group(1)], text).replace(*TIMES)
        upstream = shown(step.out_grad, step.node in hidden)
        if c.child in hidden:
            lines.append(asked_line(symbolic, names['out'], upstream))
            continue
        sign, minus = passes_through(fn, j), -1 if c.how == '-=' else 1  # a line with -= says what it subtracts
        amount = shown(minus * c.amount, c.child in hidden)
        last = '='  # before the amount: '≈' where the numbers shown do not work out to it (numbers.equals)
        if factor(statements[j]) is None:  # a student's line that is no product with out.grad: its own numbers
            product = _with_numbers(statements[j].value, code, amount)
            last = ends(statements[j].value, code, minus * c.amount) if product != amount else '='
        elif sign is None:
            product = ops.formula('*', [number(minus * c.local_grad), upstream], pretty=True)
            if step.node not in hidden:
                last = product_sign(minus * c.amount, minus * c.local_grad, step.out_grad)
        else:
            product = upstream if sign > 0 else ops.formula('neg', [upstream], pretty=True)
        numbers = f' = {product}' if product != amount else ''
        held = where(fn, statements[j].value, code)  # what a name the closure holds is: no e read as 2.718
        change = f', so {grad_change(trace, c)}' if results and c.before is not None else ''
        lines.append(f'{symbolic}{numbers} {last} {amount}{held}{change}')
    return lines


def slip_words(trace, k, child, answer):
    """One sentence on a wrong `answer` for node `child`'s grad after backward step k (an index into trace.steps):
    the slip that gives it (engine.answers reads it against each slip's value), named with its numbers, e.g. '1.0000
    is o.grad alone: the local gradient (1 − t² = 1 − 0.7071² = 0.5000, where t = tanh(n.data) = 0.7071) was left
    out.'; where it is none of them, that it is not the right value, with a nudge; '' for a right or blank answer.
    Plain text: a name in it is the user's, to be escaped where shown."""
    step = trace.steps[k]
    (asked,) = [q for q in answers.candidates(trace, k) if q['node'] == str(child)]
    group = answers.classify(answer, asked['candidates'])
    if group in ('right', 'blank'):
        return ''
    fn, code, node = trace.backward_fn(step.node), scope(trace, step), trace.nodes[step.node]
    lines = [(j, c) for j, c in enumerate(step.contributions) if c.child == child]
    name, out, u = f'{owner(trace.nodes[child].name)}.grad', f'{owner(node.name)}.grad', step.out_grad
    before = lines[0][1].before or 0.0  # None: nothing had written it
    said, value = number(answer), dict(asked['candidates']).get(group)

    def local(j, c):
        sign = passes_through(fn, j)
        return ('1' if sign > 0 else '−1') if sign is not None else local_gradient(fn, j, code, c.local_grad)

    def held(x):  # what the grad held before, and the slip's amount added to it
        if not before:
            return ''
        total = ops.formula('+', [number(before), number(x)], pretty=True)
        sign = equals(value, as_shown(before) + as_shown(x))
        return f'; added to the {number(before)} {name} held: {total} {sign} {number(value)}'

    gradients = ' and '.join(f'{local(j, c) or number(c.local_grad)}' for j, c in lines)
    if group == 'forgot':
        alone = 'the local gradients alone' if len(lines) > 1 else 'the local gradient alone'
        x = sum(c.local_grad for _, c in lines)
        return f'{said} is {alone}, {gradients}: it was not multiplied by {out} = {number(u)}{held(x)}.'
    if group == 'local':
        passed = f'{out} alone' if len(lines) == 1 else f'{out} once for each use, {len(lines)} × {number(u)}'
        return f'{said} is {passed}: the local gradient ({gradients}) was left out{held(u * len(lines))}.'
    if group == 'out_data':
        x, data = sum(c.local_grad for _, c in lines), node.data
        product = ops.formula('*', [number(x), number(data)], pretty=True)
        return (f'{said} is the local gradient ({gradients}) × {owner(node.name)}.data = {number(data)}: {product} '
                f'{product_sign(x * data, x, data)} {number(x * data)}, out.data where out.grad = {number(u)} '
                f'belongs{held(x * data)}.')  # fmt: skip
    if group == 'swapped':
        (_, c), data = lines[0], trace.nodes[child].data
        other = owner(trace.nodes[node.children[1 - c.slot]].name)
        x = data * u
        product = ops.formula('*', [number(data), number(u)], pretty=True)
        return (f'{said} is {owner(trace.nodes[child].name)}’s own data × {out}: {product} '
                f'{product_sign(x, data, u)} {number(x)}; × takes the other input’s data, {other}.data = '
                f'{number(trace.nodes[node.children[1 - c.slot]].data)}{held(x)}.')  # fmt: skip
    if group == 'assign':
        last = lines[-1][1]
        product = ops.formula('*', [number(last.local_grad), number(u)], pretty=True)
        lost = f'the {number(before)} {name} held' if before else f'the first line’s {number(lines[0][1].amount)}'
        sign = product_sign(last.amount, last.local_grad, u)
        return (f'{said} is this step’s last contribution alone, {product} {sign} {number(last.amount)}: = was '
                f'written for +=, and {lost} was lost.')  # fmt: skip
    if group == 'sign':
        x = sum(c.amount for _, c in lines)
        if not before:
            return f'{said} has the sign slipped: the step adds {number(x)} to {name}, not {number(-x)}.'
        taken = ops.formula('-', [number(before), number(x)], pretty=True)
        sign = equals(value, as_shown(before) - as_shown(x))
        return f'{said} is the step’s {number(x)} taken away, not added: {taken} {sign} {number(value)}.'
    held_words = f'the {number(before)} it held' if before else 'what it held (nothing yet)'
    return (f'{said} is not the right value, and no slip we know of gives it. Work it out again: the local gradient '
            f'({gradients}) × {out} = {number(u)}, added to {held_words}.')  # fmt: skip


def _with_numbers(e, code, fallback):
    try:
        return write(e, code)[1]
    except Unreadable:
        return fallback


def grad_change(trace, c):
    """What contribution c did to its grad, from what it was to what it is: 'a.grad: −6.0000 → −3.0000'; where an `=`
    replaced what the grad held, that it was lost, as the graph's edge marks it: 'a.grad: 3.0000 → 3.0000, ✗ lost
    3.0000' (a grad written again with the same number loses it all the same)."""
    before = number(c.before)
    return f'{owner(trace.nodes[c.child].name)}.grad: {before} → {number(c.after)}{lost_words(c, before)}'


def lost_words(c, before):
    """', ✗ lost 3.0000' where contribution c is an `=` that threw away what its grad held, `before` (as shown)."""
    return f', {LOST_MARK} {before}' if c.how == '=' and c.before is not None else ''


def asked_line(symbolic, out, upstream):
    """A chain-rule line whose local gradient and result are to be worked out: the code's `a.grad +=` (or `=`), then
    ? × out.grad, with the upstream grad's number where it is shown: 'e.grad += ? × d.grad = ? × −2.0000 = ?'."""
    target = symbolic[: GRAD_WRITE.search(symbolic).end()]
    times = ops.formula('*', [HIDDEN, f'{out}.grad'], pretty=True)
    numbers = f' = {ops.formula("*", [HIDDEN, upstream], pretty=True)}' if upstream != HIDDEN else ''
    return f'{target}{times}{numbers} = {HIDDEN}'


def partial(trace, i, wrt):
    """∂i/∂wrt as the page writes it, a name that is a formula in brackets: '∂n/∂x1', '∂(x1*w1)/∂x1'."""
    name, by = trace.nodes[i].name, trace.nodes[wrt].name
    return f'∂{name if name.isidentifier() else f"({name})"}/∂{by}'


def tangent_line(trace, frame):
    """Forward mode: an op's tangent, its terms (local gradient × the tangent coming in) summed:
    '∂(x1*w1)/∂x1 = −3.0000 × 1.0000 + 2.0000 × 0.0000 = −3.0000'; '?' where the frame hides it."""
    i, asked = frame.node, frame.node in frame.hidden
    terms = forward.terms(trace, frame.wrt, i)
    products = [
        ops.formula('*', [HIDDEN if asked else number(t.local_grad), shown(t.tangent_in, t.child in frame.hidden)],
                    pretty=True)
        for t in terms
    ]  # fmt: skip
    tangent = forward.tangents(trace, frame.wrt)[i]  # computed at its own frame
    sign = '=' if asked else equals(tangent, sum(as_shown(t.local_grad) * as_shown(t.tangent_in) for t in terms))
    summed = products[0] + ''.join(f' − {p[1:]}' if p.startswith('−') else f' + {p}' for p in products[1:])
    return f'{partial(trace, i, frame.wrt)} = {summed} {sign} {shown(tangent, asked)}'


def repeats(trace):
    """{first: [its copies]}: the op nodes a formula computes more than once, each where it is not inside another
    repeat (x*w+b typed twice: x*w+b and (x*w)′+b, not the x*w in each); by index, in forward order."""
    copies = {}
    inside = {c for node in trace.nodes if node.copy_of is not None for c in node.children}
    for i, node in enumerate(trace.nodes):
        if node.copy_of is not None and i not in inside:
            copies.setdefault(node.copy_of, []).append(i)
    return copies


def repeats_note(trace):
    """What a formula that types a subexpression more than once builds, in words (plain text), or '': 'x*w+b is in
    the formula twice, so Python computes it twice: …'."""
    times = {2: 'twice', 3: 'three times', 4: 'four times'}
    said = []
    for first, copies in repeats(trace).items():
        names = [trace.nodes[i].name for i in (first, *copies)]
        n = times.get(len(names), f'{len(names)} times')
        listed = ', '.join(names[:-1]) + f' and {names[-1]}'
        said.append(
            f'{names[0]} is in the formula {n}, so Python computes it {n}, as it does anything typed again: the '
            f'graph has {listed}, each with a grad of its own, and their grads add up to what one value used '
            f'{n} would get.'
        )
    return ' '.join(said)


def caption(trace, frame):
    """Frame k in a few words, for under the slider (plain text)."""
    node = trace.nodes[frame.node] if frame.node >= 0 else None
    if frame.wrt >= 0:  # forward mode
        by = trace.nodes[frame.wrt].name
        if frame.kind == 'inputs':
            return f'forward mode: the inputs are set; {by}’s tangent is 1, every other leaf’s 0'
        tangent = partial(trace, frame.node, frame.wrt)
        return f'forward mode: {node.name} = {node_formula(trace, frame.node)}, and its tangent {tangent}'
    if frame.kind == 'inputs':
        return 'forward pass: the inputs are set'
    if frame.kind == 'forward':
        return f'forward pass: {node.name} = {node_formula(trace, frame.node)}'
    if frame.kind == 'seed':
        return f'backward pass starts: {owner(node.name)}.grad = 1'
    if not node.op:
        return f'backward pass: {node.name} is a leaf, nothing to pass on'
    if frame.ask:
        grads = ', '.join(f'{owner(trace.nodes[c].name)}.grad' for c in dict.fromkeys(node.children))
        return f'predict: {node.name} = {node_formula(trace, frame.node)} passes its grad back: what is {grads} now?'
    return f'backward pass: {node.name} = {node_formula(trace, frame.node)} passes its grad back'


def right_grad(trace, frame, i, assigns=False, right=None):
    """The right grad of node i where the grad `frame` shows for it is wrong, as the graph draws it (graph.value_look),
    else None: on the `=` engine (`assigns`), once final, what += gives (graph.wrong_grads); beside a student's bodies
    (`right`, the right engine's trace), at any frame, the right engine's grad there."""
    if assigns:
        wrong = frame.steps_done >= trace.final_after()[i] and i in wrong_grads(trace)
        return plus_equals_grads(trace)[i] if wrong else None
    if right is None:
        return None
    yours, ok = grad_at(trace, frame, i), grad_at(right, frame, i)  # yours None: never written, where it should be
    return None if ok is None or (yours is not None and same(yours, ok)) else ok


def unwritten(trace, frame, i):
    """', never written' where the grad of node i that `frame` shows was never written (a student's body that leaves
    its input out): the 0.0 every Value starts with, which the graph shows as not computed; else ''."""
    return ', never written' if grad_at(trace, frame, i) is None else ''


def wrong_words(x, assigns, derivative='', mark='wrong,'):
    """What a wrong grad's line adds, with the right one, `x`: 'wrong, += gives 4.0000' (on the `=` engine), or
    'wrong, the right engine gives 4.0000' (beside a student's bodies); naming the `derivative` it should be,
    'wrong, the right engine gives ∂out/∂a = 4.0000'."""
    return f'{mark} {"+=" if assigns else "the right engine"} gives {derivative and f"{derivative} = "}{number(x)}'


def frame_rules(trace, frame, assigns=False, right=None):
    """The frame's sums in a line or two, for the presentation view and over a graph without edge labels: the chain
    rule at a backward step (chain_rule_lines, each with the grad it makes), the op's numbers in the forward pass, a
    leaf's grad; nothing at the inputs or seed. `assigns`: the trace is the `=` engine's (the bug mode's); `right`:
    beside a student's bodies, the right engine's trace. A grad that is wrong (right_grad) says so, with the right one.
    """
    node = trace.nodes[frame.node] if frame.node >= 0 else None
    if frame.kind == 'inputs' and frame.wrt >= 0:
        return [f'{partial(trace, frame.wrt, frame.wrt)} = 1; every other leaf’s tangent is 0']
    if frame.kind in ('forward', 'tangent'):
        numbers, sign = node_formula(trace, frame.node, numbers=True), forward_sign(trace, frame.node)
        data = f'{node.name} = {numbers} {sign} {number(node.data)}'
        return [data] if frame.kind == 'forward' else [data, tangent_line(trace, frame)]
    if frame.kind != 'backward':
        return []
    step, hidden = trace.steps[frame.steps_done - 1], frame.hidden
    if not node.op:
        grad = shown(step.out_grad, frame.node in hidden)
        if assigns:  # the `=` bug: the grad is what the last write left, not the derivative; and, shown, whether
            said = f'{owner(node.name)}.grad = {grad}, as the last = left it'  # it is what += gives (graph.wrong_grads)
            if frame.node in hidden:
                return [said]
            if frame.node in wrong_grads(trace):
                return [f'{said}: {wrong_words(plus_equals_grads(trace)[frame.node], assigns)}']
            return [f'{said}: right, += gives the same']
        ok = right_grad(trace, frame, frame.node, right=right)
        if frame.node in hidden and right is not None:  # a student's grad, asked for: not said to be the derivative
            return [f'{owner(node.name)}.grad = {grad}']
        if ok is not None:
            said = wrong_words(ok, assigns, f'∂{trace.nodes[-1].name}/∂{node.name}')
            return [f'{owner(node.name)}.grad = {grad}{unwritten(trace, frame, frame.node)}: {said}']
        return [f'∂{trace.nodes[-1].name}/∂{node.name} = {owner(node.name)}.grad = {grad}']
    lines = chain_rule_lines(trace, step, hidden)
    for j, c in enumerate(step.contributions):  # the grad a step leaves: said wrong, where it is, by its last write
        ok = right_grad(trace, frame, c.child, assigns, right)
        if ok is not None and c.child not in hidden and _last_write(step, j):
            lines[j] += f': {wrong_words(ok, assigns)}'
    return lines


def _last_write(step, j):
    """Whether contribution j is the step's last write to its input's grad (a*a writes a twice)."""
    return all(c.child != step.contributions[j].child for c in step.contributions[j + 1 :])


def explain(trace, frame, assigns=False, right=None):
    """What the explanation panel shows at `frame`, as parts (see the module's docstring); the grads the frame hides
    show '?'. `assigns`: the trace is the `=` engine's (the bug mode's); `right`: beside a student's bodies, the right
    engine's trace. A grad that is wrong (right_grad) says so, with the right one."""
    node = trace.nodes[frame.node] if frame.node >= 0 else None
    output = trace.nodes[-1].name
    if frame.wrt >= 0:
        return explain_tangent(trace, frame)
    if frame.kind == 'inputs':
        inputs = ', '.join(f'{n.name} = {number(n.data)}' for n in trace.nodes if n.is_input)
        return [('p', [('b', 'Forward pass.'), ('', f' The inputs are set: {inputs}. '
                       'Each op will now compute its data from its inputs, in topological order.')])]  # fmt: skip
    if frame.kind == 'forward':
        written, numbers = node_formula(trace, frame.node), node_formula(trace, frame.node, numbers=True)
        sign = forward_sign(trace, frame.node)
        parts = [('p', [('b', 'Forward pass. '), ('c', f'{node.name} = {written}'),
                        ('', f' = {numbers} {sign} '), ('b', number(node.data))])]  # fmt: skip
        if node.copy_of is not None:  # which is which: this one is the formula's second (third …) of the same
            first = trace.nodes[node.copy_of].name
            parts.append(('p', [('c', node.name), ('', ' computes '), ('c', first),
                                ('', ' again: the formula has it more than once, and Python computes each one it '
                                     'reads, as a value of its own.')]))  # fmt: skip
        return parts
    if frame.kind == 'seed':
        return [('p', [('b', 'Backward pass starts. '), ('c', f'{owner(output)}.grad = 1'),
                       ('', ': the output changes one-for-one with itself. '
                            "Now each node's "), ('c', '_backward'),
                       ('', ' runs in reverse topological order, passing its grad '
                            'to its inputs, each scaled by the local gradient.')])]  # fmt: skip
    step, hidden = trace.steps[frame.steps_done - 1], frame.hidden
    if not node.op:
        kind = 'an input' if node.is_input else 'a constant'
        means = f', is ∂{output}/∂{node.name}.'
        ok = None if frame.node in hidden else right_grad(trace, frame, frame.node, assigns, right)
        if assigns:  # the `=` bug: the grad is what the last write left, not the derivative
            means = f', is what the last = left: ∂{output}/∂{node.name} only if no write was thrown away.'
            if frame.node not in hidden:
                means = f', is what the last = left, and right: += gives the same, ∂{output}/∂{node.name}.'
        elif right is not None and frame.node in hidden:  # a student's grad, asked for: not said to be right
            means = ', is what the pass left here.'
        if ok is not None:  # wrong: said so, with the right one
            said = wrong_words(ok, assigns, f'∂{output}/∂{node.name}', mark='wrong:')
            means = f', is what the last = left, and {said}.' if assigns else f', is {said}.'
        never = unwritten(trace, frame, frame.node) and ' (never written: the 0 every Value starts with)'
        return [('p', [('b', node.name), ('', f' is {kind} (a leaf): its '), ('c', '_backward'),
                       ('', ' does nothing. Its grad, '), ('b', shown(step.out_grad, frame.node in hidden)),
                       ('', never + means)])]  # fmt: skip
    fn = trace.backward_fn(step.node)
    final_after = trace.final_after()
    where = [f'self = {trace.nodes[node.children[0]].name}']
    if len(node.children) > 1:
        where.append(f'other = {trace.nodes[node.children[1]].name}')
    where.append(f'out = {node.name}')
    asked = any(c.child in hidden for c in step.contributions)
    # while the grads it writes are asked for, a number the closure holds is shown only where it is this node's data,
    # which the graph shows (tanh's t): 1/b (division's inv) or n·x^(n−1) (slope) is a local gradient
    held, code = captured_numbers(fn).items(), scope(trace, step)
    where += [made(fn, k, code, v) if not asked or same(v, node.data) else f'{k} = {HIDDEN}' for k, v in held]
    this = ('', ' (the code’s out is this node, named out too)') if node.name == 'out' else ('', ' (this node)')
    where_runs = [run for w in where for run in (('c', w), ('', ', '))][:-1]
    at = 2 * (len(node.children) + 1) - 1  # just after out = ...
    where_runs.insert(at, this)
    for runs in local_gradient_runs(trace, step, hidden, None if assigns else right):
        where_runs += [('br', ''), *runs]
    # the op's code: its _backward; in microgpt's form its local_grads and the loop's line (engine/local_grads.py)
    its_code = [('c', '_backward'), ('', ':')]
    if getattr(fn, 'shown', None) is not None:
        its_code = [('c', 'local_grads'), ('', ', and backward()’s one loop at this value:')]
    rows = []
    written = set()  # a*a writes a twice: the second line starts from the first's grad
    # each line's grad before and after stands on a line of its own, with its state: not again after the line
    for j, (c, line) in enumerate(zip(step.contributions, chain_rule_lines(trace, step, hidden, results=False))):
        child = owner(trace.nodes[c.child].name)
        status = 'final' if final_after[c.child] == frame.steps_done else 'more to come'
        ok = right_grad(trace, frame, c.child, assigns, right) if _last_write(step, j) else None
        status = f' ({status}; {wrong_words(ok, assigns)})' if ok is not None else f' ({status})'
        status = '' if c.child in hidden else status  # a '?' tells no state, as in the graph (graph.value_look)
        # hiding only the new grads, the grad before this step was shown at the frame before
        before = shown(c.before, c.before is not None and (frame.hide == 'all' or c.child in hidden & written))
        written.add(c.child)
        rows.append([('c', line), ('br', ''), ('', f'{child}.grad: {before} → '),
                     ('b', shown(c.after, c.child in hidden)), ('', lost_words(c, before) + status)])  # fmt: skip
    return [
        ('p', [('b', f'{node.name} = {node_formula(trace, step.node)}'),
               ('', f' passes its grad, {owner(node.name)}.grad = '), ('b', shown(step.out_grad, step.node in hidden)),
               ('', f', back to {"its input" if len(node.children) == 1 else "its inputs"}. Its '), *its_code]),
        ('code', shown_source(fn)),
        ('p', [('', 'where '), *where_runs]),
        ('list', rows),
    ]  # fmt: skip


def explain_tangent(trace, frame):
    """Forward mode's explanation: at the inputs, what a tangent is and each leaf's; at an op, its data, then its
    tangent from the local gradients its `_backward` uses (local_gradient_runs), each × the tangent coming in."""
    by, wrt = trace.nodes[frame.wrt].name, frame.wrt
    if frame.kind == 'inputs':
        inputs = ', '.join(f'{n.name} = {number(n.data)}' for n in trace.nodes if n.is_input)
        return [
            ('p', [('b', 'Forward mode. '), ('', f'The inputs are set: {inputs}. Each value will carry two numbers '
                   'forward, in topological order: its data, and its tangent, '), ('c', partial(trace, wrt, wrt)[:1]),
                   ('', f'value/∂{by}: how fast it moves as {by} moves.')]),
            ('p', [('c', f'{partial(trace, wrt, wrt)} = 1'), ('', f': {by} moves one-for-one with itself. Every other '
                   f'leaf’s tangent is 0: it does not move when {by} does.')]),
        ]  # fmt: skip
    node, i = trace.nodes[frame.node], frame.node
    written, numbers = node_formula(trace, i), node_formula(trace, i, numbers=True)
    asked = i in frame.hidden
    step = trace.steps[trace.output - i]  # the op's _backward: the local gradients it passes grads back by
    rows = []
    asking = frozenset(node.children) if asked else frozenset()  # an op's tangent asked for: its local gradients too
    for runs, t in zip(local_gradient_runs(trace, step, asking, passing=False),
                       forward.terms(trace, wrt, i)):  # fmt: skip
        coming = partial(trace, t.child, wrt)
        product = ops.formula('*', [HIDDEN if asked else number(t.local_grad),
                                    shown(t.tangent_in, t.child in frame.hidden)], pretty=True)  # fmt: skip
        sign = '=' if asked else product_sign(t.amount, t.local_grad, t.tangent_in)
        rows.append([*runs, ('br', ''), ('', f'× the tangent coming in, {coming}: '),
                     ('c', f'{product} {sign} {shown(t.amount, asked)}')])  # fmt: skip
    said = [('b', 'Forward mode. '), ('c', f'{node.name} = {written}'), ('', f' = {numbers} = '),
            ('b', number(node.data)), ('', '. Its tangent is the chain rule run forward: for each input, the local '
            'gradient its '), ('c', '_backward'), ('', ' uses, times that input’s tangent, summed:')]  # fmt: skip
    parts = [('p', said), ('list', rows), ('p', [('c', tangent_line(trace, frame))])]
    if i == trace.output and not asked:
        grad = trace.final_grads()[wrt]
        said = agrees(forward.tangents(trace, wrt)[i], grad)
        parts.append(
            (
                'p',
                [
                    (
                        '',
                        f'The output’s tangent is ∂{node.name}/∂{by}: what the backward pass gives {owner(by)}.grad, ',
                    ),
                    ('b', number(grad)),
                    (
                        '',
                        f', {said}. One forward pass gave '
                        'the derivative by one input; the backward pass gives every input’s at once.',
                    ),
                ],
            )
        )
        # fmt: skip
    return parts


def agrees(tangent, grad):
    """Whether forward mode's tangent and the backward pass's grad say the same: the sums add the same products in
    other orders, so they may differ in the last bits of a float, never in the digits shown."""
    if same(tangent, grad):
        return 'the same number'
    if number(tangent) == number(grad):
        return f'the same to the digits shown (the same products, added in another order: {tangent!r}, {grad!r})'
    return f'not the same: {number(tangent)} here'


def plain_text(parts):
    """The parts as the reader sees them, without any markup: for tests, and for slides' notes."""
    lines = []
    for kind, content in parts:
        items = [content] if kind == 'p' else content if kind == 'list' else None
        if items is None:
            lines.append(content)
            continue
        lines += [''.join('\n' if style == 'br' else text for style, text in runs) for runs in items]
    return '\n'.join(lines)


TAGS = {'': '{}', 'b': '<b>{}</b>', 'c': '<code>{}</code>', 'br': '<br>'}


def _runs_html(runs):
    return ''.join(TAGS[style].format(html.escape(text)) for style, text in runs)


def explanation_html(parts):
    """The parts as HTML: every text escaped, so no name or formula can become markup."""
    out = []
    for kind, content in parts:
        if kind == 'code':
            out.append(f'<pre class="src"><code>{html.escape(content)}</code></pre>')
        elif kind == 'list':
            out.append('<ul>' + ''.join(f'<li>{_runs_html(runs)}</li>' for runs in content) + '</ul>')
        else:
            out.append(f'<p>{_runs_html(content)}</p>')
    return ''.join(out)
