"""Your own _backward (mode=code) in a real browser: the student's bodies typed in the three boxes run on the graph, the
first frame where a grad differs from the right engine is marked and explained, the grader gives its verdict and hints,
a link carries the bodies (one that cannot run as the student wrote it, shown with its error), a body that cannot be
read is printed, never rendered, and the mode fits a phone.

Worked by hand. reuse is out = a*b + a*a at a = 3, b = -2: a.grad = b + 2a = 4. Its frames: 0 the inputs, 1-3
forward, 4 the seed, 5 out's step, 6 a*a's, 7 a*b's, 8-9 the leaves. With __mul__'s inputs swapped (each input's local
gradient its own data), a*a's step still gives a 3 + 3 = 6, as the right one does; a*b's gives a 3 (its own data),
where the right one gives b's -2: a.grad is 9 against 4 from frame 7 on, 'Frame 8 of 10'. On the neuron,
tanh(x1*w1 + x2*w2 + b) at x1 = 2, w1 = -3 and 1 - t² = 0.5, x1.grad is w1 × 0.5 = -1.5; swapped, x1 × 0.5 = 1.0.
b = a + a with `=` in __add__: the second write replaces the first, a.grad is 1 where += gives 2.
"""

import re
from urllib.parse import quote

import pytest
from playwright.sync_api import expect
from test_browser import boxes
from test_browser_demo import VIEW, wait_for_player
from test_browser_fit import PHONE

from engine.exercise import TODO
from engine.forms import FORMS
from engine.grader import GRADED

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)
RERUN = 60_000  # ms: a rerun of the page on a busy machine; a condition is waited on, never a time

RIGHT = {
    'add': 'self.grad += out.grad\nother.grad += out.grad',
    'mul': 'self.grad += other.data * out.grad\nother.grad += self.data * out.grad',
    'tanh': 'self.grad += (1 - t**2) * out.grad',
}
SWAPPED_MUL = 'self.grad += self.data * out.grad\nother.grad += other.data * out.grad'
ASSIGNING_ADD = 'self.grad = out.grad\nother.grad = out.grad'

# every toast the page shows, as it shows it, kept: a toast leaves after a few seconds, whatever the test is doing
TOASTS = """() => {
  window.__toasts = [];
  new MutationObserver(() => {
    for (const t of document.querySelectorAll('[data-testid="stToast"]')) {
      const text = t.textContent;
      if (text && !window.__toasts.includes(text)) window.__toasts.push(text);
    }
  }).observe(document, {childList: true, subtree: true, characterData: true});
}"""


def link(expr, **bodies):
    """The page's link to mode=code on `expr`, with these bodies (code.add=..., URL-encoded)."""
    return f'expr={expr}&mode=code' + ''.join(f'&code.{name}={quote(text)}' for name, text in bodies.items())


def open_code(page, url, query):
    page.add_init_script(f'({TOASTS})()')
    page.goto(f'{url}/?{query}')
    wait_for_player(page)


def box(page, name):
    return page.locator(f'.st-key-code_{name} textarea')


def column(page, name):
    """The column of the box for `name`: the method around it, the box, and any error under it."""
    return page.locator('[data-testid="stColumn"]').filter(has=page.locator(f'.st-key-code_{name}'))


def type_body(page, name, text):
    """Type a body into its box and commit it with Ctrl+Enter; done when the rerun has written it into the link."""
    box(page, name).fill(text)
    box(page, name).press('Control+Enter')
    page.wait_for_function(
        '([key, text]) => new URLSearchParams(location.search).get(key) === text', arg=[f'code.{name}', text],
        timeout=RERUN,
    )  # fmt: skip


def verdict(page):
    """The grader's verdict: an st.code block, a line per expression."""
    return page.locator('[data-testid="stCode"]').filter(has_text=re.compile(r'^\s*neuron: '))


def expect_toast(page, words):
    page.wait_for_function('words => window.__toasts.some(t => t.includes(words))', arg=words, timeout=RERUN)


