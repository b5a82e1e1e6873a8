"""Learning from a batch (engine/batch.py): the grads collected over the points against finite differences of the
summed loss and against the regression's grads derived by hand; the step against one written out in plain Python; and
every kind of bad data named by its line and its column."""

import itertools
import math

import pytest

from engine import PRESETS, batch
from engine.batch import DataError, Dataset, read_csv, read_text

REGRESSION, MLP = PRESETS['regression'], PRESETS['mlp']
BATCHABLE = [e for e in PRESETS.values() if batch.applies(e)]


def test_the_presets_with_a_loss_and_data_are_the_ones_a_batch_learns():
    assert {e.key for e in BATCHABLE} == {'regression', 'mlp'}
    assert set(batch.EXAMPLES) == {e.key for e in BATCHABLE}


@pytest.mark.parametrize('expression', BATCHABLE, ids=lambda e: e.key)
def test_each_example_has_between_12_and_40_points_of_the_presets_data(expression):
    data = batch.example(expression)
    assert 12 <= len(data) <= 40
    assert data.columns == tuple(n for n in expression.defaults if n not in expression.params)
    assert all(len(row) == len(data.columns) and all(math.isfinite(v) for v in row) for row in data.rows)


def summed_loss(expression, params, points):
    return sum(expression.build({**params, **p})[1].data for p in points)


def central_difference(f, params, name, h=1e-5):
    up, down = dict(params), dict(params)
    up[name] += h
    down[name] -= h
    return (f(up) - f(down)) / (2 * h)


@pytest.mark.parametrize('expression', BATCHABLE, ids=lambda e: e.key)
def test_the_grads_collected_over_any_subset_are_the_gradient_of_its_summed_loss(expression):
    data = batch.example(expression)
    params = {name: expression.defaults[name] for name in expression.params}
    subsets = [range(len(data)), range(0, len(data), 3), [len(data) - 1], [0, 1]]
    for subset in subsets:
        chosen = Dataset(data.columns, tuple(data.rows[k] for k in subset))
        _, sums = batch.collect(expression, params, chosen)
        points = [chosen.point(k) for k in range(len(chosen))]
        for name in expression.params:
            numeric = central_difference(lambda p, points=points: summed_loss(expression, p, points), params, name)
            assert sums[name] == pytest.approx(numeric, rel=1e-6, abs=1e-9), name


def test_the_regressions_grads_are_the_ones_derived_by_hand():
    # L = (w·x + b − y)²: ∂L/∂w = 2(w·x + b − y)·x, ∂L/∂b = 2(w·x + b − y), summed over the points
    data, w, b = batch.example(REGRESSION), 0.5, 0.0
    _, sums = batch.collect(REGRESSION, {'w': w, 'b': b}, data)
    assert sums['w'] == pytest.approx(sum(2 * (w * x + b - y) * x for x, y in data.rows), rel=1e-12)
    assert sums['b'] == pytest.approx(sum(2 * (w * x + b - y) for x, y in data.rows), rel=1e-12)


def test_a_step_is_the_mean_grad_times_the_rate_written_out_in_plain_python():
    data, lr, w, b = batch.example(REGRESSION), 0.1, 0.5, 0.0
    update = batch.step(REGRESSION, {'w': w, 'b': b}, data, lr)
    n = len(data.rows)
    dw = sum(2 * (w * x + b - y) * x for x, y in data.rows) / n
    db = sum(2 * (w * x + b - y) for x, y in data.rows) / n
    assert update.values == pytest.approx({'w': w - lr * dw, 'b': b - lr * db}, rel=1e-12)
    assert update.loss == pytest.approx(sum((w * x + b - y) ** 2 for x, y in data.rows) / n, rel=1e-12)
    assert [p.grad for p in update.params] == pytest.approx([dw, db], rel=1e-12)


@pytest.mark.parametrize('expression', BATCHABLE, ids=lambda e: e.key)
def test_the_mean_loss_falls_over_ten_steps_at_the_default_rate(expression):
    data = batch.example(expression)
    params = {name: expression.defaults[name] for name in expression.params}
    losses = batch.descend(expression, params, data, 0.1, 10).losses
    assert len(losses) == 11
    assert all(later < earlier for earlier, later in itertools.pairwise(losses))


