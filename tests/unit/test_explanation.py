"""view.explanation on plain data: the chain rule with the numbers plugged in, the engine's own
_backward source, and names printed, never rendered. Expected numbers are derived by hand."""

import ast
import inspect
import math
import re
import textwrap
from html.parser import HTMLParser

import pytest

from components.markdown import md
from engine import OPS, PRESETS, Value, assign, ops, parse_expression, topological_order, trace_backward
from engine.frames import frames
from view import bug, worked
from view.explanation import (
    caption,
    captured_numbers,
    chain_rule_lines,
    explain,
    explanation_html,
    frame_rules,
    local_gradient_lines,
    number,
    plain_text,
    repeats_note,
)
from view.graph import LOST_MARK, lost_edges
from view.numbers import fmt, number_width


def traced(expression, values=None):
    leaves, out = expression.build(values)
    return trace_backward(out, leaves)


def traced_with_closures(expression, values=None):
    """The trace, and each node's own _backward closure, taken from the Values themselves."""
    leaves, out = expression.build(values)
    trace = trace_backward(out, leaves)
    order = topological_order(out)
    assert [v.data for v in order] == [node.data for node in trace.nodes]
    return trace, [v._backward for v in order]


def backward_frame(trace, name, hide='none'):
    (frame,) = [f for f in frames(trace, hide=hide) if f.kind == 'backward' and trace.nodes[f.node].name == name]
    return frame


def step_of(trace, name):
    return trace.steps[backward_frame(trace, name).steps_done - 1]


def md_text(parts):
    """What the reader sees: the words, code spans and lists, without the code block."""
    return plain_text([part for part in parts if part[0] != 'code'])


def code_text(parts):
    return [text for kind, text in parts if kind == 'code']


def live_markdown(markdown):
    """Markdown with backslash-escaped characters blanked: what markdown would interpret."""
    return re.sub(r'\\.', '\x00', markdown)


# --- the chain rule, with numbers ---------------------------------------------------------------------


def test_reuse_a_times_b_step_lines():
    # out = a*b + a*a at a=3, b=-2: out.grad = 1 reaches a*b unchanged; a gets b.data = -2, b gets a.data = 3.
    # a had 3 + 3 = 6 from a*a, so it goes on to 6 - 2 = 4; b had nothing: its line ends at its contribution
    trace = traced(PRESETS['reuse'])
    assert chain_rule_lines(trace, step_of(trace, 'a*b')) == [
        'a.grad += b.data × (a*b).grad = −2.0000 × 1.0000 = −2.0000, so a.grad: 6.0000 → 4.0000',
        'b.grad += a.data × (a*b).grad = 3.0000 × 1.0000 = 3.0000',
    ]


def test_reuse_a_times_a_step_adds_a_twice():
    trace = traced(PRESETS['reuse'])
    line = 'a.grad += a.data × (a*a).grad = 3.0000 × 1.0000 = 3.0000'
    # the first write finds no grad: its line ends at the contribution; the second adds 3 to that 3
    assert chain_rule_lines(trace, step_of(trace, 'a*a')) == [line, f'{line}, so a.grad: 3.0000 → 6.0000']
    assert chain_rule_lines(trace, step_of(trace, 'a*a'), results=False) == [line, line]
    text = md_text(explain(trace, backward_frame(trace, 'a*a')))
    # the += lesson: a.grad goes from nothing to 3, then from 3 to 6, with more to come (from a*b)
    assert re.search(r'a\.grad: · → \**3\.0000\**', text), text
    assert re.search(r'a\.grad: 3\.0000 → \**6\.0000\**', text), text
    assert text.count('more to come') == 2
    assert 'final' not in text


def test_reuse_a_grad_is_final_after_the_a_times_b_step():
    trace = traced(PRESETS['reuse'])
    text = md_text(explain(trace, backward_frame(trace, 'a*b')))
    assert re.search(r'a\.grad: 6\.0000 → \**4\.0000\** \(final\)', text), text
    assert re.search(r'b\.grad: · → \**3\.0000\** \(final\)', text), text


