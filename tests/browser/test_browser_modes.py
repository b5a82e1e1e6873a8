"""The three teaching modes in a real browser: the `=` bug marks the contribution it throws away lost, the quiz
asks before it shows and keeps the score, and one step of learning moves w and b and the loss, by hand-worked numbers.

reuse is out = a*b + a*a at a = 3, b = -2; topological order a, b, a*b, a*a, out (value ids 0..4, a*a's edges from a
are l3_0 and l3_1). Its frames: 0 the inputs, 1-3 forward, 4 the seed, 5 out's step, 6 a*a's, 7 a*b's, 8-9 leaves.
regression is L = (w*x + b - y)**2 at x = 1.5, y = 2, w = 0.5, b = 0: pred - y = -1.25, L = 1.5625,
w.grad = 2 × -1.25 × 1.5 = -3.75, b.grad = -2.5; lr = 0.1 takes w to 0.875, b to 0.25, L to 0.4375² = 0.19140625;
each step multiplies the loss by (1 - 2 × lr × (x² + 1))² = 0.35² = 0.1225.
"""

import re

import pytest
from playwright.sync_api import expect
from test_browser import boxes
from test_browser_demo import wait_for_player

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)

STRUCK = """root => {
  const p = root.__player, shown = [];
  for (let k = 0; k < p.n; k++) {
    p.go(k);
    const texts = [...root.querySelectorAll('svg text')];
    const marked = [...root.querySelectorAll('g.lab')].filter(g => g.textContent.includes('✗ lost'));
    shown.push({caption: root.querySelector('.caption').textContent, struck: marked.map(g => g.id),
                amounts: marked.map(g => [...g.querySelectorAll('text')].at(-1).textContent.trim()),
                through: texts.filter(t => getComputedStyle(t).textDecorationLine.includes('line-through')).length,
                lost: [...root.querySelectorAll('g.lost')].map(g => g.id).sort(),
                wrong: [...root.querySelectorAll('g.v.wrong')].map(g => g.id).sort()});
  }
  return shown;
}"""  # every frame: the labels marked lost, their amounts, any text struck through, the elements marked lost, and
# the boxes drawn wrong


def open_mode(page, url, query, k=None):
    page.goto(f'{url}/?{query}')
    wait_for_player(page, k)


def go(page, k):
    """Step the player to frame k as its slider would."""
    page.locator('.player').evaluate(f'root => root.__player.go({k})')
    wait_for_player(page, k)


def caption(page):
    return page.locator('.player .caption')


# --- what if _backward used = ? ----------------------------------------------------------------------------------


def test_the_bug_marks_the_thrown_away_edge_lost_at_frames_6_and_7_only_and_draws_a_wrong(page, served):
    open_mode(page, served, 'expr=reuse&mode=bug')
    shown = page.locator('.player').evaluate(STRUCK)
    assert len(shown) == 10
    struck = {k: frame['struck'] for k, frame in enumerate(shown) if frame['struck']}
    assert struck == {6: ['l3_0'], 7: ['l3_1']}  # a*a's first a.grad =, then its second, replaced by a*b's
    assert shown[6]['amounts'] == shown[7]['amounts'] == ['✗ lost 3.0000']  # a.data × 1, each time
    assert not [k for k, frame in enumerate(shown) if frame['through']]  # no line through any number
    # the label and both halves of its edge, and a's box, whose grad = wrote over: marked in every shape, labels or not
    assert shown[6]['lost'] == ['e3_0', 'e3_0_in', 'l3_0', 'n0']
    assert shown[7]['lost'] == ['e3_1', 'e3_1_in', 'l3_1', 'n0']
    # a is final from a*b's step on, at −2 where += gives 4: drawn wrong there, and only there; b (3) is right
    assert {k: frame['wrong'] for k, frame in enumerate(shown) if frame['wrong']} == {k: ['n0'] for k in (7, 8, 9)}
    throws = '· = throws away a.grad’s 3.0000'  # a.grad = a.data × out.grad = 3 × 1, each time
    for k, frame in enumerate(shown):
        assert frame['caption'].endswith(throws) == (k in (6, 7)), (k, frame['caption'])
    assert shown[6]['caption'].startswith('Frame 7 of 10 · backward pass: a*a = a × a passes its grad back')
    assert shown[7]['caption'].startswith('Frame 8 of 10 · backward pass: a*b = a × b passes its grad back')

    go(page, 7)  # the real look: the lost label's ink and dashes, and the wrong box's own fill and dots
    dashed = page.locator('.player g.edge.lost > path').first.evaluate('p => getComputedStyle(p).strokeDasharray')
    assert dashed not in ('', 'none'), dashed
    box = page.locator('.player g.v.wrong > path').evaluate(
        'p => [getComputedStyle(p).fill, getComputedStyle(p).strokeDasharray]'
    )
    assert box[0] == 'rgb(207, 168, 221)' and box[1] not in ('', 'none'), box  # graph.WRONG_FILL, #CFA8DD
    lost = page.locator('.player g.v.lost > path').evaluate('p => getComputedStyle(p).strokeDasharray')
    assert lost not in ('', 'none'), lost  # a's box: dashed, as the legend's row for a grad written over
    assert boxes(page)['a'][1] == '-2.0000'  # b.data × 1 replaced 3 + 3
    row = page.locator('.player .table tbody tr').first  # a: its grad now, and what += gives beside it, in bold
    assert row.locator('th').all_text_contents() == ['a']  # the row's header: its value, for a screen reader
    assert row.locator('td').all_text_contents()[1:5] == [
        '3.0000',
        '-2.0000',
        '4.0000',
        'is final but wrong: += gives another',
    ]
    weight = row.locator('td').nth(3).evaluate('c => getComputedStyle(c).fontWeight')
    assert int(weight) >= 600, weight
    go(page, 9)
    assert boxes(page)['a'][1] == '-2.0000'
    summary = page.locator('.player .summary')
    assert summary.locator('th').all_text_contents() == [
        'input', 'grad with =', 'grad with +=', 'finite difference', '= is'
    ]  # fmt: skip
    rows = summary.locator('tbody tr').evaluate_all('rs => rs.map(r => [...r.cells].map(c => c.textContent))')
    assert rows[0][:4] == ['a', '-2.0000', '4.0000', '4.0000'] and rows[0][4].startswith('WRONG')
    assert rows[1] == ['b', '3.0000', '3.0000', '3.0000', 'right']


