"""Your own `_backward` (mode=code): a student's bodies are checked against a whitelist and run by walking their trees;
each class of mistake gets the grader's verdict, the frame of its first difference and its words, all worked out by
hand here, never read off the engine."""

import math
import random
import re

import pytest

from engine import PRESETS, Value, chain, exercise, numeric_grads, trace_backward
from engine.diagnosis import MISTAKES, diagnose
from engine.exercise import TODO, yours
from engine.frames import frames
from engine.grader import verdicts
from engine.sandbox import MAX_BODY, MAX_STATEMENTS, BodyError, Local, Write, check_body
from exports.render import speaker_notes
from view import exercise as exercise_view
from view.exercise import code_parts, first_difference
from view.explanation import explain, frame_rules, plain_text
from view.node_table import table_columns
from view.numbers import fmt
from view.player_body import make_body

pytestmark = pytest.mark.filterwarnings('ignore::SyntaxWarning')  # ast warns on '1if x'; the checker refuses it
RIGHT = {name: exercise.answer(name) for name in exercise.OPS}
T = math.tanh(0.8813735870195432 + 2.0 * -3.0 + 6.0)  # the neuron's o; 1 - o² = 0.5, to float precision


def checked(**texts):
    return {name: check_body(name, texts.get(name, RIGHT[name])) for name in exercise.OPS}


def lines(**texts):
    return [v.line for v in verdicts(checked(**texts))]


def student_trace(expression, **texts):
    """(the trace on the student's bodies, the right engine's beside it)."""
    leaves, out = expression.build(value_type=yours(checked(**texts)))
    right_leaves, right_out = expression.build()
    return trace_backward(out, leaves), trace_backward(right_out, right_leaves)


def first_words(expression, **texts):
    """(the index of the first frame that differs, the explanation's text there)."""
    trace, right = student_trace(expression, **texts)
    all_frames = frames(trace)
    k = first_difference(trace, right, all_frames)
    mistakes = diagnose(checked(**texts))
    return k, plain_text(
        explain(trace, all_frames[k])
        + code_parts(trace, right, frame=all_frames[k], first_here=True, mistakes=mistakes)
    )


# --- the right bodies ---


def test_the_right_bodies_are_right_on_all_six_expressions():
    assert lines() == ['neuron: right', 'reuse: right', 'chain: right', 'b = a + a: right', 'a + tanh(a + a): right',
                       'tanh(a)·(a + a·a): right']  # fmt: skip


@pytest.mark.parametrize('key', [*PRESETS, 'chain3'])
def test_the_right_bodies_give_the_engines_grads_bit_for_bit(key):
    expression = chain(3) if key == 'chain3' else PRESETS[key]
    theirs = student_trace(expression)[0].final_grads()
    ours = trace_backward(*reversed(expression.build())).final_grads()
    assert [x.hex() for x in theirs] == [x.hex() for x in ours]


def test_the_todo_bodies_are_the_exercises_own_text():
    head, indent, tail = exercise.around('tanh')
    assert head.endswith('def _backward():') and 't = math.tanh(self.data)' in head
    assert tail.startswith('    out._backward = _backward') and indent == '        '
    assert all(check_body(name, TODO).writes == () for name in exercise.OPS)


# --- each class of mistake: verdicts by hand, the first difference, the words there ---
# reuse is a·b + a·a at a = 3, b = −2: right a.grad = b + 2a = 4, b.grad = a = 3. Its frames (forward and leaves on):
# 0 inputs, 1 a*b, 2 a*a, 3 out, 4 seed, 5 out's step, 6 a*a's, 7 a*b's, 8 b's, 9 a's.
# neuron: o = tanh(n) = 0.7071, 1 − o² = 0.5; right x1.grad = w1 · 0.5 = −1.5. Its frames: 0 inputs, 1-5 the ops
# x1*w1, x2*w2, their sum, n, o; 6 seed; 7 o's step, 8 n's, 9 b's, 10 the sum's, 11 x2*w2's.


def test_equals_for_plus_equals_in_mul_gives_the_bug_modes_numbers():
    # a*a writes a.grad = 3 twice, then a*b writes a.grad = b = −2 over it
    got = lines(mul='self.grad = other.data * out.grad\nother.grad = self.data * out.grad')
    assert got[1] == 'reuse: wrong (a: 4.0, yours -2.0)'
    assert got[0] == 'neuron: right'  # nothing reused in the neuron: = writes what += adds to 0
    k, words = first_words(PRESETS['reuse'], mul='self.grad = other.data * out.grad\nother.grad = self.data * out.grad')
    assert k == 6  # a*a's step: its second line throws its first 3 away, where += makes 6
    assert '= threw a contribution away. a.grad = … replaced 3.0000' in words
    assert 'a.grad would be 6.0000 after this step' in words and '= where += belongs' in words


