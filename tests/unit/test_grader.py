"""Grading catches every slip the diagnosis names. For each kind of slip (engine/diagnosis.py's MISTAKES), in each op of
the exercise and for each of its inputs, a body is made from the right one (exercise.right_lines) by that kind's rule:
the diagnosis names it so, and some line of the grader says wrong. Where a kind cannot apply to an op, the diagnosis's
own kinds(op) says so, and the rule's body (if it makes one) is shown not to be of that kind.

The pitfalls' grads are worked out by hand and checked against central finite differences, never read off the engine.
A body the sandbox refuses waits (engine/bodies.py): its verdict waits for it to run, and no hint speaks of a `pass`
the student never wrote."""

import ast
import copy
import itertools
import math
import random
import re

import pytest
from test_exercise import grammar_body

from components.code import WAITS, verdict_word
from engine import PRESETS, exercise, trace_backward
from engine.bodies import Waiting, checked
from engine.diagnosis import MISTAKES, diagnose, kinds
from engine.exercise import yours
from engine.frames import frames
from engine.grader import GRADED, PITFALLS, grads_of, verdicts
from engine.presets import numeric_grads
from engine.sandbox import INPUTS, BodyError
from engine.value import Value
from view.exercise import code_parts, first_difference
from view.explanation import explain, plain_text

pytestmark = pytest.mark.filterwarnings('ignore::SyntaxWarning')  # the generated bodies of test_exercise's grammar
RIGHT = {name: exercise.answer(name) for name in exercise.OPS}
T1 = math.tanh(1.0)  # tanh(a) + a at a = 1: 1 − t² = 0.41997…
WAITS_LINE = 'waits for your body to run (it cannot run yet: see the error above)'


def _out_grad_as(e, new):
    """E with every `out.grad` in it read as `new` (an ast expression)."""

    class Swap(ast.NodeTransformer):
        def visit_Attribute(self, node):
            if isinstance(node.value, ast.Name) and (node.value.id, node.attr) == ('out', 'grad'):
                return copy.deepcopy(new)
            return node

    return Swap().visit(copy.deepcopy(e))


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
    # is a `pass`. The slip × op matrix is every other cell: + 8 kinds, × 9, tanh 7, each for every input
    never = {(name, kind) for name, op in exercise.OPS.items() for kind in MISTAKES if kind not in kinds(op)}
    assert never == {('add', 'swapped'), ('tanh', 'missing'), ('tanh', 'swapped')}
    assert sum(kind in kinds(exercise.OPS[name]) for name, _, kind in CELLS) == 2 * 8 + 2 * 9 + 7


@pytest.mark.parametrize(
    ('name', 'slot', 'kind'), CELLS, ids=[f'{n}-{INPUTS[exercise.OPS[n]][s]}-{k}' for n, s, k in CELLS]
)
def test_grading_catches_every_slip_the_diagnosis_names(name, slot, kind):
    op = exercise.OPS[name]
    target, text = INPUTS[op][slot], slipped(name, slot, kind)
    if kind not in kinds(op):  # it cannot apply here: the diagnosis never gives it, and the rule makes none of it
        assert text is None or kind not in kinds_named(name, text, target), text
        return
    assert kinds_named(name, text, target) == [kind], text  # the rule makes a slip of its kind
    bodies = checked({**RIGHT, name: text})
    said = verdicts(bodies)
    assert [v.line for v in said if v.wrong], f'{text!r} is graded right on every line'
    assert verdict_word(said, diagnose(bodies)) == kind  # a live class counts it by its kind


@pytest.mark.parametrize('name', exercise.OPS)
def test_equals_for_plus_equals_fails_in_each_op_whichever_of_its_lines_has_it(name):
    right = exercise.right_lines(exercise.OPS[name])
    for chosen in itertools.chain.from_iterable(itertools.combinations(range(len(right)), n) for n in (1, 2)):
        text = '\n'.join(
            ast.unparse(ast.Assign([s.target], s.value, lineno=1) if k in chosen else s) for k, s in enumerate(right)
        )
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


# --- the issue's case, and the pitfalls' grads by hand ---


def test_equals_for_plus_equals_in_tanh_passes_the_other_six_and_fails_tanh_a_plus_a():
    # tanh(a) + a at a = 1: the + writes a.grad = 1 first; tanh's = then writes (1 − t²)·1 over it, where += adds it
    got = lines(tanh='self.grad = (1 - t**2) * out.grad')
    assert got[:6] == ['neuron: right', 'reuse: right', 'chain: right', 'b = a + a: right', 'a·(a + b): right',
                       '(a·b)·(a + b): right']  # fmt: skip
    assert got[6] == f'tanh(a) + a: wrong (a: {round(2 - T1 * T1, 9)!r}, yours {round(1 - T1 * T1, 9)!r})'
    assert got[6] == 'tanh(a) + a: wrong (a: 1.419974342, yours 0.419974342)'
    assert [m.kind for m in diagnose(checked({**RIGHT, 'tanh': 'self.grad = (1 - t**2) * out.grad'}))] == ['assign']


