"""The whitelist of a student's `_backward` bodies (engine/sandbox.py) takes the Python bodies are written in, safe and
right, and grades it right: docstrings, strings and comments anywhere, names for numbers, several lines, brackets and
spacing of every kind, the forward values, the math the ops use. engine/code.py and engine/diagnosis.py read a line
with the names it uses. Every refusal says what it found, at its column, and what to write instead."""

import ast
import math

import pytest

from engine import PRESETS, exercise, trace_backward
from engine.code import MAX_WRITTEN_OUT, backward_source, grad_writes
from engine.diagnosis import diagnose
from engine.exercise import yours
from engine.frames import frames
from engine.grader import verdicts
from engine.sandbox import MAX_DEPTH, BodyError, Local, check_body
from view.explanation import explain, plain_text

RIGHT = {name: exercise.answer(name) for name in exercise.OPS}
T = math.tanh(0.8813735870195432 + 2.0 * -3.0 + 6.0)  # the neuron's o


def checked(**texts):
    return {name: check_body(name, texts.get(name, RIGHT[name])) for name in exercise.OPS}


def slips(name, text):
    """[(input, kind)] diagnosis names in the body `text` of `name`, the other bodies right."""
    return [(m.target, m.kind) for m in diagnose(checked(**{name: text}))]


def graded_right(name, text):
    bodies = checked(**{name: text})
    return not diagnose(bodies) and not any(v.wrong for v in verdicts(bodies))


def refusal(name, text):
    with pytest.raises(BodyError) as e:
        check_body(name, text)
    return e.value


# --- what a student writes, safe and right, is accepted and graded right ---

RIGHT_AND_SAFE = [
    ('add', '"""out = self + other: each input gets out.grad"""\nself.grad += out.grad\nother.grad += out.grad'),
    ('mul', "'''\nproduct rule\n'''\nself.grad += other.data * out.grad\nother.grad += self.data * out.grad"),
    ('tanh', 'self.grad += (1 - t**2) * out.grad\n"""a docstring need not be first"""'),
    ('add', "self.grad += out.grad\n'a note'\nother.grad += out.grad\n..."),
    ('add', 'pass\nself.grad += out.grad\npass  # a pass beside other lines\nother.grad += out.grad'),
    ('mul', '# the local gradient of self is other\nself.grad += other.data * out.grad  # and back\n\n'
            '# of other, self\n\nother.grad += self.data * out.grad\n# done'),
    ('tanh', 'local_grad = (1 - t**2)\nself.grad += local_grad * out.grad'),
    ('tanh', 'local_grad = (1 - t**2) * out.grad\nself.grad += local_grad'),
    ('mul', 'local = other.data * out.grad\nself.grad += local\nother.grad += self.data * out.grad'),
    ('mul', 'upstream = out.grad\nself.grad += other.data * upstream\nother.grad += self.data * upstream'),
    ('mul', 'g = out.grad\ng *= other.data\nself.grad += g\ng = out.grad\ng *= self.data\nother.grad += g'),
    ('tanh', 'd = 1.0\nd -= t**2\nd **= 1\nd /= 1\nd += 0\nself.grad += d * out.grad'),
    ('tanh', 'grad: float = (1 - t * t) * out.grad\nself.grad += grad'),
    ('tanh', 't = out.data  # the same number, named again\nself.grad += (1 - t*t) * out.grad'),
    ('add', 'self.grad = self.grad + out.grad\nother.grad = out.grad + other.grad'),
    ('mul', 'self.grad = self.grad + other.data * out.grad\nother.grad = other.grad + self.data * out.grad'),
    ('add', 'self.grad+=out.grad;other.grad+=out.grad'),
    ('add', 'self.grad  +=  ( ( out.grad ) )\nother.grad += +out.grad'),
    ('mul', 'self.grad += (\n    other.data\n    * out.grad\n)\nother.grad += \\\n    self.data * out.grad'),
    ('add', 'self.grad += 1.0 * out.grad\nother.grad += out.grad * 1'),
    ('tanh', 'self.grad += (1 - out.data**2) * out.grad'),
    ('tanh', 'self.grad += out.grad * (1 - math.tanh(self.data) ** 2)'),
    ('tanh', 'self.grad += 4 / (math.exp(self.data) + math.exp(-self.data))**2 * out.grad  # sech², from exp'),
    ('tanh', 'self.grad += (1 - t**2.0) * out.grad'),
]  # fmt: skip


