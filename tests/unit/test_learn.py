"""One step of learning, p.data += -lr * p.grad on each param, and the loss over many steps.

Every expected number is worked out by hand in a comment, or by an argument written beside it; the finite
differences are the one reference computed, and they never run backward.
"""

import json
import math
import re

import pytest
from player_data import replay, text_of

from components.learning import learning_after
from engine import PRESETS, parse_expression
from engine.frames import frames
from engine.learn import DEFAULT_LR, LEARNING_RATES, MAX_STEPS, applies, descend, loss, step
from engine.presets import numeric_grads
from server import cache
from view.depth_plot import plot_html
from view.numbers import fmt, number, number_width
from view.player_body import make_body

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


# --- the page's frames of one step of learning (view/learning.py) ---------------------------------------
# The regression by hand: err_j = -1.25 · 0.35^j after j steps at lr = 0.1 (each step multiplies err by
# 1 - 2·lr·(x² + 1) = 1 - 0.2·3.25 = 0.35), L_j = err_j²: 1.5625, 0.19140625, 0.0234473, 0.0028723, 0.0003519.
# Its pass: the inputs (frame 0), w*x, pred, pred - y, L (1-4), the seed and 8 steps back (5-13); then w (14), b (15),
# zero_grad (16), the 4 ops again (17-20).

WITH_PARAMS = [key for key, expression in PRESETS.items() if expression.params]  # the presets learning applies to


def regression_loss(j, lr=DEFAULT_LR):
    return (1.25 * (1 - 2 * lr * (1.5**2 + 1)) ** j) ** 2


def learning_page(key, learned, forward=True, hide='none', lr=DEFAULT_LR, values=None):
    """(trace, the pass's frames, the player's body) of preset `key` in mode=learn after `learned` steps."""
    expression = PRESETS[key]
    learning, now = learning_after(expression, {**expression.defaults, **(values or {})}, lr, learned)
    trace, width, numeric = cache.traced(expression=expression, values=tuple(now.items()))
    width = max(width, number_width(learning.after))
    pass_frames = frames(trace, forward, hide=hide)
    body = make_body(trace, pass_frames, width=width, numeric=numeric, graph={'svg': ''}, learning=learning)
    return trace, pass_frames, json.loads(body)


def replayed(body):
    """Each frame's boxes, {node: (data text, grad text, grad state, mark)}, as the player applies the patches."""
    return [values for values, _, _ in replay(body['patches'])]


def plot_at(body, k):
    """Frame k's loss plot as the player shows it: (points drawn, the ringed point's words, the line under it)."""
    svg = plot_html(body['plots'], k)
    points = re.search(r'data-points="(\d+)"', svg)
    ringed = re.search(r'<text [^>]*fill="#D55E00"[^>]*>([^<]*)</text>', svg)
    line = re.search(r'<p class="wline">(.*?)</p>', svg)
    return (int(points[1]) if points else 0, text_of(ringed[1]) if ringed else '', text_of(line[1]) if line else '')


@pytest.mark.parametrize('forward', [True, False])
@pytest.mark.parametrize('learned', [0, 1, 4])
@pytest.mark.parametrize('key', WITH_PARAMS)
def test_the_loss_plot_draws_each_loss_only_from_the_frame_whose_output_box_shows_it(key, learned, forward):
    trace, pass_frames, body = learning_page(key, learned, forward)
    output, last = len(trace.nodes) - 1, len(body['patches']) - 1
    losses = descend(PRESETS[key], {}, DEFAULT_LR, learned + 1).losses  # the engine's, stepped on its own here
    new = number(losses[-1])
    for k, boxes in enumerate(replayed(body)):
        box = boxes[output][0].strip()  # the output's data, as the graph shows it at frame k
        points, ringed, line = plot_at(body, k)
        if k < len(pass_frames):  # the passes before, then this pass's loss once its box shows it
            assert points == learned + (box != '·'), k
            if box != '·':
                assert ringed.endswith(f': {number(losses[learned])}') and box == fmt(losses[learned]), k
        elif k < last:  # the update, zero_grad, the forward pass again: the output not computed again yet
            assert points == learned + 1, k
        else:  # the forward pass again has computed the output: the loss after this step joins the plot
            assert points == learned + 2 and box == fmt(losses[-1])
            assert ringed.endswith(f': {new}') and f'→ {new}' in line
        if k < last:
            assert new not in ringed + line and new not in body['captions'][k], k  # nowhere before its frame


def test_the_regressions_loss_plot_names_the_hand_losses_at_the_frames_that_compute_them():
    _, _, body = learning_page('regression', 0)
    assert plot_at(body, 3)[:2] == (0, '')  # the inputs and three ops: L not computed yet
    assert plot_at(body, 4)[:2] == (1, 'L before any step: 1.5625')  # the forward pass computes L = 1.25²
    assert plot_at(body, 19)[:2] == (1, 'L before any step: 1.5625')  # pred - y again, L not yet
    assert plot_at(body, 20) == (2, 'L after 1 step: 0.1914', 'After this step: L 1.5625 → 0.1914. Lower.')
    _, _, body = learning_page('regression', 3)  # L_2 = 0.0234, L_3 = 0.0029, L_4 = 0.0004
    assert f'{regression_loss(2):.4f}' == '0.0234'
    assert plot_at(body, 0)[:2] == (3, 'L after 2 steps: 0.0234')
    assert plot_at(body, 4)[:2] == (4, 'L after 3 steps: 0.0029')
    assert plot_at(body, 20)[:2] == (5, 'L after 4 steps: 0.0004')
    assert plot_at(body, 0)[2].startswith('L from the 3 passes before this one, after 0 to 2 steps.')


