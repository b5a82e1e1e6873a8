"""A live class's answers on the projector: each asked grad's answers as a dot plot, a dot per student, and the counts
by mistake in a line (engine/answers.py groups them). Pure builders: a Vega-Lite spec, which st.vega_lite_chart
draws, and text.

The scale of a grad's plot is fixed by its candidates (the right answer and each mistake's), not by the answers: it
spans the candidates and as much again on each side, at least their size (a window of ±1 around 0 where they are
all 0). So it does not move as answers come in, the near misses show, and a typo such as 1e9 among answers near 6
squashes nothing: an answer beyond the window is drawn as a triangle at the window's edge, and the plot's subtitle
says how many are. Equal answers (to a dot's width) stack, so the common ones stand as columns.

Until the answer is `revealed`, every dot is one colour: coloured by group, the right ones would give the answer away
while the room still discusses. Revealed, each dot takes its group's colour, and a rule marks the right value.
"""

import math
import statistics

import pandas as pd

from engine.answers import GROUPS, classify
from view import palette
from view.numbers import number

RIGHT_COLOUR = '#009E73'  # Okabe-Ito's bluish green, whose tint is palette.FINAL_FILL (a grad that is final)
COLOURS = {  # by group (a blank answer has no dot); the palette's Okabe-Ito colours, each where its meaning fits
    'right': RIGHT_COLOUR,
    'forgot': palette.SEED,  # the seed's orange, out.grad = 1: the factor forgotten
    'swapped': palette.FORWARD,  # the forward pass's blue: the data, taken from the wrong input
    'local': palette.UNDEFINED,  # the reddish purple: out.grad passed on, the local gradient left out
    'out_data': '#56B4E9',  # Okabe-Ito's sky blue, beside the forward pass's blue: a forward value, out.data, misused
    'assign': palette.WRONG_FILL,  # the `=` engine's lilac: its wrong grad
    'sign': palette.ACTIVE,  # the step's vermillion: its own arithmetic slipped
    'other': palette.FAINT,
}
UNREVEALED, UNREVEALED_LABEL = palette.INK, 'answer'  # every dot's colour and group, before the answer is revealed

FONT = 28  # px: the axis, the legend, the subtitle; read from the back of a lecture hall
TITLE = 32  # px: each plot's title, the grad asked
WIDTH = 420  # px: each grad's plot, in the class panel beside the projector's graph (480 px wide at 1280×720)
SPACING = 30  # px between two grads' plots, one above the other
DOT = 20  # px: a dot's width; answers within one dot's width of each other stack
STACK = 18  # px between the dots of a stack, until the plot reaches its tallest
HEIGHT = (100, 200)  # px: the shortest and the tallest a grad's plot is: the graph stays in view under them


def window(values):
    """(lo, hi): the scale's ends around `values`, the candidates: their span and as much again on each side, or their
    size where that is more (right alone at 5 gets 0 to 10: room for answers near it, and for −5 at the edge's
    triangle); ±1 around values that are all 0."""
    lo, hi = min(values), max(values)
    reach = max(hi - lo, abs(lo), abs(hi)) or 1.0
    return lo - reach, hi + reach


def _given(answers, node):
    """The answers given for node's grad: a blank is none."""
    return [said[node] for said in answers.values() if said.get(node) is not None]


def _points(answers, question, lo, hi, revealed, width):
    """A dot per answer given (a blank has none): where it is drawn (an answer beyond the window at its edge, as a
    triangle pointing out), its stack level, its group's label (one label for all before `revealed`), and the
    answer as the page writes it."""
    order = list(GROUPS)
    said = [(classify(a, question['candidates']), a) for a in _given(answers, question['node'])]
    said.sort(key=lambda p: (order.index(p[0]), p[1] if p[1] == p[1] else 0.0))  # right at a stack's foot; nan as 0
    points, stacks = [], {}
    for group, answer in said:
        inside = lo <= answer <= hi  # nan and ±inf are not
        x = answer if inside else lo if answer < lo else hi
        column = round((x - lo) / (hi - lo) * width / DOT)
        stacks[column] = level = stacks.get(column, -1) + 1
        points.append({
            'x': x,
            'level': level,
            'group': GROUPS[group].label if revealed else UNREVEALED_LABEL,
            'shape': 'circle' if inside else 'triangle-left' if x == lo else 'triangle-right',
            'answer': number(answer),
        })  # fmt: skip
    return points


