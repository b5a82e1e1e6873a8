"""One step of learning, p.data += -lr * p.grad on each param, and the loss over many steps.

Every expected number is worked out by hand in a comment, or by an argument written beside it; the finite
differences are the one reference computed, and they never run backward.
"""

import math

import pytest

from engine import PRESETS, parse_expression
from engine.learn import DEFAULT_LR, LEARNING_RATES, MAX_STEPS, applies, descend, loss, step
from engine.presets import numeric_grads

REGRESSION = PRESETS['regression']
MLP = PRESETS['mlp']
MLP_WEIGHTS = ('w11', 'w12', 'b1', 'w21', 'w22', 'b2', 'w31', 'w32', 'b3', 'v1', 'v2', 'v3', 'c')


def steps_of(update):
    return {p.name: p for p in update.params}


# --- which inputs are params -------------------------------------------------------------------------


def test_the_regression_learns_w_and_b_from_the_data_x_and_y():
    assert REGRESSION.params == ('w', 'b')
    assert set(REGRESSION.defaults) == {'x', 'y', 'w', 'b'}


def test_the_mlp_learns_every_weight_and_bias_and_not_its_inputs_or_target():
    assert MLP.params == MLP_WEIGHTS
    assert set(MLP.defaults) - set(MLP.params) == {'x1', 'x2', 'target'}


def test_the_regression_comes_just_before_the_mlp_in_the_menu():
    names = list(PRESETS)
    assert names.index('regression') == names.index('mlp') - 1


@pytest.mark.parametrize('name', list(PRESETS))
def test_learning_applies_only_to_a_preset_with_params_and_they_are_among_its_inputs(name):
    expression = PRESETS[name]
    assert applies(expression) == (name in ('regression', 'mlp'))
    assert set(expression.params) <= set(expression.defaults)


def test_learning_does_not_apply_to_a_typed_formula():
    assert not applies(parse_expression('L = (w*x + b - y)**2'))


def test_the_default_learning_rate_is_one_of_the_choices():
    assert DEFAULT_LR in LEARNING_RATES


# --- one step, by hand -------------------------------------------------------------------------------


def test_one_step_of_the_regression_at_its_defaults_is_the_hand_numbers():
    # x = 1.5, y = 2, w = 0.5, b = 0:
    # pred = w*x + b = 0.75 + 0 = 0.75, err = pred - y = 0.75 - 2 = -1.25, L = err^2 = 1.5625
    # dL/dw = 2 * err * x = 2 * -1.25 * 1.5 = -3.75, dL/db = 2 * err = -2.5
    # at lr = 0.1: w = 0.5 + -0.1 * -3.75 = 0.5 + 0.375 = 0.875, b = 0 + -0.1 * -2.5 = 0.25
    assert DEFAULT_LR == 0.1
    update = step(REGRESSION, {}, DEFAULT_LR)
    w, b = steps_of(update)['w'], steps_of(update)['b']
    assert update.loss == 1.5625
    assert (w.old, w.grad, b.old, b.grad) == (0.5, -3.75, 0.0, -2.5)
    assert w.new == pytest.approx(0.875, rel=1e-15)
    assert b.new == pytest.approx(0.25, rel=1e-15)
    assert update.values == {'x': 1.5, 'y': 2.0, 'w': w.new, 'b': b.new}
    # then pred = 0.875 * 1.5 + 0.25 = 1.3125 + 0.25 = 1.5625, err = 1.5625 - 2 = -0.4375,
    # L = 0.4375^2 = 0.19140625 (down from 1.5625)
    assert loss(REGRESSION, update.values) == pytest.approx(0.19140625, rel=1e-14)


def test_a_step_is_exactly_p_data_plus_minus_lr_times_p_grad_on_every_mlp_param():
    update = step(MLP, {}, 0.3)
    assert [p.name for p in update.params] == list(MLP_WEIGHTS)
    for p in update.params:
        assert p.new == p.old + -0.3 * p.grad
        assert update.values[p.name] == p.new
        assert p.grad != 0.0  # every weight reaches the loss at the defaults: the step moves each one


@pytest.mark.parametrize(('expression', 'data'), [(REGRESSION, ('x', 'y')), (MLP, ('x1', 'x2', 'target'))])
def test_a_step_leaves_the_data_as_it_was(expression, data):
    values = {name: 0.25 * (i + 1) for i, name in enumerate(expression.defaults)}
    update = step(expression, values, DEFAULT_LR)
    assert {name: update.values[name] for name in data} == {name: values[name] for name in data}
    assert set(update.values) == set(expression.defaults)


