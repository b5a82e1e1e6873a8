"""engine/answers.py and view/room_answers.py: a live class's answers read against the right grad and the mistakes
that give the others, worked out from the trace; the counts; the projector's dot plot.

Every expected number is worked out by hand in the comments, from the calculus and the exercise's inputs, never
copied from the code's output."""

import json
import math

import altair as alt
import pytest

from engine import PRESETS, Value, assign, chain, numeric_grads, ops, trace_backward
from engine.answers import GROUPS, MISTAKES, candidates, classify, is_right
from engine.ops import OPS
from tests.unit.by_hand import BY_OP
from view.room_answers import answers_table, counts_table, csv_bytes, groups_lines, spread_spec, tally, window

EXERCISE = {'neuron': PRESETS['neuron'], 'reuse': PRESETS['reuse'], 'chain': chain(10)}


def traced(expression, value_type=Value):
    leaves, out = expression.build(value_type=value_type)
    return trace_backward(out, leaves)


def index_of(trace, name):
    (i,) = [i for i, node in enumerate(trace.nodes) if node.name == name]
    return i


def step_of(trace, name):
    """The index into trace.steps of the step in which node `name`'s _backward runs."""
    return trace.output - index_of(trace, name)


def pairs(question):
    return [(group, pytest.approx(value, rel=1e-12, abs=1e-12)) for group, value in question['candidates']]


# --- classify: 3 significant figures, the first group that matches ------------------------------------------------


def test_classify_reads_an_answer_to_3_significant_figures():
    # right is 1/√2 = 0.70710678...: 0.707 and 0.7071 are it to 3 s.f., 0.71 is not (half a unit of the third
    # figure is 0.0005); forgot is 1.0, and 0.9996 is 1.00 to 3 s.f.
    ask = [['right', 1 / math.sqrt(2)], ['forgot', 1.0]]
    assert classify(0.707, ask) == 'right'
    assert classify(0.7071, ask) == 'right'
    assert classify(0.71, ask) == 'other'
    assert classify(0.9996, ask) == 'forgot'
    assert classify(-0.707, ask) == 'other'
    assert classify(None, ask) == 'blank'
    assert classify(math.nan, ask) == 'other'


def test_classify_gives_the_first_group_an_answer_matches():
    # 1.0004 and 1.0 are the same to 3 s.f.: the answer 1.0 is read as the earlier group
    assert classify(1.0, [['right', 1.0004], ['forgot', 1.0]]) == 'right'
    assert classify(0.0, [['right', 0.0], ['swapped', 0.5]]) == 'right'
    assert classify(3.0, []) == 'other'


# --- candidates on the exercise's expressions, by hand ------------------------------------------------------------


def test_reuse_assign_at_a_step_where_the_grad_already_holds_a_value_is_the_contribution_alone():
    # reuse: out = a*b + a*a with a = 3, b = −2. The pass runs out, then a*a, then a*b: by a*b's step a.grad holds
    # 3 + 3 = 6 from a*a, and out.grad of a*b is 1. The step adds b.data × 1 = −2 to a.grad: right is 6 − 2 = 4.
    trace = traced(PRESETS['reuse'])
    a, b = index_of(trace, 'a'), index_of(trace, 'b')
    asked = candidates(trace, step_of(trace, 'a*b'))
    assert [q['node'] for q in asked] == [str(a), str(b)]
    assert [q['label'] for q in asked] == ['a.grad', 'b.grad']
    assert pairs(asked[0]) == [
        ('right', 4.0),
        # forgot: 6 + the local gradient b.data = −2 is 4 again, right (out.grad is 1): dropped
        ('swapped', 9.0),  # 6 + a's own data 3 × 1
        ('local', 7.0),  # 6 + out.grad 1, the local gradient b.data left out
        ('out_data', 18.0),  # 6 + b.data × a*b's own data, −2 × −6
        ('assign', -2.0),  # = for +=: the contribution b.data × out.grad = −2 alone, the 6 lost
        ('sign', 8.0),  # 6 − (−2)
    ]
    assert pairs(asked[1]) == [
        ('right', 3.0),  # b.grad held nothing: a.data × 1 = 3
        # forgot: the local gradient 3 alone, right again; assign: the contribution 3, right as b held nothing
        ('swapped', -2.0),  # b's own data −2 × 1
        ('local', 1.0),  # out.grad 1 alone
        ('out_data', -18.0),  # a.data × a*b's own data, 3 × −6
        ('sign', -3.0),
    ]


