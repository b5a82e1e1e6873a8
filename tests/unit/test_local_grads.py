"""microgpt's form (mode=code, form=local_grads): a student's local_grads tuple per op, each checked by the sandbox
and run by the engine beside the closure engine. The right tuples give the closure engine's grads bit for bit on
every preset and on typed formulas; each kind of slip this form names is made from the right tuple by its rule, named
by the diagnosis and caught by some line of the grader; a tuple that cannot run is refused with its line and column
and never reaches the engine, whose op waits. The expected numbers are worked out by hand, never read off the
engine."""

import ast
import copy
import math
import random
import struct

import pytest

from components.code import verdict_word
from engine import PRESETS, chain, exercise, parse_expression, trace_backward
from engine import local_grads as lg
from engine.bodies import Waiting
from engine.forms import FORMS
from engine.frames import frames
from engine.sandbox import INPUTS, BodyError, check_body
from engine.value import Value as Closures
from view.exercise import code_parts, first_difference
from view.explanation import explain, plain_text

FORM = FORMS['local_grads']
RIGHT = {name: lg.answer(name) for name in exercise.OPS}
WAITS_LINE = 'waits for your local_grads to run (it cannot run yet: see the error above)'


def bits(x):
    """A float's 64 bits; every nan alike (engine/ieee.py's same: a nan from the same steps is the same result)."""
    return 'nan' if x != x else struct.pack('<d', x).hex()


def lines(**texts):
    return [v.line for v in FORM.verdicts(lg.checked({**RIGHT, **texts}))]


def traces(expression, values=None, **texts):
    """(the trace on the student's tuples, the closure engine's beside it), at `values` (the defaults if None)."""
    leaves, out = expression.build(values, value_type=lg.yours(lg.checked({**RIGHT, **texts})))
    right_leaves, right_out = expression.build(values)
    return trace_backward(out, leaves), trace_backward(right_out, right_leaves)


# --- the right tuples: microgpt's, read off the closures, and the closure engine's grads to the last bit ---


def test_the_right_tuples_are_microgpts_read_off_the_closures():
    assert RIGHT == {'add': '(1, 1)', 'mul': '(other.data, self.data)', 'tanh': '(1 - t ** 2,)'}
    assert lg.around('mul') == ('def __mul__(self, other):\n    return Value(self.data * other.data, (self, other),',
                                ')')  # fmt: skip
    assert lg.around('tanh')[0].splitlines()[1:] == ['    t = math.tanh(self.data)', '    return Value(t, (self,),']
    assert 'for child, local_grad in zip(v._children, v._local_grads):' in lg.LOOP
    assert lg.LOOP.endswith('child.grad += local_grad * v.grad')


def test_the_right_tuples_are_right_on_all_six_expressions():
    assert lines() == ['neuron: right', 'reuse: right', 'chain: right', 'b = a + a: right', 'a + tanh(a + a): right',
                       'tanh(a)·(a + a·a): right']  # fmt: skip


@pytest.mark.parametrize('key', [*PRESETS, 'chain3', 'chain40'])
def test_the_right_tuples_give_the_closure_engines_grads_bit_for_bit_on_every_preset(key):
    expression = chain(int(key[5:])) if key[5:].isdigit() else PRESETS[key]
    yours, right = traces(expression)
    assert [bits(g) for g in yours.final_grads()] == [bits(g) for g in right.final_grads()]
    assert [bits(n.data) for n in yours.nodes] == [bits(n.data) for n in right.nodes]
    # and each step's contributions, as the page shows them
    for mine, theirs in zip(yours.steps, right.steps):
        assert [(c.child, bits(c.amount), bits(c.after)) for c in mine.contributions] == [
            (c.child, bits(c.amount), bits(c.after)) for c in theirs.contributions
        ]


FORMULAS = ['a*b + a*a', 'tanh(a*b + c)', 'a*(a + b)', 'tanh(a) + a', 'tanh(tanh(a)*tanh(a))', 'a + a + a + a',
            'a*a*a*a', 'tanh(x1*w1 + x2*w2 + b)*tanh(x1)', 'exp(a*b) - a/b', 'a**3 + relu(a*b) + sigmoid(b)*a',
            'log(a*a + 1)*sin(b) + cos(a)*b', '(a - b)*(a + b)*-a']  # fmt: skip