def test_lecture_l_step_lines():
    # L = d * f with d = 4, f = -2: d.grad += f.data * 1 = -2, f.grad += d.data * 1 = 4
    trace = traced(PRESETS['lecture'])
    assert chain_rule_lines(trace, step_of(trace, 'L')) == [
        'd.grad += f.data × L.grad = −2.0000 × 1.0000 = −2.0000',
        'f.grad += d.data × L.grad = 4.0000 × 1.0000 = 4.0000',
    ]
    # e = a*b gets dL/de = -2; then a.grad = b.data * -2 = 6, b.grad = a.data * -2 = -4
    assert chain_rule_lines(trace, step_of(trace, 'e')) == [
        'a.grad += b.data × e.grad = −3.0000 × (−2.0000) = 6.0000',
        'b.grad += a.data × e.grad = 2.0000 × (−2.0000) = −4.0000',
    ]


# f = (a·b)·(a + b) at a = −2, b = 3, by hand: d = a·b = −6, e = a + b = 1, f = d·e = −6. Backward runs f, e, d:
# f's step gives d.grad = e.data × 1 = 1 and e.grad = d.data × 1 = −6; e's (+) passes −6 to a and to b; d's (×)
# adds b.data × d.grad = 3 × 1 = 3 to a (−6 → −3) and a.data × d.grad = −2 × 1 = −2 to b (−6 → −8).


def test_where_a_grad_had_a_value_the_sums_say_the_contribution_and_then_the_grad_it_makes():
    trace = traced(PRESETS['ab_times_a_plus_b'])
    assert chain_rule_lines(trace, step_of(trace, 'd')) == [
        'a.grad += b.data × d.grad = 3.0000 × 1.0000 = 3.0000, so a.grad: −6.0000 → −3.0000',
        'b.grad += a.data × d.grad = −2.0000 × 1.0000 = −2.0000, so b.grad: −6.0000 → −8.0000',
    ]
    # e's step writes a and b first: nothing to go from, the line ends at the contribution, which is the new grad
    assert chain_rule_lines(trace, step_of(trace, 'e')) == ['a.grad += e.grad = −6.0000', 'b.grad += e.grad = −6.0000']
    frame = backward_frame(trace, 'd')
    assert frame_rules(trace, frame) == chain_rule_lines(trace, step_of(trace, 'd'))  # the sums over the graph
    # the explanation says the grad's change on a line of its own, after the chain rule: once, not twice
    text = plain_text(explain(trace, frame))
    assert 'a.grad += b.data × d.grad = 3.0000 × 1.0000 = 3.0000\na.grad: −6.0000 → −3.0000 (final)' in text
    assert text.count('−6.0000 → −3.0000') == 1


def test_on_the_assigning_engine_the_sums_show_the_grad_replaced_not_added_to():
    # the same f with =: d's step writes a.grad = 3, throwing e's −6 away, and b.grad = −2 in place of −6
    leaves, out = PRESETS['ab_times_a_plus_b'].build(value_type=assign.Value)
    trace = trace_backward(out, leaves)
    assert chain_rule_lines(trace, step_of(trace, 'd')) == [
        'a.grad = b.data × d.grad = 3.0000 × 1.0000 = 3.0000, so a.grad: −6.0000 → 3.0000, ✗ lost −6.0000',
        'b.grad = a.data × d.grad = −2.0000 × 1.0000 = −2.0000, so b.grad: −6.0000 → −2.0000, ✗ lost −6.0000',
    ]


def test_a_hidden_grad_gets_no_before_and_after_in_the_sums():
    trace = traced(PRESETS['ab_times_a_plus_b'])
    frame = backward_frame(trace, 'd', 'new')
    assert frame_rules(trace, frame) == [
        'a.grad += ? × d.grad = ? × 1.0000 = ?',
        'b.grad += ? × d.grad = ? × 1.0000 = ?',
    ]