def test_a_node_used_twice_in_one_op_is_asked_once_and_assign_keeps_only_the_second_write():
    # a*a with a = 3, out.grad 1, a.grad holding nothing: += adds 3 twice, 6; = writes 3 twice, 3. Swapped gives
    # each use the other's data, which is its own: right again, dropped (and forgot, with out.grad 1). Both local
    # gradients left out: out.grad 1 added twice, 2; out.data for out.grad: 3 × 9 twice, 54
    trace = traced(PRESETS['reuse'])
    (asked,) = candidates(trace, step_of(trace, 'a*a'))
    assert asked['node'] == str(index_of(trace, 'a'))
    assert pairs(asked) == [('right', 6.0), ('local', 2.0), ('out_data', 54.0), ('assign', 3.0), ('sign', -6.0)]


def test_assign_is_what_the_equals_engine_leaves_at_a_times_a():
    # the same step run on engine/assign.py, the `=` bug for real: out.grad of a*a is 1 on both engines
    right, wrong = traced(PRESETS['reuse']), traced(PRESETS['reuse'], value_type=assign.Value)
    k = step_of(right, 'a*a')
    (asked,) = candidates(right, k)
    assert dict(asked['candidates'])['assign'] == wrong.grads(k + 1)[index_of(wrong, 'a')]


def test_the_plus_steps_forgot_and_assign_are_dropped_where_they_are_right():
    # reuse's first step: out = a*b + a*a passes out.grad = 1 to both: forgot (the local gradient 1 alone) is 1,
    # right; assign (1 alone, into a grad that held nothing) is right too. Only the sign slip is left
    trace = traced(PRESETS['reuse'])
    asked = candidates(trace, 0)
    assert [q['label'] for q in asked] == ['(a*b).grad', '(a*a).grad']  # as the page names them
    # out.data for out.grad: 1 × out.data, 3 × (−2) + 3 × 3 = 3
    assert [pairs(q) for q in asked] == [[('right', 1.0), ('out_data', 3.0), ('sign', -1.0)]] * 2


def test_neuron_swapped_is_the_inputs_own_data_times_out_grad():
    # neuron: x1 = 2, w1 = −3; o = tanh(n) = 1/√2, so out.grad at x1*w1 is 1 − o² = 1/2
    trace = traced(PRESETS['neuron'])
    x1, w1 = candidates(trace, step_of(trace, 'x1*w1'))
    assert pairs(x1) == [
        ('right', -1.5),  # w1.data × 1/2
        ('forgot', -3.0),  # the local gradient w1.data alone
        ('swapped', 1.0),  # x1's own data 2 × 1/2
        ('local', 0.5),  # out.grad 1/2 alone, w1.data left out
        ('out_data', 18.0),  # w1.data × the node's own data, x1·w1 = −6: −3 × −6
        ('sign', 1.5),  # assign: x1.grad held nothing, so it is right, dropped
    ]
    assert pairs(w1) == [
        ('right', 1.0), ('forgot', 2.0), ('swapped', -1.5), ('local', 0.5), ('out_data', -12.0), ('sign', -1.0),
    ]  # fmt: skip


def test_a_grad_of_zero_keeps_only_what_differs_from_zero():
    # neuron's x2*w2 with x2 = 0, w2 = 1, out.grad 1/2: w2.grad = x2.data × 1/2 = 0; forgot (x2.data = 0) and the
    # sign slip (−0) are 0 too, and dropped; swapped, w2's own data 1 × 1/2, is not (nor out.grad 1/2 alone, the
    # local gradient left out: the same 1/2, read as swapped, the earlier group)
    trace = traced(PRESETS['neuron'])
    _, w2 = candidates(trace, step_of(trace, 'x2*w2'))
    assert pairs(w2) == [('right', 0.0), ('swapped', 0.5)]


