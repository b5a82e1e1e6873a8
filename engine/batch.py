"""Learning from a batch: the same graph once per data point, each point's grads collected into the parameters'
grads (no zero_grad between the points, so `p.grad` collects across points as it collects across a value's uses),
then one step on the mean, `p.data += -lr * mean grad`. And the dataset: each preset's example, or one typed in or
uploaded, read against a whitelist, with a sentence naming the line and the column of what is wrong. Pure Python."""

import csv
import io
import re
from dataclasses import dataclass

from . import learn

MAX_POINTS = 200  # a dataset's points: a class's phones, and the plots stay readable
MAX_BYTES = 100_000  # a typed dataset or an uploaded file
MAX_LINK = 4_000  # characters of data a link carries; a longer dataset is kept in the session (and the class)
POINT_PASSES = 10_000  # points × steps a page computes at most: 2 s of the MLP's passes on a 2-core machine
LIMIT = 1e6  # a cell's magnitude, as an input's (state.INPUT_LIMIT)
NAME = re.compile(r'(?!(?i:[+-]?(nan|inf|infinity))$)[A-Za-z_][A-Za-z0-9_]*')  # a column's name, as a header has it
NUMBER = re.compile(r'[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?')  # what a cell may be: no nan, inf, 1_000 or ١


class DataError(ValueError):
    """Data that cannot be used, with a sentence saying where and why (plain text: the page prints it)."""


@dataclass(frozen=True)
class Dataset:
    columns: tuple  # the expression's data inputs, in the order of its defaults
    rows: tuple  # each a tuple of floats, in the order of `columns`

    def __len__(self):
        return len(self.rows)

    def point(self, k):
        """Point k (0-based) as inputs: {column: value}."""
        return dict(zip(self.columns, self.rows[k]))

    def text(self):
        """The dataset as the box and a link hold it: a line of column names, then a line a point."""
        return '\n'.join([','.join(self.columns), *(','.join(map(_short, row)) for row in self.rows)])


def _short(x):
    text = repr(float(x))
    return text[:-2] if text.endswith('.0') else text


def data_names(expression):
    """The expression's data inputs: its inputs that are not parameters, in the order of its defaults."""
    return tuple(name for name in expression.defaults if name not in expression.params)


def applies(expression):
    """Whether a batch can be learned from: parameters to learn and data to learn them from."""
    return bool(expression.params) and bool(data_names(expression))


# Each preset's example: points on the line y = 2x − 1 with noise (σ 0.5); two clusters the MLP tells apart
EXAMPLES = {
    'regression': (
        (-2.0, -5.13), (-1.79, -4.32), (-1.58, -4.27), (-1.37, -3.9), (-1.16, -3.79), (-0.95, -3.01), (-0.74, -1.92),
        (-0.53, -1.85), (-0.32, -1.12), (-0.11, -1.1), (0.11, -0.58), (0.32, -0.27), (0.53, -0.77), (0.74, 0.91),
        (0.95, 1.15), (1.16, 1.57), (1.37, 0.89), (1.58, 1.29), (1.79, 2.14), (2.0, 2.77),
    ),
    'mlp': (
        (1.65, -1.02, 1.0), (1.76, -1.32, 1.0), (1.65, -0.8, 1.0), (1.17, -0.14, 1.0), (1.78, -0.4, 1.0),
        (1.19, -1.37, 1.0), (1.33, -1.05, 1.0), (1.82, -0.88, 1.0), (-1.22, 0.52, -1.0), (-1.26, 1.61, -1.0),
        (-1.4, 1.12, -1.0), (-0.79, 0.26, -1.0), (-0.98, 1.65, -1.0), (-2.01, 0.84, -1.0), (-1.05, 0.59, -1.0),
        (-0.75, 0.97, -1.0),
    ),
}  # fmt: skip


def example(expression):
    """The expression's example dataset: its preset's, or the one point its defaults are."""
    columns = data_names(expression)
    rows = EXAMPLES.get(expression.key) or (tuple(float(expression.defaults[name]) for name in columns),)
    return Dataset(columns, rows)


def read_text(text, columns):
    """A dataset from typed text or a link: a line a point, its cells split by commas, semicolons, tabs or spaces;
    a first line of column names is optional (without it the cells are in the order of `columns`)."""
    if len(text.encode()) > MAX_BYTES:
        raise DataError(f'The data is {len(text.encode()) / 1000:,.0f} kB; at most {MAX_BYTES // 1000} kB.')
    lines = re.split(r'\r\n|\r|\n', text)
    return _dataset([(n, re.split(r'\s*[,;\t]\s*|\s+', line.strip())) for n, line in enumerate(lines, 1)], columns)


def read_csv(data, columns):
    """A dataset from an uploaded CSV file's bytes (UTF-8), whose first line names the columns."""
    if len(data) > MAX_BYTES:
        raise DataError(f'The file is {len(data) / 1000:,.0f} kB; at most {MAX_BYTES // 1000} kB.')
    try:
        text = data.decode('utf-8-sig')
    except UnicodeDecodeError as error:
        raise DataError(f'The file is not UTF-8 text (byte {error.start + 1} is not): save it as CSV, UTF-8.') from None
    reader, lines = csv.reader(io.StringIO(text, newline=''), strict=True), []
    try:
        for cells in reader:
            lines.append((reader.line_num, [cell.strip() for cell in cells]))
    except csv.Error as error:
        raise DataError(f'Line {reader.line_num} is not CSV the page can read: {error}.') from None
    return _dataset(lines, columns)


def _listed(columns):
    return ', '.join(columns)