def test_a_leaf_on_the_assigning_engine_says_whether_its_grad_is_what_plus_equals_gives():
    # a ends at 3 with = (−3 with +=), as does b at −2 (−8 with +=); reuse's b is written once: 3, right
    leaves, out = PRESETS['ab_times_a_plus_b'].build(value_type=assign.Value)
    trace = trace_backward(out, leaves)
    assert frame_rules(trace, backward_frame(trace, 'a'), assigns=True) == [
        'a.grad = 3.0000, as the last = left it: wrong, += gives −3.0000'
    ]
    assert frame_rules(trace, backward_frame(trace, 'a', 'all'), assigns=True) == ['a.grad = ?, as the last = left it']
    leaves, out = PRESETS['reuse'].build(value_type=assign.Value)
    trace = trace_backward(out, leaves)
    assert frame_rules(trace, backward_frame(trace, 'b'), assigns=True) == [
        'b.grad = 3.0000, as the last = left it: right, += gives the same'
    ]
    assert frame_rules(trace, backward_frame(trace, 'a'), assigns=True) == [
        'a.grad = −2.0000, as the last = left it: wrong, += gives 4.0000'
    ]
    # the explanation, and the step that leaves a wrong grad final, say so too, with what += gives: b + 2a = 4
    leaf = plain_text(explain(trace, backward_frame(trace, 'a'), assigns=True))
    assert 'Its grad, −2.0000, is what the last = left, and wrong: += gives ∂out/∂a = 4.0000.' in leaf
    assert 'is what the last = left, and right: += gives the same, ∂out/∂b.' in plain_text(
        explain(trace, backward_frame(trace, 'b'), assigns=True)
    )
    a_times_b = plain_text(explain(trace, backward_frame(trace, 'a*b'), assigns=True))
    assert 'a.grad: 3.0000 → −2.0000, ✗ lost 3.0000 (final; wrong, += gives 4.0000)' in a_times_b
    assert 'b.grad: · → 3.0000 (final)' in a_times_b


def test_neuron_tanh_step_shows_local_gradient_and_captured_t():
    # o = tanh(n) with n = 0.8814: t = 0.7071 = 1/sqrt(2), so the local gradient 1 - t**2 = 0.5
    trace, closures = traced_with_closures(PRESETS['neuron'])
    step = step_of(trace, 'o')
    (contribution,) = step.contributions
    assert contribution.local_grad == pytest.approx(0.5, abs=1e-12)
    assert chain_rule_lines(trace, step) == [
        'n.grad += (1 - t**2) × o.grad = 0.5000 × 1.0000 = 0.5000, where t = tanh(n.data) = 0.7071'
    ]
    parts = explain(trace, backward_frame(trace, 'o'))
    text = md_text(parts)
    assert 't = tanh(n.data) = tanh(0.8814) = 0.7071' in text  # the forward line that made it
    assert captured_numbers(closures[step.node])['t'] == pytest.approx(2**-0.5, abs=1e-12)
    (code,) = code_text(parts)
    assert 'self.grad += (1 - t**2) * out.grad' in code


def test_neuron_x1_times_w1_step_gives_the_lecture_grads():
    trace = traced(PRESETS['neuron'])
    assert chain_rule_lines(trace, step_of(trace, 'x1*w1')) == [
        'x1.grad += w1.data × (x1*w1).grad = −3.0000 × 0.5000 = −1.5000',
        'w1.grad += x1.data × (x1*w1).grad = 2.0000 × 0.5000 = 1.0000',
    ]


# --- the code shown is the engine's ---------------------------------------------------------------


@pytest.mark.parametrize('key', ['neuron', 'reuse', 'mlp', 'typed'])
def test_code_shown_is_the_closures_own_source(key):
    expression = parse_expression('relu(a) / b - exp(a) + log(b) ** 2 + sigmoid(-a)') if key == 'typed' else None
    trace, closures = traced_with_closures(expression or PRESETS[key], {'a': 0.5, 'b': 2.0} if key == 'typed' else None)
    shown = 0
    for frame in frames(trace):
        if frame.kind != 'backward' or not trace.nodes[frame.node].op:
            continue
        fn = closures[frame.node]
        (code,) = code_text(explain(trace, frame))
        assert code == textwrap.dedent(inspect.getsource(fn)).strip()
        assert code.startswith('def _backward():')
        shown += 1
    assert shown == sum(1 for node in trace.nodes if node.op)


def test_multiplication_shows_its_two_lines():
    trace = traced(PRESETS['reuse'])
    (code,) = code_text(explain(trace, backward_frame(trace, 'a*b')))
    assert code.splitlines()[1:] == ['    self.grad += other.data * out.grad', '    other.grad += self.data * out.grad']


# --- leaves, the seed, the forward pass --------------------------------------------------------------