@pytest.mark.parametrize(('name', 'text'), RIGHT_AND_SAFE)
def test_a_right_and_safe_body_is_accepted_and_graded_right(name, text):
    assert graded_right(name, text), text


def test_a_docstring_string_or_pass_runs_as_nothing_and_comments_are_free():
    body = check_body('add', '"""doc"""\n# c\nself.grad += out.grad\n"note"\npass\n...\nother.grad += out.grad')
    assert [w.text for w in body.steps] == ['self.grad += out.grad', 'other.grad += out.grad']


def test_a_name_is_read_as_its_line_above_left_it_and_runs_in_order():
    body = check_body('mul', 'g = 2.0\nself.grad += g * out.grad\ng = 3.0\nother.grad += g * out.grad')
    assert [type(s).__name__ for s in body.steps] == ['Local', 'Write', 'Local', 'Write']
    scope = {'self': _V(1.0, 0.0), 'other': _V(5.0, 0.0), 'out': _V(5.0, 10.0)}
    body.run(scope)
    assert (scope['self'].grad, scope['other'].grad) == (20.0, 30.0)


class _V:
    def __init__(self, data, grad):
        self.data, self.grad = data, grad


def test_x_grad_equals_x_grad_plus_e_is_plus_equals_and_minus_is_minus_equals():
    body = check_body('add', 'self.grad = self.grad + out.grad\nother.grad = 0 * self.data + out.grad + other.grad')
    assert [(w.how, ast.unparse(w.expr)) for w in body.writes] == [('+=', 'out.grad'),
                                                                   ('+=', '0 * self.data + out.grad')]  # fmt: skip
    assert 'is read here' in refusal('add', 'self.grad = out.grad + self.grad * 1').message  # no other form reads it
    assert slips('add', 'self.grad = self.grad - out.grad\nother.grad += out.grad') == [('self', 'subtract')]


def test_t_given_a_number_in_the_body_is_the_bodys_own_from_its_first_line():
    assert graded_right('tanh', 't = out.data\nself.grad += (1 - t**2) * out.grad')
    assert graded_right('add', 't = out.grad\nself.grad += t\nother.grad += t')  # in +, t is any name
    first = check_body('add', 't = out.grad\nself.grad += t\nother.grad += t').steps[0]
    assert isinstance(first, Local) and (first.name, first.how, first.text) == ('t', '=', 't = out.grad')


# --- the diagnosis and the code reader understand names ---


@pytest.mark.parametrize(
    ('name', 'text', 'found'),
    [('mul', 'local = other.data * out.grad\nself.grad += local\nother.grad += self.data * out.grad', []),
     ('mul', 'g = out.grad\nself.grad = g * other.data\nother.grad += self.data * out.grad', [('self', 'assign')]),
     ('tanh', 'd = out.data\nself.grad += (1 - t**2) * d', [('self', 'out_data')]),
     ('mul', 'g = other.data\nself.grad += g\nother.grad += self.data * out.grad', [('self', 'no_out_grad')]),
     ('mul', 'g = self.data\nh = other.data\nself.grad += g * out.grad\nother.grad += h * out.grad',
      [('self', 'swapped'), ('other', 'swapped')]),
     ('tanh', 'g = (1 - t**2) * out.grad\nself.grad += g\nself.grad += g', [('self', 'twice')]),
     ('add', 'g = out.grad\nself.grad += g', [('other', 'missing')]),
     ('tanh', '"""only a docstring"""', [('self', 'pass')])],
)  # fmt: skip
def test_diagnosis_names_the_slip_of_a_line_that_uses_names(name, text, found):
    assert slips(name, text) == found


def _closure(name, text):
    """The + (or ×, or tanh) node's _backward on the student's bodies, in a graph of its own."""
    value = yours(checked(**{name: text}))
    a, b = value(0.5), value(-1.5)
    return {'add': a + b, 'mul': a * b, 'tanh': a.tanh()}[name]._backward