def test_equals_in_mul_keeps_only_the_chains_first_use_of_w():
    # chain: z_k = h_{k-1}·w, h_k = tanh(z_k), h_0 = x; the pass runs k = 10 … 1, so = leaves w.grad = x·∂L/∂z_1
    x, w = 0.5, 1.5
    h = [x]
    for _ in range(10):
        h.append(math.tanh(h[-1] * w))
    dz = [0.0] * 11
    upstream = 1.0
    for k in range(10, 0, -1):
        dz[k] = upstream * (1 - h[k] ** 2)
        upstream = dz[k] * w
    right, last = sum(h[k - 1] * dz[k] for k in range(1, 11)), x * dz[1]
    got = lines(mul='self.grad = other.data * out.grad\nother.grad = self.data * out.grad')[2]
    assert got == f'chain: wrong (w: {round(right, 9)!r}, yours {round(last, 9)!r})'


def test_equals_in_add_passes_the_exercises_three_and_fails_b_equals_a_plus_a_and_a_plus_tanh_a_plus_a():
    # b = a + a: the second write a.grad = 1 replaces the first; += gives 2
    got = lines(add='self.grad = out.grad\nother.grad = out.grad')
    # a + tanh(a + a) at a = 1: a.grad = 1 + 2(1 − tanh² 2) = 1.14130165; the outer + writes a.grad = 1 first, then
    # the inner + writes a.grad = 1 − tanh² 2 twice
    t2 = math.tanh(2.0)
    assert got[4] == f'a + tanh(a + a): wrong (a: {round(1 + 2 * (1 - t2 * t2), 9)!r}, yours {round(1 - t2 * t2, 9)!r})'
    assert got == ['neuron: right', 'reuse: right', 'chain: right', 'b = a + a: wrong (a: 2.0, yours 1.0)',
                   'a + tanh(a + a): wrong (a: 1.14130165, yours 0.070650825)', 'tanh(a)·(a + a·a): right']  # fmt: skip
    k, words = first_words(PRESETS['a_plus_a'], add='self.grad = out.grad\nother.grad = out.grad')
    assert k == 3  # 0 inputs, 1 a + a, 2 seed, 3 b's step
    assert '= where += belongs' in words and 'First difference: your + (__add__), for other = a' in words


def test_swapped_inputs_in_mul():
    # a·b gives a its own data (3) and b its own (−2); a·a is the same either way: a = 3 + 6 = 9, b = −2
    body = 'self.grad += self.data * out.grad\nother.grad += other.data * out.grad'
    assert lines(mul=body)[1] == 'reuse: wrong (a: 4.0, yours 9.0)'
    k, words = first_words(PRESETS['reuse'], mul=body)
    assert k == 7
    assert 'gives a the local gradient a.data = 3.0000' in words and 'is b.data = −2.0000' in words
    assert 'the inputs swapped' in words


def test_out_grad_missing_from_the_product():
    # the neuron's x2*w2 step: x2 gets w2.data = 1 where the chain rule gives w2 · 0.5
    body = 'self.grad += other.data\nother.grad += self.data'
    assert lines(mul=body)[0] == 'neuron: wrong (x1: -1.5, yours -3.0)'
    assert lines(mul=body)[1] == 'reuse: right'  # every product's out.grad is 1 there: the slip cannot show
    k, words = first_words(PRESETS['neuron'], mul=body)
    assert k == 11 and 'out.grad missing from the product' in words


def test_out_data_used_for_out_grad():
    # tanh's step gives n (1 − o²)·o rather than (1 − o²)·1: every grad below it is o times too small
    got = lines(tanh='self.grad += (1 - t**2) * out.data')[0]
    assert got == f'neuron: wrong (x1: -1.5, yours {round(-3.0 * (1 - T * T) * T, 9)!r})'
    k, words = first_words(PRESETS['neuron'], tanh='self.grad += (1 - t**2) * out.data')
    assert k == 7 and 'out.data where out.grad belongs' in words


