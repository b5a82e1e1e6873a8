"""The grader and the slips it catches. Each kind of slip (engine/diagnosis.py's MISTAKES) has a rule here that makes it
from the right lines (exercise.right_lines), for tests/unit/test_every_slip.py to make in every op, on every input, in
every line order, and grade. Where a kind cannot apply to an op, the diagnosis's own kinds(op) says so, and the rule's
body (if it makes one) is shown not to be of that kind. A grad that overflows or is nan is named, and its line says so.

The pitfalls' grads are worked out by hand and checked against central finite differences, never read off the engine.
A body the sandbox refuses waits (engine/bodies.py): its verdict waits for it to run, and no hint speaks of a `pass`
the student never wrote."""

import ast
import copy
import itertools
import math
import random
import re
import sys

import pytest
from test_exercise import grammar_body

from components.code import WAITS, verdict_word
from engine import PRESETS, exercise, parse_expression, trace_backward
from engine.bodies import Waiting, checked
from engine.diagnosis import MISTAKES, close, diagnose, kinds
from engine.exercise import yours
from engine.frames import frames
from engine.grader import GRADED, PITFALLS, grads_of, verdicts
from engine.ieee import same
from engine.parse import DEFAULT_INPUT
from engine.presets import numeric_grads
from engine.sandbox import INPUTS, BodyError, check_body, evaluate
from engine.value import Value, topological_order
from view.exercise import code_parts, first_difference
from view.explanation import explain, plain_text

pytestmark = pytest.mark.filterwarnings('ignore::SyntaxWarning')  # the generated bodies of test_exercise's grammar
RIGHT = {name: exercise.answer(name) for name in exercise.OPS}
T1 = math.tanh(1.0)  # tanh(a)·(a + a·a) at a = 1: tanh's t, and 1 − t² = 0.41997…
WAITS_LINE = 'waits for your body to run (it cannot run yet: see the error above)'


def _out_grad_as(e, new):
    """E with every `out.grad` in it read as `new` (an ast expression)."""

    class Swap(ast.NodeTransformer):
        def visit_Attribute(self, node):
            if isinstance(node.value, ast.Name) and (node.value.id, node.attr) == ('out', 'grad'):
                return copy.deepcopy(new)
            return node

    return Swap().visit(copy.deepcopy(e))


def _times(e, factor):
    """E times `factor` (text): the line's value, made to overflow (math.exp(1000)) or nan (math.log(-1))."""
    return ast.BinOp(copy.deepcopy(e), ast.Mult(), ast.parse(factor, mode='eval').body)


def _with(line, **changes):
    line = copy.deepcopy(line)
    for key, value in changes.items():
        setattr(line, key, value)
    return line


# each kind's rule: from the right lines (one per input, in _prev order) and the input's slot, the lines of the
# slipped body; None where the rule cannot make one
RULES = {
    'pass': lambda right, k: [ast.Pass()],
    'missing': lambda right, k: right[:k] + right[k + 1 :],
    'assign': lambda right, k: [*right[:k], ast.Assign([right[k].target], right[k].value, lineno=1), *right[k + 1 :]],
    'subtract': lambda right, k: [*right[:k], _with(right[k], op=ast.Sub()), *right[k + 1 :]],
    'twice': lambda right, k: [*right[: k + 1], *right[k:]],
    'out_data': lambda right, k: [
        *right[:k],
        _with(right[k], value=_out_grad_as(right[k].value, ast.parse('out.data', mode='eval').body)),
        *right[k + 1 :],
    ],  # fmt: skip
    'no_out_grad': lambda right, k: [
        *right[:k],
        _with(right[k], value=_out_grad_as(right[k].value, ast.Constant(1))),
        *right[k + 1 :],
    ],
    'swapped': lambda right, k: (
        None if len(right) < 2 else [*right[:k], _with(right[k], value=right[1 - k].value), *right[k + 1 :]]
    ),  # fmt: skip
    'overflow': lambda right, k: [
        *right[:k],
        _with(right[k], value=_times(right[k].value, 'math.exp(1000)')),
        *right[k + 1 :],
    ],
    'nan': lambda right, k: [
        *right[:k],
        _with(right[k], value=_times(right[k].value, 'math.log(-1)')),
        *right[k + 1 :],
    ],
    'local': lambda right, k: [
        *right[:k],
        _with(right[k], value=ast.BinOp(ast.Constant(2), ast.Mult(), right[k].value)),
        *right[k + 1 :],
    ],
}