def test_a_leafs_step_asks_nothing():
    trace = traced(PRESETS['reuse'])
    assert candidates(trace, step_of(trace, 'a')) == []


# --- every op, at a step worked by hand -----------------------------------------------------------------------------

X, Y = 0.5, 4.0  # each op's step at these inputs, its derivatives by calculus (tests/unit/by_hand.py)


def test_every_op_the_engine_defines_is_read_for_mistakes_and_only_times_for_swapped_inputs():
    assert {ops.op_of(op) for op in BY_OP} == set(OPS.values())
    assert set(MISTAKES) == set(OPS.values())
    assert [entry for entry, groups in MISTAKES.items() if 'swapped' in groups] == [OPS['*']]
    # the local gradient can be left out of every op but those that pass out.grad on as it is, or negated
    assert [entry for entry, groups in MISTAKES.items() if 'local' not in groups] == [OPS['+'], OPS['-'], OPS['neg']]
    assert all(list(groups) == [g for g in GROUPS if g in groups] for groups in MISTAKES.values())  # GROUPS' order


@pytest.mark.parametrize('op', BY_OP)
def test_each_ops_step_gives_the_candidates_worked_by_hand(op):
    # L = f(x, y)*3 + x: L's step gives x.grad 1, then f*3's gives f.grad 3; so at f's step out.grad is 3, x.grad
    # already holds 1, and y.grad nothing. With d = ∂f/∂x: right 1 + 3d, forgot 1 + d, assign 3d (the 1 lost), the
    # sign slip 1 − 3d; for y, with e = ∂f/∂y: right 3e, forgot e, the sign slip −3e (assign is right: y held
    # nothing). Swapped (× only): 1 + 3 × x's own 0.5, and 3 × y's own 4. The local gradient left out: out.grad
    # alone, 1 + 3 and 3, where the op has one (not +, − or negation; relu's is 1 at x > 0: right, dropped). No two
    # others coincide at these inputs.
    hand = BY_OP[op]
    d, e = hand.dx(X, Y), hand.dy and hand.dy(X, Y)
    local = op not in ('+', '-', 'neg')
    x, y = Value(X, label='x'), Value(Y, label='y')
    f = hand.apply(x, y)
    f.label = 'f'
    trace = trace_backward(f * 3 + x, [x, y])
    asked = candidates(trace, step_of(trace, 'f'))
    swapped = op == '*'
    assert pairs(asked[0]) == [
        ('right', 1 + 3 * d),
        ('forgot', 1 + d),
        *([('swapped', 1 + 3 * X)] if swapped else []),
        *([('local', 1 + 3.0)] if local and d != 1 else []),
        ('out_data', 1 + d * f.data),  # out.data for out.grad 3: f's own value, 1 + d × f
        ('assign', 3 * d),
        ('sign', 1 - 3 * d),
    ]
    if e is None:
        assert len(asked) == 1
    else:
        assert pairs(asked[1]) == [('right', 3 * e), ('forgot', e), *([('swapped', 3 * Y)] if swapped else []),
                                   *([('local', 3.0)] if local else []), ('out_data', e * f.data),
                                   ('sign', -3 * e)]  # fmt: skip


# --- every step of every exercise expression ------------------------------------------------------------------------


@pytest.mark.parametrize('key', EXERCISE)
def test_every_step_asks_each_input_once_right_first_each_value_finite_and_apart(key):
    trace = traced(EXERCISE[key])
    for k, step in enumerate(trace.steps):
        asked = candidates(trace, k)
        after = trace.grads(k + 1)  # the engine's own grads once the step is done
        assert [q['node'] for q in asked] == [str(c) for c in dict.fromkeys(trace.nodes[step.node].children)]
        for q in asked:
            groups, values = zip(*q['candidates'])
            assert groups[0] == 'right' and values[0] == after[int(q['node'])]
            assert list(groups) == [g for g in GROUPS if g in groups]
            assert all(math.isfinite(v) for v in values)
            assert not any(is_right(v, w) for i, v in enumerate(values) for w in values[:i])