@pytest.mark.parametrize(
    ('body', 'local'), [('self.grad += t * out.grad', T), ('self.grad += (1 - t) * out.grad', 1 - T)]
)
def test_a_wrong_local_gradient_for_tanh(body, local):
    assert lines(tanh=body)[0] == f'neuron: wrong (x1: -1.5, yours {round(-3.0 * local, 9)!r})'
    k, words = first_words(PRESETS['neuron'], tanh=body)
    assert k == 7 and 'a wrong local gradient' in words and 'is 1 − t² = 1 − 0.7071² = 0.5000' in words


def test_an_input_never_given_a_grad():
    # out = a*b + a*a: a*a's grad stays 0, so a gets only b = −2 from a*b
    assert lines(add='self.grad += out.grad')[1] == 'reuse: wrong (a: 4.0, yours -2.0)'
    k, words = first_words(PRESETS['reuse'], add='self.grad += out.grad')
    assert k == 5 and 'never writes other.grad' in words and 'the input is never given a grad' in words


def test_a_pass_left_in():
    assert lines(mul=TODO)[1] == 'reuse: wrong (a: 4.0, yours 0.0)'
    k, words = first_words(PRESETS['reuse'], mul=TODO)
    assert k == 6 and 'a `pass` left in' in words


@pytest.mark.parametrize(
    ('name', 'body', 'kind'),
    [('mul', 'self.grad = other.data * out.grad\nother.grad += self.data * out.grad', 'assign'),
     ('mul', 'self.grad += self.data * out.grad\nother.grad += self.data * out.grad', 'swapped'),
     ('mul', 'self.grad += other.data\nother.grad += self.data * out.grad', 'no_out_grad'),
     ('mul', 'self.grad += out.data * other.data\nother.grad += self.data * out.grad', 'out_data'),
     ('tanh', 'self.grad += t * out.grad', 'local'), ('tanh', 'self.grad -= (1 - t**2) * out.grad', 'subtract'),
     ('tanh', 'self.grad += (1 - t**2) * out.grad\nself.grad += (1 - t**2) * out.grad', 'twice'),
     ('add', 'other.grad += out.grad', 'missing'), ('add', TODO, 'pass'),
     ('tanh', 'self.grad += out.grad * (1 - math.tanh(self.data)**2)  # the same, written otherwise', None)],
)  # fmt: skip
def test_diagnose_names_the_class_of_mistake_however_the_line_is_written(name, body, kind):
    found = [m.kind for m in diagnose(checked(**{name: body})) if m.target == 'self']
    assert found == ([kind] if kind else [])


def test_the_first_difference_is_marked_in_the_body_sent_to_the_player():
    trace, right = student_trace(
        PRESETS['reuse'], mul='self.grad += self.data * out.grad\nother.grad += other.data * out.grad'
    )
    mistakes = diagnose(checked(mul='self.grad += self.data * out.grad\nother.grad += other.data * out.grad'))
    import json

    body = json.loads(make_body(trace, frames(trace), width=7, numeric={'a': 4.0, 'b': 3.0}, graph={'svg': ''},
                                mode='code', right=right, mistakes=mistakes))  # fmt: skip
    assert body['marks'] == [7]
    assert body['captions'][7].endswith('✗ first difference from the right engine')
    assert body['captions'][9].endswith('first difference: frame 8 of 10')
    assert 'right grad' in body['table']['columns']


# --- safety: two outcomes for any text ---