@pytest.mark.parametrize('formula', FORMULAS)
def test_the_right_tuples_give_the_closure_engines_grads_bit_for_bit_on_typed_formulas(formula):
    expression = parse_expression(formula)
    rng = random.Random(formula)  # the same inputs every run
    points = [None] + [{name: rng.choice([0.0, -0.0, 1.0, 1e-300, 1e300, math.inf, math.nan]) if k == 9
                        else rng.uniform(-3, 3) for name in expression.defaults} for k in range(10)]  # fmt: skip
    for values in points:
        yours, right = traces(expression, values)
        assert [bits(g) for g in yours.final_grads()] == [bits(g) for g in right.final_grads()], values


@pytest.mark.parametrize('key', ['neuron', 'reuse', 'chain', 'lecture', 'a_plus_a', 'ab_times_a_plus_b'])
def test_microgpts_one_loop_as_it_writes_it_gives_the_same_grads(key):
    # backward(): for v in reversed(topo): for child, local_grad in zip(v._children, v._local_grads): ...
    expression = PRESETS[key]
    leaves, out = expression.build(value_type=lg.yours(lg.checked(RIGHT)))
    lg.backward(out)
    right_leaves, right_out = expression.build(value_type=Closures)
    right_out.backward()
    assert [bits(leaf.grad) for leaf in leaves] == [bits(leaf.grad) for leaf in right_leaves]


def test_a_value_keeps_its_local_grads_as_microgpt_names_them():
    a, b = (lg.yours(lg.checked(RIGHT))(x) for x in (3.0, -2.0))
    out = a * b
    assert out._children == (a, b) and out._local_grads == (-2.0, 3.0) and a._local_grads == ()
    assert (a + b)._local_grads == (1.0, 1.0)
    t = math.tanh(0.5)
    assert a.__class__(0.5).tanh()._local_grads == (1 - t**2,)
    with pytest.raises(TypeError, match='keeps no local_grads'):
        _ = (a - b)._local_grads  # value.py's own op: a closure, not a tuple


# --- the slips of this form: each made from the right tuple by its rule, named, and caught by the grader ---


def _times(e, other):
    return ast.BinOp(copy.deepcopy(e), ast.Mult(), ast.parse(other, mode='eval').body)


# each kind's rule: from the right entries (ast, one per input) and the input's slot, the entries of the slipped
# tuple; None where the rule cannot make one
RULES = {
    'empty': lambda right, k: [],
    'short': lambda right, k: right[:k] if k > 0 else None,  # the entries before k: zip stops there
    'swapped': lambda right, k: [*right[:k], right[1 - k], *right[k + 1 :]] if len(right) > 1 else None,
    'sign': lambda right, k: [*right[:k], ast.UnaryOp(ast.USub(), right[k]), *right[k + 1 :]],
    'out_grad': lambda right, k: [*right[:k], _times(right[k], 'out.grad'), *right[k + 1 :]],
    'output': lambda right, k: [*right[:k], ast.parse('out.data', mode='eval').body, *right[k + 1 :]],
    'overflow': lambda right, k: [*right[:k], _times(right[k], 'math.exp(1000)'), *right[k + 1 :]],
    'nan': lambda right, k: [*right[:k], _times(right[k], 'math.log(-1)'), *right[k + 1 :]],
    'local': lambda right, k: [*right[:k], ast.BinOp(ast.Constant(2), ast.Mult(), right[k]), *right[k + 1 :]],
}


def slipped(name, slot, kind):
    entries = RULES[kind](list(lg.right_entries(exercise.OPS[name])), slot)
    return None if entries is None else lg.tuple_text([ast.unparse(e) for e in entries])


def named(name, text, target):
    return [m.kind for m in lg.diagnose(lg.checked({**RIGHT, name: text})) if m.name == name and m.target == target]


