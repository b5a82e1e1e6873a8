"""Your own `_backward` (mode=code) on the page, through AppTest on both layout sources (tests/app/test_app.py's Page
reads the player's data as the visitor sees it). Every expected number is worked out by hand, never read off the engine.

reuse: out = a*b + a*a at a = 3, b = −2; right a.grad = b + 2a = 4, b.grad = a = 3. Its frames: 0 inputs, 1 a*b,
2 a*a, 3 out, 4 seed, 5 out's step, 6 a*a's, 7 a*b's, 8 b's, 9 a's.
"""

import re

import test_app
from test_modes import link

from engine import exercise, local_grads

source, start = test_app.source, test_app.start  # the page on both layout sources: test_app's fixtures
RIGHT = {name: exercise.answer(name) for name in exercise.OPS}
SWAPPED = 'self.grad += self.data * out.grad\nother.grad += other.data * out.grad'


def code_link(expr='reuse', **bodies):
    return {'expr': expr, 'mode': 'code', **{f'code.{n}': bodies.get(n, RIGHT[n]) for n in exercise.OPS}}


def verdict(page):
    """The grader's lines, as the page prints them: 'neuron: right', 'mul: waits for your body to run (…)', …"""
    return next(c.value for c in page.at.code if re.match(r'[^\n]+: (right|wrong \(|waits for)', c.value))


def test_a_link_with_swapped_inputs_runs_them_and_marks_the_first_difference(start):
    page = start(query=code_link(mul=SWAPPED))
    assert [a.value for a in page.at.text_area] == [RIGHT['add'], SWAPPED, RIGHT['tanh']]
    assert 'reuse: wrong (a: 4.0, yours 9.0)' in verdict(page)  # a gets its own data: 3 + 2·3 = 9
    assert page.body()['marks'] == [7]
    assert page.go(7).caption().endswith('✗ first difference from the right engine')
    assert 'the inputs swapped' in page.explanation()
    page.go(page.last_frame)
    assert page.caption().endswith('first difference: frame 8 of 10')
    assert page.grads()['a'] == '9.0000'
    rows = {row['input']: row for row in page.summary()}
    assert (rows['a']['your grad'], rows['a']['right grad'], rows['a']['finite difference']) == (
        '9.0000', '4.0000', '4.0000')  # fmt: skip
    assert rows['a']['yours is'].startswith('WRONG')


def test_the_right_bodies_mark_no_difference(start):
    page = start(query=code_link())
    assert verdict(page).splitlines() == [
        'neuron: right', 'reuse: right', 'chain: right', 'b = a + a: right', 'a + tanh(a + a): right',
        'tanh(a)·(a + a·a): right']  # fmt: skip
    assert page.body()['marks'] == []
    assert 'difference' not in page.go(page.last_frame).caption()


def test_equals_in_add_passes_the_exercises_three_and_the_page_says_b_equals_a_plus_a_catches_it(start):
    page = start(query=code_link('a_plus_a', add='self.grad = out.grad\nother.grad = out.grad'))
    assert 'b = a + a: wrong (a: 2.0, yours 1.0)' in verdict(page)
    # a + tanh(a + a) at a = 1: right 1 + 2(1 − tanh² 2); both = keep the last write, 1 − tanh² 2
    assert 'a + tanh(a + a): wrong (a: 1.14130165, yours 0.070650825)' in verdict(page)
    assert any('fail b = a + a' in w.value.replace('\\', '') for w in page.at.warning)  # markdown-escaped


def test_a_body_that_cannot_run_is_shown_with_its_error_and_caret_and_its_verdict_waits(start):
    page = start(query=code_link())
    page.at.text_area(key='code_add').set_value('self.grad += out.grad.__class__').run()
    errors = [e.value for e in page.at.error]
    assert any('line 1, column 14' in e.replace('\\', '') for e in errors), errors
    assert any(c.value == 'self.grad += out.grad.__class__\n             ^' for c in page.at.code)
    # every expression but the chain uses +: one line waits in their place, and the chain is graded
    assert verdict(page).splitlines() == [
        'add: waits for your body to run (it cannot run yet: see the error above)',
        'chain: right',
    ]
    assert page.has_graph()


