"""The exercise's build() and grads_of(), and what each Expression is known by: its key (the caches' and the
export files') and its label in the picker's menu.

Every expected gradient is derived by hand (written out in a comment) or by the chain rule in plain floats,
never read back from the engine.
"""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, Value, backward, build, chain, grads_of, parse_expression, topological_order
from view.names import file_stem

NEURON_VALS = [2.0, -3.0, 0.0, 1.0, 6.8813735870195432]  # the seed's order: x1, w1, x2, w2, b
MENU = {
    'neuron': 'neuron (the exercise)',
    'reuse': 'reuse (the exercise)',
    'chain': 'chain (the exercise)',
    'lecture': 'L = (a·b + c)·f',
    'a_plus_a': 'pitfall: b = a + a',
    'ab_times_a_plus_b': 'pitfall: (a·b)·(a + b)',
    'regression': 'linear regression: learn w, b',
    'mlp': 'tiny MLP with a loss',
}


# --- references, written without the engine -------------------------------------------------------


def chain_reference(x, w, n):
    """The chain h_k = tanh(h_{k-1} * w), h_0 = x, and (h_n, dh_n/dx, dh_n/dw) by forward-mode chain rule.

    dh_k/dh_{k-1} = (1 - h_k^2) * w, so dh_k/dx = (1 - h_k^2) * w * dh_{k-1}/dx with dh_0/dx = 1;
    dh_k/dw = (1 - h_k^2) * h_{k-1} + (1 - h_k^2) * w * dh_{k-1}/dw with dh_0/dw = 0.
    """
    h, dx, dw = x, 1.0, 0.0
    for _ in range(n):
        h_next = math.tanh(h * w)
        s = 1 - h_next**2
        dx, dw = s * w * dx, s * h + s * w * dw
        h = h_next
    return h, dx, dw


def chain_float(x, w, n):
    h = x
    for _ in range(n):
        h = math.tanh(h * w)
    return h


# --- keys and menu labels ----------------------------------------------------------------------------


@pytest.mark.parametrize('name', [name for name in PRESETS if name != 'chain'])
def test_a_presets_key_is_its_name(name):
    assert PRESETS[name].key == name


def test_the_chain_presets_key_says_its_length_as_chain_n_does():
    assert PRESETS['chain'].key == chain(10).key == 'chain10'
    assert [chain(n).key for n in (1, 2, 500)] == ['chain1', 'chain2', 'chain500']


def test_every_preset_has_its_menu_label_and_the_chain_keeps_it_at_every_length():
    assert {name: expression.menu for name, expression in PRESETS.items()} == MENU
    assert chain(3).menu == chain(500).menu == MENU['chain']


def test_a_typed_formula_is_keyed_by_its_text_as_read():
    assert parse_expression('tanh(x1*w1 + x2*w2 + b)').key == '=tanh(x1*w1 + x2*w2 + b)'
    assert parse_expression('a*b').key == parse_expression('a*b').key == parse_expression('  a*b ').key
    assert parse_expression('L = a*b').key == '=L = a*b'


@pytest.mark.parametrize(('one', 'other'), [('a*b', 'a*c'), ('a*b', 'b*a'), ('a*b', 'L = a*b'), ('x', 'x + 0')])
def test_different_formulas_have_different_keys(one, other):
    assert parse_expression(one).key != parse_expression(other).key


@pytest.mark.parametrize('text', [*PRESETS, 'chain10', 'chain2'])
def test_a_formula_that_reads_like_a_presets_name_is_not_keyed_like_it(text):
    # 'reuse' as a formula is one variable: were its key 'reuse', it would be given the reuse preset's layout
    formula = parse_expression(text)
    assert formula.key not in {expression.key for expression in PRESETS.values()} | {'chain2'}
    assert list(formula.defaults) == [text]


def test_a_typed_formulas_files_are_named_by_its_text_the_key_marker_dropping_out():
    for text in ('tanh(x1*w1 + x2*w2 + b)', ' L = a*b + a/c ', 'con'):
        assert file_stem(parse_expression(text).key, {'a': 3.0}) == file_stem(text, {'a': 3.0})
    assert file_stem(chain(7).key) == 'chain7' and file_stem(PRESETS['reuse'].key, {'a': 3, 'b': -2}) == 'reuse_a3_b-2'


# --- the seed's numbers --------------------------------------------------------------------------


def test_neuron_grads_are_the_lecture_numbers():
    # n = 2*-3 + 0*1 + 6.88137... = 0.88137... = asinh(1), o = tanh(n) = 1/sqrt(2), so do/dn = 1 - o^2 = 0.5.
    # do/dx1 = w1 * 0.5 = -1.5, do/dw1 = x1 * 0.5 = 1.0, do/dx2 = w2 * 0.5 = 0.5, do/dw2 = x2 * 0.5 = 0.0,
    # do/db = 0.5.
    assert grads_of('neuron', NEURON_VALS, [0] * 5) == [-1.5, 1.0, 0.5, 0.0, 0.5]


