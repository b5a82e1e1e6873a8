"""The teaching modes on the page, through AppTest on both layout sources (tests/app/test_app.py's Page reads the
player's data as the visitor sees it): the `=` bug beside `+=` (mode=bug), predict the grad (mode=quiz), one step of
learning (mode=learn); and a mode that does not apply says so.

Every expected number is worked out by hand from the formula, never read back from the engine.
"""

import html
import json
import re

import pytest
import test_app
from player_data import text_of

from engine.answers import is_right

source, start = test_app.source, test_app.start  # the page on both layout sources: test_app's fixtures


def link(page):
    """The page's link as the address bar holds it: {name: text}."""
    values = {key: page.query_params[key] for key in page.query_params}
    return {key: value[0] if isinstance(value, list) else value for key, value in values.items()}


def number_in(text, x):
    """Whether `x` (4 decimals) is written in `text` as a number of its own: 6.0000, and not the 6.0000 of −6.0000."""
    return re.search(rf'(?<![\d.\-−]){re.escape(f"{x:.4f}")}', text) is not None


# --- the `=` bug ----------------------------------------------------------------------------------------------
# reuse: out = a*b + a*a, a = 3, b = -2. Backward runs out, a*a, a*b, then the leaves. With `=`:
#   a*a's step writes a.grad = a.data * 1 = 3 twice (the second throws the first away);
#   a*b's step writes a.grad = b.data * 1 = -2, throwing a*a's 3 away, and b.grad = a.data * 1 = 3.
# So a ends at -2 (with += it is b + 2a = -2 + 6 = 4), b at 3 on both.


def test_on_the_assigning_engine_reuse_ends_with_a_grad_minus_two_not_four(start):
    page = start(query={'expr': 'reuse', 'mode': 'bug'})
    page.go(page.last_frame)
    assert page.grads()['a'] == '-2.0000'
    assert page.grads()['b'] == '3.0000'
    rows = {row['input']: row for row in page.summary()}
    assert (rows['a']['grad with ='], rows['a']['grad with +='], rows['a']['finite difference']) == (
        '-2.0000', '4.0000', '4.0000')  # fmt: skip
    assert rows['a']['= is'].startswith('WRONG') and rows['b']['= is'] == 'right'


def test_the_explanation_shows_the_assigning_code_and_names_what_was_thrown_away(start):
    page = start(query={'expr': 'reuse', 'mode': 'bug'}).go(7)  # a*b's step
    text = page.explanation()
    assert 'self.grad = other.data * out.grad' in text and '+= other.data' not in text
    assert 'replaced 3.0000, which a*a’s _backward had put there, with −2.0000' in text
    assert 'a.grad would be 4.0000 after this step' in text  # 3 + 3 - 2 with +=
    assert re.search(r'a\.grad: = gives −2\.0000, \+= gives 4\.0000', text), text
    assert page.caption().endswith('· = throws away a.grad’s 3.0000')
    page.go(6)  # a*a's step: its second line throws its first away
    assert 'this same step, its first line' in page.explanation()
    assert 'a.grad: = gives 3.0000, += gives 6.0000' in page.explanation()


def test_the_thrown_away_contribution_is_marked_lost_on_its_edge_and_only_where_it_is_lost(start):
    page = start(query={'expr': 'reuse', 'mode': 'bug'})
    struck = {k: patch.get('x', []) for k, patch in enumerate(page.body()['patches']) if patch.get('x')}
    # nodes 0 a, 1 b, 2 a*b, 3 a*a, 4 out: a*a's first use of a (3_0) at its own step, its second (3_1) at a*b's
    assert struck == {6: ['3_0'], 7: ['3_1']}
    labels = dict(page.body()['patches'][7]['e'])
    assert labels['3_1'].split('\n') == [' 3.0000 ×  1.0000', ' ' * 17, '    ✗ lost 3.0000']  # the label it had
    # a*a's first write is thrown away by its own second one, at its own step: its label is the lost one there
    assert dict(page.body()['patches'][6]['e'])['3_0'].split('\n')[-1].split() == ['✗', 'lost', '3.0000']