def frame(page):
    return int(page.locator('.player .explain').get_attribute('data-frame'))


def step_on(page):
    """Next frame, by the player's Next button: the player still steps."""
    k = frame(page)
    page.locator('.player .next').click()
    wait_for_player(page, k + 1)


def test_a_swapped_mul_is_marked_at_its_first_difference_explained_hinted_and_the_answer_puts_it_right(page, served):
    open_code(page, served, 'expr=reuse&mode=code')
    for name in RIGHT:
        expect(box(page, name)).to_have_value(TODO)
    type_body(page, 'add', RIGHT['add'])
    expect(verdict(page)).to_contain_text('b = a + a: right')
    type_body(page, 'mul', SWAPPED_MUL)
    type_body(page, 'tanh', RIGHT['tanh'])
    expect(verdict(page)).to_contain_text('neuron: wrong (x1: -1.5, yours 1.0)')
    expect(verdict(page)).to_contain_text('reuse: wrong (a: 4.0, yours 9.0)')
    expect(verdict(page)).to_contain_text('b = a + a: right')

    slider = page.locator('.player input.slider')
    expect(slider).to_have_attribute('title', 'First difference from the right engine: Frame 8 of 10')
    marks = slider.evaluate(
        's => [...s.getRootNode().getElementById(s.getAttribute("list")).options].map(o => o.value)'
    )  # the datalist the slider's list attribute names: a tick at the marked frame
    assert marks == ['7']
    first = int(re.search(r'Frame (\d+) of', slider.get_attribute('title'))[1]) - 1
    page.locator('.player .view').press('Home')
    wait_for_player(page, 0)
    caption = page.locator('.player .caption')
    expect(caption).to_have_text(re.compile(r'^Frame 1 of 10 · .* · first difference: frame 8 of 10$'))
    for k in range(1, first + 1):  # with the player's own keys, a frame at a time
        page.keyboard.press('ArrowRight')
        wait_for_player(page, k)
    expect(caption).to_have_text(
        'Frame 8 of 10 · backward pass: a*b = a × b passes its grad back · ✗ first difference from the right engine'
    )
    explain = page.locator('.player .explain')
    expect(explain).to_contain_text('First difference: your × (__mul__), for self = a.')
    expect(explain).to_contain_text('Your line self.grad += self.data * out.grad gives a the local gradient a.data')
    expect(explain).to_contain_text("What went wrong: the inputs swapped: in a product each input's local gradient")
    expect(explain).to_contain_text('a.grad: yours 9.0000, right 4.0000')
    assert boxes(page)['a'][1] == '9.0000'  # 6 from a*a, then a's own 3 from a*b
    page.keyboard.press('ArrowRight')
    wait_for_player(page, first + 1)
    expect(caption).to_have_text(re.compile(r'^Frame 9 of 10 · .* · first difference: frame 8 of 10$'))

    hints = page.locator('[data-testid="stAlertContentInfo"]')
    expect(hints).to_have_count(0)
    page.get_by_role('button', name='A hint', exact=True).click()
    expect(hints).to_have_count(1)
    expect(hints.first).to_contain_text('Look at your ×')
    expect(page.get_by_role('button', name='Another hint', exact=True)).to_be_visible()

    page.get_by_role('button', name='Show the answer', exact=True).click()
    expect_toast(page, 'The right bodies are filled in')
    expect(verdict(page)).to_have_text('\n'.join(f'{e}: right' for e in GRADED))  # every graded expression
    expect(box(page, 'mul')).to_have_value(re.compile(r'^self\.grad \+= other\.data \* out\.grad\n'))
    expect(hints).to_have_count(0)
    expect(page.get_by_role('button', name=re.compile('hint'))).to_have_count(0)
    expect(caption).not_to_contain_text('difference')
    expect(slider).not_to_have_attribute('list', re.compile('.'))
    for k in range(10):  # no frame of the pass differs now
        page.locator('.player').evaluate(f'root => root.__player.go({k})')
        wait_for_player(page, k)
        expect(caption).not_to_contain_text('difference')
        expect(explain).not_to_contain_text('First difference')


