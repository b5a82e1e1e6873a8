"""A student's `_backward` body as text (mode=code): one normalisation (engine/sandbox.py's `normalised`) that every
reader of it takes, and any text check_body accepts run through all that reads it, on every preset and typed formulas:
the trace on the student's bodies, the player's body, each frame's DOT and speaker notes (as the exports draw them),
the grader and the diagnosis.

The bodies come from a grammar of body lines: writes to self.grad and other.grad with =, += and -= (any subset of the
inputs, in any order, lines continued in brackets or after a backslash), a number named and used below, pass,
strings, comments, blank lines and lines of spaces, indented with spaces, tabs or form feeds, broken with \\n, \\r\\n
or a lone \\r. Pinned (tests/conftest.py): the same bodies every run.
"""

import ast
import html

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import PRESETS, chain, exercise, first_nonfinite, parse_expression
from engine.code import function_tree, grad_writes
from engine.diagnosis import diagnose
from engine.frames import frames
from engine.grader import verdicts
from engine.local_grads import check_grads
from engine.sandbox import INPUTS, MAX_BODY, MAX_STATEMENTS, NO_STATEMENT, BodyError, check_body, normalised
from exports.render import frame_dot, speaker_notes
from server.cache import traced
from view.bug import lost_parts
from view.depth_plot import depth_plots, w_facts
from view.explanation import plain_text
from view.graph import lost_edges
from view.player_body import make_body

RIGHT = {name: exercise.answer(name) for name in exercise.OPS}
# every preset, a chain of one, and typed formulas: a value used twice by one op, and the engine's other ops, which
# value.py builds from the student's + and × (a - b is a + (-b), a / b is a × b**-1)
EXPRESSIONS = [*PRESETS.values(), chain(1)] + [
    parse_expression(f) for f in ('a*a', 'tanh(a*b) - a/b + exp(b)*log(a)', 'relu(a)*sigmoid(b) + sin(a)*cos(b)')
]
TERMS = {
    'add': ['out.grad', 'out.data', 'self.data', 'other.data', '1', '0.5', '-2'],
    'mul': ['out.grad', 'out.data', 'self.data', 'other.data', '1', '0.5', '-2'],
    'tanh': ['out.grad', 'out.data', 'self.data', 't', '(1 - t**2)', '1', '0.5'],
}
BREAKS = ('\n', '\r\n', '\r')
INDENTS = ('', '  ', '    ', '\t', '\f', ' \t')  # a tab is the spaces to the next multiple of 8, a form feed a space
NOTHING = ('', ' ', '\t', '  \t ', '\f')  # a blank line, or a line of spaces alone


def terms(name, local=False):
    """E: numbers and what the op's body may read (and `g`, where a line above names it), with + - * /, unary minus
    and plus, a square and math's calls; a line continued inside brackets or after a backslash (its next line
    indented anyhow, further left too)."""
    continued = st.tuples(st.sampled_from(NOTHING + INDENTS), st.sampled_from(BREAKS))
    return st.recursive(
        st.sampled_from(TERMS[name] + ['g'] * local),
        lambda inner: st.one_of(
            st.tuples(inner, st.sampled_from('+-*/'), inner).map(' '.join),
            inner.map(lambda e: f'-({e})'),
            inner.map(lambda e: f'+{e}'),
            inner.map(lambda e: f'({e})**2'),
            st.tuples(st.sampled_from(['tanh', 'exp', 'log']), inner).map(lambda t: f'math.{t[0]}({t[1]})'),
            st.tuples(inner, continued, inner).map(lambda t: f'({t[0]} +{t[1][1]}{t[1][0]}{t[2]})'),
            st.tuples(inner, continued, inner).map(lambda t: f'{t[0]} * \\{t[1][1]}{t[1][0]}{t[2]}'),
        ),
        max_leaves=4,
    )