def test_a_refused_body_is_not_graded_as_a_pass_and_no_hint_speaks_of_one(start):
    # the × refused, the tanh with = for +=: the grader waits for the ×, grades what runs no × (b = a + a and
    # a + tanh(a + a), whose tanh's input holds no grad before it: right), and the hints are the tanh's
    page = start(query=code_link(tanh='self.grad = (1 - t**2) * out.grad'))
    typed = 'self.grad += other.data * out.grad\nimport os'
    page.at.text_area(key='code_mul').set_value(typed).run()
    assert [a.value for a in page.at.text_area][1] == typed  # as typed
    assert any('can’t run yet' in e.value for e in page.at.error)
    assert verdict(page).splitlines() == [
        'mul: waits for your body to run (it cannot run yet: see the error above)', 'b = a + a: right',
        'a + tanh(a + a): right']  # fmt: skip
    said = []
    while hint := next((b for b in page.at.button if 'hint' in b.label.lower()), None):
        hint.click().run()
        said = [i.value for i in page.at.info]
    assert said == ['Look at your `tanh` (`tanh`).',
                    'In `tanh`, the line for `self.grad`: = where += belongs: the line throws away what the grad '
                    'held (a value used twice keeps only one use).',
                    'The right line: `self.grad += (1 - t ** 2) * out.grad`.']  # fmt: skip
    assert not any(re.search(r'\bpass\b', text) for text in said)
    # the graph runs the others: reuse's × waits, so its first difference is at a*a's step, said so with no `pass`
    assert page.has_graph() and page.body()['marks'] == [6]
    words = page.go(6).explanation()
    assert 'your × (__mul__) cannot run yet' in words and not re.search(r'\bpass\b', words)


def test_a_slip_no_exercise_expression_shows_fails_a_pitfall_and_the_page_says_how_to_watch_it(start):
    page = start(query=code_link(tanh='self.grad = (1 - t**2) * out.grad'))
    # tanh(a)·(a + a·a) at a = 1: the + and the a·a give a 3·tanh 1 first, and tanh's = keeps its 2(1 − tanh² 1)
    assert verdict(page).splitlines()[-1] == 'tanh(a)·(a + a·a): wrong (a: 3.124731151, yours 0.839948683)'
    (warning,) = [w.value.replace('\\', '') for w in page.at.warning]  # markdown-escaped
    assert 'pass the exercise’s own three expressions, and fail tanh(a)·(a + a·a)' in warning
    assert 'pick *type your own formula…* and type `tanh(a)*(a + a*a)`' in warning
    page.at.selectbox(key='expr').set_value('custom').run()
    page.at.text_input(key='formula').set_value('tanh(a)*(a + a*a)').run()
    page.go(page.last_frame)
    assert page.grads()['a'] == '0.8399'  # the grader's 0.839948683, as the page rounds it: the same input, 1.0


def test_show_the_answer_and_reset_to_the_exercise(start):
    page = start(query=code_link(mul=SWAPPED))
    page.at.button[1].click().run()  # Show the answer
    assert [a.value for a in page.at.text_area] == [RIGHT['add'], RIGHT['mul'], RIGHT['tanh']]
    assert 'reuse: right' in verdict(page)
    assert link(page)['code.mul'] == RIGHT['mul']  # the link follows
    page.at.button[0].click().run()  # Reset to the exercise
    assert [a.value for a in page.at.text_area] == [exercise.TODO] * 3
    assert 'neuron: wrong (x1: -1.5, yours 0.0)' in verdict(page)


def test_hints_come_in_three_steps_which_op_which_input_the_right_line(start):
    page = start(query=code_link(mul=SWAPPED))
    said = []
    for _ in range(3):
        hint = next(b for b in page.at.button if 'hint' in b.label.lower())
        hint.click().run()
        said = [i.value for i in page.at.info]
    assert said[0] == 'Look at your `×` (`__mul__`).'
    assert said[1].startswith('In `__mul__`, the line for `self.grad`: the inputs swapped')
    assert said[2] == 'The right line: `self.grad += other.data * out.grad`.'
    assert not any('hint' in b.label.lower() for b in page.at.button)


def test_a_body_in_a_link_that_cannot_run_is_shown_with_its_error_and_one_past_the_limit_falls_back(start):
    page = start(query={**code_link(), 'code.mul': 'import os', 'code.tanh': 'self.grad += 1\n' * 200})
    assert [a.value for a in page.at.text_area] == [RIGHT['add'], 'import os', exercise.TODO]
    assert any('can’t run yet' in e.value.replace('\\', '') for e in page.at.error)  # as when it was typed
    assert 'mul: waits for your body to run' in verdict(page)
    toast = ' '.join(t.value for t in page.at.toast).replace('\\', '')  # markdown-escaped
    assert 'code.tanh' in toast and 'code.mul' not in toast


