"""Fuzz and property tests: any text is an Expression or an ExpressionError with a column; no number breaks a trace.

10,000 generated inputs a run: 3,000 formulas from the grammar, 3,000 with one token changed, 2,500
random texts (surrogates, look-alikes, controls), 1,000 grammar formulas with edge values as inputs and
500 links; then every known escape, and every edge value in every input of every preset and every op.

Every hypothesis test is pinned (derandomize=True, database=None): each run tries the same inputs.
"""

import math
import random
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine.parse
import state
from engine import (
    MAX_DEPTH,
    MAX_LENGTH,
    MAX_NODES,
    PRESETS,
    ExpressionError,
    chain,
    first_nonfinite,
    numeric_grads,
    parse_expression,
    trace_backward,
)
from view.numbers import fmt, number_width

EDGES = [0.0, -0.0, 1e308, -1e308, 1e-320, math.nan, math.inf, -math.inf, 1e6, -1e6]
PER_INPUT = 1.0  # s of this thread's CPU time for one input, parsed, built and traced: a guard against a pathological
# case (the slowest input takes 0.05 s). CPU time, not the clock: on a loaded machine an input of 1 ms of work took
# 0.3 s on the clock, waiting for a core; the thread's CPU time is the work alone, whatever else the machine runs
pytestmark = pytest.mark.filterwarnings('ignore::SyntaxWarning')  # ast warns on '1if x'; the parser refuses it
LIMITS = ('characters long', 'values; the limit', 'nested too deeply', 'is too large (the limit')