def test_leaf_steps_say_their_backward_does_nothing():
    trace = traced(PRESETS['neuron'])
    hand = {'x1': '−1.5000', 'w1': '1.0000', 'x2': '0.5000', 'w2': '0.0000', 'b': '0.5000'}
    for name, grad in hand.items():
        parts = explain(trace, backward_frame(trace, name))
        assert not code_text(parts)
        text = md_text(parts)
        assert '_backward does nothing' in text
        assert f'Its grad, {grad},' in text
        assert f'∂o/∂{name}' in text
        assert 'leaf' in caption(trace, backward_frame(trace, name))


def test_a_constant_leaf_is_called_a_constant():
    trace = traced(parse_expression('2*a'), {'a': 3.0})
    text = md_text(explain(trace, backward_frame(trace, '2')))
    assert 'constant' in text and 'does nothing' in text
    # d(2a)/d2 = a = 3
    assert 'Its grad, 3.0000,' in text


def test_seed_frame_sets_the_output_grad_to_one():
    trace = traced(PRESETS['lecture'])
    (seed,) = [f for f in frames(trace) if f.kind == 'seed']
    assert 'L.grad = 1' in md_text(explain(trace, seed))
    assert 'L.grad = 1' in caption(trace, seed)


def test_forward_frames_show_the_op_with_its_numbers():
    trace = traced(PRESETS['lecture'])
    forward = [f for f in frames(trace) if f.kind == 'forward']
    texts = [md_text(explain(trace, f)) for f in forward]
    # e = a*b = 2 * -3 = -6; d = e + c = -6 + 10 = 4; L = d * f = 4 * -2 = -8
    assert '2.0000 × (−3.0000) = −6.0000' in texts[0]
    assert '−6.0000 + 10.0000 = 4.0000' in texts[1]
    assert '4.0000 × (−2.0000) = −8.0000' in texts[2]
    inputs = md_text(explain(trace, frames(trace)[0]))
    for part in ('a = 2.0000', 'b = −3.0000', 'c = 10.0000', 'f = −2.0000'):
        assert part in inputs


# --- names are printed, never rendered ---------------------------------------------------------------


def test_names_with_stars_are_printed_as_they_are():
    trace = traced(PRESETS['neuron'])
    step_frame = backward_frame(trace, 'x1*w1')
    assert 'x1*w1 = x1 × w1 passes its grad' in md_text(explain(trace, step_frame))
    assert 'x1\\*w1' in md(caption(trace, step_frame))  # the share panel writes the frame's caption as markdown
    for frame in frames(trace):
        assert 'x1*w1' not in live_markdown(md(caption(trace, frame)))


HOSTILE = ['a_b_c', '*x*', '[link](https://example.com)', '<b>', '<img src=x onerror=alert(1)>', '#h', '$x$', 'a|b',
           '~s~', ':red[x]', 'https://example.com', '&amp;']  # fmt: skip


class _Elements(HTMLParser):
    """The tags, attributes and text of an HTML fragment."""

    def __init__(self, page):
        super().__init__(convert_charrefs=True)
        self.tags, self.text = [], ''
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, tuple(attrs)))

    def handle_data(self, data):
        self.text += data


OUR_TAGS = {('p', ()), ('b', ()), ('code', ()), ('ul', ()), ('li', ()), ('br', ()), ('pre', (('class', 'src'),))}


@pytest.mark.parametrize('name', HOSTILE)
def test_hostile_names_are_printed_not_rendered_in_the_explanation_and_the_captions(name):
    a = Value(2.0, label=name)
    b = Value(3.0, label='b')
    out = a * b + a
    out.label = 'out'
    trace = trace_backward(out, [a, b])
    texts = []
    for frame in frames(trace):
        page = _Elements(explanation_html(explain(trace, frame)))
        assert set(page.tags) <= OUR_TAGS, page.tags  # only the explanation's own markup
        texts.append(page.text)
        assert name not in live_markdown(md(caption(trace, frame))) or not re.search(r'[^\w ]', name)
    assert sum(name in text for text in texts) >= 3  # the name, as it is: the inputs, the forward op, its step


# --- the local gradient's own arithmetic, op by op (issue 11) ---------------------------------------------------


def lines_for(text, values, name):
    """(local gradient lines, chain-rule lines) of node `name`'s step in the typed formula `text` at `values`."""
    trace = traced(parse_expression(text), values)
    step = step_of(trace, name)
    return local_gradient_lines(trace, step), chain_rule_lines(trace, step)


