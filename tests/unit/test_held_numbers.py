"""A number an op's `_backward` names but did not make (tanh's t, exp's e, division's inv) is said on every line that
names it, with its number: '…, where e = exp(a.data) = 1.6487', so no student reads exp's `e` as 2.718 or wonders
what t is. The ops that hold one are found in engine/value.py's own source (a name the closure loads that its method
assigns), and each number is read back from the text against one worked out here by hand."""

import ast
import inspect
import math
import re
from decimal import Decimal

import pytest

from engine import PRESETS, Value, ops, parse_expression, trace_backward
from engine.frames import frames
from tests.unit.by_hand import HANDS
from tests.unit.test_arithmetic_lines import CASES, NUMBER, decimal, half_unit, traced, works_out
from view.explanation import chain_rule_lines, explain, local_gradient_lines, plain_text

A, B = 0.5, 2.0
HELD = [hand for hand in HANDS if hand.held]  # each op that holds a number, with its value by hand (by_hand.py)


def held_in_source():
    """{op: the names its _backward loads that its method itself assigns}, read from engine/value.py's text: the op
    (engine/ops.py's row) of the name the method gives its `out`."""
    tree = ast.parse(inspect.getsource(Value))
    found = {}
    for method in tree.body[0].body:
        if not isinstance(method, ast.FunctionDef):
            continue
        assigned = {
            t.id for s in method.body if isinstance(s, ast.Assign) for t in s.targets if isinstance(t, ast.Name)
        }
        inner = [s for s in method.body if isinstance(s, ast.FunctionDef) and s.name == '_backward']
        used = {n.id for f in inner for n in ast.walk(f) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        made = [c for c in ast.walk(method) if isinstance(c, ast.Call) and getattr(c.func, 'id', '') == 'Value']
        if used & (assigned - {'out', 'other'}):
            op = made[0].args[2]  # Value(data, children, op)
            name = op.value if isinstance(op, ast.Constant) else op.values[0].value  # f'**{n:g}': '**'
            found[ops.op_of(name)] = used & (assigned - {'out', 'other'})
    return found


def said(line, name):
    """The number `line` says `name` is: '…, where t = tanh(a.data) = 0.4621' gives '0.4621'."""
    m = re.search(rf'(?:, where |, |: ){re.escape(name)} = [^,]*? = ({NUMBER})(?=$|,)', line)
    return m and m.group(1)


def test_the_ops_that_hold_a_number_are_the_ones_worked_by_hand():
    assert {ops.op_of(hand.op): set(hand.held) for hand in HELD} == held_in_source()


@pytest.mark.parametrize('hand', HELD, ids=lambda hand: hand.op)
def test_every_line_that_names_a_held_number_says_what_it_is_with_its_number(hand):
    method, names = hand.op, {name: value(A, B) for name, value in hand.held.items()}
    trace = traced(parse_expression(f'L = {hand.formula("a", "b")}'), {'a': A, 'b': B})
    step = trace.steps[0]  # L's own step
    lines = chain_rule_lines(trace, step) + [line for line in local_gradient_lines(trace, step) if '=' in line]
    code_names = re.compile(r'\b(' + '|'.join(names) + r')\b')
    for line in lines:
        head = line.split(', where ')[0]
        for name in set(code_names.findall(head.split(' = ')[0] if '+=' in head else head)):
            shown = said(line, name)
            assert shown is not None, (method, name, line)
            assert works_out(Decimal(repr(names[name])), shown), (method, name, line)  # by hand, to the digit shown


def test_exp_never_leaves_e_unsaid_on_its_chain_rule_line():
    # the reported line: exp(a*b)'s step, e = exp(a*b) at a = 0.5, b = 0.6: e^0.3 = 1.3499
    trace = traced(parse_expression('L = exp(a*b)'), {'a': 0.5, 'b': 0.6})
    (line,) = chain_rule_lines(trace, trace.steps[0])
    assert line.startswith('(a*b).grad += e × L.grad') and said(line, 'e') == '1.3499'


TANH = re.compile(rf'1 − t² = 1 − \(?({NUMBER})\)?² ([=≈]) ({NUMBER}), where t = tanh\((.+?)\.data\) = ({NUMBER})')


@pytest.mark.parametrize('key', CASES)
def test_tanhs_local_gradient_says_t_and_works_out_from_it(key):
    # every frame's explanation: the t squared is the t said, 1 − t² of it rounds to the local gradient shown (or
    # the line says ≈), and t is tanh of its input's data, worked out here
    expression, values = CASES[key]
    trace = traced(expression, values)
    names = {node.name: node for node in trace.nodes}
    seen = 0
    for frame in frames(trace):
        for line in plain_text(explain(trace, frame)).split('\n'):
            for t, sign, local, of, t_said in TANH.findall(line):
                seen += 1
                assert t == t_said, line
                assert (sign == '=') == works_out(1 - decimal(t) ** 2, local), line
                x = names[of.strip('()')].data
                assert abs(Decimal(repr(math.tanh(x))) - decimal(t_said)) <= half_unit(t_said), line
    assert seen or not any(node.op == 'tanh' for node in trace.nodes), key


def test_the_neurons_tanh_step_says_t_on_each_line():
    # n = 2·(−3) + 0·1 + 6.8814 = 0.8814, t = tanh(0.8814) = 1/√2 = 0.7071, 1 − t² = 0.5
    leaves, out = PRESETS['neuron'].build()
    trace = trace_backward(out, leaves)
    step = trace.steps[0]
    (local,) = local_gradient_lines(trace, step)
    (line,) = chain_rule_lines(trace, step)
    assert said(local, 't') == said(line, 't') == '0.7071'