@pytest.mark.parametrize('key', EXERCISE)
def test_the_right_answer_at_each_leafs_last_step_is_its_derivative_by_finite_differences(key):
    # an independent check: central differences of the forward function, never the backward pass
    expression = EXERCISE[key]
    trace = traced(expression)
    numeric = numeric_grads(expression, {})
    last = trace.final_after()  # a grad is final after this many steps: its last write is step last - 1
    for name in expression.defaults:
        i = index_of(trace, name)
        (q,) = [q for q in candidates(trace, last[i] - 1) if q['node'] == str(i)]
        assert dict(q['candidates'])['right'] == pytest.approx(numeric[name], rel=1e-6, abs=1e-8)


def test_a_grad_that_is_not_finite_has_no_candidates():
    # log(a) with a = 0: its local gradient 1/a is inf, so a.grad is inf, and so is every mistake but the sign slip
    # and assign, −inf and inf: none can be typed
    a = Value(0.0, label='a')
    trace = trace_backward(a.log() * 2, [a])
    (asked,) = candidates(trace, step_of(trace, 'log(a)'))
    assert asked['candidates'] == []
    assert classify(1.0, asked['candidates']) == 'other'


# --- the room's counts ----------------------------------------------------------------------------------------------


def reuse_room():
    """reuse at a*b's step, and a room: a.grad is 4 (swapped 9, assign −2, sign 8), b.grad 3."""
    trace = traced(PRESETS['reuse'])
    asked = candidates(trace, step_of(trace, 'a*b'))
    a, b = (q['node'] for q in asked)
    answers = {
        'ann': {a: 4.0, b: 3.0},
        'bo': {a: 4.001, b: 3.0},  # 4.00 to 3 s.f.
        'cy': {a: -2.0, b: -2.0},  # = for += on a; swapped on b
        'di': {a: 17.0},  # something else; b left out: blank
        'ed': {a: None, b: 3.0},
    }
    return asked, answers


def test_tally_counts_each_group_of_each_asked_grad_zeros_too_in_order():
    asked, answers = reuse_room()
    table = tally(answers, asked)
    assert list(table.columns) == ['node', 'label', 'group', 'group label', 'count', 'answered']
    a = table[table['label'] == 'a.grad']
    assert list(a['group']) == list(GROUPS)
    assert list(a['group label']) == [g.label for g in GROUPS.values()]
    # right: ann, bo; assign: cy; other: di; blank: ed
    assert dict(zip(a['group'], a['count'])) == {'right': 2, 'forgot': 0, 'swapped': 0, 'local': 0, 'out_data': 0,
                                                 'assign': 1, 'sign': 0, 'other': 1, 'blank': 1}  # fmt: skip
    assert set(a['answered']) == {4}
    b = table[table['label'] == 'b.grad']
    assert dict(zip(b['group'], b['count']))['swapped'] == 1 and dict(zip(b['group'], b['count']))['blank'] == 1
    assert set(b['answered']) == {4}


def test_groups_lines_give_a_line_per_grad_of_its_groups_with_answers():
    asked, answers = reuse_room()
    assert groups_lines(tally(answers, asked)) == [
        'a.grad: 2 right · 1 = for += · 1 other · 1 blank',
        'b.grad: 3 right · 1 swapped inputs · 1 blank',
    ]
    assert groups_lines(tally({}, asked)) == ['a.grad: no answers yet', 'b.grad: no answers yet']


# --- the projector's dot plot ---------------------------------------------------------------------------------------


def layers(spec, mark):
    """Per asked grad, its layers of `mark` ('point', 'rule', 'text')."""
    return [[layer for layer in plot['layer'] if layer['mark']['type'] == mark] for plot in spec['vconcat']]