def test_the_regression_learns_the_line_its_example_was_drawn_from():
    descent = batch.descend(REGRESSION, {'w': 0.5, 'b': 0.0}, batch.example(REGRESSION), 0.1, 200)
    assert descent.values[-1]['w'] == pytest.approx(2, abs=0.2)
    assert descent.values[-1]['b'] == pytest.approx(-1, abs=0.2)


def test_a_big_dataset_takes_fewer_steps_so_a_page_stays_within_its_budget():
    big = Dataset(('x', 'y'), ((0.5, 1.0),) * batch.MAX_POINTS)
    steps = batch.most_steps(big)
    assert steps * batch.MAX_POINTS <= batch.POINT_PASSES
    assert len(batch.descend(REGRESSION, {'w': 0, 'b': 0}, big, 0.1, 10**6).losses) == steps + 1


def test_typed_pairs_are_read_in_the_order_of_the_data_inputs_with_or_without_a_header():
    assert read_text('1, 2\n3 4\n\n5;6\n-1.5e-1\t.5', ('x', 'y')).rows == ((1, 2), (3, 4), (5, 6), (-0.15, 0.5))
    assert read_text('y,x\n1,2', ('x', 'y')).rows == ((2, 1),)


def test_a_dataset_comes_back_the_same_from_its_own_text():
    for expression in BATCHABLE:
        data = batch.example(expression)
        assert read_text(data.text(), data.columns) == data


def test_a_csv_file_is_read_by_its_header():
    data = b'\xef\xbb\xbftarget,x2,x1\r\n1,"2",3\r\n-1,0.5,-0.5\r\n'
    assert read_csv(data, ('x1', 'x2', 'target')).rows == ((3, 2, 1), (-0.5, 0.5, -1))


BAD_TEXT = [
    ('x,y\n1,2\n3,abc', 'Line 3 (point 2), column y: “abc” is not a number.'),
    ('1,2\n3,nan', 'Line 2 (point 2), column y: “nan” is not a finite number'),
    ('1,2\n-inf,3', 'Line 2 (point 2), column x: “-inf” is not a finite number'),
    ('1,2\n3,1_000', 'column y: “1_000” is not a number'),
    ('1,2\n٣,4', 'Line 2 (point 2), column x: “٣” is not a number'),
    ('x,y\n1,2e7', 'Line 2 (point 1), column y: 2e7 is past ±1,000,000.'),
    ('1,2,3', 'Line 1 (point 1) has 3 cells; this data has 2 columns: x, y.'),
    ('x,z\n1,2', 'Line 1: column “z” is not one of this example’s data (x, y).'),
    ('x\n1', 'Line 1: the data has no column y; this example’s data is x, y.'),
    ('x,x\n1,2', 'Line 1: column “x” is named twice.'),
    ('x,y', 'names its columns but has no points'),
    ('\n \n', 'The data has no points'),
    ('1,<b>2</b>', 'Line 1 (point 1), column y: “<b>2</b>” is not a number.'),
    ('\n'.join(['1,2'] * (batch.MAX_POINTS + 1)), f'{batch.MAX_POINTS + 1} points; at most {batch.MAX_POINTS}.'),
    ('1' * (batch.MAX_BYTES + 1), 'kB; at most 100 kB'),
]


@pytest.mark.parametrize(('text', 'said'), BAD_TEXT)
def test_bad_data_is_named_by_its_line_and_column(text, said):
    with pytest.raises(DataError) as caught:
        read_text(text, ('x', 'y'))
    assert said in str(caught.value)


BAD_FILES = [
    (b'x,y\n1,2\n' + b'3,4\n' * 30_000, 'The file is 120 kB; at most 100 kB.'),
    (b'x,y\n1,\xff\n', 'not UTF-8 text (byte 7 is not)'),
    (b'x,y\n1,\n', 'Line 2 (point 1), column y: the cell is empty, which is not a number.'),
    (b'x,y\n1,"2\n', 'Line 2 is not CSV the page can read: unexpected end of data.'),
    (b'w,y\n1,2\n', 'Line 1: column “w” is not one of this example’s data (x, y).'),
]


@pytest.mark.parametrize(('data', 'said'), BAD_FILES)
def test_a_bad_file_is_named_by_its_line_and_column(data, said):
    with pytest.raises(DataError) as caught:
        read_csv(data, ('x', 'y'))
    assert said in str(caught.value)