ESCAPES = [
    '__import__("os").system("id")', 'self.grad += __import__("os").system("id")', 'import os', 'from os import *',
    'self.grad += ().__class__.__bases__[0].__subclasses__()', 'self.grad += out._backward.__globals__',
    'self.grad += self.__dict__', 'self.grad += math.__loader__', 'self.grad += math.tanh.__self__',
    'exec("import os")', 'eval("1")', 'self.grad += eval("1")', 'self.grad += open("/etc/passwd")',
    'self.grad += (lambda: 1)()', 'self.grad += [c for c in ()]', 'self.grad += {1: 2}[1]', 'self.grad += "a"',
    "self.grad += f'{1}'", 'self.grad += (x := 1)', 'self.grad += 1 if out.grad else 0', 'global x', 'del self',
    'for i in range(9**9): pass', 'while True: pass', 'if True: self.grad += 1', 'with open("x"): pass',
    'def f(): pass', 'class A: pass', 'try:\n    pass\nexcept: pass', 'raise SystemExit', 'assert False',
    'self.grad += 9**9**9', 'self.grad += 10**1000', 'self.grad += 2**101', 'self.data = 0', 'out.grad = 0',
    'self.grad += self.grad', 'self._backward = None', 'self.grad += math.sqrt(2)', 'self.grad += math.tanh(1, 2)',
    'self.grad += math.tanh(x=1)', 'self.grad += math.tanh(*[1])', 'self.grad, other.grad = 1, 2', 'a = b = 1',
    'self.grad += 1\x00', 'self.grad += ' + '(' * 300 + '1' + ')' * 300, 'self.grad += ' + '-' * 450 + '1',
    'self.grad @= 1', 'self.grad //= 2', 'self.grad += 1 ^ 2', 'self.grad += ~1', 'self.grad += not 1',
    'yield 1', 'await x', 'self.grad += other.data', 'self.grad += t', 'x: os.system = 1', 'print(1)',
    'pass\n' * (MAX_STATEMENTS + 1), 'self._backward()', 'out._backward()', 'self.backward()', '_backward()',
    'self.grad += out.grad\nself._backward()', 'g = out\nself.grad += g.data', 'g = out.grad\ng.__class__',
    '__builtins__ = 1', 'math = 1', 'self = 1', 'g = math.tanh\nself.grad += g(1)', 'self.grad += g\ng = 1',
    'g += 1', 'self.grad += out.grad.real', 'g, h = 1, 2', 'g = h = 1', 'g: int', 'self.grad: float = 1',
    'self.grad = other.grad + out.grad', 'self.grad = self.grad * out.grad', 'g **= self.data',
    'self.grad += 1e999', 'self.grad += True', 'self.grad += None', 'self.grad += 1j', 'self.grad += ...',
]  # fmt: skip


def run_or_error(name, text):
    """'ran' or 'refused': check_body has no third outcome, and a checked body runs to floats on a real graph, where
    the trace replays each of its steps (its lines read as engine/code.py reads them) and the diagnosis reads it."""
    try:
        body = check_body(name, text)
    except BodyError as e:
        assert e.message and (e.line is None or 1 <= e.line <= text.count('\n') + 1), (text[:80], e)
        return 'refused'
    bodies = {**checked(), name: body}
    leaves, out = PRESETS['neuron'].build(value_type=yours(bodies))
    trace = trace_backward(out, leaves)
    assert all(isinstance(leaf.grad, float) for leaf in leaves)
    assert len(trace.steps[:]) == len(trace.nodes)  # each step replayed: it asserts the replay wrote what the pass did
    assert all(m.kind in MISTAKES for m in diagnose(bodies))
    return 'ran'


@pytest.mark.parametrize('text', ESCAPES)
def test_a_known_escape_is_refused(text):
    name = 'add' if 'other' in text else 'tanh'
    if text in ('self.grad += other.data', 'self.grad += t'):  # each is fine in its own op: refused in the other
        name = 'tanh' if text == 'self.grad += other.data' else 'add'
    assert run_or_error(name, text) == 'refused'


PIECES = ['self.grad', 'other.grad', 'out.grad', 'out.data', 'self.data', 'other.data', 't', '1', '2.5', '0',
          '1e308', 'math.tanh(', 'math.exp(', 'math.log(', 'math.sqrt(', '__import__(', '(', ')', '+', '-', '*',
          '/', '**', '**2', '**-1', '+=', '-=', '=', '\n', ' ', '# c', 'pass', '.', '[', ']', ',', ':', 'lambda',
          'import', 'os', 'x', '"s"', '__class__', 'if', 'else', '\t', ';', '"""', "'''", 'g', 'g = ', 'local',
          '*=', '/=', '**=', '._backward()', '.backward()', 'print(', '.value', 'abs(', 'return', '\\\n', '...',
          ': float', 'self.grad = self.grad + ', '__builtins__', 'out']  # fmt: skip
STATEMENTS = ['self.grad += {e}', 'other.grad += {e}', 'self.grad -= {e}', 'self.grad = {e}', 'pass  # TODO',
              '"""{e}, as a docstring"""', "'a note'", '# a comment', '...', '{n} = {e}', '{n} += {e}',
              '{n} -= {e}', '{n} *= {e}', '{n} /= {e}', '{n} **= 2', '{n}: float = {e}', 'self.grad = self.grad + {e}',
              'other.grad = {e} + other.grad', 'self.grad = self.grad - {e}', 'self.grad += (\n    {e}\n)',
              'other.grad += \\\n    {e}', 'self.grad += {e}; other.grad += {e}']  # fmt: skip