CELLS = [(name, slot, kind) for name, op in exercise.OPS.items() for slot in range(len(INPUTS[op])) for kind in RULES]


def test_every_kind_this_form_names_has_a_rule_here_and_words():
    assert list(RULES) == list(lg.MISTAKES) == list(FORM.mistakes)
    assert all(lg.MISTAKES[kind] for kind in RULES)


def test_the_kinds_that_cannot_apply_are_the_diagnosis_own():
    # + gives each input 1: swapping changes nothing; tanh has one input: no entry is `empty`, and nothing to swap
    never = {(name, kind) for name, op in exercise.OPS.items() for kind in RULES if kind not in lg.kinds(op)}
    assert never == {('add', 'swapped'), ('tanh', 'short'), ('tanh', 'swapped')}


@pytest.mark.parametrize(
    ('name', 'slot', 'kind'), CELLS, ids=[f'{n}-{INPUTS[exercise.OPS[n]][s]}-{k}' for n, s, k in CELLS]
)
def test_grading_catches_every_slip_the_diagnosis_names(name, slot, kind):
    op = exercise.OPS[name]
    target, text = INPUTS[op][slot], slipped(name, slot, kind)
    if text is None:  # the rule makes none here: the input before it, or one without another to swap with
        assert kind in ('short', 'swapped')
        return
    if kind not in lg.kinds(op):
        assert kind not in named(name, text, target), text
        return
    assert named(name, text, target) == [kind], text
    read = lg.checked({**RIGHT, name: text})
    said = FORM.verdicts(read)
    assert [v.line for v in said if v.wrong], f'{text!r} is graded right on every line'
    assert verdict_word(said, lg.diagnose(read)) == kind  # a live class would count it by its kind


@pytest.mark.parametrize(
    ('name', 'text', 'kinds'),
    [
        ('mul', '(self.data, other.data)', {'self': 'swapped', 'other': 'swapped'}),  # the tuple in the wrong order
        ('mul', '(other.data,)', {'other': 'short'}),  # one entry for two inputs: zip stops at the shorter
        ('mul', '(-other.data, self.data)', {'self': 'sign'}),
        ('add', '(1, -1)', {'other': 'sign'}),
        ('mul', '(other.data * out.grad, self.data * out.grad)', {'self': 'out_grad', 'other': 'out_grad'}),
        ('add', '(out.grad, 1)', {'self': 'out_grad'}),  # micrograd's habit: the loop already multiplies
        ('tanh', '(t,)', {'self': 'output'}),  # t for 1 - t**2
        ('tanh', '(1 - t,)', {'self': 'local'}),
        ('tanh', '(t**2 - 1,)', {'self': 'sign'}),
        ('tanh', '((1 - t**2) * out.grad,)', {'self': 'out_grad'}),
        ('tanh', '(1 - out.data**2,)', {}),  # however it is written: out.data is t
        ('mul', '(other.data + 0, 1 * self.data)', {}),
        ('add', '()  # TODO', {'self': 'empty', 'other': 'empty'}),
    ],
)
def test_the_diagnosis_names_the_slip_however_the_tuple_is_written(name, text, kinds):
    read = lg.checked({**RIGHT, name: text})
    assert {m.target: m.kind for m in lg.diagnose(read)} == kinds


def test_the_issues_slips_by_hand_on_reuse():
    # reuse = a·b + a·a at a = 3, b = −2: right a.grad = b + 2a = 4, b.grad = a = 3
    # swapped ×: a gets its own data from a·b (3) and 3 + 3 from a·a: 9; b gets b: −2
    assert lines(mul='(self.data, other.data)')[1] == 'reuse: wrong (a: 4.0, yours 9.0)'
    # one entry for two: b gets nothing; a·a's second use of a gets nothing: a = −2 + 3 = 1
    assert lines(mul='(other.data,)')[1] == 'reuse: wrong (a: 4.0, yours 1.0)'
    # out.grad multiplied in: the + passes 1 back, so reuse's × see out.grad = 1: right there; the neuron's does not
    assert lines(mul='(other.data * out.grad, self.data * out.grad)')[:2] == [
        'neuron: wrong (x1: -1.5, yours -0.75)', 'reuse: right']  # fmt: skip
    # t for 1 − t²: the neuron's o = tanh(n) = 1/√2, its 1 − o² = 1/2 where t = 0.7071…
    assert lines(tanh='(t,)')[0] == f'neuron: wrong (x1: -1.5, yours {round(-3 * math.tanh(0.8813735870195432), 9)!r})'


