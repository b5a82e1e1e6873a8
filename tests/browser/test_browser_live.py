"""A live class in Chromium: a lecturer's presentation view starts a class, a student's phone opens ?class=CODE, and
the phone follows the lecturer's steps within 2 s with no reload of its page; a step of its own leaves the class,
and one tap lands on the class's frame again. The room answers a question on its phones (a laptop, two phones, one
come late), the projector groups the answers by mistake, the reveal shows each phone its own; a lecturer's reload
keeps the class, and a made-up secret leads none."""

import pandas as pd
import pytest
from playwright.sync_api import expect
from test_browser_demo import wait_for_player

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)
PHONE = {'width': 390, 'height': 844}


def frame(page):
    return page.locator('.player .explain').get_attribute('data-frame')


def test_a_phone_follows_the_lecturers_steps_and_can_step_on_its_own(browser, served):
    lecturer_context = browser.new_context(viewport={'width': 1600, 'height': 1000})
    student_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        lecturer = lecturer_context.new_page()
        lecturer.goto(f'{served}/?expr=reuse&present=1')
        wait_for_player(lecturer, 0)
        lecturer.get_by_role('button', name='Start a class').click()
        code_box = lecturer.get_by_test_id('class-code')
        expect(code_box).to_be_visible()
        code = code_box.inner_text().replace(' ', '')
        assert len(code) == 5
        expect(lecturer.get_by_text(f'?class={code}').first).to_be_visible()

        student = student_context.new_page()
        student.goto(f'{served}/?class={code}')
        wait_for_player(student, 0)
        expect(student.locator('.player')).to_have_attribute('data-following', 'true')
        assert 'expr=reuse' in student.url  # the class's scenario, opened at the first run
        student.evaluate('window.__samePage = true')  # gone if the page reloads

        lecturer.locator('.player .next').click()
        lecturer.locator('.player .next').click()
        wait_for_player(lecturer, 2)
        expect(student.locator('.player .explain')).to_have_attribute('data-frame', '2', timeout=2_000)
        assert student.evaluate('window.__samePage === true')  # followed in place: no reload

        student.locator('.player .next').click()  # on its own
        wait_for_player(student, 3)
        expect(student.locator('.player')).to_have_attribute('data-following', 'false')
        lecturer.locator('.player .next').click()
        wait_for_player(lecturer, 3)
        lecturer.locator('.player .next').click()
        wait_for_player(lecturer, 4)
        student.wait_for_timeout(500)
        assert frame(student) == '3'  # on its own, it stays
        student.locator('.player .follow').click()  # back to the class
        expect(student.locator('.player .explain')).to_have_attribute('data-frame', '4', timeout=2_000)
        expect(student.locator('.player')).to_have_attribute('data-following', 'true')
        assert student.evaluate('window.__samePage === true')
    finally:
        lecturer_context.close()
        student_context.close()


# reuse at a=3, b=-2, its frame 6 (a*a's step shown: a.grad = 3 + 3 = 6): Ask the room asks for a*b's step, frame 7,
# where a.grad += b.data × out.grad = 6 + (−2)(1) = 4 and b.grad += a.data × out.grad = 3. Worked by hand, the
# mistakes it can be: a.grad = −2 (`=` for +=: the contribution alone), 9 (swapped: 6 + a.data × 1), 8 (a sign slip)
REUSE_AT_A_TIMES_A = 6
ONE_PLACE = """root => {
  const box = (e) => e.getBoundingClientRect();
  const p = root.__player, active = p.values[p.body.patches[p.cur].a].g;
  const scrollers = [document.documentElement, ...document.querySelectorAll('[data-testid="stMain"]')];
  return { ask: box(root.querySelector('.ask')).toJSON(), active: box(active).toJSON(), view: box(p.view).toJSON(),
           height: innerHeight, width: innerWidth,
           pageWidth: Math.max(...scrollers.map((e) => e.scrollWidth - e.clientWidth + innerWidth)) };
}"""


def answer(page, values):
    boxes = page.locator('.player .ask input')
    for k, value in enumerate(values):
        boxes.nth(k).fill(value)
    page.locator('.player .ask button[type=submit]').click()


def expect_answers(lecturer, button, code):
    """The class's answers file, downloaded by `button`: a row a grad asked of each phone, grouped as the projector
    groups them (a.grad 4 and b.grad 3 are right; −2 is the `=` bug; 9 is the swapped inputs; the late phone left
    b.grad blank), the students numbered and never named by their phones' ids."""
    with lecturer.expect_download() as got:
        lecturer.get_by_role('button', name=button).click()
    assert got.value.suggested_filename == f'class-{code}-answers.csv'
    table = pd.read_csv(got.value.path())
    answers = ['' if pd.isna(answer) else f'{answer:g}' for answer in table.answer]
    rows = sorted(zip(table.grad, answers, table.group))
    assert rows == sorted([('a.grad', '4', 'right'), ('a.grad', '-2', '= for +='), ('a.grad', '9', 'swapped inputs'),
                           ('b.grad', '3', 'right'), ('b.grad', '3', 'right'), ('b.grad', '', 'blank')])  # fmt: skip
    assert set(table.question) == {1} and set(table.right) == {4.0, 3.0}
    assert sorted(set(table.student)) == ['student 1', 'student 2', 'student 3']