# f = (a·b)·(a + b) at a = −2, b = 3 (worked out by hand below, before the last tests of the `=` bug): e's step
# writes −6 into a and into b, and d's writes throw both away; a and b are then final, and wrong, from d's step on.


def test_a_thrown_away_negative_amount_is_sent_with_its_minus_sign_and_no_strike(start):
    page = start(query={'expr': 'ab_times_a_plus_b', 'mode': 'bug'})
    patch = page.body()['patches'][7]  # d's step; nodes 0 a, 1 b, 2 d, 3 e, 4 f
    assert patch['x'] == ['3_0', '3_1']
    for key in patch['x']:
        assert dict(patch['e'])[key].split('\n')[-1].split() == ['✗', 'lost', '-6.0000']
    legend = page.body()['legend']  # a key to the looks, with no made-up number of its own: the graph's are the sample
    assert 'grad just written over by =' in legend and '<s>' not in legend
    assert not re.search(r'\d\.\d', re.sub(r'<style>.*?</style>|<[^>]*>', '', legend))
    assert page.go(7).caption().endswith('· = throws away a.grad’s −6.0000, b.grad’s −6.0000')


def test_on_the_assigning_engine_a_final_grad_that_differs_from_plus_equals_looks_wrong_in_graph_and_table(start):
    page = start(query={'expr': 'ab_times_a_plus_b', 'mode': 'bug'})
    states = []
    for k in range(page.last_frame + 1):
        table = page.go(k).table()
        states.append([table['grad …'][i] for i in range(2)])  # a, b
    wrong = 'is final but wrong: += gives another'
    assert states[7:] == [[wrong, wrong]] * 3  # d's step, b's, a's: a is 3 for −3, b −2 for −8
    assert wrong not in {s for row in states[:7] for s in row}
    assert page.table()['grad …'][2:] == ['is final'] * 3  # d, e, f: written once, right
    assert 'lilac with a dotted border' in BUG_NOTE_SHOWN(page)


def BUG_NOTE_SHOWN(page):  # noqa: N802  (the note above the graph, as shown)
    (note,) = [c.value for c in page.at.caption if 'x.grad = …' in c.value]
    return note


def test_the_assigning_engines_note_speaks_to_a_student_not_of_source_files(start):
    note = BUG_NOTE_SHOWN(start(query={'expr': 'reuse', 'mode': 'bug'}))
    assert not re.search(r'\.py\b|engine/', note), note
    assert 'x.grad = …' in note and 'x.grad += …' in note  # what changes, in the code a student reads


def test_b_equals_a_plus_a_on_the_assigning_engine_gives_one_not_two(start):
    page = start(query={'expr': 'a_plus_a', 'mode': 'bug'})
    page.go(page.last_frame)
    assert page.grads()['a'] == '1.0000'  # the second use's `a.grad = b.grad` replaces the first's 1
    (row,) = page.summary()
    assert (row['grad with ='], row['grad with +='], row['finite difference']) == ('1.0000', '2.0000', '2.0000')


def test_where_no_value_is_reused_the_assigning_engine_agrees_and_the_page_says_why(start):
    page = start(query={'expr': 'neuron', 'mode': 'bug'})
    assert any('No value in this graph is used twice' in i.value for i in page.info)
    page.go(page.last_frame)
    # the lecture's grads: x1 = w1·(1 − o²) = −3 × 0.5, w1 = x1 × 0.5, x2 = w2 × 0.5, w2 = x2 × 0.5 = 0, b = 0.5
    grads = page.grads()
    assert (grads['x1'], grads['w1'], grads['x2'], grads['w2'], grads['b']) == (
        '-1.5000', '1.0000', '0.5000', '0.0000', '0.5000')  # fmt: skip
    assert {row['= is'] for row in page.summary()} == {'right'}


# --- predict the grad -----------------------------------------------------------------------------------------
# reuse's questions, one per op step: out's (a*b).grad = 1 and (a*a).grad = 1; a*a's a.grad = 3 + 3 = 6;
# a*b's a.grad = 6 + b = 4 and b.grad = a = 3.