def slipped(name, slot, kind):
    """The text of the exercise's body `name` with the slip `kind` in its line for the input at `slot`, or None."""
    lines = RULES[kind](exercise.right_lines(exercise.OPS[name]), slot)
    return None if lines is None else '\n'.join(ast.unparse(line) for line in lines)


def kinds_named(name, text, target):
    """The kinds the diagnosis names in the body `name` written as `text`, for `target`."""
    return [m.kind for m in diagnose(checked({**RIGHT, name: text})) if m.name == name and m.target == target]


def lines(**texts):
    return [v.line for v in verdicts(checked({**RIGHT, **texts}))]


CELLS = [
    (name, slot, kind) for name, op in exercise.OPS.items() for slot in range(len(INPUTS[op])) for kind in MISTAKES
]


def test_every_kind_the_diagnosis_names_has_a_rule_here():
    assert list(RULES) == list(MISTAKES)


def test_the_kinds_that_cannot_apply_are_the_diagnosis_own():
    # + gives each input out.grad: swapping them changes nothing; tanh has one input, and a body that writes no grad
    # is a `pass`. The slip × op matrix is every other cell: + 10 kinds, × 11, tanh 9, each for every input
    never = {(name, kind) for name, op in exercise.OPS.items() for kind in MISTAKES if kind not in kinds(op)}
    assert never == {('add', 'swapped'), ('tanh', 'missing'), ('tanh', 'swapped')}
    assert sum(kind in kinds(exercise.OPS[name]) for name, _, kind in CELLS) == 2 * 10 + 2 * 11 + 9


def test_a_kind_that_cannot_apply_to_an_op_is_never_named_in_its_rules_body():
    for name, slot, kind in CELLS:
        text = slipped(name, slot, kind)
        if kind not in kinds(exercise.OPS[name]) and text is not None:
            assert kind not in kinds_named(name, text, INPUTS[exercise.OPS[name]][slot]), text


@pytest.mark.parametrize('name', exercise.OPS)
def test_equals_for_plus_equals_fails_in_each_op_whichever_of_its_lines_has_it(name):
    # one line or both with =, in either order of the lines
    right = exercise.right_lines(exercise.OPS[name])
    for chosen in itertools.chain.from_iterable(itertools.combinations(range(len(right)), n) for n in (1, 2)):
        written = [
            ast.unparse(ast.Assign([s.target], s.value, lineno=1) if k in chosen else s) for k, s in enumerate(right)
        ]
        for text in {'\n'.join(order) for order in itertools.permutations(written)}:
            said = verdicts(checked({**RIGHT, name: text}))
            assert any(v.wrong for v in said), text
            assert verdict_word(said, diagnose(checked({**RIGHT, name: text}))) == 'assign'


def test_the_diagnosis_never_names_a_kind_outside_its_kinds_for_the_op():
    rng = random.Random(31)  # the same bodies every run
    named = 0
    for _ in range(3_000):
        name = rng.choice(list(exercise.OPS))
        body = checked({name: grammar_body(rng)})[name]
        if isinstance(body, Waiting):
            continue
        for m in diagnose({name: body}):
            assert m.kind in kinds(exercise.OPS[name]), (body.text, m)
            named += 1
    assert named > 1_000


# --- the issue's cases, and the pitfalls' grads by hand ---

T2 = math.tanh(2.0)  # a + tanh(a + a) at a = 1: tanh's local gradient at a + a = 2, 1 − tanh² 2 = 0.07065…
OTHER_FIRST = 'other.grad = out.grad\nself.grad += out.grad'  # = in +'s line for other, that line first