def test_the_bug_on_the_neuron_says_nothing_is_reused_and_strikes_nothing(page, served):
    open_mode(page, served, 'expr=neuron&mode=bug')
    expect(page.locator('[data-testid="stAlert"]')).to_contain_text('No value in this graph is used twice')
    shown = page.locator('.player').evaluate(STRUCK)
    assert len(shown) == 17
    assert not [k for k, frame in enumerate(shown) if frame['struck'] or frame['lost'] or frame['wrong']]
    assert not [frame['caption'] for frame in shown if 'throws away' in frame['caption']]
    verdicts = page.locator('.player .summary tbody tr td:last-child').all_text_contents()
    assert verdicts == ['right'] * 5


# --- predict the grad --------------------------------------------------------------------------------------------


def expect_held_at_question(page, k, number, asked):
    """The player holds frame k (step=k), the question's, and no further: the asked boxes show '?'. Its caption
    numbers the step as watching does, frame `number` of the pass's 10, and its slider still runs over the whole
    quiz's 13 frames (0 to 12), so the student sees how far into the pass the question is."""
    wait_for_player(page, k)
    expect(caption(page)).to_have_text(re.compile(rf'^Frame {number} of 10 · predict: '))
    expect(page.locator('.player .slider')).to_have_attribute('max', '12')
    expect(page.locator('.player .next')).to_be_disabled()
    page.locator('.player .view').press('End')
    page.keyboard.press('ArrowRight')
    page.locator('.player .slider').evaluate('s => { s.value = 12; s.dispatchEvent(new Event("input")); }')
    wait_for_player(page, k)  # nothing to step to: the slider goes back to the question
    expect(page.locator('.player .slider')).to_have_js_property('value', str(k))
    shown = boxes(page)
    assert {name: shown[name][1] for name in asked} == dict.fromkeys(asked, '?')


def grads_sent(page, i):
    """Every grad text the player was sent for value i, in any of its frames: what a visitor could read."""
    return set(page.locator('.player').evaluate(
        f'root => root.__player.body.patches.flatMap(p => p.v.filter(v => v[0] === {i}).map(v => v[2].trim()))'
    ))  # fmt: skip


def answer(page, answers):
    quiz = page.locator('.st-key-quiz')
    for label, value in answers.items():
        box = quiz.get_by_label(label, exact=True)
        expect(box).to_have_attribute('placeholder', 'your answer')
        box.fill(value)
    quiz.get_by_role('button', name='Check').click()


def next_question(page):
    page.locator('.st-key-quiz').get_by_role('button', name='Next question').click()