@pytest.mark.parametrize('revealed', [False, True])
def test_the_spread_is_valid_json_vega_lite_with_a_dot_per_answer_given(revealed):
    asked, answers = reuse_room()
    spec = spread_spec(answers, asked, revealed)
    json.loads(json.dumps(spec, allow_nan=False))  # JSON as it is: no nan, no inf
    alt.VConcatChart.from_dict(spec)  # checked against Vega-Lite's schema
    ((a_dots,), (b_dots,)) = layers(spec, 'point')
    assert len(a_dots['data']['values']) == 4  # ann, bo, cy, di: ed's None is blank, no dot
    assert len(b_dots['data']['values']) == 4  # ann, bo, cy, ed: di left b out


def test_the_rule_at_the_right_value_shows_only_when_revealed():
    asked, answers = reuse_room()
    assert layers(spread_spec(answers, asked, False), 'rule') == [[], []]
    rules = layers(spread_spec(answers, asked, True), 'rule')
    assert [[r['data']['values'][0]['x'] for r in plot] for plot in rules] == [[4.0], [3.0]]


def test_before_the_reveal_no_dot_says_its_group():
    # coloured by group, the right dots would give the answer away while the room still discusses
    asked, answers = reuse_room()
    hidden, shown = spread_spec(answers, asked, False), spread_spec(answers, asked, True)
    assert {p['group'] for (dots,) in layers(hidden, 'point') for p in dots['data']['values']} == {'answer'}
    assert {p['group'] for p in layers(shown, 'point')[0][0]['data']['values']} == {'right', '= for +=', 'other'}


def test_an_outlier_does_not_squash_the_others():
    # candidates of a.grad: 4, 9, 7, 18, −2, 8: the window spans them and their span, 20, again on each side: −22 to
    # 38. 1e9 is drawn at its edge, as a triangle, and the subtitle counts it
    asked, _ = reuse_room()
    a = asked[0]['node']
    answers = {f's{k}': {a: v} for k, v in enumerate([4.0, 4.0, 9.0, 6.0, 1e9])}
    spec = spread_spec(answers, asked[:1], True)
    (plot,) = spec['vconcat']
    assert plot['encoding']['x']['scale']['domain'] == [-22.0, 38.0]
    assert window([4.0, 9.0, -2.0, 8.0]) == (-13.0, 20.0)
    ((dots,),) = layers(spec, 'point')
    far = [p for p in dots['data']['values'] if p['shape'] != 'circle']
    assert [(p['x'], p['shape'], p['answer']) for p in far] == [(38.0, 'triangle-right', '1.000e+09')]
    assert '1 off the scale' in plot['title']['subtitle']


def test_a_window_around_zero_is_one_each_way_and_a_small_grad_keeps_its_scale():
    assert window([0.0]) == (-1.0, 1.0)
    assert window([2e-5, 1e-5]) == pytest.approx((-1e-5, 4e-5))  # span 1e-5 < size 2e-5: 2e-5 each side


def test_the_spread_is_read_from_the_back_of_the_room():
    asked, answers = reuse_room()
    sizes = []

    def walk(x, key=''):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif key.lower().endswith('fontsize'):
            sizes.append(x)

    walk(spread_spec(answers, asked, True))
    assert sizes and min(sizes) >= 28  # a hall's back row, at 1920×1080


def test_a_grad_with_no_finite_candidates_still_plots():
    a = Value(0.0, label='a')
    trace = trace_backward(a.log() * 2, [a])
    asked = candidates(trace, step_of(trace, 'log(a)'))
    spec = spread_spec({'s': {asked[0]['node']: 5.0}, 't': {asked[0]['node']: 7.0}}, asked, True)
    json.dumps(spec, allow_nan=False)
    assert layers(spec, 'rule') == [[]]  # no right value to mark