def test_an_op_outside_the_exercise_runs_the_engines_own_and_says_so(start):
    page = start(query={**code_link('custom', mul=SWAPPED), 'formula': 'a*b - c'})
    # frames: 0 inputs, 1 a*b, 2 a*b - c, 3 seed, 4 the - step
    assert page.go(4).explanation().count('Not part of the exercise') == 1
    assert 'self.grad += out.grad' in page.explanation()  # value.py's own - : its first line


def test_the_presentation_view_runs_the_bodies_without_the_boxes(start):
    page = start(query={**code_link(mul=SWAPPED), 'present': '1'})
    assert not page.at.text_area
    assert page.body()['marks'] == [7]


# --- microgpt's form (form=local_grads): a local_grads tuple per op, one loop in backward() ---

TUPLES = {name: local_grads.answer(name) for name in exercise.OPS}  # (1, 1), (other.data, self.data), (1 - t ** 2,)


def grads_link(expr='reuse', **grads):
    return {'expr': expr, 'mode': 'code', 'form': 'local_grads',
            **{f'grads.{n}': grads.get(n, TUPLES[n]) for n in exercise.OPS}}  # fmt: skip


def test_a_link_in_microgpts_form_runs_its_tuples_and_marks_the_first_difference(start):
    page = start(query=grads_link(mul='(self.data, other.data)'))
    assert [a.value for a in page.at.text_area] == [TUPLES['add'], '(self.data, other.data)', TUPLES['tanh']]
    assert page.at.radio(key='form').value == 'local_grads'
    shown = '\n'.join(c.value for c in page.at.code)
    assert 'for child, local_grad in zip(v._children, v._local_grads):' in shown  # the loop, under the boxes
    assert 'def __init__(self, data, children=(), local_grads=()):' in shown
    assert 'reuse: wrong (a: 4.0, yours 9.0)' in verdict(page)  # a gets its own data: 3 + 2·3 = 9
    assert page.body()['marks'] == [7]
    words = page.go(7).explanation()
    assert 'return Value(self.data * other.data, (self, other), (self.data, other.data))' in words
    assert 'child.grad += local_grad * v.grad' in words
    assert 'the tuple in the wrong order' in words
    page.go(page.last_frame)
    assert page.grads()['a'] == '9.0000'
    rows = {row['input']: row for row in page.summary()}
    assert (rows['a']['your grad'], rows['a']['right grad']) == ('9.0000', '4.0000')


def test_switching_the_form_shows_the_tuples_boxes_and_the_link_follows_and_the_bodies_are_kept(start):
    page = start(query=code_link(mul=SWAPPED))
    page.at.radio(key='form').set_value('local_grads').run()
    assert [a.value for a in page.at.text_area] == [local_grads.TODO] * 3  # the exercise's own: empty tuples
    assert 'neuron: wrong (x1: -1.5, yours 0.0)' in verdict(page)  # an empty tuple passes nothing back
    said = link(page)
    assert said['form'] == 'local_grads' and said['grads.add'] == local_grads.TODO
    assert not any(key.startswith('code.') for key in said)
    page.at.button[1].click().run()  # Show the answer
    assert [a.value for a in page.at.text_area] == list(TUPLES.values())
    assert verdict(page).splitlines() == [
        'neuron: right', 'reuse: right', 'chain: right', 'b = a + a: right', 'a + tanh(a + a): right',
        'tanh(a)·(a + a·a): right']  # fmt: skip
    assert link(page)['grads.mul'] == '(other.data, self.data)'
    assert page.body()['marks'] == []
    page.at.radio(key='form').set_value('bodies').run()  # back: the bodies as they were
    assert [a.value for a in page.at.text_area] == [RIGHT['add'], SWAPPED, RIGHT['tanh']]
    assert 'form' not in link(page) and link(page)['code.mul'] == SWAPPED