def answer(page, answers):
    """Type `answers` ({label: number or None}) into the question's boxes and Check."""
    for label, value in answers.items():
        (box,) = [b for b in page.number_input if b.label == label]
        box.set_value(value)
    (check,) = [b for b in page.button if b.label == 'Check']
    check.click().run()
    assert not page.exception


def next_question(page):
    page.button(key='quiz_next').click().run()
    assert not page.exception


def shown_nowhere(page, truths):
    """Whether none of `truths` is shown at the frame: not in the graph's boxes, the table, the caption, the
    explanation, nor anywhere in what the player is sent (its body holds no frame past the question)."""
    grads = page.grads()
    texts = [page.explanation(), page.caption(), json.dumps(page.body())]
    return all(not number_in(text, x) for x in truths for text in texts) and all(
        f'{x:.4f}' not in grads.values() for x in truths
    )


def test_a_whole_quiz_on_reuse_scores_right_and_wrong_answers_and_reveals_nothing_early(start):
    page = start(query={'expr': 'reuse', 'mode': 'quiz'})
    quiz = page.markdown[0].value
    assert quiz.startswith('**Question 1 of 3**')
    assert page.frame == page.last_frame == 5  # inputs, 3 forward, seed, then the question: nothing after it
    assert page.grads()['a*b'] == page.grads()['a*a'] == '?'
    assert ANSWERS_HIDDEN(page)
    answer(page, {'(a*b).grad': 1.0, '(a*a).grad': 1.0})  # both right
    assert page.grads()['a*b'] == '1.0000' and page.frame == 6  # revealed, on the same step
    assert sum('✓ right' in m.value for m in page.markdown) == 2
    next_question(page)

    assert page.markdown[0].value.startswith('**Question 2 of 3** · score 2 of 2')
    assert page.grads()['a'] == '?' and shown_nowhere(page, [6.0])
    answer(page, {'a.grad': 3.0})  # wrong: forgets that a*a writes a twice
    assert page.grads()['a'] == '6.0000'
    assert any('✗ not quite' in m.value and '6.0000' in m.value and 'you said 3.0000' in m.value for m in page.markdown)
    assert any('a.grad += a.data × (a*a).grad = 3.0000 × 1.0000 = 3.0000' in c.value for c in page.code)
    next_question(page)

    assert page.markdown[0].value.startswith('**Question 3 of 3** · score 2 of 3')
    assert page.grads()['a'] == '?' and page.grads()['b'] == '?' and shown_nowhere(page, [4.0])
    assert page.summary() is None
    answer(page, {'a.grad': 4.0004, 'b.grad': None})  # right to 3 significant figures; b left blank
    assert any('left blank' in m.value for m in page.markdown)
    assert any('**Done:** 3 of 5 grads right' in m.value for m in page.markdown)
    assert page.frame == page.last_frame  # the leaves' steps: nothing to ask; the check at the end
    assert {row['input']: row['grad (backward)'] for row in page.summary()} == {'a': '4.0000', 'b': '3.0000'}


def ANSWERS_HIDDEN(page):  # noqa: N802  (reads as a condition)
    """The answers column is never sent while a quiz asks, even to a link that asks for it."""
    return set(page.body()['table']['finals']) == {'?'} and not page.head()['answers']


def test_a_quiz_link_that_asks_for_the_answers_still_does_not_get_them(start):
    page = start(query={'expr': 'reuse', 'mode': 'quiz', 'answers': '1'})
    assert ANSWERS_HIDDEN(page)


def test_changing_an_input_starts_the_quiz_again(start):
    page = start(query={'expr': 'reuse', 'mode': 'quiz'})
    answer(page, {'(a*b).grad': 1.0, '(a*a).grad': 2.0})
    page.number_input(key='input:reuse:a').set_value(2.0).run()
    assert page.markdown[0].value.startswith('**Question 1 of 3**')  # no score: a new pass
    assert page.frame == 5