def test_the_quiz_asks_each_step_before_it_shows_it_and_keeps_the_score(page, served):
    open_mode(page, served, 'expr=reuse&mode=quiz')
    quiz = page.locator('.st-key-quiz')
    expect(quiz).to_contain_text('Question 1 of 3 · out’s _backward runs')
    expect(quiz.get_by_role('spinbutton')).to_have_count(2)
    expect_held_at_question(page, 5, 6, ['a*b', 'a*a'])
    assert boxes(page)['out'][1] == '1.0000'  # the seed, before the question: shown
    answer(page, {'(a*b).grad': '1', '(a*a).grad': '1'})  # + passes out.grad on unchanged
    expect(quiz).to_contain_text('✓ right: (a*b).grad = 1.0000 (you said 1.0000)')
    expect(quiz).to_contain_text('✓ right: (a*a).grad = 1.0000')
    expect(quiz.locator('[data-testid="stCode"]')).to_have_text(  # the chain rule
        re.compile(r'\(a\*b\)\.grad \+= out\.grad = 1\.0000\s+\(a\*a\)\.grad \+= out\.grad = 1\.0000')
    )
    expect(quiz).to_contain_text('Score so far: 2 of 2 right.')
    wait_for_player(page, 6)  # the answer, shown
    assert (boxes(page)['a*b'][1], boxes(page)['a*a'][1]) == ('1.0000', '1.0000')
    expect(page.locator('.player .next')).to_be_disabled()

    next_question(page)
    expect(quiz).to_contain_text('Question 2 of 3 · score 2 of 2 · a*a’s _backward runs')
    expect_held_at_question(page, 7, 7, ['a'])
    assert grads_sent(page, 0) == {'·', '?'}  # a.grad's 6.0000 is nowhere in what the browser has
    answer(page, {'a.grad': '3'})  # the = answer: a*a writes a twice, 3 + 3
    expect(quiz).to_contain_text('✗ not quite: a.grad = 6.0000 (you said 3.0000)')
    expect(quiz).to_contain_text('Score so far: 2 of 3 right.')
    expect(quiz.locator('[data-testid="stCode"]')).to_contain_text('a.grad += a.data × (a*a).grad = 3.0000 × 1.0000')
    wait_for_player(page, 8)
    assert boxes(page)['a'][1] == '6.0000'

    next_question(page)
    expect(quiz).to_contain_text('Question 3 of 3 · score 2 of 3 · a*b’s _backward runs')
    expect_held_at_question(page, 9, 8, ['a', 'b'])
    answer(page, {'a.grad': '4', 'b.grad': '3'})  # 6 + b.data × 1 = 4; a.data × 1 = 3
    expect(quiz).to_contain_text('✓ right: a.grad = 4.0000')
    expect(quiz).to_contain_text('✓ right: b.grad = 3.0000')
    expect(quiz).to_contain_text('Done: 4 of 5 grads right.')
    expect(quiz.get_by_role('button', name='Next question')).to_have_count(0)
    wait_for_player(page, 12)  # the leaves' steps: nothing to ask, the whole pass shown
    expect(caption(page)).to_have_text(re.compile(r'^Frame 10 of 10 · '))
    assert (boxes(page)['a'][1], boxes(page)['b'][1]) == ('4.0000', '3.0000')
    expect(page.locator('.player .summary')).to_contain_text('finite difference')


def test_the_presentation_quiz_has_no_boxes_and_its_ask_frames_show_question_marks(page, served):
    open_mode(page, served, 'expr=reuse&mode=quiz&present=1&step=5', 5)
    expect(page.locator('.st-key-quiz')).to_have_count(0)
    expect(page.get_by_role('spinbutton')).to_have_count(0)
    expect(caption(page)).to_have_text(re.compile(r'^Frame 6 of 10 · predict: out = a\*b \+ a\*a passes its grad'))
    assert (boxes(page)['a*b'][1], boxes(page)['a*a'][1]) == ('?', '?')
    page.keyboard.press('ArrowRight')
    wait_for_player(page, 6)
    expect(caption(page)).to_have_text(re.compile(r'^Frame 6 of 10 · backward pass: out'))  # the same step
    assert (boxes(page)['a*b'][1], boxes(page)['a*a'][1]) == ('1.0000', '1.0000')
    page.keyboard.press('ArrowRight')
    wait_for_player(page, 7)
    expect(caption(page)).to_have_text(re.compile(r'^Frame 7 of 10 · predict: a\*a'))
    assert boxes(page)['a'][1] == '?'


# --- one step of learning ----------------------------------------------------------------------------------------