def test_a_tuple_that_cannot_run_is_shown_with_its_caret_and_its_op_waits(start):
    page = start(query=grads_link())
    page.at.text_area(key='grads_mul').set_value('(other.data self.data)').run()
    assert any('can’t run yet' in e.value for e in page.at.error)
    assert any(c.value.endswith('\n ^') and c.value.startswith('(other.data self.data)') for c in page.at.code)
    assert verdict(page).splitlines() == [
        'mul: waits for your local_grads to run (it cannot run yet: see the error above)', 'b = a + a: right',
        'a + tanh(a + a): right']  # fmt: skip
    assert page.has_graph() and page.body()['marks'] == [6]  # reuse's × waits: a*a's step differs first
    assert 'local_grads cannot run yet' in page.go(6).explanation()


def test_hints_in_microgpts_form_name_the_entry_and_the_right_one(start):
    page = start(query=grads_link('neuron', tanh='(t,)'))
    said = []
    while hint := next((b for b in page.at.button if 'hint' in b.label.lower()), None):
        hint.click().run()
        said = [i.value for i in page.at.info]
    assert said == ['Look at your `tanh` (`tanh`): its `local_grads`.',
                    f'In `tanh`’s `local_grads`, the entry for `self`: {local_grads.MISTAKES["output"]}.',
                    'The right entry for `self`: `1 - t ** 2`.']  # fmt: skip


def test_a_tuple_in_a_link_that_cannot_run_is_shown_and_a_tampered_form_falls_back_with_a_toast(start):
    page = start(query={**grads_link(), 'grads.mul': 'import os', 'grads.tanh': '(1 - t**2)'})
    assert [a.value for a in page.at.text_area] == [TUPLES['add'], 'import os', '(1 - t**2)']
    assert not page.at.toast
    page = start(query={**grads_link(), 'form': 'micrograd2'})
    assert page.at.radio(key='form').value == 'bodies'  # the seed's form, its bodies the exercise's own
    assert [a.value for a in page.at.text_area] == [exercise.TODO] * 3
    assert 'form' in ' '.join(t.value for t in page.at.toast)


def test_the_presentation_view_runs_the_tuples_without_the_boxes(start):
    page = start(query={**grads_link(mul='(self.data, other.data)'), 'present': '1'})
    assert not page.at.text_area
    assert page.body()['marks'] == [7]


def test_a_link_with_an_empty_body_opens_with_the_box_empty_and_says_to_write_pass(start):
    """?mode=code&code.tanh=: a body with no line of code (empty, blank or comments alone) is refused, as Python
    refuses a def with nothing in it; the link's is shown as it is, and the box says why, as a cleared one does."""
    page = start(query={'mode': 'code', 'code.tanh': ''})
    assert [a.value for a in page.at.text_area] == [exercise.TODO, exercise.TODO, '']
    said = ' '.join(e.value for e in page.at.error).replace('\\', '')
    assert 'no code, only blank lines or comments' in said and 'write pass' in said, said
    page.at.text_area(key='code_tanh').set_value('  # nothing yet\r\n').run()
    assert not page.at.exception
    errors = ' '.join(e.value for e in page.at.error).replace('\\', '')
    assert 'no code, only blank lines or comments' in errors and 'write pass' in errors, errors
    assert page.has_graph()


def test_a_link_with_a_body_indented_and_broken_by_a_lone_cr_runs_and_shows_as_its_def(start):
    body = '  self.grad += (1 - t**2) * out.grad\r  pass'
    page = start(query=code_link('neuron', tanh=body))
    assert not page.at.toast and not page.at.error
    assert verdict(page).splitlines()[0] == 'neuron: right'
    shown = 'def _backward():\n    self.grad += (1 - t**2) * out.grad\n    pass'
    assert any(shown in e for e in page.body()['explanations'])


def test_the_chain_with_the_exercises_own_bodies_opens_with_its_plot(start):
    """The exercise's × is `pass  # TODO`: it never writes other.grad, so no step writes w's grad."""
    page = start(query={'expr': 'chain', 'mode': 'code'})
    assert 'chain: wrong' in verdict(page)
    plots = page.body()['plots']
    assert plots['parts'] and not any('wline' in part for part in plots['parts'])  # no line on w's grad: none comes


EQUALS_IN_MUL = 'self.grad = other.data * out.grad\nother.grad = self.data * out.grad'


def summary_said(page):
    """The words above the check at the last frame: what the summary says of the student's bodies."""
    page.go(page.last_frame)
    return test_app.text_of(page.body()['summary'].split('<table')[0])