def test_the_presentation_view_asks_the_room_with_no_box_and_the_next_frame_reveals(start):
    page = start(query={'expr': 'reuse', 'mode': 'quiz', 'present': '1', 'table': '1', 'step': '6'})
    assert not [b for b in page.number_input if b.label.endswith('.grad')]
    # frames: 0-3 inputs and forward, 4 seed, 5 out's question, 6 its answer, 7 a*a's question, 8 its answer,
    # 9 a*b's question, 10 its answer, 11 and 12 the leaves (never asked); the caption numbers a step as watching
    # does: a*a's question and answer are both frame 7 of 10
    page.go(7)
    assert page.caption() == 'Frame 7 of 10 · predict: a*a = a × a passes its grad back: what is a.grad now?'
    assert page.grads()['a'] == '?'
    page.go(8)
    assert page.grads()['a'] == '6.0000'


@pytest.mark.parametrize(
    ('answer', 'truth', 'right'),
    [
        (0.707, 0.70710678, True),  # 0.707|1: within half a unit of the third figure
        (0.7071, 0.70710678, True),
        (0.71, 0.70710678, False),  # two figures are not three
        (0.706, 0.70710678, False),
        (-1.5, -1.5, True),
        (1.5, -1.5, False),  # the sign counts
        (-1.51, -1.5, False),
        (1230.0, 1234.5, True),  # 3 significant figures of a large number: within 5
        (1240.0, 1234.5, False),
        (0.0, 0.0, True),
        (0.001, 0.0, False),
        (None, 1.0, False),  # a blank box
    ],
)
def test_an_answer_is_right_when_it_is_right_to_three_significant_figures(answer, truth, right):
    assert is_right(answer, truth) is right


# --- one step of learning -------------------------------------------------------------------------------------
# the regression L = (w*x + b - y)**2 at x = 1.5, y = 2, w = 0.5, b = 0: pred = 0.75, err = -1.25, L = 1.5625;
# dL/dw = 2·err·x = -3.75, dL/db = 2·err = -2.5. At lr = 0.1: w = 0.5 + 0.375 = 0.875, b = 0 + 0.25 = 0.25;
# pred = 1.3125 + 0.25 = 1.5625, err = -0.4375, L = 0.19140625. Each step multiplies err by 1 - 2·lr·(x² + 1) = 0.35.


def regression_after(k, lr=0.1):
    """(w, b, L) after k steps, in closed form: err_j = -1.25·0.35^j, and each step adds -lr·2·err_j·(x, 1)."""
    shrink = 1 - 2 * lr * (1.5**2 + 1)
    total = sum(1.25 * shrink**j for j in range(k))  # the sum of -err_j
    return 0.5 + 2 * lr * 1.5 * total, 2 * lr * total, (1.25 * shrink**k) ** 2


def test_the_closed_form_the_learning_tests_use_gives_the_hand_numbers_of_one_step():
    w, b, loss = regression_after(1)
    assert (round(w, 12), round(b, 12), round(loss, 12)) == (0.875, 0.25, 0.19140625)


def test_after_the_pass_the_page_updates_each_parameter_then_runs_forward_again_to_the_lower_loss(start):
    # the regression's pass: the inputs, 4 ops, the seed and 8 steps back (frames 0-13); then w (14), b (15),
    # zero_grad (16) and the 4 ops again (17-20)
    page = start(query={'expr': 'regression', 'mode': 'learn'})
    assert page.last_frame == 20
    page.go(13)  # the pass's end
    assert (page.data()['w'], page.grads()['w']) == ('0.5000', '-3.7500')
    assert (
        page.go(14).caption() == 'Frame 15 of 21 · learning: w.data += -lr * w.grad: 0.5000 − 0.1 × (−3.7500) = 0.8750'
    )
    assert (page.data()['w'], page.data()['b']) == ('0.8750', '0.0000')
    assert (
        page.go(15).caption() == 'Frame 16 of 21 · learning: b.data += -lr * b.grad: 0.0000 − 0.1 × (−2.5000) = 0.2500'
    )
    assert (page.data()['w'], page.data()['b']) == ('0.8750', '0.2500')
    page.go(16)  # zero_grad: the grads go, the ops wait for the forward pass
    assert set(page.grads().values()) == {'·'} and page.data()['L'] == '·'
    page.go(20)
    assert page.data()['pred'] == '1.5625' and page.data()['L'] == '0.1914'
    assert page.caption().endswith('· loss 1.5625 → 0.1914')
    assert 'Lower.' in page.explanation()
    summary = page.body()['summary']
    assert 'One step of learning' in text_of(summary)


