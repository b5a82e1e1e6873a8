"""Every slip the diagnosis can name is graded wrong (issue 39): in each op, on each input, in every order of the body's
lines, in both forms. Each slipped body (or microgpt's tuple) is made from the right lines by test_grader's rules (the
tuples' by test_local_grads'), run through its form's checked() and verdicts(), and a failing line is checked against
central finite differences of the expression worked out here in plain floats, never against the engine's grads: the
right grad is the finite difference, the student's is not. The diagnosis names the kind for that input, and a live
class counts the body by it."""

import ast
import itertools
import math

import pytest
from test_grader import RULES as BODY_RULES
from test_local_grads import RULES as TUPLE_RULES

from components.code import verdict_word
from engine import exercise, local_grads, value
from engine.forms import FORMS
from engine.grader import GRADED, grads_of
from engine.sandbox import INPUTS

pytestmark = pytest.mark.filterwarnings('ignore::SyntaxWarning')  # test_grader's module imports test_exercise's grammar
RIGHT = {form.name: {name: form.answer(name) for name in exercise.OPS} for form in FORMS.values()}
H = 1e-6  # the central difference's step


# --- each graded expression in plain floats, and its finite differences ---


def _neuron(x1, w1, x2, w2, b):
    return math.tanh(x1 * w1 + x2 * w2 + b)


def _reuse(a, b):
    return a * b + a * a


def _chain(x, w):  # the seed's chain of 10: tanh of (the last) · w, from x
    v = x
    for _ in range(10):
        v = math.tanh(v * w)
    return v


def _formula(key):
    """A key that is written as a formula ('b = a + a', 'tanh(a)·(a + a·a)'), as a function of its inputs in floats."""
    tree = ast.parse(key.split('=')[-1].strip().replace('·', '*'), mode='eval').body

    def walk(node, values):
        match node:
            case ast.Name(id=name):
                return values[name]
            case ast.BinOp(op=ast.Add()):
                return walk(node.left, values) + walk(node.right, values)
            case ast.BinOp(op=ast.Mult()):
                return walk(node.left, values) * walk(node.right, values)
            case ast.Call(func=ast.Name(id='tanh'), args=[x]):
                return math.tanh(walk(x, values))
        raise ValueError(f'{ast.unparse(node)} in {key!r}: only +, · and tanh are read here')

    return lambda **values: walk(tree, values)


PLAIN = {'neuron': _neuron, 'reuse': _reuse, 'chain': _chain}
PLAIN |= {key: _formula(key) for key in GRADED if key not in PLAIN}


def _finite_differences(key):
    f, at = PLAIN[key], GRADED[key].defaults
    return {name: (f(**{**at, name: x + H}) - f(**{**at, name: x - H})) / (2 * H) for name, x in at.items()}


FD = {key: _finite_differences(key) for key in GRADED}


def _near(x, fd, tol=1e-6):
    return math.isfinite(x) and abs(x - fd) <= tol * max(1.0, abs(fd))


def test_each_graded_expression_is_the_plain_function_its_finite_differences_come_from():
    for key, expression in GRADED.items():
        for shift in (0.0, 0.1, -0.3):  # at the grader's inputs and off them, so that no coincidence passes
            values = {name: x + shift for name, x in expression.defaults.items()}
            assert expression.build(values)[1].data == pytest.approx(PLAIN[key](**values), rel=1e-12, abs=1e-15), key


def test_the_right_engines_grads_are_the_finite_differences():
    for key, expression in GRADED.items():
        grads = dict(zip(expression.defaults, grads_of(expression, value.Value)))
        assert all(_near(grads[name], FD[key][name]) for name in grads), (key, grads, FD[key])


# --- the slipped bodies and tuples ---


def _texts(form, name, slot, kind):
    """The texts with the slip `kind` on the input at `slot`: a body in every order of its lines, or a tuple; none
    where the rule writes none (microgpt's `short` for self: a tuple with no entry for self has none for other, and
    is `empty`)."""
    op = exercise.OPS[name]
    if form == 'bodies':
        lines = BODY_RULES[kind](exercise.right_lines(op), slot)
        orders = itertools.permutations([ast.unparse(line) for line in lines])
        return sorted({'\n'.join(order) for order in orders})
    entries = TUPLE_RULES[kind](list(local_grads.right_entries(op)), slot)
    return [] if entries is None else [local_grads.tuple_text([ast.unparse(e) for e in entries])]


CASES = [
    (form.name, name, target, kind, text)
    for form in FORMS.values()
    for name, op in exercise.OPS.items()
    for slot, target in enumerate(INPUTS[op])
    for kind in form.kinds(op)
    for text in _texts(form.name, name, slot, kind)
]


def test_the_cases_are_every_kind_of_every_op_on_every_input_in_both_forms_in_every_line_order():
    made = {case[:4] for case in CASES}
    every = {
        (form.name, name, target, kind)
        for form in FORMS.values()
        for name, op in exercise.OPS.items()
        for target in INPUTS[op]
        for kind in form.kinds(op)
    }
    assert every - made == {('local_grads', 'add', 'self', 'short'), ('local_grads', 'mul', 'self', 'short')}
    assert made <= every
    # both orders of a two-line body: `=` in +'s line for other, that line first and last
    assert ('bodies', 'add', 'other', 'assign', 'other.grad = out.grad\nself.grad += out.grad') in CASES
    assert ('bodies', 'add', 'other', 'assign', 'self.grad += out.grad\nother.grad = out.grad') in CASES
    # and the nonfinite kinds in both forms on every op
    for form, name in itertools.product(FORMS, exercise.OPS):
        assert {'overflow', 'nan'} <= {c[3] for c in CASES if c[:2] == (form, name)}


@pytest.mark.parametrize(('form', 'name', 'target', 'kind', 'text'), CASES, ids=[
    f'{f}-{n}-{t}-{k}-{x!r}' for f, n, t, k, x in CASES])  # fmt: skip
def test_every_slip_is_graded_wrong_unlike_the_finite_differences_and_named(form, name, target, kind, text):
    form = FORMS[form]
    read = form.checked({**RIGHT[form.name], name: text})
    said = form.verdicts(read)
    wrong = [v for v in said if v.wrong]
    assert wrong, f'{text!r} is graded right on every line'
    for v in wrong:
        for leaf, right, yours in v.wrong:
            fd = FD[v.expression][leaf]
            assert _near(right, fd), (v.line, fd)  # the right grad is the finite difference
            assert not _near(yours, fd, tol=1e-4), (v.line, fd)  # the student's is not, by far
    mistakes = form.diagnose(read)
    assert [m.kind for m in mistakes if (m.name, m.target) == (name, target)] == [kind], text
    assert verdict_word(said, mistakes) == kind  # a live class counts it by its kind


def test_the_right_bodies_in_either_order_of_their_lines_are_graded_right():
    orders = {
        name: {'\n'.join(o) for o in itertools.permutations(RIGHT['bodies'][name].split('\n'))}
        for name in RIGHT['bodies']
    }
    assert [len(orders[name]) for name in exercise.OPS] == [2, 2, 1]
    for texts in itertools.product(*orders.values()):
        said = FORMS['bodies'].verdicts(FORMS['bodies'].checked(dict(zip(orders, texts))))
        assert [v.line for v in said] == [f'{key}: right' for key in GRADED]
    said = FORMS['local_grads'].verdicts(FORMS['local_grads'].checked(RIGHT['local_grads']))
    assert [v.line for v in said] == [f'{key}: right' for key in GRADED]