def test_a_missing_value_takes_its_default():
    # only w given, at 1.0: pred = 1.0 * 1.5 + 0 = 1.5, err = 1.5 - 2 = -0.5, L = 0.25
    update = step(REGRESSION, {'w': 1.0}, DEFAULT_LR)
    assert update.loss == 0.25
    assert update.values['x'] == 1.5 and update.values['y'] == 2.0


@pytest.mark.parametrize('values', [{}, {'x': -0.7, 'y': 3.1, 'w': 2.2, 'b': -1.3}, {'x': 4.0, 'w': -0.1}])
def test_the_regressions_grads_agree_with_finite_differences(values):
    numeric = numeric_grads(REGRESSION, values)
    for p in step(REGRESSION, values, DEFAULT_LR).params:
        assert p.grad == pytest.approx(numeric[p.name], rel=1e-6, abs=1e-8)


# --- many steps --------------------------------------------------------------------------------------


@pytest.mark.parametrize('expression', [REGRESSION, MLP])
def test_the_loss_goes_down_at_every_one_of_ten_steps_at_the_default_rate(expression):
    losses = descend(expression, {}, DEFAULT_LR, 10).losses
    assert len(losses) == 11
    assert all(after < before for before, after in zip(losses, losses[1:]))


def test_each_loss_is_the_loss_of_the_values_beside_it():
    history = descend(MLP, {}, DEFAULT_LR, 5)
    assert len(history.values) == len(history.losses) == 6
    assert history.values[0] == MLP.defaults
    for values, value in zip(history.values, history.losses):
        assert loss(MLP, values) == value


def test_the_regressions_error_shrinks_by_the_hand_factor_each_step():
    # err' = (w - lr*2*err*x)*x + (b - lr*2*err) - y = err * (1 - 2*lr*(x^2 + 1)), so L' = L * (1 - 2*lr*(x^2 + 1))^2
    # at x = 1.5, lr = 0.1: 1 - 0.2 * 3.25 = 0.35, and L is multiplied by 0.35^2 = 0.1225 each step
    losses = descend(REGRESSION, {}, 0.1, 4).losses
    for before, after in zip(losses, losses[1:]):
        assert after == pytest.approx(before * 0.1225, rel=1e-12)


def test_a_learning_rate_too_large_makes_the_regressions_loss_go_up():
    # the factor 1 - 2*lr*(x^2 + 1) at x = 1.5 is 1 - 6.5*lr: at lr = 1 it is -5.5, past -1, so the step overshoots
    # and L is multiplied by 5.5^2 = 30.25: 1.5625 * 30.25 = 47.265625 after one step
    losses = descend(REGRESSION, {}, 1.0, 10).losses
    assert losses[1] == pytest.approx(47.265625, rel=1e-14)
    assert all(after > before for before, after in zip(losses, losses[1:]))
    # at lr = 0.3 the factor is 1 - 1.95 = -0.95: each step overshoots, but by less than it moved, and L still
    # falls, by 0.95^2 = 0.9025 a step: 1.5625 * 0.9025 = 1.41015625
    assert descend(REGRESSION, {}, 0.3, 1).losses[1] == pytest.approx(1.41015625, rel=1e-14)


def test_descend_stops_at_max_steps_and_at_zero():
    assert len(descend(REGRESSION, {}, DEFAULT_LR, MAX_STEPS + 100).losses) == MAX_STEPS + 1
    for steps in (0, -3):
        history = descend(REGRESSION, {}, DEFAULT_LR, steps)
        assert history.values == [REGRESSION.defaults] and history.losses == [1.5625]


# --- nan and inf -------------------------------------------------------------------------------------


@pytest.mark.parametrize('values', [{'x': math.nan}, {'w': math.inf}, {'y': -math.inf, 'b': math.inf}])
def test_non_finite_values_give_non_finite_losses_and_do_not_raise(values):
    history = descend(REGRESSION, values, DEFAULT_LR, 3)
    assert not math.isfinite(history.losses[-1])


def test_a_loss_that_overflows_becomes_inf_then_nan_and_does_not_raise():
    # at lr = 1, L grows 30.25 times a step: past the largest float, 1.8e308, in about 208 steps (30.25^208 ~ 10^308);
    # then the grads are inf and w = -inf + inf is nan
    losses = descend(REGRESSION, {}, 1.0, MAX_STEPS).losses
    assert math.inf in losses
    assert math.isnan(losses[-1])