def test_the_room_answers_a_question_on_its_phones_and_the_projector_groups_them_by_mistake(browser, served):
    projector = browser.new_context(viewport={'width': 1600, 'height': 1000})
    contexts = [
        browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True),
        browser.new_context(viewport={'width': 1280, 'height': 800}),
        browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True),
    ]
    try:
        lecturer = projector.new_page()
        lecturer.goto(f'{served}/?expr=reuse&present=1&step={REUSE_AT_A_TIMES_A}')
        wait_for_player(lecturer, REUSE_AT_A_TIMES_A)
        lecturer.get_by_role('button', name='Start a class').click()
        code = lecturer.get_by_test_id('class-code').inner_text().replace(' ', '')
        phone, laptop, late = [context.new_page() for context in contexts]
        for student in (phone, laptop):
            student.goto(f'{served}/?class={code}')
            wait_for_player(student, REUSE_AT_A_TIMES_A)
        expect(lecturer.get_by_test_id('class-students')).to_have_text('2 students follow')

        lecturer.locator('.st-key-ask_room button').first.click()
        for student in (lecturer, phone, laptop):
            wait_for_player(student, REUSE_AT_A_TIMES_A + 1)
            expect(student.locator('.player .caption')).to_contain_text('Question 1: a.grad, b.grad')
            expect(student.locator('.player .rules')).to_have_text('')  # the sums would give it away
            expect(student.locator('.player .next')).to_be_disabled()  # no one steps past the question
        assert '4.0000' not in lecturer.locator('.player .view').inner_text()  # a.grad shows ?

        place = phone.locator('.player').evaluate(ONE_PLACE)
        window = {'left': 0, 'top': 0, 'right': place['width'], 'bottom': place['height']}
        assert place['pageWidth'] <= place['width'], 'the phone scrolls sideways'
        for part in ('ask', 'active'):  # the question, its boxes, and the step it asks about, on one screen
            box = place[part]
            assert box['top'] >= -1 and box['bottom'] <= window['bottom'] + 1, (part, box, place['height'])

        answer(phone, ['4', '3'])
        answer(laptop, ['-2', '3'])  # the `=` bug
        late.goto(f'{served}/?class={code}')  # a student who comes late lands on the question
        expect(late.locator('.player .ask input')).to_have_count(2)
        answer(late, ['four', ''])
        expect(late.locator('.player .ask .said')).to_contain_text('is not a number')
        answer(late, ['9', ''])  # changed: the inputs swapped, counted once
        for student in (phone, laptop, late):
            expect(student.locator('.player .ask .said')).to_contain_text('Sent ✓')
        expect(lecturer.get_by_text('3 of 3 answered')).to_be_visible()
        expect(lecturer.get_by_text('a.grad: 1 right · 1 swapped inputs · 1 = for +=')).to_be_visible()
        expect(lecturer.get_by_text('b.grad: 2 right · 1 blank')).to_be_visible()

        laptop.reload()  # mid-question: the same student (the id the server signed, kept), the answer shown as sent
        wait_for_player(laptop, REUSE_AT_A_TIMES_A + 1)
        expect(laptop.locator('.player .ask .said')).to_have_text('Sent ✓ You can change it until the reveal.')
        expect(laptop.locator('.player .ask .said')).to_be_visible()  # seen, not only heard (the live region is)
        expect(laptop.locator('.player .ask input').nth(0)).to_have_value('−2')
        expect(laptop.locator('.player .ask input').nth(1)).to_have_value('3')
        expect(lecturer.get_by_test_id('class-students')).to_have_text('3 students follow')
        expect(lecturer.get_by_text('3 of 3 answered')).to_be_visible()

        lecturer.get_by_text('Take new students').click()  # the class is in: the room takes no one else
        expect(lecturer.get_by_role('switch', name='Take new students')).not_to_be_checked()
        newcomer = contexts[0].browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        contexts.append(newcomer)
        stranger_phone = newcomer.new_page()
        stranger_phone.goto(f'{served}/?class={code}')
        expect(stranger_phone.locator('.player .notice')).to_contain_text(f'The class {code} takes no new students now')
        phone.reload()  # in the class already: back in
        wait_for_player(phone, REUSE_AT_A_TIMES_A + 1)
        expect(phone.locator('.player .ask .said')).to_contain_text('Sent ✓')
        expect(lecturer.get_by_test_id('class-students')).to_have_text('3 students follow')

        lecturer.locator('.st-key-reveal_room button').first.click()
        expect(lecturer.get_by_text('a.grad = 4.0000, b.grad = 3.0000')).to_be_visible()
        expect(phone.locator('.player .ask')).to_contain_text('✓ a.grad = 4 (you said 4)')
        expect(laptop.locator('.player .ask')).to_contain_text('✗ a.grad = 4 (you said −2) · Wrote = for +=')
        expect(late.locator('.player .ask')).to_contain_text('b.grad = 3 (you did not answer)')
        expect(phone.locator('.player .next')).to_be_enabled()
        expect(phone.locator('.player .rules')).to_contain_text('a.grad += b.data')  # the step, shown whole
        # the answers to take home, as a lecturer's pandas opens them: each phone's, by its mistake, with no id
        expect_answers(lecturer, 'Download the answers (CSV)', code)

        lecturer.reload()  # the lecturer's page reloaded: its class again, the question revealed still
        expect(lecturer.get_by_test_id('class-code')).to_have_text(' '.join(code))
        stranger = projector.new_page()  # a tab given a made-up secret leads nothing
        stranger.goto(f'{served}/?expr=reuse&present=1')
        made_up = "code => sessionStorage.setItem('backprop-class-lead', JSON.stringify({code, secret: 'x'}))"
        stranger.evaluate(made_up, code)
        stranger.reload()
        wait_for_player(stranger, 0)
        stranger.wait_for_timeout(1500)
        expect(stranger.get_by_role('button', name='Start a class')).to_be_visible()
        lecturer.get_by_role('button', name='End the class').click()
        expect(phone.locator('.player .notice')).to_contain_text('has ended: the lecturer closed it')
        expect_answers(lecturer, f'Download class {code}’s answers (CSV)', code)  # kept once the class has ended
    finally:
        projector.close()
        for context in contexts:
            context.close()
