"""How an op is written has one home, engine/ops.py: every op the engine makes is in its table, and the trace's
node names, the captions, the explanation and the presentation view's sums all write formulas with ops.formula.

A name is checked against Python's own reading of it: a formula name, evaluated, gives its node's data, and a
formula with the numbers plugged in gives what the op computes from those numbers."""

import ast
import html
import inspect
import math

import pytest
from graphviz import quoting

from engine import OPS, PRESETS, Value, chain, parse_expression, trace_backward, value
from engine.frames import frames
from engine.ops import CALL, MINUS, binding, bracket, op_of, symbol
from engine.ops import formula as op_formula
from engine.trace import MAX_FORMULA_NAME
from view.explanation import caption, explain, frame_rules, node_formula, owner, plain_text
from view.graph import build_dot
from view.node_table import table_columns
from view.numbers import number

TYPED = [
    'tanh(x*w)', 'a*b + a*a', '-(a*b)', '(a+b)**2', 'a - (b - c)', 'a/b/c', 'a/(b/c)', '-a*b', '-a**2', '(-a)**2',
    '-(-a)', 'a - -b', 'a*-2', '2*a - 3', 'exp(-a)', 'a**-0.5', '(a*b)**3', '(a + b)*(a - b)', 'a*(b + c)',
    'x1*w1 + x2*w2 + b', 'sigmoid(a)*relu(b) - log(a)/sin(b) + cos(a)**2', '1e-5*a + 0.5*a**2',
    'L = tanh(x*w + b) * y - x/2 + exp(-y)', 'c - a*b/(a + b)', '(a - b)/(c*a)',
]  # fmt: skip
VALUES = {'a': 1.5, 'b': -2.0, 'c': 0.5, 'x': -0.75, 'w': 1.25, 'y': 0.3, 'x1': 2.0, 'w1': -3.0, 'x2': 0.0, 'w2': 1.0}
EXPRESSIONS = {**{key: (e, None) for key, e in PRESETS.items()}, 'chain3': (chain(3), None)}
EXPRESSIONS |= {text: (parse_expression(text), VALUES) for text in TYPED}
PRETTY = {'×': '*', '÷': '/', '−': '-'}  # the page's signs, as Python writes them


def traced(key):
    expression, values = EXPRESSIONS[key]
    leaves, out = expression.build({k: v for k, v in (values or {}).items() if k in expression.defaults})
    return trace_backward(out, leaves), leaves


def as_python(text):
    return ''.join(PRETTY.get(ch, ch) for ch in text)


def names_of(trace, i):
    return [trace.nodes[c].name for c in trace.nodes[i].children]


def op_nodes(trace):
    return [i for i, node in enumerate(trace.nodes) if node.op]


# --- the table -----------------------------------------------------------------------------------


def test_every_op_value_makes_is_in_the_table_and_every_table_row_is_an_op_value_makes():
    # the op names Value gives its results, read from value.py's own source: Value(data, children, op)
    made = set()
    for call in ast.walk(ast.parse(inspect.getsource(value))):
        if isinstance(call, ast.Call) and getattr(call.func, 'id', '') == 'Value' and len(call.args) == 3:
            op = call.args[2]
            made.add(op.value if isinstance(op, ast.Constant) else op.values[0].value)  # f'**{n:g}': its '**'
    assert made == set(OPS)
    for op in made:
        assert op_of(op) is OPS[op] and symbol(op)


@pytest.mark.parametrize('op', sorted(OPS))
def test_every_op_is_written_the_same_way_plain_and_pretty_but_for_its_signs(op):
    name = '**2' if op == '**' else op
    args = ['a+b', 'c*d'][: OPS[op].arity]
    plain, pretty = op_formula(name, args), op_formula(name, args, pretty=True)
    assert as_python(pretty).replace(' ', '') == plain  # the same brackets in both
    assert ast.parse(plain, mode='eval')  # and Python reads it


# --- where brackets go: one function --------------------------------------------------------------