def test_the_neuron_preset_takes_its_inputs_by_name_and_gives_the_lecture_numbers():
    leaves, out = PRESETS['neuron'].build({'x1': 2.0, 'x2': 0.0, 'w1': -3.0, 'w2': 1.0, 'b': 6.8813735870195432})
    backward(out)
    assert [leaf.label for leaf in leaves] == ['x1', 'w1', 'x2', 'w2', 'b']
    assert [round(leaf.grad, 9) for leaf in leaves] == [-1.5, 1.0, 0.5, 0.0, 0.5]


def test_value_used_three_times_collects_grad_from_every_use():
    # out = a*b + a*a: d/da = b + 2a = -2 + 6 = 4, d/db = a = 3 (a = 3, b = -2).
    assert grads_of('reuse', [3.0, -2.0], [0] * 2) == [4.0, 3.0]


def test_grads_of_writes_into_and_returns_the_given_list():
    grad = [0] * 2
    assert grads_of('reuse', [3.0, -2.0], grad) is grad
    assert grad == [4.0, 3.0]


@pytest.mark.parametrize('x, w', [(0.5, 1.5), (1.0, -0.7), (-0.3, 2.0), (0.9, 0.4)])
def test_chain_of_ten_matches_chain_rule_to_nine_digits(x, w):
    _, dx, dw = chain_reference(x, w, 10)
    got = grads_of('chain', [x, w], [0] * 2)
    # grads_of rounds to 9 digits: the forward-mode reference may differ by rounding, never by more than 1e-9
    assert got[0] == pytest.approx(dx, abs=1e-9)
    assert got[1] == pytest.approx(dw, abs=1e-9)


@pytest.mark.parametrize('n', [1, 2, 3, 10, 25])
def test_chain_of_any_length_matches_chain_rule_to_nine_digits(n):
    x, w = 0.5, 1.5
    _, dx, dw = chain_reference(x, w, n)
    got = grads_of('chain', [x, w], [0] * 2, n=n)
    assert got[0] == pytest.approx(dx, abs=1e-9)
    assert got[1] == pytest.approx(dw, abs=1e-9)


def test_chain_of_one_is_tanh_of_x_times_w_by_hand():
    # h = tanh(x w): dh/dx = (1 - h^2) w, dh/dw = (1 - h^2) x
    x, w = 0.5, 1.5
    h = math.tanh(0.75)
    assert grads_of('chain', [x, w], [0] * 2, n=1) == [round((1 - h * h) * w, 9), round((1 - h * h) * x, 9)]


@settings(max_examples=150, deadline=None)
@given(x=st.floats(-2.0, 2.0), w=st.floats(-2.0, 2.0), n=st.integers(1, 15))
def test_chain_grads_match_chain_rule_and_finite_differences(x, w, n):
    leaves, out = build('chain', [x, w], n)
    backward(out)
    h, dx, dw = chain_reference(x, w, n)
    assert out.data == pytest.approx(h, rel=1e-12, abs=1e-15)
    assert leaves[0].grad == pytest.approx(dx, rel=1e-9, abs=1e-12)
    assert leaves[1].grad == pytest.approx(dw, rel=1e-9, abs=1e-12)
    # the chain can amplify a nudge by up to |w|^n: shrink the step to match, or the difference is too coarse
    step = 1e-6 / max(1.0, abs(w) ** n)
    numeric = [
        (chain_float(x + step, w, n) - chain_float(x - step, w, n)) / (2 * step),
        (chain_float(x, w + step, n) - chain_float(x, w - step, n)) / (2 * step),
    ]
    for leaf, difference in zip(leaves, numeric):
        assert leaf.grad == pytest.approx(difference, rel=1e-5, abs=1e-5)


# --- build() ---------------------------------------------------------------------------------------


def test_build_returns_neuron_leaves_in_seed_order_and_output_is_one_over_root_two():
    leaves, out = build('neuron', NEURON_VALS)
    assert [v.data for v in leaves] == NEURON_VALS
    assert all(type(v) is Value and v._prev == () for v in leaves)
    # n = 0.8813735870195432 = asinh(1), and tanh(asinh(1)) = 1 / sqrt(2)
    assert out.data == pytest.approx(1 / math.sqrt(2), abs=1e-15)
    graph = topological_order(out)
    assert all(any(v is leaf for v in graph) for leaf in leaves)


def test_build_returns_reuse_leaves_in_seed_order_and_output_data():
    leaves, out = build('reuse', [3.0, -2.0])
    assert [v.data for v in leaves] == [3.0, -2.0]
    assert out.data == 3.0  # a*b + a*a = -6 + 9


def test_build_chain_has_x_then_w_and_output_is_the_tanh_chain():
    leaves, out = build('chain', [0.5, 1.5])
    assert [v.data for v in leaves] == [0.5, 1.5]
    assert out.data == pytest.approx(chain_float(0.5, 1.5, 10), rel=1e-15)


def test_grads_start_at_zero_before_backward():
    leaves, out = build('neuron', NEURON_VALS)
    assert [v.grad for v in leaves] == [0.0] * 5
    assert out.grad == 0.0