def test_tanh_works_out_one_minus_t_squared_as_the_lecture_does():
    # o = tanh(n), t = 0.7071 = 1/sqrt(2): 1 - t**2 = 1 - 1/2 = 0.5, then 0.5 × o.grad = 0.5 × 1
    trace = traced(PRESETS['neuron'])
    step = step_of(trace, 'o')
    assert local_gradient_lines(trace, step) == [
        'local gradient for n: 1 − t² = 1 − 0.7071² = 0.5000, where t = tanh(n.data) = 0.7071'
    ]
    text = md_text(explain(trace, backward_frame(trace, 'o')))
    # the local gradient comes before its product with the upstream grad
    assert text.index('1 − 0.7071² = 0.5000') < text.index('= 0.5000 × 1.0000 = 0.5000')
    # a negative t is bracketed before it is squared: tanh(-0.8814) = -1/sqrt(2), 1 - 1/2 = 0.5
    local, _ = lines_for('L = tanh(a)', {'a': -0.881373587019543}, 'L')
    assert local == ['local gradient for a: 1 − t² = 1 − (−0.7071)² = 0.5000, where t = tanh(a.data) = −0.7071']


def test_multiplication_shows_the_other_inputs_data_as_the_local_gradient():
    # the lecture's e = a*b with a = 2, b = -3: d e/d a = b = -3, d e/d b = a = 2; e.grad = dL/de = f = -2
    trace = traced(PRESETS['lecture'])
    step = step_of(trace, 'e')
    assert local_gradient_lines(trace, step) == [
        'local gradient for a: b.data = −3.0000',
        'local gradient for b: a.data = 2.0000',
    ]
    # a*a: each use of a gets the other use's data, 3, one line per use
    trace = traced(PRESETS['reuse'])
    assert local_gradient_lines(trace, step_of(trace, 'a*a')) == [
        'local gradient for a (its use 1 of 2): a.data = 3.0000',
        'local gradient for a (its use 2 of 2): a.data = 3.0000',
    ]


def test_addition_passes_the_grad_through_with_no_product_by_one():
    # out = a*b + a*a: out.grad = 1 goes to both unchanged
    trace = traced(PRESETS['reuse'])
    step = step_of(trace, 'out')
    assert local_gradient_lines(trace, step) == [
        'passes the grad through to a*b: local gradient 1',
        'passes the grad through to a*a: local gradient 1',
    ]
    assert chain_rule_lines(trace, step) == ['(a*b).grad += out.grad = 1.0000', '(a*a).grad += out.grad = 1.0000']
    # the neuron's n = (x1*w1 + x2*w2) + b gets n.grad = 1 - tanh(n)**2 = 0.5, and hands 0.5 to both
    trace = traced(PRESETS['neuron'])
    lines = chain_rule_lines(trace, step_of(trace, 'n'))
    assert lines == ['(x1*w1 + x2*w2).grad += n.grad = 0.5000', 'b.grad += n.grad = 0.5000']
    for frame in frames(trace):
        if frame.kind == 'backward' and trace.nodes[frame.node].op == '+':
            assert '×' not in ''.join(chain_rule_lines(trace, trace.steps[frame.steps_done - 1]))


def test_subtraction_passes_the_grad_to_its_left_and_negates_it_to_its_right():
    # L = (a - b)*c at a = 5, b = 2, c = -3: (a-b).grad = c = -3; a gets -3, b gets -(-3) = 3
    local, lines = lines_for('L = (a - b)*c', {'a': 5.0, 'b': 2.0, 'c': -3.0}, 'a-b')
    assert local == ['passes the grad through to a: local gradient 1',
                     'passes the grad through to b, negated: local gradient −1']  # fmt: skip
    assert lines == ['a.grad += (a-b).grad = −3.0000', 'b.grad += -(a-b).grad = −(−3.0000) = 3.0000']


def test_negation_passes_the_grad_back_negated():
    # L = -a*c = (-a)*c at a = 2, c = 4: (-a).grad = c = 4, a.grad = -4
    local, lines = lines_for('L = -a*c', {'a': 2.0, 'c': 4.0}, '-a')
    assert local == ['passes the grad through to a, negated: local gradient −1']
    assert lines == ['a.grad += -(-a).grad = −4.0000']


