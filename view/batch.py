"""Learning from a batch, as the page shows it beside the graph of one point (engine/batch.py computes it): the
grads each point's backward adds to the parameters', the sums and means they collect into and the step on the mean,
as lines and as a table; the dataset and the mean loss over the steps, as Vega-Lite specs. Pure builders."""

from dataclasses import dataclass

import pandas as pd

from engine import batch, learn
from view import palette
from view.explanation import owner
from view.learning import update_line
from view.numbers import fmt, number


@dataclass(frozen=True)
class BatchLearning:
    """The batch at the steps taken: where the parameters are, every point's grads there, and the step they make."""

    dataset: batch.Dataset
    point: int  # the point whose graph the page shows, 0-based
    lr: float
    descent: learn.Descent  # the parameters and the mean loss after 0, 1, ... steps taken
    update: batch.BatchUpdate  # at the last of them: every point's pass, the sums, and the step on the mean
    capped: bool  # fewer steps were taken than asked: the page's budget for this many points (batch.most_steps)

    @property
    def steps_taken(self):
        return len(self.descent.losses) - 1

    @property
    def params(self):
        """The parameters at the steps taken: the graph shows them."""
        return self.descent.values[-1]

    @property
    def key(self):
        """What the batch's plots depend on beyond the pass's own values: the data, the rate, and the steps taken from
        where (the loss plot draws them)."""
        return self.dataset.rows, self.lr, self.steps_taken, tuple(self.descent.values[0].items())


def _bracketed(x):
    text = number(x)
    return f'({text})' if text.startswith('−') else text


def collected_lines(learning):
    """What the shown point's backward adds to each parameter's grad, after the points before it, as the code would
    say it: 'w.grad += 0.4200 from point 3: 1.1000 + 0.4200 = 1.5200'."""
    k, update = learning.point, learning.update
    lines = []
    for name in update.sums:
        before = sum(p.grads[name] for p in update.points[:k])
        added = update.points[k].grads[name]
        lines.append(f'{owner(name)}.grad += {number(added)} from point {k + 1}: {number(before)} + '
                     f'{_bracketed(added)} = {number(before + added)}')  # fmt: skip
    return lines


def step_lines(learning):
    """The step on the mean, as code: each parameter's grad, collected over the points, divided by their number (the
    loss is their mean), then the update."""
    n, update = len(learning.dataset), learning.update
    lines = []
    for p in update.params:
        lines.append(f'{owner(p.name)}.grad /= {n}: {number(update.sums[p.name])} ÷ {n} = {number(p.grad)}')
        lines.append(update_line(p, learning.lr))
    return lines


def points_table(learning):
    """A row a point: its data, its loss, and what its backward adds to each parameter's grad; the shown point
    marked in the first column."""
    data, update = learning.dataset, learning.update
    rows = []
    for k, point in enumerate(update.points):
        row = {'shown': '▶' if k == learning.point else '', 'point': k + 1}
        row.update({name: fmt(v) for name, v in data.point(k).items()})
        row['loss'] = fmt(point.loss)
        row.update({f'{name}.grad +=': fmt(g) for name, g in point.grads.items()})
        rows.append(row)
    return pd.DataFrame(rows)


SPEC = {
    '$schema': 'https://vega.github.io/schema/vega-lite/v6.json',  # Streamlit's
    'width': 'container',
    'height': 260,
    'config': {
        'font': 'Source Sans, sans-serif',
        'axis': {'labelColor': palette.INK, 'titleColor': palette.INK},
        'legend': {'labelColor': palette.INK, 'titleColor': palette.INK},
        'view': {'stroke': None},
        'aria': False,  # the chart is named by its description; its marks are not read one by one
    },
}


def _spec(big):
    """The plots' settings; `big`: for the projector's panel, read from the back of a hall."""
    if not big:
        return SPEC
    font = {'labelFontSize': 20, 'titleFontSize': 20}
    config = SPEC['config']
    return {**SPEC, 'height': 300, 'config': {**config, 'axis': {**config['axis'], **font},
                                              'legend': {**config['legend'], **font}}}  # fmt: skip


SHOWN = palette.ACTIVE  # the point the graph shows, as the graph marks its active node
CLUSTERS = ('#0072B2', '#E69F00')  # Okabe-Ito's blue and orange: told apart under every colour vision