# --- the class's answers as CSV files ---------------------------------------------------------------------------
# a class that asked two grads at once, then one: the candidates are the test's own numbers (a.grad right 6, forgot
# 3; b.grad right -0.5, a sign slip 0.5), as the room keeps them
A_GRAD = {'node': 'a', 'label': 'a.grad', 'candidates': [['right', 6.0], ['forgot', 3.0]]}
B_GRAD = {'node': 'b', 'label': 'b.grad', 'candidates': [['right', -0.5], ['sign', 0.5]]}
AT = 1_780_000_000.0  # 2026-05-28T20:26:40Z
RECORD = [
    {'id': 1, 'frame': 6, 'asked': [A_GRAD, B_GRAD], 'revealed': True, 'answers': {
        'id-of-bo-9f3k2': {'answers': {'a': 3.0}, 'at': AT + 5},
        'id-of-ana-7q1x': {'answers': {'a': 6.0, 'b': 0.5}, 'at': AT},
    }},
    {'id': 2, 'frame': 9, 'asked': [A_GRAD], 'revealed': False, 'answers': {
        'id-of-cy-2m8d': {'answers': {'a': 7.0}, 'at': AT + 60},
        'id-of-bo-9f3k2': {'answers': {'a': 6.0}, 'at': AT + 61},
    }},
]  # fmt: skip


def read_back(data):
    """A CSV file as pandas opens it (as a lecturer's notebook would)."""
    import io

    import pandas as pd

    return pd.read_csv(io.BytesIO(data))


def test_the_answers_file_has_a_row_per_grad_asked_of_each_student_who_answered_with_no_id_in_it():
    data = csv_bytes(answers_table(RECORD))
    assert data.startswith('\ufeff'.encode()) and b'id-of' not in data  # Excel's UTF-8 mark; no student's id
    table = read_back(data)
    assert list(table.columns) == ['question', 'frame', 'grad', 'student', 'answer', 'group', 'right', 'when']
    rows = table.astype(object).where(table.notna(), None).values.tolist()
    assert rows == [
        # ana answered first of all: student 1; bo next, student 2; cy first answered in question 2: student 3
        [1, 7, 'a.grad', 'student 1', 6.0, 'right', 6.0, '2026-05-28T20:26:40Z'],
        [1, 7, 'b.grad', 'student 1', 0.5, 'sign slip', -0.5, '2026-05-28T20:26:40Z'],
        [1, 7, 'a.grad', 'student 2', 3.0, 'forgot out.grad', 6.0, '2026-05-28T20:26:45Z'],
        [1, 7, 'b.grad', 'student 2', None, 'blank', -0.5, '2026-05-28T20:26:45Z'],
        [2, 10, 'a.grad', 'student 3', 7.0, 'other', 6.0, '2026-05-28T20:27:40Z'],
        [2, 10, 'a.grad', 'student 2', 6.0, 'right', 6.0, '2026-05-28T20:27:41Z'],
    ]  # frames as the page counts them, from 1


def test_the_counts_file_has_a_row_per_grad_asked_with_each_groups_count():
    table = read_back(csv_bytes(counts_table(RECORD)))
    groups = [group.label for group in GROUPS.values()]
    assert list(table.columns) == ['question', 'frame', 'grad', 'right value', 'answered', *groups, 'revealed']
    counts = {(row.question, row.grad): row for row in table.itertuples(index=False)}
    by_group = lambda row: {g: n for g, n in zip(groups, row[5:-1]) if n}  # noqa: E731
    assert by_group(counts[1, 'a.grad']) == {'right': 1, 'forgot out.grad': 1}
    assert by_group(counts[1, 'b.grad']) == {'sign slip': 1, 'blank': 1} and counts[1, 'b.grad'].answered == 1
    assert by_group(counts[2, 'a.grad']) == {'right': 1, 'other': 1} and counts[2, 'a.grad'].answered == 2
    assert list(table.revealed) == ['yes', 'yes', 'no'] and list(table['right value']) == [6.0, -0.5, 6.0]


def test_a_class_with_no_answers_gives_files_with_their_headers_alone():
    assert read_back(csv_bytes(answers_table([]))).empty
    table = read_back(csv_bytes(counts_table([{**RECORD[1], 'answers': {}}])))
    assert table.answered.tolist() == [0] and table.right.tolist() == [0]