def test_learning_moves_w_and_b_then_the_loss_and_one_more_step_goes_on_from_there(page, served):
    # the captions are matched after their frame number: the frames' order is the player's index (wait_for_player)
    open_mode(page, served, 'expr=regression&mode=learn', 0)
    expect(page.get_by_role('heading', name='One step of learning')).to_be_visible()
    assert page.locator('.player').evaluate('root => root.__player.n') == 21  # 14 frames of pass, 7 of learning
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text('w (start)')).to_be_visible()  # the box holds where learning starts
    plot = page.locator('.player .plot')
    expect(plot).to_contain_text('This pass’s L, before any step, appears when its forward pass computes it')
    go(page, 4)  # the forward pass computes L = 1.25² = 1.5625: its point, and no other
    expect(plot).to_contain_text('L before any step: 1.5625')
    go(page, 13)  # the pass is done: w, b as they were, with their grads
    assert boxes(page)['w'] == ('0.5000', '-3.7500') and boxes(page)['b'] == ('0.0000', '-2.5000')
    page.locator('.player .next').click()
    wait_for_player(page, 14)
    expect(caption(page)).to_have_text(
        re.compile(r' · learning: w\.data \+= -lr \* w\.grad: 0\.5000 − 0\.1 × \(−3\.7500\) = 0\.8750$')
    )
    assert boxes(page)['w'][0] == '0.8750' and boxes(page)['b'][0] == '0.0000'
    page.locator('.player .next').click()
    wait_for_player(page, 15)
    expect(caption(page)).to_have_text(
        re.compile(r' · learning: b\.data \+= -lr \* b\.grad: 0\.0000 − 0\.1 × \(−2\.5000\) = 0\.2500$')
    )
    assert boxes(page)['b'][0] == '0.2500'
    page.locator('.player .next').click()
    wait_for_player(page, 16)
    expect(caption(page)).to_contain_text('zero_grad: every grad is set back to 0 before the next backward pass')
    expect(page.locator('.player .explain')).to_contain_text('zero_grad. Every grad is set back to 0')
    assert boxes(page)['L'] == ('·', '·') and boxes(page)['w'] == ('0.8750', '·')
    expect(plot).not_to_contain_text('0.1914')  # L after this step: not computed yet
    page.locator('.player .view').press('End')  # the player's own key, with the graph in focus
    wait_for_player(page, 20)
    expect(caption(page)).to_have_text(re.compile(r' · loss 1\.5625 → 0\.1914$'))
    assert boxes(page)['L'][0] == '0.1914'
    expect(plot).to_contain_text('After this step: L 1.5625 → 0.1914. Lower.')

    page.get_by_role('button', name='1 more step').click()
    expect(page).to_have_url(re.compile(r'[?&]learned=1(&|$)'))
    expect(sidebar).to_contain_text('The pass shown, after 1 step: w = 0.8750, b = 0.2500.')
    # its update, w = 0.875 + 0.1 × 1.3125 = 1.00625 and b = 0.25 + 0.1 × 0.875 = 0.3375, as the last frames show
    expect(sidebar).to_contain_text('learning step 2 (the frames after the pass): w = 1.0063, b = 0.3375.')
    expect(sidebar.get_by_text('w (start)')).to_be_visible()
    # the player goes to the next update: w.grad = 2 × (1.5625 − 2) × 1.5 = −1.3125
    expect(caption(page)).to_have_text(re.compile(r' · learning: w\.data .*: 0\.8750 − 0\.1 × \(−1\.3125\)'))
    expect(plot).to_contain_text('This pass: L = 0.1914, after 1 step.')
    expect(plot).not_to_contain_text('0.0234')  # × 0.1225: the loss after this step, at the last frame only
    go(page, 0)  # the pass starts from where the step before left w and b
    assert boxes(page)['w'][0] == '0.8750' and boxes(page)['b'][0] == '0.2500'
    go(page, 15)  # b.grad = 2 × (1.5625 − 2) = −0.875
    expect(caption(page)).to_have_text(re.compile(r'b\.data .*: 0\.2500 − 0\.1 × \(−0\.8750\) = 0\.3375$'))
    go(page, 20)
    expect(caption(page)).to_have_text(re.compile(r' · loss 0\.1914 → 0\.0234$'))
    expect(plot).to_contain_text('After this step: L 0.1914 → 0.0234. Lower.')


def test_learning_on_the_neuron_says_it_needs_a_loss_and_draws_no_lr(page, served):
    open_mode(page, served, 'expr=neuron&mode=learn', 0)
    expect(page.locator('[data-testid="stAlert"]')).to_contain_text('One step of learning needs a loss')
    wait_for_player(page, 0)
    assert page.locator('.player').evaluate('root => root.__player.n') == 17  # the neuron's pass alone
    expect(page.get_by_text('Learning rate lr')).to_have_count(0)
    expect(page.get_by_role('button', name='1 more step')).to_have_count(0)
    expect(page.get_by_role('heading', name='One step of learning')).to_have_count(0)