def test_more_steps_go_on_from_the_learned_parameters_and_the_link_keeps_them(start):
    page = start(query={'expr': 'regression', 'mode': 'learn'})
    page.button(key='learn_one').click().run()
    assert link(page)['learned'] == '1'
    page.go(0)
    assert (page.data()['w'], page.data()['b']) == ('0.8750', '0.2500')
    page.button(key='learn_ten').click().run()
    w, b, loss = regression_after(11)
    page.go(0)
    assert (page.data()['w'], page.data()['b']) == (f'{w:.4f}', f'{b:.4f}')
    assert link(page)['learned'] == '11'


@pytest.mark.parametrize('steps', [0, 1, 3, 10])
def test_the_sidebar_and_the_graph_agree_on_the_parameters_at_every_frame(start, steps):
    # the sidebar cannot follow the player's frame: it says the pass's values and the update's, and the graph shows
    # the one or the other at each frame: the pass's until a parameter's update frame, the update's from it on
    w, b, _ = regression_after(steps)
    w_next, b_next, _ = regression_after(steps + 1)
    page = start(query={'expr': 'regression', 'mode': 'learn', 'learned': str(steps)})
    note = test_app.learned_note(page)
    pass_said, update_said = note.split('**After its update')
    if steps:
        assert f'after {steps} step' in pass_said and f'w = {w:.4f}, b = {b:.4f}.' in pass_said
    else:  # no step yet: the boxes hold the pass's values, and the note says so
        boxes = test_app.sidebar_boxes(page)
        assert (boxes['w (start)'], boxes['b (start)']) == (w, b) and 'The boxes hold the pass shown.' in note
    assert f'learning step {steps + 1} (the frames after the pass):** w = {w_next:.4f}, b = {b_next:.4f}.' in (
        '**After its update' + update_said
    )
    said = {'pass': {'w': f'{w:.4f}', 'b': f'{b:.4f}'}, 'update': {'w': f'{w_next:.4f}', 'b': f'{b_next:.4f}'}}
    updated = set()
    for k in range(page.last_frame + 1):
        caption, data = page.go(k).caption(), page.data()
        updated |= {name for name in 'wb' if f'learning: {name}.data +=' in caption}
        for name in 'wb':
            assert data[name] == said['update' if name in updated else 'pass'][name], (k, name, caption)
    assert updated == {'w', 'b'}


def test_a_link_reopens_the_parameters_after_its_steps(start):
    w, b, loss = regression_after(3)  # w = 1.0522, b = 0.3681, L = 0.0029
    page = start(query={'expr': 'regression', 'mode': 'learn', 'learned': '3', 'step': '0'})
    assert (page.data()['w'], page.data()['b']) == (f'{w:.4f}', f'{b:.4f}')
    assert f'This pass: L = {loss:.4f}, after 3 steps.' in loss_plot(page.go(4))  # frame 4 computes L


def test_the_loss_goes_down_over_ten_steps_at_the_default_rate_on_the_page(start):
    page = start(query={'expr': 'mlp', 'mode': 'learn'})
    page.button(key='learn_ten').click().run()
    heights = plot_heights(page.go(page.last_frame))
    assert len(heights) == 12  # before any step, after each of the 10, and after the step the pass leads to
    assert all(later < earlier for earlier, later in zip(heights, heights[1:]))


def loss_plot(page):
    """The loss plot in the player at the frame shown, as text (view/learning.py's loss_plots)."""
    plots = page.body()['plots']
    return text_of(plots['head'] + plots['parts'][plots['at'][page.frame]])


def plot_heights(page):
    """The loss plot's points at the frame shown, as heights above its bottom edge, from the first step on."""
    plots = page.body()['plots']
    (line,) = re.findall(r'class="pts" data-points="\d+" d="([^"]*)"', plots['parts'][plots['at'][page.frame]])
    return [-float(y) for y in re.findall(r'[\d.]+ ([\d.]+)', line)]