def test_the_loss_plot_draws_a_rising_loss_and_one_beyond_the_floats_without_raising():
    # at lr = 1, L grows 30.25-fold a step (1 - 2·3.25 = -5.5, squared): 1.5625 · 30.25 = 47.265625, · 30.25 again =
    # 1429.78515625; inf after about 208 steps, then nan
    _, _, body = learning_page('regression', 1, lr=1.0)
    assert plot_at(body, len(body['patches']) - 1)[2] == 'After this step: L 47.2656 → 1429.7852. Higher.'
    _, _, body = learning_page('regression', MAX_STEPS, lr=1.0)
    points, ringed, line = plot_at(body, len(body['patches']) - 1)
    assert points == MAX_STEPS + 2 and ringed.endswith(': nan') and line.startswith('After this step: L nan → nan')
    for part in body['plots']['parts']:  # every place a number: the losses past 1e307 too, near the largest float
        assert not re.search(r'(x|y|cx|cy|d)="[^"]*(nan|inf)', part)


def test_a_page_at_the_most_steps_a_link_allows_shows_the_pass_after_all_of_them():
    # lr = 0.001: err shrinks by 1 - 0.002·3.25 = 0.9935 a step, to -1.25·0.9935^500 = -0.0478 after 500 steps;
    # w gains -lr·2·err_j·x each step: w_500 = 0.5 + 0.003 · 1.25 · (1 - 0.9935^500) / (1 - 0.9935)
    learning, now = learning_after(REGRESSION, dict(REGRESSION.defaults), 0.001, MAX_STEPS)
    assert learning.steps_taken == MAX_STEPS
    assert now['w'] == pytest.approx(0.5 + 0.003 * 1.25 * (1 - 0.9935**500) / 0.0065, rel=1e-12)
    assert learning.update.params[0].old == now['w']  # the step the tail shows starts from there


def test_two_histories_that_meet_at_the_same_values_make_different_pages():
    # one step from the defaults takes w to 0.875 and b to 0.25 (both exact in binary): the same pass as a start there
    stepped, now = learning_after(REGRESSION, dict(REGRESSION.defaults), DEFAULT_LR, 1)
    started, same = learning_after(REGRESSION, {**REGRESSION.defaults, 'w': 0.875, 'b': 0.25}, DEFAULT_LR, 0)
    assert now == same and stepped.key != started.key  # the body is cached by the key: each page gets its own plot
    assert plot_at(learning_page('regression', 1)[2], 0)[0] == 1  # L_0 from the pass before this one
    assert plot_at(learning_page('regression', 0, values={'w': 0.875, 'b': 0.25})[2], 0)[0] == 0


@pytest.mark.parametrize('hide', ['none', 'all'])
@pytest.mark.parametrize('forward', [True, False])
@pytest.mark.parametrize('learned', [0, 2])
@pytest.mark.parametrize('key', WITH_PARAMS)
def test_the_one_frame_that_sets_the_grads_back_says_zero_grad_in_its_caption_explanation_and_sums(
    key, learned, forward, hide
):
    trace, pass_frames, body = learning_page(key, learned, forward, hide)
    boxes = replayed(body)

    def blanked(k, i):  # node i's grad shows something at frame k - 1 and · at frame k
        return boxes[k - 1][i][1].strip() != '·' and boxes[k][i][1].strip() == '·'

    reset = [k for k in range(1, len(boxes)) if any(blanked(k, i) for i in boxes[k])]
    zero_grad = len(pass_frames) + len(PRESETS[key].params)  # after the pass, and one frame per parameter updated
    assert reset == [zero_grad]
    assert {look[1].strip() for look in boxes[zero_grad].values()} == {'·'}
    assert {look[2] for look in boxes[zero_grad].values()} == {'none'}  # the table's "not computed yet", as ·
    assert all(look[1].strip() == '·' for frame in boxes[zero_grad:] for look in frame.values())  # till the end
    assert body['captions'][zero_grad].startswith('zero_grad: every grad is set back to 0 before the next backward')
    words = text_of(body['explanations'][zero_grad])
    assert words.startswith('zero_grad. Every grad is set back to 0 before the next backward pass')
    assert 'p.grad = 0.0' in words and 'as ·' in words
    assert ', '.join(PRESETS[key].params) in words  # the parameters' grads, each by name
    assert body['rules'][zero_grad] == [
        'zero_grad: p.grad = 0.0 for every parameter; every grad shows · (0, nothing added yet)'
    ]
    said = [k for k, c in enumerate(body['captions']) if 'zero_grad' in c + ' '.join(body['rules'][k])]
    assert said == [zero_grad]  # and no other frame says so