def pinned(n):
    return settings(
        max_examples=n,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- the two outcomes ------------------------------------------------------------------------------


def parse_or_error(text):
    """(Expression, None) or (None, ExpressionError): parse_expression has no third outcome, and it is quick."""
    start = time.thread_time()
    try:
        result = parse_expression(text), None
    except ExpressionError as e:
        assert type(e.column) is int and 1 <= e.column <= len(text) + 1, (text[:80], e.column)
        assert e.message and str(e) == f'column {e.column}: {e.message}'
        result = None, e
    assert time.thread_time() - start < PER_INPUT, text[:80]
    return result


def exercise(expression, values=None):
    """Build, trace and read all the page reads: every step, every number formatted, the description, the check."""
    start = time.thread_time()
    leaves, out = expression.build(values)
    trace = trace_backward(out, leaves)
    steps = list(trace.steps)
    shown = [node.data for node in trace.nodes] + trace.final_grads()
    shown += [x for step in steps for c in step.contributions for x in (c.amount, c.after)]
    others = [x for step in steps for c in step.contributions for x in (c.local_grad, c.before, step.out_grad)]
    width = number_width(trace)
    assert all(len(fmt(x)) <= width for x in shown)
    assert all(isinstance(fmt(x), str) for x in others)
    check_description(trace, first_nonfinite(trace))
    numeric = numeric_grads(expression, values or {})
    assert list(numeric) == list(expression.defaults)
    assert time.thread_time() - start < PER_INPUT, expression.title[:80]
    return trace


def check_description(trace, found):
    """None when every number is finite; else the first data, or the first backward step, that is not."""
    data, final = [node.data for node in trace.nodes], trace.final_grads()
    if all(math.isfinite(x) for x in data + final):
        assert found is None
        return
    assert found is not None and 0 <= found.node < len(data)
    assert found.reason and found.message(trace.nodes)
    if found.where == 'data':
        assert not math.isfinite(data[found.node])
        assert all(math.isfinite(x) for x in data[: found.node])
    else:
        assert found.where == 'grad' and all(math.isfinite(x) for x in data)
        assert trace.steps[found.step].node == found.node
        assert all(g is None or math.isfinite(g) for g in trace.grads(found.step))
        assert not math.isfinite(trace.grads(found.step + 1)[found.child])


def check_text(text):
    expression, _ = parse_or_error(text)
    if expression is not None:
        exercise(expression)
    return expression


# --- formulas from the grammar ---------------------------------------------------------------------

NAMES = ['x', 'y', 'w1', 'b', 'a', 'out', 'L', 'print', 'e', 'z9', 'ｘ']  # ｘ (fullwidth) is read as x
NUMBERS = ['0.5', '.5', '2.', '1e-3', '1_000', '1E2', '0', '00', '3', '1e308', '5e-324', '1e-320', '123456789']
EXPONENTS = ['2', '3', '0', '1', '0.5', '-1', '(-2)', '-0.5', '1.5', '100', '-100', '101', '1e3']
FUNCTIONS = list(engine.parse.FUNCTIONS)  # every op a formula can call, as the table grows
SPACES = ['', ' ', '  ']


def grammar_formula(rng, depth=4):
    """A formula from the grammar, drawn with `rng`: names, numbers, + - * / **, unary - and +, the functions."""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.55:
            return rng.choice(NAMES)
        return rng.choice([rng.choice(NUMBERS), str(rng.randrange(10**6)), repr(rng.uniform(0, 1e6))])
    kind = rng.randrange(6)
    a = grammar_formula(rng, depth - 1)
    if kind == 0:
        return f'{a}{rng.choice(SPACES)}{rng.choice("+-*/")}{rng.choice(SPACES)}{grammar_formula(rng, depth - 1)}'
    if kind == 1:
        return f'({a}{rng.choice("+-*/")}{grammar_formula(rng, depth - 1)})'
    if kind == 2:
        return f'{rng.choice(["-", "+", "- "])}{a}'
    if kind == 3:
        return f'({a})**{rng.choice(EXPONENTS)}'
    return f'{rng.choice(FUNCTIONS)}({a})'


def grammar_text(seed):
    rng = random.Random(seed)
    return rng.choice(['', 'L = ', 'y=', '  ']) + grammar_formula(rng) + rng.choice(SPACES)


formulas = st.integers(0, 2**64).map(grammar_text)


@pinned(3000)
@given(formulas)
def test_a_formula_from_the_grammar_parses_or_is_refused_only_for_a_limit(text):
    expression, error = parse_or_error(text)
    if error is not None:
        assert any(limit in error.message for limit in LIMITS), (text, error.message)
        return
    exercise(expression)


def test_the_grammar_limits_are_the_parsers():
    # the refusals the grammar test allows are exactly the parser's limits, by their messages
    too_deep = 'tanh(' * (MAX_DEPTH + 1) + 'x' + ')' * (MAX_DEPTH + 1)
    for text in ['x' * (MAX_LENGTH + 1), '*'.join(['-' * 30 + 'x'] * 10), too_deep, 'x**101', 'x**1e3']:
        assert any(limit in parse_or_error(text)[1].message for limit in LIMITS), text
    assert MAX_NODES == 250


def test_the_grammar_makes_formulas_the_parser_accepts():
    # else the grammar test would pass on refusals alone
    accepted = sum(parse_or_error(grammar_text(seed))[0] is not None for seed in range(200))
    assert accepted > 150


# --- one token changed -----------------------------------------------------------------------------

TOKEN = re.compile(r'\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?|\.\d+|\*\*|\w+|\s+|.')
WILD = [
    '#', '# **x**', '\x00', '\ud800', '\u200b', '\u202e', ';', '\n', '.', ',', ':', ':=', '=', '==', '[', ']', '{', '}',
    '"', "'", 'f"', '@', '//', '%', '^', '~', '!', '?', '$', '\\', '`', '|', '&', '<', '>', 'lambda', 'if', 'for',
    'not', 'and', 'await', 'yield', '__import__', '__class__', '_x', 'tanh', 'open', '1e999', '9' * 400, '0x1', '1j',
    'True', 'None', '...', '(', ')', '**', '-', '+', '*', '/', 'x', '2', ' ',
]  # fmt: skip


def mutated(seed):
    """A formula from the grammar with one token deleted, duplicated, replaced by a wild one, or one inserted."""
    rng = random.Random(seed)
    tokens = TOKEN.findall(grammar_text(seed))
    i, how, token = (
        rng.randrange(len(tokens)),
        rng.choice(['delete', 'duplicate', 'replace', 'insert']),
        rng.choice(WILD),
    )
    if how == 'delete':
        tokens[i : i + 1] = []
    elif how == 'duplicate':
        tokens[i:i] = [tokens[i]]
    elif how == 'replace':
        tokens[i] = token
    else:
        tokens[i:i] = [token]
    return ''.join(tokens)


@pinned(3000)
@given(st.integers(0, 2**64).map(mutated))
def test_a_formula_with_one_token_changed_parses_or_raises_expression_error(text):
    check_text(text)


# --- any text --------------------------------------------------------------------------------------

LOOKALIKES = (
    'ｘｙｂ＋－＊／（）＝１２'  # fullwidth
    'хаеоіρν'  # Cyrillic and Greek letters that look Latin
    '𝑥𝐱ⅹ²³½∗−×÷․'  # mathematical letters, superscripts, operators that look like ours
    '\u200b\u200c\u200d\u200e\u200f\u202a\u202e\u2066\u2069\ufeff\u00a0\u3000\u2028'  # zero-width, RTL, spaces
    '\x00\t\r\x1b\x7f\ud800\udbff\udc00\udfff'  # control characters and lone surrogates
)
characters = st.one_of(
    st.characters(exclude_categories=()),  # every code point, surrogates included
    st.sampled_from(list(LOOKALIKES)),
    st.sampled_from(list('xyab12.0 +-*/()=#_^,e')),
)


@pinned(2500)
@given(st.text(characters, max_size=60))
def test_any_text_with_lookalikes_and_surrogates_parses_or_raises_expression_error(text):
    check_text(text)


ESCAPES = [
    '__import__("os").system("ls")', "__import__('os')", '__builtins__', 'x.__class__.__bases__', '().__class__',
    'x.__dict__', '[].__class__.__mro__', 'getattr(x, "y")', 'eval("1")', 'exec("1")', 'compile("1", "", "eval")',
    'open("/etc/passwd")', 'lambda: 1', 'lambda x: x', '(lambda: 1)()', '(x := 1)', 'x := 1', '[x for x in y]',
    '{x for x in y}', '{x: 1 for x in y}', '(x for x in y)', 'f"{x}"', "f'{__import__(\"os\")}'", 'x.y', 'x[0]',
    'x[1:2]', '"abc"', "b'x'", '...', 'x if y else z', 'not x', '~x', 'x or y', 'x < y', 'await x', 'yield x',
    '*x', '**x', 'tanh(*x)', 'tanh(**x)', 'tanh(x=1)', 'x(1)', 'tanh(x)(y)', '(1)(2)', '1if x else 2', 'x @ y',
    'x // y', 'x % y', 'x ^ y', 'x; import os', 'x\nimport os', 'x # comment', '# only a comment',
    'x # <script>alert(1)</script>', 'x # [a](javascript:alert(1))', 'x\x00', '\x00', 'x\x00 + y',
    '(' * 10_000 + 'x' + ')' * 10_000, '(' * 201 + 'x' + ')' * 201, '-' * 10_000 + 'x', 'x' * 1_000_000,
    'x+' * 500_000 + 'x', '1' * 5000, 'x**' + '9' * 5000, '\ud800', 'x\udcff', 'L = \ud800', '\ufeffx', 'x\u202e+y',
    'tanh(' * 1000 + ')' * 1000, '[' * 1000, '{' * 1000, 'x' + ' ' * 100_000 + '+ y', ' ' * 100_000,
]  # fmt: skip


@pytest.mark.parametrize('text', ESCAPES, ids=[f'{i}:{t[:25]!r}' for i, t in enumerate(ESCAPES)])
def test_a_known_escape_is_refused_with_a_column(text):
    expression, error = parse_or_error(text)
    assert expression is None and error is not None


# --- every edge value everywhere -------------------------------------------------------------------

EXPRESSIONS = {**PRESETS, 'chain3': chain(3)}


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_every_edge_value_as_each_input_of_every_preset_never_breaks_the_trace(key):
    expression = EXPRESSIONS[key]
    for name in expression.defaults:
        for value in EDGES:
            exercise(expression, {name: value})
    for value in EDGES:  # and all inputs at once
        exercise(expression, dict.fromkeys(expression.defaults, value))


UNARY = ['-x', '+x', 'tanh(x)', 'exp(x)', 'log(x)', 'relu(x)', 'sigmoid(x)', 'exp(x)*0', 'log(x)*0', 'x - x', 'x/x']
POWERS = [f'x**{n}' for n in ['0', '1', '2', '3', '-1', '-2', '0.5', '-0.5', '1.5', '100', '-100']]
BINARY = [f'x {op} y' for op in '+-*/'] + ['tanh(x*y)', 'exp(x)*y', 'log(x)/y', '(x+y)**2', 'x**0.5*y']


@pytest.mark.parametrize('text', UNARY + POWERS)
def test_every_edge_value_into_every_one_input_op_never_breaks_the_trace(text):
    expression = parse_expression(text)
    for value in EDGES:
        exercise(expression, {'x': value})


@pytest.mark.parametrize('text', BINARY)
def test_every_pair_of_edge_values_into_every_two_input_op_never_breaks_the_trace(text):
    expression = parse_expression(text)
    for x in EDGES:
        for y in EDGES:
            exercise(expression, {'x': x, 'y': y})


@pinned(1000)
@given(st.integers(0, 2**64))
def test_edge_values_into_formulas_from_the_grammar_never_break_the_trace(seed):
    expression, _ = parse_or_error(grammar_text(seed))
    if expression is not None:
        rng = random.Random(seed)
        exercise(expression, {name: rng.choice(EDGES) for name in expression.defaults})


# --- links: state.from_query -----------------------------------------------------------------------

KEYS = ['expr', 'formula', 'n', 'step', 'forward', 'answers', 'speed', 'embed', 'v.x', 'v.x1', 'v.a', 'v.w1', 'v.ｘ']
NASTY = [
    'nan', 'NaN', '-nan', 'inf', '-inf', 'Infinity', '1e999', '-1e999', '1e308', '1e6', '1000000.0000001', '-1e6',
    '9' * 5000, '1' + '0' * 4400, '0x10', '1_0', '１２', ' 3 ', '', '\x00', '\ud800', 'custom', 'chain', 'neuron',
    'mlp', 'x' * 600, 'x' * 500, '#', '0', '1', '2', '10', '500', '501', '-1', '0.5', '4', '10.0', 'True',
]  # fmt: skip
query_text = st.text(st.characters(exclude_categories=()), max_size=30)  # surrogates too
queries = st.dictionaries(
    st.one_of(st.sampled_from(KEYS), st.sampled_from(['v.', 'V.', 'v.v.']).flatmap(lambda p: query_text.map(p.__add__)))
    | query_text,
    st.sampled_from(NASTY) | query_text | st.floats().map(repr) | st.integers().map(str),
    max_size=40,
)


def check_state(query):
    s, ignored = state.from_query(query)
    assert s.expr in state.EXPRESSIONS
    assert isinstance(s.formula, str) and 0 < len(s.formula) <= MAX_LENGTH
    assert type(s.chain_length) is int and 1 <= s.chain_length <= state.MAX_CHAIN
    assert type(s.frame) is int and 0 <= s.frame <= 10**6
    assert type(s.forward) is bool and type(s.answers) is bool
    assert s.speed in state.SPEEDS
    assert len(s.inputs) <= state.MAX_INPUTS
    for name, value in s.inputs.items():
        assert name.isidentifier() and not name.startswith('_') and len(name) <= 24
        assert type(value) is float and math.isfinite(value) and abs(value) <= 1e6
    assert set(ignored) <= set(query)
    return s


@pinned(500)
@given(queries)
def test_any_link_gives_a_valid_state(query):
    check_state(query)


def test_a_link_with_thousands_of_parameters_gives_a_valid_state():
    query = {f'v.x{i}': str(i) for i in range(1500)}
    query.update({f'junk{i}': '\ud800' * 3 for i in range(1500)})
    query.update({'expr': 'custom', 'formula': 'x' * MAX_LENGTH, 'n': '9' * 5000, 'step': '1e999', 'speed': 'nan'})
    s = check_state(query)
    assert len(s.inputs) == state.MAX_INPUTS
    assert (s.expr, s.chain_length, s.frame, s.speed) == ('custom', 10, 0, 2.0)


@pytest.mark.parametrize('value', ['nan', 'inf', '-inf', '1e999', '1e6', '-1e6', '1000000.1', '9' * 5000, '\ud800'])
def test_an_input_in_a_link_is_finite_and_within_a_million(value):
    s = check_state({'expr': 'reuse', 'v.a': value})
    assert s.inputs.get('a', 0.0) in (0.0, 1e6, -1e6)