def test_division_works_out_one_over_b_and_minus_the_quotient_over_b():
    # L = a/b at a = 3, b = 2: dL/da = 1/b = 0.5; dL/db = -a/b**2 = -3/4, which the code writes -L.data * (1/b)
    local, lines = lines_for('L = a/b', {'a': 3.0, 'b': 2.0}, 'L')
    assert local == [
        'local gradient for a: inv = b.data⁻¹ = 2.0000⁻¹ = 0.5000',
        'local gradient for b: −L.data × inv = −1.5000 × 0.5000 = −0.7500, where inv = b.data⁻¹ = 0.5000',
    ]
    assert lines == [
        'a.grad += inv × L.grad = 0.5000 × 1.0000 = 0.5000, where inv = b.data⁻¹ = 0.5000',
        'b.grad += -L.data × inv × L.grad = −0.7500 × 1.0000 = −0.7500, where inv = b.data⁻¹ = 0.5000',
    ]


def test_a_power_works_out_n_times_x_to_the_n_minus_one():
    # a**3 at a = 2: 3 × 2**2 = 12; a**0.5 at a = 4: 0.5 × 4**-0.5 = 0.5 × 0.5 = 0.25; a**2 at a = -3: 2 × (-3) = -6
    local, lines = lines_for('L = a**3', {'a': 2.0}, 'L')
    assert local == ['local gradient for a: slope = 3 × a.data² = 3 × 2.0000² = 12.0000']
    assert lines == ['a.grad += slope × L.grad = 12.0000 × 1.0000 = 12.0000, where slope = 3 × a.data² = 12.0000']
    local, _ = lines_for('L = a**0.5', {'a': 4.0}, 'L')
    assert local == ['local gradient for a: slope = 0.5 × a.data^(−0.5) = 0.5 × 4.0000^(−0.5) = 0.2500']
    local, _ = lines_for('L = a**2', {'a': -3.0}, 'L')
    assert local == ['local gradient for a: slope = 2 × a.data = 2 × (−3.0000) = −6.0000']


def test_exp_and_log_work_out_their_local_gradients():
    # d exp(a)/da = exp(a) = exp(0) = 1; d log(a)/da = 1/a = 1/4 = 0.25
    local, _ = lines_for('L = exp(a)', {'a': 0.0}, 'L')
    assert local == ['local gradient for a: e = exp(a.data) = exp(0.0000) = 1.0000']
    local, lines = lines_for('L = 2*log(a)', {'a': 4.0}, 'log(a)')
    assert local == ['local gradient for a: inv = a.data⁻¹ = 4.0000⁻¹ = 0.2500']
    # log(a).grad = 2
    assert lines == ['a.grad += inv × log(a).grad = 0.2500 × 2.0000 = 0.5000, where inv = a.data⁻¹ = 0.2500']


def test_relu_and_sigmoid_work_out_their_local_gradients():
    # relu passes the grad where a > 0 only; sigmoid(0) = 0.5, so s(1 - s) = 0.25
    assert lines_for('L = relu(a)', {'a': 3.0}, 'L')[0] == [
        'local gradient for a: (a.data > 0) = (3.0000 > 0) = 1.0000'
    ]
    assert lines_for('L = relu(a)', {'a': -2.0}, 'L')[0] == [
        'local gradient for a: (a.data > 0) = (−2.0000 > 0) = 0.0000'
    ]
    local, _ = lines_for('L = sigmoid(a)', {'a': 0.0}, 'L')
    assert local == [
        'local gradient for a: s × (1 − s) = 0.5000 × (1 − 0.5000) = 0.2500, where s = 1 ÷ (1 + exp(−a.data)) = 0.5000'
    ]


def test_sin_and_cos_work_out_their_local_gradients():
    # d sin(a)/da = cos(a): cos(pi/3) = 0.5; d cos(a)/da = -sin(a): -sin(pi/6) = -0.5
    local, _ = lines_for('L = sin(a)', {'a': math.pi / 3}, 'L')
    assert local == ['local gradient for a: cos(a.data) = cos(1.0472) = 0.5000']
    local, _ = lines_for('L = cos(a)', {'a': math.pi / 6}, 'L')
    assert local == ['local gradient for a: −sin(a.data) = −sin(0.5236) = −0.5000']