def dataset_spec(learning, arrived=None, big=False):
    """The data and what the parameters make of it: the regression's points and its line w·x + b; otherwise the
    first two data inputs against each other, coloured by the last. The shown point is ringed; with `arrived` (the
    points whose grads a class has reported), the others are faint."""
    data = learning.dataset
    first, second, *rest = data.columns
    rows = [{**data.point(k), 'point': k + 1, 'shown': k == learning.point and arrived is None,
             'in': arrived is None or k in arrived, 'loss': learning.update.points[k].loss}
            for k in range(len(data))]  # fmt: skip
    axes = {'x': {'field': first, 'type': 'quantitative'}, 'y': {'field': second, 'type': 'quantitative'}}
    ring = {'mark': {'type': 'point', 'size': 260, 'strokeWidth': 3, 'color': SHOWN, 'opacity': 1, 'aria': False},
            'transform': [{'filter': 'datum.shown'}], 'encoding': axes}  # fmt: skip
    tooltip = [{'field': 'point'}, *({'field': c} for c in data.columns), {'field': 'loss', 'format': '.4f'}]
    dots = {'mark': {'type': 'circle', 'size': 160 if big else 70, 'aria': False},
            'encoding': {'x': {'field': first, 'type': 'quantitative', 'scale': {'zero': False}},
                         'y': {'field': second, 'type': 'quantitative', 'scale': {'zero': False}},
                         'opacity': {'condition': {'test': 'datum.in', 'value': 0.9}, 'value': 0.2},
                         'tooltip': tooltip}}  # fmt: skip
    layers = [dots, ring]
    if arrived is not None:  # a class's: a point far from what the parameters make of it stands out, larger
        dots['encoding']['size'] = {'field': 'loss', 'type': 'quantitative', 'title': 'its loss',
                                    'scale': {'range': [60, 700] if big else [30, 300]}}  # fmt: skip
    if rest:  # the clusters: coloured by the target
        dots['encoding']['color'] = {'field': rest[-1], 'type': 'nominal',
                                     'scale': {'range': list(CLUSTERS)}}  # fmt: skip
        words = f'{second} against {first}, coloured by {rest[-1]}'
    else:  # the line the parameters draw through the points
        dots['mark']['color'] = palette.INK
        w, b = learning.params['w'], learning.params['b']
        xs = [min(r[0] for r in data.rows), max(r[0] for r in data.rows)]
        line = {'data': {'values': [{first: x, second: w * x + b} for x in xs]},
                'mark': {'type': 'line', 'color': palette.PLOT_LINE, 'strokeWidth': 3, 'aria': False},
                'encoding': axes}  # fmt: skip
        layers.insert(0, line)
        words = f'{second} against {first}, and the line w·{first} + b at w = {fmt(w)}, b = {fmt(b)}'
    marked = (f'point {learning.point + 1} is ringed' if arrived is None
              else f'the {len(arrived)} points reported dark and as large as their loss, the others faint')  # fmt: skip
    return {**_spec(big), 'description': f'The data, {len(data)} points: {words}; {marked}.',
            'data': {'values': rows}, 'layer': layers}  # fmt: skip


def loss_spec(losses, big=False):
    """The mean loss over the dataset after each step taken (`losses`, from step 0)."""
    rows = [{'step': j, 'mean loss': loss} for j, loss in enumerate(losses)]
    last = max(1, len(losses) - 1)
    encoding = {'x': {'field': 'step', 'type': 'quantitative', 'scale': {'domain': [0, last]},
                      'axis': {'tickMinStep': 1, 'format': 'd'}},
                'y': {'field': 'mean loss', 'type': 'quantitative', 'scale': {'zero': True}},
                'tooltip': [{'field': 'step'}, {'field': 'mean loss', 'format': '.4f'}]}  # fmt: skip
    said = ', '.join(fmt(x) for x in losses[:6]) + (' …' if len(losses) > 6 else '')
    return {
        **_spec(big),
        'description': f'The mean loss over the data after 0 to {len(losses) - 1} steps: {said}',
        'data': {'values': rows},
        'layer': [
            {'mark': {'type': 'line', 'color': palette.INK, 'aria': False,
                      'point': {'aria': False, 'color': palette.INK} if len(losses) <= 60 else False},
             'encoding': encoding},
            {'mark': {'type': 'point', 'size': 200, 'strokeWidth': 3, 'color': SHOWN, 'opacity': 1, 'aria': False},
             'transform': [{'filter': f'datum.step == {len(losses) - 1}'}], 'encoding': encoding},
        ],
    }  # fmt: skip


def room_lines(reports, names, n_points):
    """The room's batch as the projector shows it: each parameter's grad summed over the points reported and the mean,
    '`w.grad: Σ −12.3456 over 14 points · mean −0.8818`'. `reports` {point: {'grads': {name: grad}}}."""
    n, sums = len(reports), batch.sums_of(reports, names)
    lines = []
    for name in names:
        mean = f' · mean {number(sums[name] / n)}' if n else ''
        lines.append(f'{owner(name)}.grad: Σ {number(sums[name])} over {n} of {n_points} points{mean}')
    return lines