def test_equals_in_mul_right_on_the_neuron_is_called_wrong_at_the_end_with_the_line_to_write(start):
    # the neuron uses no value twice, so = writes what += would add to 0: every grad right by hand
    # (o = tanh(n), n = x1·w1 + x2·w2 + b). reuse at a = 3, b = −2: a*a's two lines each write a.grad = 3, then a*b's
    # writes a.grad = b = −2, where += gives 2·3 + (−2) = 4
    page = start(query=code_link('neuron', mul=EQUALS_IN_MUL))
    assert 'neuron: right' in verdict(page)
    assert 'reuse: wrong (a: 4.0, yours -2.0)' in verdict(page)
    said = summary_said(page)
    assert 'Every input’s grad is right on this graph, but your bodies are wrong where a value is used twice' in said
    assert 'reuse' in said.split('wrong on')[1]
    assert 'In __mul__, the line for self.grad: = where += belongs' in said
    assert 'Write self.grad += other.data * out.grad.' in said  # the seed's line, as the exercise has it
    assert 'Write other.grad += self.data * out.grad.' in said
    assert 'Show me where it fails' in said


def test_show_me_where_it_fails_opens_the_smallest_failing_expression_at_its_first_difference(start):
    page = start(query=code_link('neuron', mul=EQUALS_IN_MUL))
    failing = [line.split(':')[0] for line in verdict(page).splitlines() if ': wrong (' in line]
    (button,) = [b for b in page.at.button if b.label == 'Show me where it fails']
    button.click().run()
    assert page.at.selectbox(key='expr').value == 'reuse'  # 5 nodes, as few as (a·b)·(a + b), and graded first
    assert 'reuse' in failing
    # reuse's frames (this file's docstring): 6 is a*a's step, where the = keeps a.grad = a = 3, += gives 3 + 3 = 6
    assert page.frame == 6
    assert page.caption().endswith('✗ first difference from the right engine')
    assert page.grads()['a'] == '3.0000'
    assert page.table()['right grad'][page.table()['node'].index('a')] == '6.0000'


def test_a_wrong_tanh_tuple_right_on_reuse_is_called_wrong_at_the_end_in_microgpts_words(start):
    # reuse has no tanh: its grads are right by hand whatever tanh's tuple; the neuron's o = tanh(n) needs 1 − o²
    page = start(query=grads_link('reuse', tanh='(1 - self.data**2,)'))
    said = summary_said(page)
    assert 'right on this graph, but your tuples are wrong: the grader finds them wrong on neuron' in said
    assert 'In tanh’s local_grads, the entry for self:' in said
    assert 'The right entry: 1 - t ** 2.' in said


def test_a_grad_left_at_its_zero_where_the_right_engine_adds_zero_is_not_called_wrong(start):
    # the neuron with a `pass` left in __mul__: w2 is never written, and stays at the 0 a Value's grad starts at; the
    # right engine adds x2.data × out.grad = 0 × 0.5 = 0 to it. The same 0: neither the graph, the table, the list
    # beside the right engine nor the check calls it wrong (x1 and w1 are: the right ones are −1.5 and 1 by hand)
    page = start(query=code_link('neuron', mul='pass'))
    page.go(page.last_frame)
    table = page.table()
    states = dict(zip(table['node'], table[test_app.STATE]))
    assert 'wrong' not in states['w2'] and 'wrong' in states['x1'] and 'wrong' in states['w1']
    assert 'w2.grad' not in page.explanation()
    rows = {row['input']: row['yours is'] for row in page.summary()}
    assert rows['w2'] == 'right' and rows['x1'].startswith('WRONG')


def test_minus_equals_is_said_as_minus_its_factor_never_as_a_number_about_its_negation(start):
    # reuse at a = 3: a*a's first line `self.grad -= other.data * out.grad` takes a.data × 1 = 3 away: the local
    # gradient it applies is −a.data = −3, where the chain rule's is a.data = 3 (frame 6 is a*a's step)
    minus = 'self.grad -= other.data * out.grad\nother.grad += self.data * out.grad'
    page = start(query=code_link('reuse', mul=minus))
    said = page.go(6).explanation()
    assert page.caption().endswith('✗ first difference from the right engine')
    assert 'gives a the local gradient −a.data = −3.0000; the local gradient of a*a for a is a.data = 3.0000' in said
    assert 'your line’s local gradient for a (its use 1 of 2): −a.data = −3.0000, wrong' in said
    assert '≈' not in said