# --- a tuple that cannot run: its line and column, and it never reaches the engine ---


def sandbox(entry):
    """The message is the sandbox's own, as it says it for this entry as the E of a body's line."""
    return ('sandbox', entry)


@pytest.mark.parametrize(
    ('name', 'text', 'where', 'says'),
    [
        ('tanh', '(1 - t**2)', (1, 2), 'even of one'),  # no comma: a number, not a tuple
        ('mul', 'other.data', (1, 1), 'one local gradient per input'),
        ('mul', '[other.data, self.data]', (1, 1), 'a list'),
        ('mul', 'other.data, self.data', (1, 1), 'round brackets'),
        ('add', '(1, 1, 1)', (1, 8), '2 inputs, self and other'),
        ('tanh', '(1 - t**2, 0)', (1, 12), 'one input, self'),
        ('add', '(1, 1', (1, 1), 'Python cannot read this'),
        ('mul', '(*self.data,)', (1, 2), '* is not allowed'),
        ('add', '(1, 1)' + ' ' * lg.MAX_GRADS, None, f'the limit is {lg.MAX_GRADS}'),
        ('mul', '(x, self.data)', (1, 2), sandbox('x')),  # a name the op does not hold
        ('mul', '(other.data,\n self.grad)', (2, 2), sandbox('self.grad')),  # a grad read
        ('add', '(1, out.__class__)', (1, 5), sandbox('out.__class__')),
        ('add', '(1, __import__("os"))', (1, 5), sandbox('__import__("os")')),
        ('add', '(1, (1, 1))', (1, 5), sandbox('(1, 1)')),  # a tuple in an entry
        ('tanh', '(t**99999,)', (1, 5), sandbox('t**99999')),
        ('tanh', '(math.sqrt(t),)', (1, 2), sandbox('math.sqrt(t)')),
    ],
)
def test_a_tuple_that_cannot_run_is_refused_with_its_place(name, text, where, says):
    e = pytest.raises(BodyError, lg.check_grads, name, text).value
    if isinstance(says, tuple):  # what the sandbox says of that entry, at the entry's place in the tuple
        said = pytest.raises(BodyError, check_body, name, f'self.grad += {says[1]}').value
        assert e.message == said.message
    else:
        assert says in e.message
    assert (None if e.line is None else (e.line, e.column)) == where
    if where is not None:
        line, column = where
        assert e.pointed(text).splitlines() == [text.splitlines()[line - 1], ' ' * (column - 1) + '^']


def test_a_refused_tuple_waits_its_op_passes_nothing_back_and_the_grader_waits_for_it():
    read = lg.checked({**RIGHT, 'mul': '(other.data self.data)'})
    assert isinstance(read['mul'], Waiting) and read['mul'].text == '(other.data self.data)'
    assert lines(mul='(other.data self.data)') == [f'mul: {WAITS_LINE}', 'b = a + a: right', 'a + tanh(a + a): right']
    assert lg.diagnose(read) == []  # it never ran: no slip in it
    # reuse = a·b + a·a with the × waiting: the + passes 1 to a·b and a·a, which pass nothing on
    yours, right = traces(PRESETS['reuse'], mul='(other.data self.data)')
    assert [yours.final_grads()[i] for i, n in enumerate(yours.nodes) if n.is_input] == [0.0, 0.0]
    k = first_difference(yours, right, frames(yours))
    words = plain_text(code_parts(yours, right, frame=frames(yours)[k], first_here=True, mistakes=[]))
    assert 'your × (__mul__)’s local_grads cannot run yet' in words