def test_code_reads_a_line_with_the_names_it_uses_written_out_where_it_stands():
    fn = _closure('mul', '"""doc"""\nlocal = other.data * out.grad\nself.grad += local\ng = out.grad\nother.grad = g')
    writes = grad_writes(fn)
    assert [(slot, how, ast.unparse(s)) for slot, how, s in writes] == [
        (0, '+=', 'self.grad += other.data * out.grad'), (1, '=', 'other.grad = out.grad')]  # fmt: skip
    assert [ast.get_source_segment(backward_source(fn), s) for _, _, s in writes] == ['self.grad += local',
                                                                                      'other.grad = g']  # fmt: skip


def test_code_reads_x_grad_equals_x_grad_plus_e_as_plus_equals():
    fn = _closure('add', 'self.grad = self.grad + out.grad\nother.grad = out.grad + other.grad')
    assert [(how, ast.unparse(s)) for _, how, s in grad_writes(fn)] == [
        ('+=', 'self.grad += out.grad'), ('+=', 'other.grad += out.grad')]  # fmt: skip


def test_a_name_too_large_to_write_out_is_left_as_its_name_and_still_traced():
    text = 'g = out.grad\n' + 'g = g * g\n' * 7 + 'self.grad += g * 0 + (1 - t**2) * out.grad'
    (_, _, line), = grad_writes(_closure('tanh', text))  # fmt: skip
    assert 'g' in ast.unparse(line) and sum(1 for _ in ast.walk(line.value)) <= 4 * MAX_WRITTEN_OUT
    leaves, out = PRESETS['neuron'].build(value_type=yours(checked(tanh=text)))
    trace = trace_backward(out, leaves)
    assert len(trace.steps[:]) == len(trace.nodes)


def test_the_explanation_works_out_a_local_gradient_named_on_a_line_above():
    text = 'local_grad = (1 - t**2)\nself.grad += local_grad * out.grad'
    leaves, out = PRESETS['neuron'].build(value_type=yours(checked(tanh=text)))
    trace = trace_backward(out, leaves)
    words = plain_text(explain(trace, frames(trace)[7]))
    assert 'local_grad = (1 - t**2)' in words and 'local gradient for n: 1 − t² = 1 − 0.7071² = 0.5000' in words
    assert 'n.grad += local_grad × o.grad = 0.5000 × 1.0000 = 0.5000' in words


# --- every refusal says what it found, at its column, and what to write instead ---