def lines(name, local=False):
    """One line of a body, as (its kind, its text, its statements): a write (X.grad = X.grad + E among them), two on
    one line, a line that names a number (g), pass, a string or ..., a comment, or nothing."""
    e = terms(name, local)
    x = st.sampled_from(INPUTS[exercise.OPS[name]])
    write = st.tuples(x, st.sampled_from(['+=', '-=', '=']), e).map(lambda w: f'{w[0]}.grad {w[1]} {w[2]}')
    write |= st.tuples(x, st.sampled_from('+-'), e).map(lambda w: f'{w[0]}.grad = {w[0]}.grad {w[1]} ({w[2]})')
    if local:
        write |= st.tuples(st.sampled_from(['+=', '-=', '*=', '=']), e).map(lambda w: f'g {w[0]} {w[1]}')
    tail = st.sampled_from(['', '  # why', ';', '\t# a tab'])
    nothing = ['pass', exercise.TODO, 'pass;', '...', '"""why"""', "'a note'", '"""two\nlines"""']
    return st.one_of(
        st.tuples(write, tail).map(lambda w: ('code', ''.join(w), 1)),
        st.tuples(write, write).map(lambda w: ('code', '; '.join(w), 2)),
        st.sampled_from(nothing).map(lambda p: ('code', p, 1)),
        st.sampled_from(['# a comment', '#', '# \ttabbed \\']).map(lambda c: ('comment', c, 0)),
        st.sampled_from(NOTHING).map(lambda n: ('nothing', n, 0)),
    )


@st.composite
def body_texts(draw, name):
    """(a body's text, whether Python reads it as a def's body: its lines of code indented alike, at most
    MAX_STATEMENTS statements, MAX_BODY characters). Some first name a number, g, which the lines below may use."""
    indent, alike, statements, text, last = draw(st.sampled_from(INDENTS)), True, 0, '', 'nothing'
    local = draw(st.booleans())
    drawn = draw(st.lists(lines(name, local), max_size=6))
    if local:
        drawn.insert(0, ('code', 'g = ' + draw(terms(name)), 1))
    for kind, line, n in drawn:
        statements += n
        if kind != 'code':  # a comment or nothing: any indentation, further left too
            line = draw(st.sampled_from(NOTHING + INDENTS)) + line
        elif draw(st.integers(0, 9)) == 0:  # a line of code indented otherwise
            other = draw(st.sampled_from(INDENTS))
            alike = alike and other.expandtabs(8).replace('\f', ' ') == indent.expandtabs(8).replace('\f', ' ')
            line = other + line
        else:
            line = indent + line
        text, last = text + line + draw(st.sampled_from(BREAKS)), kind
    ending = draw(st.sampled_from(['cut', 'keep', 'blank', 'continued']))
    if ending == 'cut':
        text = text.rstrip('\r\n')
    elif ending == 'blank':
        text += draw(st.sampled_from(NOTHING)) + draw(st.sampled_from(BREAKS))
    elif ending == 'continued' and last == 'code':  # its last line continued into a blank one, as Python reads it
        text = text.rstrip('\r\n') + ' \\' + draw(st.sampled_from(BREAKS)) * 2
    text = draw(st.sampled_from(NOTHING + BREAKS)) + text
    return text, alike and statements <= MAX_STATEMENTS and len(text) <= MAX_BODY


def student(**texts):
    return tuple((name, texts.get(name, RIGHT[name])) for name in exercise.OPS)


def lines_of(statements):
    """The statements as Python reads them, a string's text left out: a string does nothing, whatever it says (the
    def's indentation is in a string's lines, as in any method's docstring)."""
    strings = [node for s in statements for node in ast.walk(s) if isinstance(node, ast.Constant)]
    for node in strings:
        node.value = '' if isinstance(node.value, str) else node.value
    return [ast.unparse(s) for s in statements]


def has_code(text):
    return any(line.strip() and not line.strip().startswith('#') for line in normalised(text).split('\n'))


def assert_read_alike(body):
    """The code the page shows for a checked body is one def, whose writes engine/code.py reads as check_body did."""
    tree = ast.parse(body.source).body
    assert len(tree) == 1 and isinstance(tree[0], ast.FunctionDef) and tree[0].body, body.source
    fn = type('Closure', (), {'source': body.source})()  # a closure carries its body's code as `source`
    assert function_tree(fn).name == '_backward'
    writes = [(('self', 'other')[slot], how) for slot, how, _ in grad_writes(fn)]
    assert writes == [(w.target, w.how) for w in body.writes], body.source