def test_every_op_in_the_table_has_its_local_gradient_worked_out_from_its_code():
    for op, entry in OPS.items():
        name = '**2' if op == '**' else op  # '**' stands for every power
        trace = traced(parse_expression(f'L = {ops.formula(name, ["a", "b"][: entry.arity])}'), {'a': 0.5, 'b': 2.0})
        step = trace.steps[0]
        for line, c in zip(local_gradient_lines(trace, step), step.contributions, strict=True):
            if 'passes the grad through' in line:
                assert line.endswith(('local gradient 1', 'local gradient −1')), (op, line)
            else:  # by name, then with numbers or by the line that made it, then the number: never the number alone
                said = line.split(': ', 1)[1].split(', where ')[0]  # a number the closure holds is said after it
                worked_out = re.split(' [=≈] ', said)  # '≈' before a number rounded away from it
                assert len(worked_out) >= 2 and worked_out[-1] == number(c.local_grad), (op, line)


class WithSqrt(Value):
    """An op the page has never heard of, written in the four beats, to be explained from its code alone."""

    def sqrt(self):
        r = math.pow(self.data, 0.5)
        out = WithSqrt(r, (self,), 'sqrt')

        def _backward():
            self.grad += 0.5 / r * out.grad

        out._backward = _backward
        return out


def test_an_op_with_no_words_of_its_own_is_worked_out_from_its_code():
    # d sqrt(a)/da = 1 / (2 sqrt(a)) = 0.25 at a = 4, where r = sqrt(4) = 2
    a = WithSqrt(4.0)
    out = a.sqrt()
    scope = worked.Scope({'self': 'a', 'out': 'L'}, {('self', 'data'): 4.0, ('out', 'data'): 2.0}, {'r': 2.0})
    said = '0.5 ÷ r = 0.5 ÷ 2.0000 = 0.2500, where r = a.data^0.5 = 2.0000'
    assert worked.local_gradient(out._backward, 0, scope, 0.25) == said
    assert worked.made(out._backward, 'r', scope, 2.0) == 'r = a.data^0.5 = 4.0000^0.5 = 2.0000'


def test_code_the_page_has_no_words_for_gives_no_arithmetic_rather_than_a_wrong_one():
    scope = worked.Scope({'self': 'a', 'out': 'L'}, {('self', 'data'): 4.0}, {})
    for code in ['print(self.data)', 'self.data[0]', 'os.system(self.data)', 'self.grad', 'lambda: 1', 'x']:
        with pytest.raises(worked.Unreadable):
            worked.write(ast.parse(code, mode='eval').body, scope)


def test_the_where_line_says_out_is_this_node_and_one_input_is_its_input():
    trace = traced(PRESETS['reuse'])
    text = md_text(explain(trace, backward_frame(trace, 'out')))
    assert 'out = out (the code’s out is this node, named out too)' in text
    assert 'back to its inputs' in text
    trace = traced(PRESETS['neuron'])
    text = md_text(explain(trace, backward_frame(trace, 'o')))
    assert 'back to its input.' in text and 'inputs' not in text
    assert 'out = o (this node)' in text


def test_a_step_whose_grads_are_hidden_asks_for_its_local_gradients_and_shows_only_the_data_the_graph_shows():
    # L = a/b at a = 3, b = 2: the closure's inv = 1/b = 0.5 is a's local gradient, and b's is −a/b² = −0.75
    trace = traced(parse_expression('L = a/b'), {'a': 3.0, 'b': 2.0})
    text = plain_text(explain(trace, backward_frame(trace, 'L', 'new')))
    assert 'inv = ?' in text and '0.5000' not in text and '0.7500' not in text
    assert 'local gradient for a: ?' in text and 'local gradient for b: ?' in text
    assert 'a.grad += ? × L.grad = ? × 1.0000 = ?' in text  # only the upstream grad L.grad = 1 is given
    # o = tanh(n): t = 0.7071 is o's own data, which the graph shows; its local gradient 1 − t² = 0.5 is asked for
    trace = traced(PRESETS['neuron'])
    text = plain_text(explain(trace, backward_frame(trace, 'o', 'new')))
    assert (
        't = tanh(n.data) = tanh(0.8814) = 0.7071' in text
        and '0.5000' not in text
        and 'local gradient for n: ?' in text
    )
    # + passes its grad through: saying so would give the local gradient 1, and with it the answer
    text = plain_text(explain(trace, backward_frame(trace, 'n', 'new')))
    assert 'passes the grad through' not in text and 'b.grad += ? × n.grad = ? × 0.5000 = ?' in text
    b = next(i for i, node in enumerate(trace.nodes) if node.name == 'b')
    assert local_gradient_lines(trace, step_of(trace, 'n'), {b}) == [  # only what is hidden is asked for
        'passes the grad through to x1*w1 + x2*w2: local gradient 1',
        'local gradient for b: ?',
    ]