def test_a_higher_learning_rate_from_the_link_overshoots_and_the_page_says_so(start):
    # lr = 1: err is multiplied by 1 - 2·(3.25) = -5.5 a step, so L grows 30.25-fold: 1.5625 → 47.2656
    page = start(query={'expr': 'regression', 'mode': 'learn', 'lr': '1'})
    assert 'After this step: L 1.5625 → 47.2656. Higher.' in loss_plot(page.go(page.last_frame))
    assert 'lr = 1 is too large here' in page.explanation()


def test_learning_does_not_apply_without_a_loss_and_the_page_says_so(start):
    page = start(query={'expr': 'neuron', 'mode': 'learn'})
    assert any('One step of learning needs a loss' in i.value for i in page.info)
    assert not [s for s in page.select_slider if s.label == 'Learning rate lr']
    assert page.last_frame == 16  # the neuron's own pass: inputs, 5 ops, the seed, 10 steps


def test_a_quiz_on_a_graph_too_big_to_ask_step_by_step_says_so(start):
    page = start(query={'expr': 'chain', 'n': '200', 'mode': 'quiz'})
    assert any('Predict the grad asks one question a step' in i.value for i in page.info)
    assert not [b for b in page.number_input if b.label.endswith('.grad')]


def test_the_mode_is_part_of_the_link(start):
    page = start('reuse')
    page.radio(key='mode').set_value('bug').run()
    assert link(page)['mode'] == 'bug'


@pytest.mark.parametrize('hide', ['new', 'all'])
def test_while_grads_are_hidden_the_player_is_not_sent_the_answers_column(start, hide):
    page = start(query={'expr': 'reuse', 'hide': hide, 'answers': '1'})
    assert set(page.body()['table']['finals']) == {'?'} and not page.head()['answers']


def test_starting_the_quiz_again_clears_the_score_and_the_boxes(start):
    page = start(query={'expr': 'reuse', 'mode': 'quiz'})
    answer(page, {'(a*b).grad': 1.0, '(a*a).grad': 2.0})
    page.button(key='quiz_again').click().run()
    assert page.markdown[0].value.startswith('**Question 1 of 3** ·')  # no score yet
    assert [b.value for b in page.number_input if b.label.endswith('.grad')] == [None, None]
    assert page.frame == 5


def test_a_quiz_on_a_pass_with_nan_in_it_says_it_needs_finite_grads(start):
    # log(a) at a = -1 is nan, and so is every grad behind it: a number box could not take the answer
    page = start(query={'expr': 'custom', 'formula': 'log(a) * b', 'v.a': '-1', 'mode': 'quiz'})
    assert any('needs finite grads' in i.value for i in page.info)
    assert not [b for b in page.number_input if b.label.endswith('.grad')]


def test_the_node_table_puts_what_plus_equals_gives_beside_each_grad_frame_by_frame(start):
    page = start(query={'expr': 'reuse', 'mode': 'bug'})
    beside = []
    for k in (5, 6, 7, 9):  # out's step; a*a's (a: = 3, += 3 + 3); a*b's (a: = -2, += 6 - 2); the end
        table = page.go(k).table()
        row = dict(zip(table['node'], zip(table['grad now'], table['grad with +='])))
        beside.append((row['a'], row['b']))
    assert beside == [
        (('·', '·'), ('·', '·')),
        (('3.0000', '6.0000'), ('·', '·')),
        (('-2.0000', '4.0000'), ('3.0000', '3.0000')),
        (('-2.0000', '4.0000'), ('3.0000', '3.0000')),
    ]