TERMS = {'add': ['out.grad', 'out.data', 'self.data', 'other.data', '1', '0.5', '0', '1e308', '-1e308']}
TERMS = {'add': TERMS['add'], 'mul': TERMS['add'], 'tanh': [*TERMS['add'][:3], 't', *TERMS['add'][4:]]}
NAMES = ['g', 'local', 'h']
STRINGS = ('as a docstring', 'a note')


def grammar_body(rng, name=None):
    """Lines of the whitelist's forms for the op `name` (grads written, names given numbers, strings, comments,
    brackets across lines; any op's where `name` is None); now and then a term of another op, or a name read before a
    line gives it a number: each body runs or is refused."""
    named, op = [], name if name and rng.random() < 0.9 else rng.choice(list(TERMS))

    def term(depth):
        if depth > 3 or rng.random() < 0.4:
            if rng.random() < 0.3:
                return rng.choice(named if named and rng.random() < 0.95 else NAMES)
            return rng.choice(TERMS[op])
        kind = rng.randrange(5)
        if kind == 0:
            return f'({term(depth + 1)} {rng.choice("+-*/")} {term(depth + 1)})'
        if kind == 1:
            return f'{rng.choice("-+")}{term(depth + 1)}'
        if kind == 2:
            return f'{term(depth + 1)}**{rng.choice(["2", "-1", "0.5", "3"])}'
        if kind == 3:
            return f'( {term(depth + 1)} )'
        return f'math.{rng.choice(["tanh", "exp", "log"])}({term(depth + 1)})'

    lines = []
    for _ in range(rng.randint(1, 5)):
        form = rng.choice(STATEMENTS)
        grows = form.startswith('{n}') and not form.startswith(('{n} = ', '{n}: '))  # g += …
        if ('other' in form and op == 'tanh' and rng.random() < 0.9) or (grows and not named):
            form = rng.choice(STATEMENTS[:5])  # mostly what the op has, and a name given a number before it grows
        local = rng.choice(named) if named and (grows or rng.random() < 0.5) else rng.choice(NAMES)
        lines.append(form.format(e=term(0), n=local))
        if form.startswith(('{n} = ', '{n}: ')):
            named.append(local)
    return '\n'.join(lines)


def test_ten_thousand_generated_and_mutated_bodies_each_run_or_are_refused():
    rng = random.Random(21)  # the same bodies every run
    outcomes = {'ran': 0, 'refused': 0}
    forms = {'named': 0, 'string': 0, 'written out': 0}
    for k in range(10_000):
        name = rng.choice(list(exercise.OPS))
        text = grammar_body(rng, name)
        if k % 2:  # mutated: a piece put in, one taken out, or two swapped
            cut = rng.randrange(len(text) + 1)
            text = text[:cut] + rng.choice(PIECES) + text[cut + rng.randrange(3) :]
        if k % 10 == 9:  # random text from the pieces alone
            text = ''.join(rng.choice(PIECES) for _ in range(rng.randint(1, 30)))
        text = text[: MAX_BODY + 20]
        outcome = run_or_error(name, text)
        outcomes[outcome] += 1
        if outcome == 'ran':
            steps = check_body(name, text).steps
            forms['named'] += any(isinstance(s, Local) for s in steps)
            forms['string'] += any(mark in text for mark in STRINGS)
            forms['written out'] += any(isinstance(s, Write) and s.text.startswith(f'{s.target}.grad = ')
                                        and s.how != '=' for s in steps)  # fmt: skip
    assert outcomes['ran'] > 1_000 and outcomes['refused'] > 1_000  # both outcomes are really tried
    assert min(forms.values()) > 300, forms  # and the forms the whitelist takes beside `X.grad += E`


def test_an_over_long_body_is_refused_before_it_is_read():
    with pytest.raises(BodyError, match='limit is 500'):
        check_body('add', 'self.grad += out.grad\n' + ' ' * MAX_BODY)


def test_an_error_says_where_with_a_caret():
    text = 'self.grad += out.grad\nother.grad += out.grad.__class__'
    e = pytest.raises(BodyError, check_body, 'add', text).value
    assert (e.line, e.column) == (2, 15)
    assert e.pointed(text) == 'other.grad += out.grad.__class__\n              ^'