def test_equals_in_adds_line_for_other_run_first_is_graded_wrong_and_named():
    # (a + b)·b at a = 2, b = 3: ∂/∂b = a + 2b = 8 by hand. The × runs first: b.grad += (a + b)·1 = 5, and a + b
    # gets b = 3; then the + writes b.grad = 3 over the 5
    engine = yours(checked({**RIGHT, 'add': OTHER_FIRST}))
    leaves, out = parse_expression('(a + b)*b').build({'a': 2.0, 'b': 3.0}, value_type=engine)
    out.backward()
    assert [leaf.grad for leaf in leaves] == [3.0, 3.0]  # by hand: b = 3 for a (right), a + 2b = 8 for b
    # the grader: a + tanh(a + a) at a = 1, the inner + reached with a.grad = 1 from the outer: = keeps 2(1 − tanh² 2)
    got = lines(add=OTHER_FIRST)
    right, kept = round(1 + 2 * (1 - T2 * T2), 9), round(2 * (1 - T2 * T2), 9)
    assert got == ['neuron: right', 'reuse: right', 'chain: right', 'b = a + a: right',
                   f'a + tanh(a + a): wrong (a: {right!r}, yours {kept!r})', 'tanh(a)·(a + a·a): right']  # fmt: skip
    assert got[4] == 'a + tanh(a + a): wrong (a: 1.14130165, yours 0.14130165)'
    assert [(m.target, m.kind) for m in diagnose(checked({**RIGHT, 'add': OTHER_FIRST}))] == [('other', 'assign')]


def test_equals_for_plus_equals_in_tanh_passes_the_other_five_and_fails_tanh_a_times_a_plus_a_a():
    # tanh(a)·(a + a·a) at a = 1: the + and the a·a give a 1·t and 2·1·t first; tanh's = then writes (1 − t²)·2 over
    # them, where += adds it: right 2(1 − t²) + 3t, yours 2(1 − t²)
    got = lines(tanh='self.grad = (1 - t**2) * out.grad')
    assert got[:5] == ['neuron: right', 'reuse: right', 'chain: right', 'b = a + a: right', 'a + tanh(a + a): right']
    right, kept = round(2 * (1 - T1 * T1) + 3 * T1, 9), round(2 * (1 - T1 * T1), 9)
    assert got[5] == f'tanh(a)·(a + a·a): wrong (a: {right!r}, yours {kept!r})'
    assert got[5] == 'tanh(a)·(a + a·a): wrong (a: 3.124731151, yours 0.839948683)'
    assert [m.kind for m in diagnose(checked({**RIGHT, 'tanh': 'self.grad = (1 - t**2) * out.grad'}))] == ['assign']


# a grad that is not a finite number says so after it, and the line reads as before: 'a: right, yours x[: why]'
LINE = re.compile(
    r'(?P<key>.+): wrong \((?P<input>\w+): (?P<right>\S+), yours (?P<yours>[^:)]+)(?:: (?P<why>[^)]+))?\)'
)


def test_a_grad_that_overflows_or_is_nan_says_so_in_its_line_and_the_line_reads_back():
    mul = 'self.grad += other.data * out.grad * math.exp(1000)\nother.grad += self.data * out.grad'
    tanh = 'self.grad += (1 - t**2) * out.grad * math.log(-1)'
    for texts, kind in [({'mul': mul}, 'overflow'), ({'tanh': tanh}, 'nan')]:
        read = checked({**RIGHT, **texts})
        said = verdicts(read)
        wrong = [v for v in said if v.wrong]
        assert wrong
        for v in wrong:
            match = LINE.fullmatch(v.line)
            name, right, got = v.wrong[0]
            assert match and match['key'] == v.expression and match['input'] == name
            assert float(match['right']) == right and math.isfinite(right)
            assert math.isfinite(float(match['yours'])) == (match['why'] is None)
            if match['why']:
                assert same(float(match['yours']), got)
                assert match['why'] == ('not a number' if got != got else 'overflowed')
        assert verdict_word(said, diagnose(read)) == kind
    # the words' 1.8e308: the largest float, to 2 digits; and math.log(-1) and inf − inf are nan, as sandboxed
    (largest,) = re.findall(r'\d\.\de\d+', MISTAKES['overflow'])
    assert float(largest) == float(f'{sys.float_info.max:.1e}') and f'{sys.float_info.max:.1e}' == '1.8e+308'
    assert 'math.log(-1)' in MISTAKES['nan'] and 'inf - inf' in MISTAKES['nan']
    for text in ('math.log(-1)', 'math.exp(1000) - math.exp(1000)'):
        (write,) = check_body('tanh', f'self.grad += {text}').writes
        assert math.isnan(evaluate(write.expr, {}))
    assert evaluate(check_body('tanh', 'self.grad += math.exp(1000)').writes[0].expr, {}) == math.inf
    assert 'math.exp(1000)' in MISTAKES['overflow'] and 'OverflowError' in MISTAKES['overflow']
    with pytest.raises(OverflowError):  # as the words say: Python's own math stops where the page goes on with inf
        math.exp(1000)