TERMS = ['out.grad', 'out.data', 'self.data', 'other.data', 't', '1', '0.5', '0', '1e308', '-1e308']
PIECES = ['(', ')', ',', 'self.grad', '__class__', 'import', '[', ']', '*', '**', 'x', '"s"', 'lambda', '\n', ' ']


def grammar_tuple(rng):
    def term(depth):
        if depth > 3 or rng.random() < 0.4:
            return rng.choice(TERMS)
        kind = rng.randrange(4)
        if kind == 0:
            return f'({term(depth + 1)} {rng.choice("+-*/")} {term(depth + 1)})'
        if kind == 1:
            return f'-{term(depth + 1)}'
        if kind == 2:
            return f'{term(depth + 1)}**{rng.choice(["2", "-1", "0.5"])}'
        return f'math.{rng.choice(["tanh", "exp", "log"])}({term(depth + 1)})'

    return lg.tuple_text([term(0) for _ in range(rng.randint(0, 3))])


def test_ten_thousand_generated_and_mutated_tuples_each_run_or_are_refused():
    rng = random.Random(5)  # the same tuples every run
    outcomes = {'ran': 0, 'refused': 0}
    for k in range(10_000):  # as many a run as the bodies' fuzz (tests/unit/test_exercise.py)
        text = grammar_tuple(rng)
        if k % 2:  # mutated: a piece put in, one taken out
            cut = rng.randrange(len(text) + 1)
            text = text[:cut] + rng.choice(PIECES) + text[cut + rng.randrange(3) :]
        name = rng.choice(list(exercise.OPS))
        try:
            read = lg.check_grads(name, text)
        except BodyError as e:
            assert e.message and (e.line is None or 1 <= e.line <= text.count('\n') + 1), (text, e)
            outcomes['refused'] += 1
            continue
        leaves, out = PRESETS['neuron'].build(value_type=lg.yours({**lg.checked(RIGHT), name: read}))
        trace_backward(out, leaves)
        assert all(isinstance(leaf.grad, float) for leaf in leaves)
        for m in lg.diagnose({name: read}):
            assert m.kind in lg.kinds(exercise.OPS[name])
        outcomes['ran'] += 1
    assert outcomes['ran'] > 2_000 and outcomes['refused'] > 2_000


# --- the page's words at a step: the tuple and the loop's line ---


def test_a_step_shows_the_tuple_and_the_loops_line_and_the_chain_rule_as_the_loop_runs_it():
    yours, _ = traces(PRESETS['reuse'])
    all_frames = frames(yours)
    words = plain_text(explain(yours, all_frames[7]))  # a*b's step
    assert 'return Value(self.data * other.data, (self, other), (other.data, self.data))' in words
    assert 'child.grad += local_grad * v.grad' in words
    assert 'a.grad += b.data × (a*b).grad = −2.0000 × 1.0000 = −2.0000' in words
    assert 'local_grads' in words and '_backward' not in words


def test_the_first_difference_says_what_the_tuples_entry_did_and_the_slips_words():
    read = lg.checked({**RIGHT, 'mul': '(self.data, other.data)'})
    yours, right = traces(PRESETS['reuse'], mul='(self.data, other.data)')
    all_frames = frames(yours)
    k = first_difference(yours, right, all_frames)
    assert k == 7
    words = plain_text(code_parts(yours, right, frame=all_frames[k], first_here=True, mistakes=lg.diagnose(read)))
    assert 'your × (__mul__)’s local_grads, for self = a' in words
    assert 'Your entry self.data gives a the local gradient a.data = 3.0000' in words
    assert 'the right entry, other.data' in words
    assert lg.MISTAKES['swapped'] in words


def test_a_tuple_over_lines_with_comments_is_read_as_written_and_shown_on_one_line():
    g = lg.check_grads('mul', '(other.data,  # for self\n self.data)  # for other')
    assert g.written == '(other.data, self.data)' and lg.diagnose({'mul': g}) == []
    g = lg.check_grads('tanh', '  (1 -  # the slope\n   t**2,)')
    assert g.written == '(1 - t ** 2,)'  # with a comment inside an entry, as Python writes it
    assert 'return Value(t, (self,), (1 - t ** 2,))' in g.shown