@pytest.mark.parametrize('source', ['dot'], indirect=True)  # the server draws exports
def test_an_exported_frame_of_the_assigning_engine_marks_it_lost_as_the_page_does():
    from engine import PRESETS, assign, trace_backward
    from engine.frames import frames
    from exports import frame_svg
    from view.graph import WRONG_FILL
    from view.numbers import number_width

    leaves, out = PRESETS['ab_times_a_plus_b'].build(value_type=assign.Value)
    trace = trace_backward(out, leaves)
    svg = frame_svg(trace, frames(trace)[7], number_width(trace)).decode()  # d's step: e's two −6 thrown away
    assert svg.count('✗ lost -6.0000') == 2 and 'line-through' not in svg  # no strike to hide the minus
    assert svg.count(f'fill="{WRONG_FILL.lower()}"') == 2  # a and b: final, and wrong
    assert '✗' not in frame_svg(trace, frames(trace)[8], number_width(trace)).decode()


def test_on_the_assigning_engine_the_chains_line_on_w_says_its_grad_is_the_last_use_alone(start):
    page = start(query={'expr': 'chain', 'n': '4', 'mode': 'bug'})
    page.go(page.last_frame)
    plot = text_of(page.body()['plots']['parts'][page.body()['plots']['at'][page.frame]])
    assert "is its last use's contribution alone: = threw the others away" in plot
    assert 'collects +=' not in plot


def test_on_the_assigning_engine_a_leafs_grad_is_not_called_its_derivative(start):
    page = start(query={'expr': 'reuse', 'mode': 'bug'}).go(9)  # a's own step: a.grad = -2, but ∂out/∂a = 4
    assert 'is what the last = left, and wrong: += gives ∂out/∂a = 4.0000' in page.explanation()
    assert 'is ∂out/∂a.' not in page.explanation()


def test_another_expression_starts_learning_again_from_its_own_inputs(start):
    page = start(query={'expr': 'regression', 'mode': 'learn', 'learned': '3'})
    page.selectbox(key='expr').select('mlp').run()
    assert 'learned' not in link(page)
    assert any('at the inputs in the sidebar' in m.value for m in page.markdown)


# f = (a·b)·(a + b) at a = -2, b = 3: d = a·b = -6, e = a + b = 1, f = d·e = -6. Backward runs f, e, d, then the
# leaves. f's step: d.grad = e = 1, e.grad = d = -6. e's (+): a.grad and b.grad get e.grad = -6. d's (×): a gets
# b·d.grad = 3, b gets a·d.grad = -2. With +=: a = -6 + 3 = -3, b = -6 - 2 = -8; with = the last write stays: 3, -2.


def test_on_the_assigning_engine_both_paths_of_ab_times_a_plus_b_lose_one_contribution_each(start):
    page = start(query={'expr': 'ab_times_a_plus_b', 'mode': 'bug'})
    page.go(page.last_frame)
    rows = {row['input']: (row['grad with ='], row['grad with +='], row['finite difference']) for row in page.summary()}
    assert rows == {'a': ('3.0000', '-3.0000', '-3.0000'), 'b': ('-2.0000', '-8.0000', '-8.0000')}


def test_a_quiz_answered_right_throughout_scores_every_grad(start):
    page = start(query={'expr': 'ab_times_a_plus_b', 'mode': 'quiz'})
    steps = [{'d.grad': 1.0, 'e.grad': -6.0}, {'a.grad': -6.0, 'b.grad': -6.0}, {'a.grad': -3.0, 'b.grad': -8.0}]
    for k, answers in enumerate(steps):  # f's step, e's, d's
        answer(page, answers)
        if k < len(steps) - 1:
            next_question(page)
    assert any('**Done:** 6 of 6 grads right' in m.value for m in page.markdown)


def test_on_the_assigning_engine_a_grad_still_to_be_written_has_more_equals_to_come(start):
    table = start(query={'expr': 'reuse', 'mode': 'bug'}).go(6).table()  # a*a's step: a*b's write to a is to come
    assert dict(zip(table['node'], table['grad …']))['a'] == 'has more = to come'


def test_the_quiz_counts_the_whole_pass_in_its_caption(start):
    page = start(query={'expr': 'reuse', 'mode': 'quiz'})
    # reuse with its questions: 0-3 inputs and forward, 4 seed, 5-10 three questions and their answers, 11-12 leaves;
    # the caption counts the pass as watched, 10 frames, and out's question has its step's number, 6
    assert page.caption().startswith('Frame 6 of 10 · predict: out = a*b + a*a passes its grad back')