def test_a_finite_number_is_never_close_to_inf_or_nan_however_large():
    assert not close(math.inf, 1e300) and not close(1e300, math.inf) and not close(math.nan, 1.0)
    assert close(math.inf, math.inf) and close(math.nan, math.nan) and not close(math.inf, -math.inf)
    assert close(1e300, 1e300 * (1 + 1e-12)) and not close(1e300, 1e300 * (1 + 1e-6))


BY_HAND = {
    # b = a + a at a = 3: 1 + 1
    'b = a + a': {'a': 2.0},
    # a + tanh(a + a) at a = 1: 1 + 2(1 − tanh² 2a)
    'a + tanh(a + a)': {'a': 1 + 2 * (1 - T2 * T2)},
    # tanh(a)·(a + a·a) at a = 1: (1 − tanh² a)(a + a²) + tanh(a)(1 + 2a)
    'tanh(a)·(a + a·a)': {'a': 2 * (1 - T1 * T1) + 3 * T1},
}


def test_the_pitfalls_are_graded_at_these_inputs_as_the_page_draws_them():
    assert list(BY_HAND) == list(PITFALLS) == list(GRADED)[3:]
    assert [GRADED[key].defaults for key in PITFALLS] == [{'a': 3.0}, {'a': 1.0}, {'a': 1.0}]
    for key in PITFALLS:  # a preset is picked by its menu; a formula is typed (its key with · for *), at 1.0 each
        expression = GRADED[key]
        if expression.menu:
            assert PRESETS[expression.key] is expression
        else:
            assert expression.title.replace('*', '·') == key
            assert expression.defaults == {name: DEFAULT_INPUT for name in parse_expression(expression.title).defaults}
            assert DEFAULT_INPUT == 1.0


@pytest.mark.parametrize('key', BY_HAND)
def test_the_pitfalls_grads_are_the_hand_derived_ones_and_the_finite_differences(key):
    hand = BY_HAND[key]
    numeric = numeric_grads(GRADED[key], {})
    assert numeric == pytest.approx(hand, abs=1e-6)  # the hand's derivative, checked without backward
    assert grads_of(GRADED[key], Value) == [round(hand[name], 9) for name in GRADED[key].defaults]


def _before_each_step(expression):
    """For each op's step of the right backward pass: (op, its inputs' grads as its _backward starts, out.grad,
    out.data, its inputs' data)."""
    leaves, out = expression.build()
    order = topological_order(out)
    out.grad = 1.0
    steps = []
    for v in reversed(order):
        if v._op:
            steps.append((v._op, [c.grad for c in v._prev], v.grad, v.data, [c.data for c in v._prev]))
        v._backward()
    return steps


def test_each_op_of_the_exercise_meets_a_pitfall_where_its_inputs_hold_a_grad_and_out_grad_is_not_1_nor_its_data():
    # what the comment above GRADED says: in a + tanh(a + a) the inner +, in tanh(a)·(a + a·a) the a·a and the tanh;
    # and an outer × of two unlike numbers, neither 1
    met = {}
    for key in PITFALLS[1:]:
        for op, held, grad, data, inputs in _before_each_step(GRADED[key]):
            if all(held) and grad not in (0.0, 1.0, data):
                met.setdefault(op, []).append(key)
            if op == '*' and len(set(inputs)) == 2 and 1.0 not in inputs:
                met.setdefault('unlike ×', []).append(key)
    assert met == {'+': ['a + tanh(a + a)'], '*': ['tanh(a)·(a + a·a)'], 'tanh': ['tanh(a)·(a + a·a)'],
                   'unlike ×': ['tanh(a)·(a + a·a)']}  # fmt: skip