REFUSALS = {  # behaviour: (body's name, text, line, column, what the message says)
    'an attribute other than data and grad is named with what a body reads and writes': (
        'add', 'self.grad += self.value', 1, 14,
        '`self.value`: a body reads only .data and .grad (self.data, other.data, out.data, out.grad) and writes only '
        '.grad'),
    'a dunder is named with what a body reads and writes': (
        'tanh', 'self.grad += out.__class__', 1, 14,
        '`out.__class__`: a body reads only .data and .grad (self.data, out.data, out.grad) and writes only .grad'),
    'writing an attribute other than grad names the grads a line writes': (
        'add', 'self._grad += out.grad', 1, 1, '`self._grad`: a line writes only self.grad or other.grad'),
    'calling self._backward() is named for counting each grad twice': (
        'add', 'self.grad += out.grad\nself._backward()', 2, 1,
        '`self._backward()`: calling self._backward() here runs that node’s backward again (backward() calls it in '
        'its turn): each grad below it would be counted twice'),
    'calling out._backward() is named for calling itself without end': (
        'add', 'out._backward()', 1, 1, 'calling it inside itself calls it again without end'),
    'calling backward() is named for a whole backward pass inside a step': (
        'add', 'self.backward()', 1, 1, 'starts a whole backward pass inside one step of this one'),
    'a Value used as a number says to use its data': (
        'mul', 'self.grad += other * out.grad', 1, 14, '`other` is a Value, not a number: use its number, other.data'),
    'reading an input’s grad says a body reads out.grad, and to add with +=': (
        'mul', 'self.grad += other.grad * out.grad', 1, 14,
        '`other.grad` is read here: a body reads the grad coming back, out.grad. To add to other.grad write '
        'other.grad += …'),
    'writing out.grad says it is the grad coming back': (
        'mul', 'self.grad += other.data * out.grad\nout.grad += self.data * out.grad', 2, 1,
        '`out.grad` is the grad coming back to this node: read it, and write the inputs’ grads, self.grad or '
        'other.grad'),
    'other in tanh says tanh has one input': (
        'tanh', 'self.grad += (1 - t**2) * out.grad\nother.grad += 0', 2, 1, '`other.grad`: tanh has one input'),
    'an unknown name lists what E reads': (
        'tanh', 'self.grad += (1 - x**2) * out.grad', 1, 19,
        '`x` is not a name here: E reads self.data, out.data, out.grad, t (its value from the forward pass)'),
    'a name read before it is given a number says so': (
        'tanh', 'self.grad += g * out.grad\ng = 1 - t**2', 1, 14, '`g` is read before this body gives it a number'),
    'the closure’s t read before the body gives t a number is said to be hidden': (
        'tanh', 'self.grad += (1 - t**2) * out.grad\nt = 0', 1, 19, 'so the closure’s t is hidden'),
    'an attribute of a number says it is a number already': (
        'tanh', 'self.grad += (1 - t.data**2) * out.grad', 1, 19, '`t.data`: t is a number already, not a Value'),
    'print is refused with the calls there are': (
        'add', 'print(out)\nself.grad += out.grad', 1, 1,
        '`print(…)`: the only calls are math.tanh(x), math.exp(x) and math.log(x)'),
    'abs is refused with the calls there are': ('add', 'self.grad += abs(out.grad)', 1, 14, '`abs(…)`: the only calls'),
    'math.sqrt says a square root is a power': (
        'tanh', 'self.grad += math.sqrt(1 - t**2)**2 * out.grad', 1, 14, 'a square root is x**0.5'),
    'a number worked out and thrown away is said so, not called pointless': (
        'add', 'out.grad * 2', 1, 1, '`out.grad * 2` is worked out and thrown away: nothing is written'),
    'a comparison with == on its own says == compares': (
        'add', 'self.grad == out.grad', 1, 1, '== compares, and the answer is thrown away'),
    'if says every line runs': (
        'add', 'if out.grad:\n    self.grad += out.grad', 1, 1, '"if" is not needed: every line of a _backward runs'),
    'return says backward() ignores it': (
        'add', 'return out.grad', 1, 1, 'return hands nothing back: backward() ignores what _backward returns'),
    'import says math is there already': ('add', 'import math', 1, 1, 'math is there already'),
    'an exponent too large names the limit': (
        'tanh', 'self.grad += (1 - t**200) * out.grad', 1, 22,
        '`200`: the exponent after ** is a plain number up to 100'),
    'a caret says use ** for a power, at the caret': (
        'tanh', 'self.grad += (1 - t^2) * out.grad', 1, 20, 'use ** for a power'),
    'a grad written with *= says a grad is written with +=, -= or =': (
        'add', 'self.grad *= out.grad', 1, 1, '`self.grad *=`: a grad is written with +=, -= or ='),
    'writing data says it is the value from the forward pass': (
        'add', 'self.data = out.grad', 1, 1, '`self.data` is the value from the forward pass'),
    'giving an input a number says to name the number otherwise': (
        'add', 'other = out\nself.grad += out.grad', 1, 1, 'give the number a name of its own'),
    'a dunder name says names that start with __ are Python’s own': (
        'add', '__x__ = 1', 1, 1, 'names that start with __ are Python’s own'),
    'a string in E is not a number, and fine on a line of its own': (
        'add', 'self.grad += "1"', 1, 14, 'a string is not a number (a string on a line of its own is fine'),
    'nesting past the limit suggests naming a part': (
        'add', 'self.grad += ' + '-' * (MAX_DEPTH + 2) + 'out.grad', 1, 14 + MAX_DEPTH + 1,
        'name a part on a line above, local = …'),
    'two targets at once says one a line': (
        'add', 'self.grad, other.grad = out.grad, out.grad', 1, 1, 'write one name or one grad a line'),
}  # fmt: skip


@pytest.mark.parametrize(('name', 'text', 'line', 'column', 'said'), list(REFUSALS.values()), ids=list(REFUSALS))
def test_a_refusal_says_what_it_found_at_its_column_and_what_to_write(name, text, line, column, said):
    e = refusal(name, text)
    assert (e.line, e.column) == (line, column), e
    assert said in e.message, e.message


def test_a_harmless_line_is_never_called_pointless():
    for text in ('"""doc"""', "'note'", '...', 'pass', '# only a comment', '"""doc"""\npass\n...'):
        assert check_body('add', f'{text}\nself.grad += out.grad\nother.grad += out.grad').writes
    assert 'does nothing' not in refusal('add', 'out.grad').message