def test_more_learning_steps_send_the_page_to_the_next_update(start):
    page = start(query={'expr': 'regression', 'mode': 'learn'})
    page.button(key='learn_one').click().run()
    assert page.frame == 14  # the first frame after the pass: w's update, now from w = 0.875
    assert page.caption().startswith('Frame 15 of 21 · learning: w.data += -lr * w.grad: 0.8750 − 0.1 × (−1.3125)')


def test_a_question_does_not_tell_whether_the_grads_it_asks_for_are_final(start):
    text = start(query={'expr': 'reuse', 'mode': 'quiz'}).explanation()  # out's step: (a*b).grad and (a*a).grad
    assert '(a*b).grad: · → ?' in text and '(final)' not in text and '(more to come)' not in text


# the lecture: L = d·f, d = e + c, e = a·b with a = 2, b = −3, c = 10, f = −2, so e = −6, d = 4. Its questions:
#   L's step: d.grad = f·1 = −2 and f.grad = d·1 = 4 (local gradients f.data = −2, d.data = 4);
#   d's step: e.grad = c.grad = 1·(−2) = −2 (local gradients 1: + passes the grad through);
#   e's step: a.grad = b·(−2) = 6 and b.grad = a·(−2) = −4 (local gradients b.data = −3, a.data = 2).
LECTURE_QUESTIONS = [  # (node, its grad as the sums multiply by it, what may not be shown but that grad, the answers)
    ('L', '1.0000', [-2.0, 4.0], {'d.grad': -2.0, 'f.grad': 4.0}),
    ('d', '(−2.0000)', [1.0], {'e.grad': -2.0, 'c.grad': -2.0}),  # the answers are the upstream grad: the 1 is asked
    ('e', '(−2.0000)', [-3.0, 2.0, 6.0, -4.0], {'a.grad': 6.0, 'b.grad': -4.0}),
]


def names_number(text, x):
    """Whether `text` writes `x` (4 decimals) as a number of its own, with either minus: −2.0000 or -2.0000, and
    not the 2.0000 of −2.0000."""
    sign = '[-−]' if x < 0 else ''
    return re.search(rf'(?<![\d.\-−]){sign}{re.escape(f"{abs(x):.4f}")}', text) is not None


def test_a_question_shows_neither_the_local_gradients_nor_the_answers_only_the_upstream_grad(start):
    """Issue 18, 2.1: the bullets once read `d.grad += f.data × L.grad = −2.0000 × 1.0000 = ?` (the answer, a
    multiplication by 1 away) and `e.grad += d.grad = −2.0000 = ?` (the answer itself)."""
    page = start(query={'expr': 'lecture', 'mode': 'quiz'})
    for k, (node, upstream, forbidden, answers) in enumerate(LECTURE_QUESTIONS):
        body, frame = page.body(), page.frame
        assert page.caption().split(' · ', 1)[1].startswith(f'predict: {node} =')
        text, rules = page.explanation(), body['rules'][frame]
        labels = test_app.replay(body['patches'])[frame][2]  # the edges the step writes along
        bullets = [html.unescape(b) for b in re.findall(r'<li><code>(.*?)</code>', body['explanations'][frame])]
        asked = ''.join(m.value for m in page.markdown)  # the question above the player
        for x in forbidden:  # the local gradients and what they make: the upstream grad, on the graph already, may stay
            assert not any(names_number(t, x) for t in (text, asked, *rules, *labels.values())), (node, x)
        assert len(bullets) == len(rules) == len(labels) == 2
        for line in bullets + rules:  # the local gradient is asked for too, beside the upstream grad's number
            assert re.search(rf'\+= \? × {node}\.grad = \? × {re.escape(upstream)} = \?$', line), line
        assert all(label.split()[0] == '?' and label.split()[-1] == '?' for label in labels.values()), labels
        assert 'passes the grad through' not in text and 'local gradient 1' not in text
        answer(page, answers)
        assert any('✓ right' in m.value for m in page.markdown)
        if k < len(LECTURE_QUESTIONS) - 1:
            next_question(page)