# --- the `=` mode shows each loss on the frame where it happens (issue 33, 8) -----------------------------------


def test_a_write_of_the_same_number_over_a_grad_still_says_what_it_lost():
    # reuse on the = engine: a*a's step writes a.grad = a.data · 1 = 3 twice; the second throws the first 3 away,
    # where += makes 6: '3.0000 → 3.0000' alone would hide it
    leaves, out = PRESETS['reuse'].build(value_type=assign.Value)
    trace = trace_backward(out, leaves)
    frame = backward_frame(trace, 'a*a')
    rules = frame_rules(trace, frame, assigns=True)
    assert rules[1].endswith('so a.grad: 3.0000 → 3.0000, ✗ lost 3.0000')
    assert 'a.grad: 3.0000 → 3.0000, ✗ lost 3.0000 (more to come)' in plain_text(explain(trace, frame, assigns=True))


@pytest.mark.parametrize('key', [*PRESETS, 'typed'])
def test_every_frame_where_equals_throws_a_contribution_away_draws_and_words_it(key):
    expression = parse_expression('(a*b + a)*(a + a*a) - tanh(a)') if key == 'typed' else PRESETS[key]
    leaves, out = expression.build(value_type=assign.Value)
    trace = trace_backward(out, leaves)
    right = trace_backward(*reversed(expression.build()))
    width = number_width(trace)
    losses = 0
    for frame in frames(trace):
        step = trace.steps[frame.steps_done - 1] if frame.kind == 'backward' else None
        thrown = [c for c in (step.contributions if step else ()) if c.how == '=' and c.before is not None]
        rules = ' '.join(frame_rules(trace, frame, assigns=True))
        said = plain_text(explain(trace, frame, assigns=True) + bug.bug_parts(trace, right, frame))
        drawn = lost_edges(trace, frame, width)
        assert (LOST_MARK in rules) == bool(thrown) == bool(drawn), (key, frame)
        for c in thrown:  # its number, in the sums, the explanation, the caption and on a dashed edge
            lost = f'{LOST_MARK} {number(c.before)}'
            assert lost in rules and lost in said, (key, frame, rules)
            assert number(c.before) in bug.bug_caption(trace, frame)
            assert any(label.split('\n')[2].split()[-1] == fmt(c.before) for label in drawn.values())
            losses += 1
    assert losses or not bug.reused(trace)  # a graph that reuses a value loses something with =


# --- a subexpression typed twice: the page says why there are two, and which is which (issue 33, 7) ------------


def test_a_formula_that_types_a_subexpression_twice_says_it_is_computed_twice():
    trace = traced(parse_expression('(x*w + b)*(x*w + b)'))
    note = repeats_note(trace)
    assert note.startswith('x*w+b is in the formula twice, so Python computes it twice')
    assert 'the graph has x*w+b and (x*w)′+b, each with a grad of its own' in note
    assert 'x*w is' not in note  # the x*w inside each is part of it, not a repeat of its own
    (copy,) = [f for f in frames(trace) if f.kind == 'forward' and trace.nodes[f.node].name == '(x*w)′+b']
    assert '(x*w)′+b computes x*w+b again' in plain_text(explain(trace, copy))
    thrice = repeats_note(traced(parse_expression('exp(a)*exp(a)*exp(a)')))
    assert 'exp(a) is in the formula three times' in thrice and 'exp(a), exp(a)′ and exp(a)″' in thrice


@pytest.mark.parametrize('key', PRESETS)
def test_a_graph_that_computes_nothing_twice_has_no_note(key):
    assert repeats_note(traced(PRESETS[key])) == ''