# --- a body the sandbox refuses waits ---


def test_a_refused_body_waits_and_the_others_are_read_as_typed():
    read = checked({**RIGHT, 'mul': 'import os'})
    assert isinstance(read['mul'], Waiting) and isinstance(read['mul'].error, BodyError)
    assert read['mul'].text == 'import os' and read['mul'].writes == ()
    assert not any(isinstance(read[name], Waiting) for name in ('add', 'tanh'))


def test_a_refused_mul_waits_in_place_of_every_expression_that_uses_it():
    # b = a + a and a + tanh(a + a) use no ×: they are still graded
    assert lines(mul='import os') == [f'mul: {WAITS_LINE}', 'b = a + a: right', 'a + tanh(a + a): right']
    # a slip in another body is still graded where the × is not used
    got = lines(mul='import os', add=OTHER_FIRST)
    assert got == [f'mul: {WAITS_LINE}', 'b = a + a: right', 'a + tanh(a + a): wrong (a: 1.14130165, yours 0.14130165)']


def test_every_body_refused_leaves_only_waiting_lines():
    got = lines(add='self.grad += out.grad.__class__', mul='import os', tanh='self.grad += t +')
    assert got == [f'add: {WAITS_LINE}', f'mul: {WAITS_LINE}', f'tanh: {WAITS_LINE}']


def test_no_slip_is_named_in_a_refused_body_and_none_is_a_pass():
    read = checked({**RIGHT, 'add': 'import os'})
    assert diagnose(read) == []  # the others are right: no hint at all
    read = checked({'add': 'import os', 'mul': RIGHT['mul'], 'tanh': 'self.grad = (1 - t**2) * out.grad'})
    assert [(m.name, m.kind) for m in diagnose(read)] == [('tanh', 'assign')]


def test_the_verdict_word_of_a_refused_body_is_waits_beside_the_others_slips():
    for texts, word in [
        ({'mul': 'import os'}, WAITS),
        ({'mul': 'import os', 'tanh': 'self.grad += t * out.grad'}, f'local,{WAITS}'),
    ]:
        read = checked({**RIGHT, **texts})
        assert verdict_word(verdicts(read), diagnose(read)) == word
    assert WAITS == 'waits'


def test_a_refused_body_writes_no_grad_and_the_graph_runs_the_others():
    # reuse = a·b + a·a with the × waiting: the + passes out.grad = 1 to a·b and a·a, which pass nothing on
    read = checked({**RIGHT, 'mul': 'import os'})
    leaves, out = PRESETS['reuse'].build(value_type=yours(read))
    trace = trace_backward(out, leaves)
    assert [leaf.grad for leaf in leaves] == [0.0, 0.0]
    names = {node.name: g for node, g in zip(trace.nodes, trace.final_grads())}
    assert (names['a*b'], names['a*a']) == (1.0, 1.0)


def test_the_player_says_a_refused_body_cannot_run_yet_at_its_first_difference_and_speaks_of_no_pass():
    read = checked({**RIGHT, 'mul': 'import os'})
    leaves, out = PRESETS['reuse'].build(value_type=yours(read))
    trace = trace_backward(out, leaves)
    right_leaves, right_out = PRESETS['reuse'].build()
    right = trace_backward(right_out, right_leaves)
    all_frames = frames(trace)
    k = first_difference(trace, right, all_frames)
    assert k == 6  # reuse's frames: 0 inputs, 1 a*b, 2 a*a, 3 out, 4 seed, 5 out's step, 6 a*a's step
    words = plain_text(
        explain(trace, all_frames[k]) + code_parts(trace, right, frame=all_frames[k], first_here=True, mistakes=[])
    )
    assert 'First difference: your × (__mul__) cannot run yet (its error is under its box).' in words
    assert not re.search(r'\bpass\b', words)  # no `pass` the student never wrote, in the code shown nor in words