def test_nan_and_inf_are_numbers_in_a_body():
    body = checked(tanh='self.grad += (1 / (self.data - self.data)) * out.grad\nself.grad += math.log(-1.0)')
    leaves, out = PRESETS['neuron'].build(value_type=yours(body))
    Value.backward(out)
    assert all(math.isnan(leaf.grad) or math.isinf(leaf.grad) for leaf in leaves if leaf.label != 'x2')


# --- no frame states a wrong grad as a fact: it says so, with the right one (issue 33, 4) ----------------------
SLIPS = {  # a body per class of slip, each giving some preset a wrong input grad
    'equals': {'mul': 'self.grad += other.data * out.grad\nother.grad = self.data * out.grad'},
    'swapped': {'mul': 'self.grad += self.data * out.grad\nother.grad += other.data * out.grad'},
    'no out.grad': {'mul': 'self.grad += other.data\nother.grad += self.data'},
    'sign': {'add': 'self.grad += out.grad\nother.grad -= out.grad'},
    'todo': {'tanh': TODO},
    'never written': {'mul': TODO},  # the exercise's own × as it starts: no input's grad is written through it
    'one input left out': {'mul': 'self.grad += other.data * out.grad'},
}
# '∂out/∂a = a.grad = 1.0000', '∂out/∂a = 4.0000', and the explanation's 'Its grad, 3.0000, is ∂out/∂b.'
DERIVATIVE = re.compile(r'∂\S+/∂(\S+) = (?:\S+\.grad = )?([−-]?\d+\.\d+)')
ITS_GRAD = re.compile(r'Its grad, ([−-]?\d+\.\d+), is ∂\S+/∂(\S+?)\.(?:\s|$)')


def said_derivatives(text):
    """Each (input, number) a text states as ∂output/∂input."""
    pairs = DERIVATIVE.findall(text) + [(name, x) for x, name in ITS_GRAD.findall(text)]
    return [(name, float(x.replace('−', '-'))) for name, x in pairs]


@pytest.mark.parametrize('slip', SLIPS)
@pytest.mark.parametrize('key', ['neuron', 'reuse', 'a_plus_a', 'ab_times_a_plus_b'])
def test_every_derivative_a_frame_states_is_the_finite_difference(slip, key):
    expression = PRESETS[key]
    trace, right = student_trace(expression, **SLIPS[slip])
    numeric = numeric_grads(expression, {})
    by_name = {n.name: i for i, n in enumerate(trace.nodes) if n.is_input}
    yours = trace.final_grads()
    stated = 0
    for frame in frames(trace):
        texts = [*frame_rules(trace, frame, right=right), plain_text(explain(trace, frame, right=right)),
                 speaker_notes(trace, frame, right=right)]  # fmt: skip
        for text in texts:
            for name, x in said_derivatives(text):
                assert x == pytest.approx(numeric[name], abs=1e-4), (frame, text)
                stated += 1
        node = trace.nodes[frame.node] if frame.node >= 0 else None
        if frame.kind == 'backward' and node.is_input and abs(yours[frame.node] - numeric[node.name]) > 1e-4:
            (rule,) = frame_rules(trace, frame, right=right)  # the wrong grad, said wrong, beside the right one
            shown = re.escape(f'{node.name}.grad = {fmt(yours[frame.node]).replace("-", "−")}')
            assert re.match(f'{shown}(, never written)?: wrong', rule), rule
    assert stated  # each input's own frame states its derivative, or what it is not
    table = table_columns(trace, exercise_view, right)
    for name, i in by_name.items():  # the answers column: a wrong final grad says so, with the right one
        wrong = abs(yours[i] - numeric[name]) > 1e-4
        assert ('wrong' in table['finals'][i]) == wrong, (name, table['finals'][i])


def test_the_reuse_end_frame_says_a_grad_is_wrong_and_gives_four():
    # = in mul's other line: a*a writes a.grad = 3 twice (the second over the first), a*b adds b = −2: a.grad = 1,
    # where ∂out/∂a = b + 2a = 4
    trace, right = student_trace(PRESETS['reuse'], **SLIPS['equals'])
    end = frames(trace)[-1]
    assert trace.nodes[end.node].name == 'a'
    assert frame_rules(trace, end, right=right) == ['a.grad = 1.0000: wrong, the right engine gives ∂out/∂a = 4.0000']
    text = plain_text(explain(trace, end, right=right))
    assert 'is ∂out/∂a' not in text and 'wrong: the right engine gives ∂out/∂a = 4.0000' in text