def test_equals_in_the_line_for_self_of_add_fails_a_times_a_plus_b():
    # a·(a + b) at a = b = 1: the × writes a.grad = (a + b)·1 = 2 first; +'s = then writes out.grad = a = 1 over it
    got = lines(add='self.grad = out.grad\nother.grad += out.grad')
    assert [line for line in got if 'wrong' in line] == ['a·(a + b): wrong (a: 3.0, yours 1.0)']


BY_HAND = {
    # b = a + a at a = 3: 1 + 1
    'b = a + a': {'a': 2.0},
    # a·(a + b) at a = b = 1: ∂/∂a = (a + b) + a = 3, ∂/∂b = a = 1
    'a·(a + b)': {'a': 3.0, 'b': 1.0},
    # (a·b)·(a + b) = a²b + ab² at a = −2, b = 3: ∂/∂a = 2ab + b² = −3, ∂/∂b = a² + 2ab = −8
    '(a·b)·(a + b)': {'a': -3.0, 'b': -8.0},
    # tanh(a) + a at a = 1: ∂/∂a = (1 − tanh² a) + 1
    'tanh(a) + a': {'a': 2 - T1 * T1},
}


def test_the_pitfalls_are_graded_at_these_inputs():
    assert list(BY_HAND) == list(PITFALLS) == list(GRADED)[3:]
    assert [GRADED[key].defaults for key in PITFALLS] == [{'a': 3.0}, {'a': 1.0, 'b': 1.0}, {'a': -2.0, 'b': 3.0},
                                                          {'a': 1.0}]  # fmt: skip
    # a typed formula's inputs are 1.0 each: the formula box draws these two at the grader's inputs
    assert (GRADED['a·(a + b)'].title, GRADED['tanh(a) + a'].title) == ('a*(a + b)', 'tanh(a) + a')


@pytest.mark.parametrize('key', BY_HAND)
def test_the_pitfalls_grads_are_the_hand_derived_ones_and_the_finite_differences(key):
    hand = BY_HAND[key]
    numeric = numeric_grads(GRADED[key], {})
    assert numeric == pytest.approx(hand, abs=1e-6)  # the hand's derivative, checked without backward
    assert grads_of(GRADED[key], Value) == [round(hand[name], 9) for name in GRADED[key].defaults]


def test_each_op_of_the_exercise_has_a_pitfall_that_uses_its_input_twice():
    # the op whose `=` each pitfall catches reads a value the graph uses elsewhere: b = a + a (+, a twice), a·(a + b)
    # (+, a also in the ×), (a·b)·(a + b) (×, a and b also in the +), tanh(a) + a (tanh, a also in the +)
    for key, op in [('b = a + a', '+'), ('a·(a + b)', '+'), ('(a·b)·(a + b)', '*'), ('tanh(a) + a', 'tanh')]:
        leaves, out = GRADED[key].build()
        uses = {id(leaf): 0 for leaf in leaves}
        reads = set()
        stack, seen = [out], set()
        while stack:
            v = stack.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            for child in v._prev:
                if id(child) in uses:
                    uses[id(child)] += 1
                    if v._op == op:
                        reads.add(id(child))
                stack.append(child)
        assert any(uses[i] >= 2 for i in reads), key


# --- a body the sandbox refuses waits ---


def test_a_refused_body_waits_and_the_others_are_read_as_typed():
    read = checked({**RIGHT, 'mul': 'import os'})
    assert isinstance(read['mul'], Waiting) and isinstance(read['mul'].error, BodyError)
    assert read['mul'].text == 'import os' and read['mul'].writes == ()
    assert not any(isinstance(read[name], Waiting) for name in ('add', 'tanh'))


def test_a_refused_mul_waits_in_place_of_every_expression_that_uses_it():
    # b = a + a and tanh(a) + a use no ×: they are still graded
    assert lines(mul='import os') == [f'mul: {WAITS_LINE}', 'b = a + a: right', 'tanh(a) + a: right']
    # a slip in another body is still graded where the × is not used
    got = lines(mul='import os', tanh='self.grad = (1 - t**2) * out.grad')
    assert got == [f'mul: {WAITS_LINE}', 'b = a + a: right', 'tanh(a) + a: wrong (a: 1.419974342, yours 0.419974342)']


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