def read_everywhere(bodies, expressions=EXPRESSIONS, hide='new'):
    """Everything that reads the bodies ((name, text), ...), on each expression: no exception, and the code the page
    shows reads as the body checked (engine/code.py's writes are the Body's)."""
    checked = {name: check_body(name, text) for name, text in bodies}
    for body in checked.values():
        assert_read_alike(body)
    verdicts(checked)
    mistakes = diagnose(checked)
    for expression in expressions:
        values = tuple(expression.defaults.items())
        right, width, numeric = traced(expression=expression, values=values)
        trace, theirs, _ = traced(expression=expression, values=values, engine='bodies', bodies=bodies)
        width = max(width, theirs)
        every = frames(trace)
        make_body(trace, every, width=width, numeric=numeric, graph={'svg': ''}, mode='code', right=right,
                  mistakes=mistakes)  # fmt: skip
        first_nonfinite(trace)
        hidden = frames(trace, forward=False, leaves=False, hide=hide)
        make_body(trace, hidden, width=width, numeric=None, graph={'svg': ''}, mode='code', right=right,
                  mistakes=mistakes)  # fmt: skip
        for frame in every:
            if frame.kind == 'backward' and trace.nodes[frame.node].op in ('+', '*', 'tanh'):  # where a body runs
                frame_dot(trace, frame, width, right=right)
                speaker_notes(trace, frame)


# --- the normalisation -------------------------------------------------------------------------------------------

TWO = ['self.grad += out.grad', 'other.grad += out.grad']


@pytest.mark.parametrize(
    'text, lines',
    [
        ('self.grad += out.grad\r\nother.grad += out.grad', TWO),
        ('  self.grad += out.grad\r  other.grad += out.grad', TWO),
        ('\tself.grad += out.grad\n        other.grad += out.grad', TWO),
        ('    self.grad += (out.grad\n* 1)\n# a note\n    pass  ', ['self.grad += (out.grad', '* 1)', '# a note',
                                                             'pass']),
        ('\fpass # a\u2028b\x85c', ['pass # a b c']),
        ('\n  \n\t\n', ['', '', '', '']),
    ],
)  # fmt: skip
def test_a_bodys_lines_are_broken_where_python_breaks_them_and_indented_as_its_first_line_of_code(text, lines):
    assert normalised(text).split('\n') == lines
    assert normalised(text).splitlines() == lines[: -1 if lines[-1] == '' else None]  # whoever splits them


@pytest.mark.parametrize('text', ['', '   ', '\r', '\r\n', '\n\n\t\n', '# TODO', '  # only\r  # comments\r', '\\\n# c'])
def test_a_body_with_no_line_of_code_is_refused_and_the_page_says_to_write_pass(text):
    with pytest.raises(BodyError) as refused:
        check_body('tanh', text)
    assert refused.value.message == NO_STATEMENT and 'write pass' in str(refused.value)


def test_a_body_indented_with_a_lone_r_runs_and_shows_as_its_def():
    body = check_body('tanh', '  self.grad += (1 - t**2) * out.grad\r  pass')
    assert body.source == 'def _backward():\n    self.grad += (1 - t**2) * out.grad\n    pass'
    read_everywhere(student(tanh=body.text), [PRESETS['neuron']])


def test_a_caret_points_into_the_line_as_it_is_read():
    text = '\tself.grad += out.grad\r\tother.grad += out.grad.__class__'
    e = pytest.raises(BodyError, check_body, 'add', text).value
    assert e.pointed(text) == 'other.grad += out.grad.__class__\n              ^'


def test_a_last_line_continued_into_a_blank_one_shows_as_python_reads_it():
    body = check_body('add', 'self.grad += out.grad\nother.grad += out.grad \\\r\r')
    assert [w.target for w in body.writes] == ['self', 'other']
    assert body.source == 'def _backward():\n    self.grad += out.grad\n    other.grad += out.grad \\\n\n'
    assert_read_alike(body)


def test_a_tuple_in_microgpts_form_is_read_as_a_body_is():
    """engine/local_grads.py's tuples take the same normalisation: its caret and its column agree with the line."""
    assert check_grads('mul', '  (other.data,\r   self.data)').written == '(other.data, self.data)'
    text = '(other.data,  # a\u2028é\n self.data.__class__)'  # U+2028 breaks no line in Python, nor here
    e = pytest.raises(BodyError, check_grads, 'mul', text).value
    assert (e.line, e.column) == (2, 2) and e.pointed(text) == ' self.data.__class__)\n ^'


# --- what a body writes, as the views read it --------------------------------------------------------------------


def test_the_exercises_own_todo_on_the_chain_draws_its_plot_with_no_line_on_w():
    """× that never writes other.grad (the exercise's own pass, or a line for self alone): no step writes w's grad."""
    for mul in (exercise.TODO, 'self.grad += other.data * out.grad'):
        read_everywhere(student(mul=mul), [chain(3)])
        trace, _, _ = traced(expression=chain(3), values=(), engine='bodies', bodies=student(mul=mul))
        assert w_facts(trace)[2:] == ((), (), ())
        assert not any('wline' in part for part in depth_plots(trace, frames(trace))['parts'])