def _dataset(lines, columns):
    """A Dataset from (line number, cells) pairs: blank lines skipped, a first line of names read as the header."""
    lines = [(n, cells) for n, cells in lines if any(cells)]
    if not lines:
        raise DataError(f'The data has no points: write a line a point, {_listed(columns)}.')
    order = list(columns)
    n, first = lines[0]
    if any(NAME.fullmatch(cell) for cell in first):  # a line of names
        order = _header(n, first, columns)
        lines = lines[1:]
    if len(lines) > MAX_POINTS:
        raise DataError(f'The data has {len(lines):,} points; at most {MAX_POINTS}.')
    if not lines:
        raise DataError(f'The data names its columns but has no points under them: a line a point, {_listed(order)}.')
    rows = []
    for k, (n, cells) in enumerate(lines, 1):
        if len(cells) != len(order):
            raise DataError(f'Line {n} (point {k}) has {len(cells)} cells; this data has {len(order)} columns: '
                            f'{_listed(order)}.')  # fmt: skip
        point = {name: _cell(cell, n, k, name) for name, cell in zip(order, cells)}
        rows.append(tuple(point[name] for name in columns))
    return Dataset(tuple(columns), tuple(rows))


def _header(n, cells, columns):
    for cell in cells:
        if cell not in columns:
            raise DataError(f'Line {n}: column “{cell[:40]}” is not one of this example’s data ({_listed(columns)}).')
    if len(set(cells)) < len(cells):
        twice = next(cell for cell in cells if cells.count(cell) > 1)
        raise DataError(f'Line {n}: column “{twice}” is named twice.')
    missing = [name for name in columns if name not in cells]
    if missing:
        raise DataError(f'Line {n}: the data has no column {missing[0]}; this example’s data is {_listed(columns)}.')
    return cells


def _cell(text, n, k, name):
    where = f'Line {n} (point {k}), column {name}'
    if not NUMBER.fullmatch(text):
        lowered = text.lower().lstrip('+-')
        if lowered in ('nan', 'inf', 'infinity'):
            raise DataError(f'{where}: “{text}” is not a finite number; every cell needs one.')
        shown = f'“{text[:40]}”' if text else 'the cell is empty, which'
        raise DataError(f'{where}: {shown} is not a number.')
    value = float(text)
    if abs(value) > LIMIT:
        raise DataError(f'{where}: {text[:40]} is past ±1,000,000.')
    return value


@dataclass(frozen=True)
class PointGrads:
    """One point's pass: its loss, and each parameter's grad from it (what its backward adds to p.grad)."""

    loss: float
    grads: dict  # param name -> grad


@dataclass(frozen=True)
class BatchUpdate:
    points: tuple  # a PointGrads a point, in the dataset's order
    sums: dict  # param name -> p.grad after every point's backward: the grads collected
    loss: float  # the mean loss over the points, before the step
    params: tuple  # a learn.ParamStep a parameter: its grad is the mean, sum ÷ points
    values: dict  # the parameters after the step


def point_grads(expression, params, point):
    """The graph at the parameters `params` and one data point, built and run backward."""
    leaves, out = expression.build({**params, **point})
    out.backward()
    by_name = dict(zip(expression.defaults, leaves))
    return PointGrads(out.data, {name: by_name[name].grad for name in expression.params})


def collect(expression, params, dataset):
    """Every point's pass at `params`, each adding its grads to the sums as backward() adds a use's: `+=`."""
    points = tuple(point_grads(expression, params, dataset.point(k)) for k in range(len(dataset)))
    sums = dict.fromkeys(expression.params, 0.0)
    for point in points:
        for name, grad in point.grads.items():
            sums[name] += grad
    return points, sums


def step(expression, params, dataset, lr):
    """One step of gradient descent on the mean loss over the dataset: p.data += -lr * (p.grad / len(dataset))."""
    params = {name: float(params[name]) for name in expression.params}
    points, sums = collect(expression, params, dataset)
    steps = []
    for name, old in params.items():
        mean = sums[name] / len(dataset)
        steps.append(learn.ParamStep(name, old, mean, old + -lr * mean))  # p.data += -lr * p.grad
    loss = sum(point.loss for point in points) / len(dataset)
    return BatchUpdate(points, sums, loss, tuple(steps), {p.name: p.new for p in steps})


def mean_loss(expression, params, dataset):
    return sum(expression.build({**params, **dataset.point(k)})[1].data for k in range(len(dataset))) / len(dataset)


def most_steps(dataset):
    """The steps a page takes at most on this dataset: POINT_PASSES point passes, and learn.MAX_STEPS."""
    return max(1, min(learn.MAX_STEPS, POINT_PASSES // len(dataset)))


def descend(expression, params, dataset, lr, steps):
    """The parameters and the mean loss after 0, 1, ..., steps steps on the batch; at most most_steps(dataset)."""
    values = [{name: float(params[name]) for name in expression.params}]
    losses = []
    for _ in range(max(0, min(steps, most_steps(dataset)))):
        update = step(expression, values[-1], dataset, lr)
        losses.append(update.loss)
        values.append(update.values)
    losses.append(mean_loss(expression, values[-1], dataset))
    return learn.Descent(values, losses)


def sums_of(shares, names):
    """The grads a class has reported, collected: `shares` {point: {'grads': {name: grad}}}, each point once; each
    parameter's sum over them, as p.grad holds it after every point's backward."""
    sums = dict.fromkeys(names, 0.0)
    for share in shares.values():
        for name in names:
            sums[name] += share['grads'][name]
    return sums


def step_on(params, sums, points, lr):
    """The parameters after a step on the mean of `sums` over `points` points: p.data += -lr * (sum / points)."""
    return {name: p + -lr * (sums[name] / points) for name, p in params.items()}