@pytest.mark.parametrize(
    'text, binds',
    [
        ('x1', CALL), ('(a+b)', CALL), ('tanh(a*b)', CALL), ('1e-05', CALL), ('2.5', CALL), ('#3', CALL),
        ('a**2', 4), ('a**-0.5', 4), ('-a', 3), ('−2.0000', 3), ('−1.500e-05', 3), ('-a**2', 3),
        ('a*b', 2), ('-a*b', 2), ('a × b', 2), ('c/(b*c)', 2),
        ('a+b', 1), ('a-b', 1), ('x1*w1 + x2*w2', 1), ('y - target', 1), ('my value', 1), ('e-5', 1),
        ('(unclosed', CALL), ('closed)', CALL),
    ],
)  # fmt: skip
def test_how_tightly_a_name_or_number_binds(text, binds):
    assert binding(text) == binds


def test_a_negative_number_after_an_operator_is_bracketed_with_a_true_minus():
    assert op_formula('*', ['3.0000', '−2.0000'], pretty=True) == '3.0000 × (−2.0000)'
    assert op_formula('+', ['−6.0000', '10.0000'], pretty=True) == '−6.0000 + 10.0000'  # first: no bracket needed
    assert op_formula('**2', ['−0.2120'], pretty=True) == '(−0.2120)**2'  # not −0.2120**2, which is negative
    assert op_formula('neg', ['−1.0000'], pretty=True) == '−(−1.0000)'
    assert op_formula('tanh', ['−1.4000'], pretty=True) == 'tanh(−1.4000)'
    assert number(-2.0) == '−2.0000' and number(-1.5e-5) == '−1.500e-05' and number(2.0) == '2.0000'


def test_an_operand_of_grad_is_bracketed_unless_it_is_one_word_or_a_call():
    assert [owner(n) for n in ['a', 'tanh(a)', 'a*b', '-a', 'a**2', 'x1*w1 + x2*w2']] == [
        'a', 'tanh(a)', '(a*b)', '(-a)', '(a**2)', '(x1*w1 + x2*w2)',
    ]  # fmt: skip
    assert owner('a*b') == bracket('a*b', CALL)


# --- the trace, the captions, the explanation and the graph write the same names ---------------------


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_the_explanations_formula_for_a_node_is_ops_formula_over_its_childrens_names(key):
    trace, _ = traced(key)
    for i in op_nodes(trace):
        node = trace.nodes[i]
        assert node_formula(trace, i) == op_formula(node.op, names_of(trace, i), pretty=True)
        numbers = [number(trace.nodes[c].data) for c in node.children]
        assert node_formula(trace, i, numbers=True) == op_formula(node.op, numbers, pretty=True)