def test_the_first_hint_prints_the_method_name_as_it_is_written(page, served):
    open_code(page, served, link('reuse', add=RIGHT['add'], mul=SWAPPED_MUL, tanh=RIGHT['tanh']))
    expect(verdict(page)).to_contain_text('reuse: wrong (a: 4.0, yours 9.0)')
    page.get_by_role('button', name='A hint', exact=True).click()
    hint = page.locator('[data-testid="stAlertContentInfo"]')
    expect(hint).to_have_count(1)
    assert hint.locator('strong, em').count() == 0
    expect(hint).to_contain_text('Look at your × (__mul__).')


def test_a_link_carries_the_bodies_into_a_fresh_browser_one_that_cannot_run_as_written(browser, served):
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    open_code(page, served, link('a_plus_a', add=ASSIGNING_ADD, mul=RIGHT['mul'], tanh=RIGHT['tanh']))
    for name, text in {'add': ASSIGNING_ADD, 'mul': RIGHT['mul'], 'tanh': RIGHT['tanh']}.items():
        expect(box(page, name)).to_have_value(text)
    expect(verdict(page)).to_contain_text('b = a + a: wrong (a: 2.0, yours 1.0)')
    for line in ('neuron: right', 'reuse: right', 'chain: right'):
        expect(verdict(page)).to_contain_text(line)
    expect(page.locator('[data-testid="stAlertContentWarning"]')).to_contain_text(
        'Your bodies pass the exercise’s own three expressions, and fail b = a + a'
    )
    context.close()

    fresh = browser.new_context(viewport=VIEW)
    other = fresh.new_page()
    open_code(other, served, f'{link("a_plus_a", add=RIGHT["add"])}&code.mul=import%20os')
    expect(box(other, 'add')).to_have_value(RIGHT['add'])
    expect(box(other, 'mul')).to_have_value('import os')  # as the student wrote it, and as the page's link carries it
    expect(column(other, 'mul').locator('[data-testid="stAlertContentError"]')).to_contain_text('can’t run yet')
    expect(box(other, 'tanh')).to_have_value(TODO)
    waiting = other.locator('[data-testid="stCode"]').filter(has_text=re.compile(r'^\s*mul: waits for your body'))
    expect(waiting).to_contain_text('b = a + a: right')  # the link's add runs; what uses × waits
    assert not [t for t in other.evaluate('window.__toasts') if 'code.' in t]
    fresh.close()