def _plot(answers, question, colour, revealed, width):
    """One grad's plot: its dots, and, revealed, the rule at the right value with its number above them."""
    values = [value for _, value in question['candidates']]
    if not values:  # no finite grad (nan, inf): the answers' middle, else 0
        given = [a for a in _given(answers, question['node']) if math.isfinite(a)]
        values = [statistics.median(given) if given else 0.0]
    lo, hi = window(values)
    points = _points(answers, question, lo, hi, revealed, width)
    outside = sum(p['shape'] != 'circle' for p in points)
    subtitle = f'{len(points)} answer{"s" if len(points) != 1 else ""}'
    if outside:
        subtitle += f' · {outside} off the scale ({number(lo)} to {number(hi)}), drawn at its edge'
    tallest = max((p['level'] for p in points), default=0)
    layers = []
    right = next((value for group, value in question['candidates'] if group == 'right'), None)
    if revealed and right is not None:  # the rule behind the dots, its number in the free row above them
        mark = {'values': [{'x': right, 'says': f'right: {number(right)}'}]}
        layers += [
            {'data': mark, 'mark': {'type': 'rule', 'aria': False, 'color': palette.INK, 'strokeWidth': 3,
                                    'strokeDash': [10, 6]}},
            {'data': mark, 'mark': {'type': 'text', 'aria': False, 'color': palette.INK, 'fontSize': FONT,
                                    'fontWeight': 'bold', 'align': 'left', 'baseline': 'top', 'dx': 8, 'y': 0},
             'encoding': {'text': {'field': 'says'}}},
        ]  # fmt: skip
    layers.append({
        'data': {'values': points},
        'mark': {'type': 'point', 'aria': False, 'filled': True, 'size': DOT**2 * 0.8, 'opacity': 1,
                 'stroke': palette.INK, 'strokeWidth': 1},
        'encoding': {
            'y': {'field': 'level', 'type': 'quantitative', 'axis': None,  # a row free above the tallest stack
                  'scale': {'domain': [-0.6, max(tallest, 3) + 1.6], 'nice': False, 'zero': False}},
            'color': colour,
            'shape': {'field': 'shape', 'type': 'nominal', 'scale': None},
            'tooltip': [{'field': 'answer', 'title': 'answer'}, {'field': 'group', 'title': 'group'}],
        },
    })  # fmt: skip
    return {
        'title': {'text': question['label'], 'subtitle': subtitle},
        'width': width,
        'height': min(max(HEIGHT[0], STACK * (tallest + 3)), HEIGHT[1]),
        'encoding': {  # shared by the layers: one x scale, the window, whatever the data
            'x': {
                'field': 'x',
                'type': 'quantitative',
                'title': None,
                'scale': {'domain': [lo, hi], 'nice': False, 'zero': False},
                'axis': {'labelExpr': "replace(datum.label, '-', '−')", 'grid': False},
            },  # the page's minus
        },  # fmt: skip
        'layer': layers,
    }


def spread_spec(answers, asked, revealed):
    """The room's answers as a Vega-Lite spec (a dict, JSON as it is): a dot plot per asked grad, one above the other.
    `answers` {student: {node: number}}, `asked` engine.answers.candidates()' list; `revealed`: the dots take their
    group's colour, under a legend of the groups the plots can show, and a rule marks the right value."""
    if revealed:  # the groups any asked grad has a value for, and other
        groups = [g for g in COLOURS if g == 'other' or any(g == c for q in asked for c, _ in q['candidates'])]
        colour = {'field': 'group', 'type': 'nominal', 'title': None,
                  'scale': {'domain': [GROUPS[g].label for g in groups], 'range': [COLOURS[g] for g in groups]},
                  'legend': {'orient': 'top', 'direction': 'horizontal', 'symbolSize': DOT**2}}  # fmt: skip
    else:
        colour = {'field': 'group', 'type': 'nominal', 'legend': None,
                  'scale': {'domain': [UNREVEALED_LABEL], 'range': [UNREVEALED]}}  # fmt: skip
    return {
        '$schema': 'https://vega.github.io/schema/vega-lite/v6.json',  # Streamlit's
        # a screen reader hears the chart by this name, and the counts in the lines the panel writes beside it; its
        # marks are not read one by one (Vega's empty mark groups had no name: axe-core's svg-img-alt)
        'description': f'The class’s answers to {", ".join(q["label"] for q in asked)}: a dot an answer',
        'vconcat': [_plot(answers, question, colour, revealed, WIDTH) for question in asked],
        'resolve': {'scale': {'x': 'independent', 'y': 'independent', 'color': 'shared'}},  # a scale per grad
        'spacing': SPACING,
        'config': {
            'font': 'Source Sans, sans-serif',  # the page's, as the other plots' (palette.PLOT_FONT)
            'axis': {'labelFontSize': FONT, 'titleFontSize': FONT, 'labelColor': palette.INK},
            'legend': {'labelFontSize': FONT, 'titleFontSize': FONT, 'labelColor': palette.INK},
            'title': {
                'fontSize': TITLE,
                'subtitleFontSize': FONT,
                'anchor': 'start',
                'color': palette.INK,
                'subtitleColor': palette.SECONDARY,
            },
            'view': {'stroke': None},
            'aria': False,
        },  # fmt: skip
    }