@pytest.mark.parametrize('key', TYPED)
def test_an_unlabelled_node_is_named_by_ops_formula_and_the_name_means_its_value(key):
    trace, leaves = traced(key)
    values = {leaf.label: leaf.data for leaf in leaves}
    for i in op_nodes(trace)[:-1]:  # the output is labelled ('out', 'L')
        node = trace.nodes[i]
        if node.name.isidentifier():  # an alias, n1: a formula too long to read; formulas over it use its value
            assert len(op_formula(node.op, names_of(trace, i))) > MAX_FORMULA_NAME
            values[node.name] = node.data
            continue
        assert node.name == op_formula(node.op, names_of(trace, i))
        expression = parse_expression(node.name)
        leaves_used, out = expression.build({k: values[k] for k in expression.defaults})
        assert out.data == node.data or math.isclose(out.data, node.data, rel_tol=1e-12), node.name


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_a_formula_with_the_numbers_plugged_in_means_what_the_op_computes_from_them(key):
    trace, _ = traced(key)
    for i in op_nodes(trace):
        node = trace.nodes[i]
        numbers = [number(trace.nodes[c].data) for c in node.children]
        if any(n in ('nan', 'inf', '−inf') for n in numbers):
            continue
        written = parse_expression(as_python(node_formula(trace, i, numbers=True))).build()[1].data
        args = [Value(float(as_python(n))) for n in numbers]
        entry = op_of(node.op)
        if entry.form == 'infix':
            computed = {'+': args[0] + args[1], '-': args[0] - args[1], '*': args[0] * args[1], '/': args[0] / args[1]}
            expected = computed[node.op].data
        elif entry.form == 'prefix':
            expected = (-args[0]).data
        elif entry.form == 'postfix':
            expected = (args[0] ** float(node.op[2:])).data
        else:
            expected = getattr(args[0], node.op)().data
        assert written == pytest.approx(expected, rel=1e-12, abs=1e-300), node_formula(trace, i, numbers=True)


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_captions_print_each_nodes_name_and_its_formula_as_the_trace_and_ops_write_them(key):
    trace, _ = traced(key)
    out = trace.nodes[-1].name
    for frame in frames(trace):
        node = trace.nodes[frame.node] if frame.node >= 0 else None
        written = node and node.op and op_formula(node.op, names_of(trace, frame.node), pretty=True)
        expected = {
            'inputs': 'forward pass: the inputs are set',
            'forward': node and f'forward pass: {node.name} = {written}',
            'seed': f'backward pass starts: {owner(out)}.grad = 1',
            'backward': node and (
                f'backward pass: {node.name} = {written} passes its grad back' if node.op
                else f'backward pass: {node.name} is a leaf, nothing to pass on'
            ),
        }[frame.kind]  # fmt: skip
        assert caption(trace, frame) == expected


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_the_explanation_and_the_sums_print_each_nodes_name_as_the_trace_gives_it(key):
    trace, _ = traced(key)
    for frame in frames(trace):
        if frame.kind not in ('forward', 'backward') or not trace.nodes[frame.node].op:
            continue
        i, node = frame.node, trace.nodes[frame.node]
        parts = explain(trace, frame)
        text = plain_text(parts)
        head = f'{node.name} = {op_formula(node.op, names_of(trace, i), pretty=True)}'
        if frame.kind == 'forward':
            assert ('c', head) in parts[0][1]
            numbers = op_formula(node.op, [number(trace.nodes[c].data) for c in node.children], pretty=True)
            (rule,) = frame_rules(trace, frame)  # '≈' where the numbers shown round away (test_numbers pins which)
            assert rule in {f'{node.name} = {numbers} {sign} {number(node.data)}' for sign in '=≈'}
            continue
        assert ('b', head) in parts[0][1]
        assert f'passes its grad, {owner(node.name)}.grad = ' in text
        where = [f'self = {trace.nodes[node.children[0]].name}', f'out = {node.name}']
        if len(node.children) > 1:
            where.insert(1, f'other = {trace.nodes[node.children[1]].name}')
        assert [text for style, text in parts[2][1] if style == 'c'][: len(where)] == where
        step = trace.steps[frame.steps_done - 1]
        for c, line, row in zip(step.contributions, frame_rules(trace, frame), parts[3][1], strict=True):
            child = owner(trace.nodes[c.child].name)
            # the sums go on to the grad made where there was one; the explanation says so on the row's next line
            change = '' if c.before is None else f', so {child}.grad: {number(c.before)} → {number(c.after)}'
            assert (
                line.startswith(f'{child}.grad += ')
                and line.endswith(change)
                and row[0] == ('c', line[: len(line) - len(change)])
            )
            assert row[2] == ('', f'{child}.grad: {number(c.before)} → ')


@pytest.mark.parametrize('key', EXPRESSIONS)
def test_the_graph_and_the_table_show_the_trace_names_and_the_table_symbols(key):
    trace, _ = traced(key)
    source = build_dot(trace, frames(trace)[0], 7).source
    columns = table_columns(trace)
    assert columns['names'] == [node.name for node in trace.nodes]
    for i, node in enumerate(trace.nodes):
        assert f'<b>{html.escape(node.name)}</b>' in source
        if node.op:
            assert f'{node.id}_op [label={quoting.quote(symbol(node.op))} ' in source
            assert columns['ops'][i] == symbol(node.op)


def test_a_name_that_starts_with_a_minus_is_bracketed_after_an_operator():
    assert MINUS == '-−'
    assert op_formula('-', ['a', '-b']) == 'a-(-b)' and op_formula('*', ['-a', 'b']) == '-a*b'