def test_a_body_that_cannot_be_read_is_printed_under_its_box_and_the_page_keeps_working(page, served):
    dialogs = []
    page.on('dialog', lambda d: (dialogs.append(d.message), d.dismiss()))
    open_code(page, served, 'expr=a_plus_a&mode=code')
    imports = 'self.grad += __import__("os")'
    type_body(page, 'add', imports)
    add = column(page, 'add')
    error = add.locator('[data-testid="stAlertContentError"]')
    expect(error).to_have_text(
        re.compile(
            r'This body can’t run.*: line 1, column 14: `__import__\(…\)`: '
            r'the only calls are math\.tanh\(x\), math\.exp\(x\) and math\.log\(x\)'
        )
    )
    # the line at fault and a caret under column 14, as code: __import__ as typed, not taken for bold
    expect(add.locator('[data-testid="stCode"]').filter(has_text='^')).to_have_text(f'{imports}\n{" " * 13}^')
    assert error.locator('strong').all_text_contents() == ['This body can’t run yet']
    assert add.locator('[data-testid="stCode"]').filter(has_text='^').locator('strong, em').count() == 0
    expect(box(page, 'add')).to_have_value(imports)  # the box keeps what was typed

    markup = 'self.grad += "<img src=x onerror=alert(1)>"'
    type_body(page, 'mul', markup)
    mul = column(page, 'mul')
    expect(mul.locator('[data-testid="stAlertContentError"]')).to_contain_text(
        'line 1, column 14: `"<img src=x onerror=alert(1)>"`: a string is not a number'
    )
    expect(mul.locator('[data-testid="stCode"]').filter(has_text='^')).to_contain_text(markup)
    assert mul.locator('img').count() == 0 and add.locator('img').count() == 0  # printed, no element made of it
    tags = mul.locator('[data-testid="stAlertContentError"] [data-testid="stMarkdownContainer"] *').evaluate_all(
        'els => els.map(e => e.tagName)'
    )
    assert tags == ['P', 'STRONG'], tags  # the error's own words, in bold: no element made of the body's text
    expect(box(page, 'tanh')).to_have_value(TODO)
    expect(column(page, 'tanh').locator('[data-testid="stAlert"]')).to_have_count(0)

    # the refused add is not graded as a pass: the grader waits for it (its lines say so), the page goes on
    waiting = page.locator('[data-testid="stCode"]').filter(has_text=re.compile(r'^\s*add: waits for your body'))
    expect(waiting).to_contain_text('add: waits for your body to run')
    expect(waiting).not_to_contain_text('yours 0.0')
    wait_for_player(page)
    step_on(page)
    step_on(page)
    assert dialogs == []


def test_on_a_phone_the_code_mode_opens_its_boxes_stack_and_the_player_steps(browser, served):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    open_code(page, served, 'expr=reuse&mode=code')
    expect(page.locator('[data-testid="stExpander"]').filter(has_text='Your _backward bodies')).to_be_visible()
    shown = []
    for name in RIGHT:
        expect(box(page, name)).to_be_visible()
        expect(box(page, name)).to_have_value(TODO)
        shown.append(box(page, name).bounding_box())
    for above, below in zip(shown, shown[1:]):  # one under another, in the exercise's order
        assert below['y'] >= above['y'] + above['height'], shown
    for b in shown:
        assert b['x'] >= 0 and b['x'] + b['width'] <= 390 and b['width'] >= 300, shown  # the screen's width
    expect(verdict(page)).to_contain_text('reuse: wrong (a: 4.0, yours 0.0)')
    wait_for_player(page, 0)
    step_on(page)
    step_on(page)
    page.locator('.player .prev').click()
    wait_for_player(page, 1)
    context.close()


def test_microgpts_form_runs_a_students_tuples_marks_the_first_difference_and_the_answer_puts_it_right(page, served):
    # reuse's × with its tuple in the wrong order: (self.data, other.data); the loop gives a*b's a the local gradient
    # a.data = 3 (not b.data = -2), so reuse's a.grad is 6 + 3 = 9, not 4: worked by hand, as the bodies' swapped ×
    grads = {'add': '(1, 1)', 'mul': '(self.data, other.data)', 'tanh': '(1 - t**2,)'}
    open_code(page, served, 'expr=reuse&mode=code&form=local_grads' + ''.join(
        f'&grads.{name}={quote(text)}' for name, text in grads.items()))  # fmt: skip
    for name, text in grads.items():
        expect(page.locator(f'.st-key-grads_{name} textarea')).to_have_value(text)
    expect(verdict(page)).to_contain_text('reuse: wrong (a: 4.0, yours 9.0)')
    expect(page.locator('.player input.slider')).to_have_attribute(
        'title', re.compile(r'^First difference from the right engine: Frame \d+ of \d+$')
    )
    page.get_by_role('button', name='Show the answer', exact=True).click()
    expect_toast(page, f'The right {FORMS["local_grads"].plural} are filled in')
    expect(page.locator('.st-key-grads_mul textarea')).to_have_value('(other.data, self.data)')
    expect(verdict(page)).to_have_text('\n'.join(f'{e}: right' for e in GRADED))
    assert 'form=local_grads' in page.url