def tally(answers, asked):
    """How the room answered: `answers` {student: {node: number}} (a node as candidates() names it; a grad left out
    is blank), `asked` what candidates() gave. A pandas DataFrame, a row per asked grad and group, every group in
    GROUPS' order (zeros too): node, label, group, group label, count, and answered (that grad's answers, blank
    ones not counted)."""
    rows = []
    for question in asked:
        counts = dict.fromkeys(GROUPS, 0)
        for said in answers.values():
            counts[classify(said.get(question['node']), question['candidates'])] += 1
        answered = len(answers) - counts['blank']
        rows += [(question['node'], question['label'], g, GROUPS[g].label, n, answered) for g, n in counts.items()]
    return pd.DataFrame(rows, columns=['node', 'label', 'group', 'group label', 'count', 'answered'])


def groups_lines(tally):
    """tally()'s counts as a line per asked grad, its groups with any answers in GROUPS' order:
    'a.grad: 14 right · 6 forgot out.grad · 3 = for += · 1 other'; 'a.grad: no answers yet' where none came."""
    lines = []
    for (_, label), rows in tally.groupby(['node', 'label'], sort=False):
        counts = [f'{n} {group}' for group, n in zip(rows['group label'], rows['count']) if n]
        lines.append(f'{label}: {" · ".join(counts) or "no answers yet"}')
    return lines


# --- the class's answers as files, for the lecturer to take home --------------------------------------------------

ANSWER_COLUMNS = ['question', 'frame', 'grad', 'student', 'answer', 'group', 'right', 'when']


def _students(record):
    """Each student's name in the files, 'student 1', 'student 2', ... by their first answer in the class: never
    the id their phone holds."""
    first = {}
    for question in record:
        for student, said in question['answers'].items():
            first[student] = min(first.get(student, said['at']), said['at'])
    ordered = sorted(first, key=lambda student: (first[student], student))
    return {student: f'student {i}' for i, student in enumerate(ordered, 1)}


def _when(seconds):
    return pd.Timestamp(seconds, unit='s', tz='UTC').strftime('%Y-%m-%dT%H:%M:%SZ')


def answers_table(record):
    """One row a grad asked of a student who answered the question (rooms.Rooms.record's questions): the question's
    number, the frame it was asked at as the page counts them (from 1), the grad, the student (as _students names
    them), their answer (empty where they left that grad blank), its group (engine.answers.GROUPS's label), the right
    value, and when they sent it (UTC)."""
    names = _students(record)
    rows = [
        [question['id'], question['frame'] + 1, asked['label'], names[student], mine.get(asked['node']),
         GROUPS[classify(mine.get(asked['node']), asked['candidates'])].label, asked['candidates'][0][1],
         _when(said['at'])]
        for question in record
        for student, said in sorted(question['answers'].items(), key=lambda item: (item[1]['at'], names[item[0]]))
        for mine in [said['answers']]
        for asked in question['asked']
    ]  # fmt: skip
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def counts_table(record):
    """One row a grad asked in each question: how many students answered it, and how many answers fell in each
    group, right first; whether the answers were revealed."""
    rows = []
    for question in record:
        for asked in question['asked']:
            groups = [classify(said['answers'].get(asked['node']), asked['candidates'])
                      for said in question['answers'].values()]  # fmt: skip
            counts = {GROUPS[group].label: groups.count(group) for group in GROUPS}
            rows.append({'question': question['id'], 'frame': question['frame'] + 1, 'grad': asked['label'],
                         'right value': asked['candidates'][0][1], 'answered': len(groups) - groups.count('blank'),
                         **counts, 'revealed': 'yes' if question['revealed'] else 'no'})  # fmt: skip
    columns = ['question', 'frame', 'grad', 'right value', 'answered', *(g.label for g in GROUPS.values()), 'revealed']
    return pd.DataFrame(rows, columns=columns)


def csv_bytes(table):
    """A table as a CSV file: UTF-8 with a byte-order mark, so that Excel reads its text as UTF-8 too."""
    return table.to_csv(index=False).encode('utf-8-sig')