@pytest.mark.parametrize(
    ('other', 'words'),
    [
        ('other.grad += self.data * out.grad', 'collects += from each'),
        ('other.grad = self.data * out.grad', '= threw the others away'),
        ('other.grad -= self.data * out.grad', 'your × writes its grad with -='),
        ('other.grad = self.data * out.grad\nother.grad += self.data * out.grad', 'writes its grad with = and +='),
    ],
)
def test_the_chains_line_on_w_says_how_the_students_times_writes_its_grad(other, words):
    """The chain's w is × 's other in every step: the line under the plot says what the student's line does to it,
    never that it collects += where the body writes = or -=."""
    bodies = student(mul=f'self.grad += other.data * out.grad\n{other}')
    trace, _, _ = traced(expression=chain(3), values=(), engine='bodies', bodies=bodies)
    plots = depth_plots(trace, frames(trace))
    line = html.unescape(plots['parts'][plots['at'][-1]])  # the last frame's: w's grad final
    assert words in line and ('collects +=' in line) == other.startswith('other.grad +=')


def test_an_equals_marks_lost_the_edge_of_the_line_it_threw_away_not_of_the_input_its_number_names():
    """A contribution is named by its line (step k, line j), not by its input: here × writes other.grad first, then
    self.grad twice. On reuse (a*b + a*a), a*a's second line throws away its first, which wrote other (a*a's edge
    1); its third throws away its second, whose edge shows the third (hot_edges): no edge of its is marked for it."""
    bodies = student(mul='other.grad = self.data * out.grad\nself.grad = 1\nself.grad = other.data * out.grad')
    read_everywhere(bodies, [PRESETS['reuse'], PRESETS['a_plus_a'], chain(2)])
    trace, width, _ = traced(expression=PRESETS['reuse'], values=(), engine='bodies', bodies=bodies)
    a = next(i for i, node in enumerate(trace.nodes) if node.name == 'a')
    aa = next(i for i, node in enumerate(trace.nodes) if node.children == (a, a))
    ab = next(i for i, node in enumerate(trace.nodes) if node.op == '*' and i != aa)
    marked = {f.node: set(lost_edges(trace, f, width)) for f in frames(trace) if f.kind == 'backward'}
    assert marked[aa] == {(aa, 1)}  # not (aa, 0): line 0 wrote other
    assert marked[ab] == {(aa, 0)}  # a*a's last line, on self; a*b's own line 1 shows under its line 2
    at_aa = next(f for f in frames(trace) if f.kind == 'backward' and f.node == aa)
    said = plain_text(lost_parts(trace, traced(expression=PRESETS['reuse'], values=())[0], at_aa))
    assert 'this same step, its first line' in said and 'this same step, its line 2' in said


# --- any body check_body accepts ---------------------------------------------------------------------------------


def bodies_of(name):
    return body_texts(name).map(lambda drawn: (name, *drawn))


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(exercise.OPS)).flatmap(bodies_of))
def test_any_body_from_the_grammar_is_read_alike_by_check_body_and_its_shown_code(drawn):
    """A body indented alike with a line of code runs; one with none is refused in the page's words; and what runs is
    shown as a def whose lines engine/code.py reads as check_body did."""
    name, text, alike = drawn
    try:
        body = check_body(name, text)
    except BodyError as e:
        assert not alike or not has_code(text), (text, e)
        assert has_code(text) or e.message == NO_STATEMENT
        return
    assert normalised(normalised(text)) == normalised(text)
    assert lines_of(ast.parse(body.source).body[0].body) == lines_of(ast.parse(normalised(text)).body)
    assert_read_alike(body)


def accepted(name):
    """The grammar's bodies for `name` that check_body accepts (the page runs any other as pass, components/code.py)."""

    def runs(drawn):
        try:
            check_body(name, drawn[1])
        except BodyError:
            return False
        return True

    return bodies_of(name).filter(runs)


@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(accepted('add'), accepted('mul'), accepted('tanh'), st.sampled_from(['new', 'all']))
def test_any_accepted_bodies_are_traced_drawn_and_exported_on_every_preset(add, mul, tanh, hide):
    read_everywhere(tuple((name, text) for name, text, _ in (add, mul, tanh)), hide=hide)
