"""A live class in Chromium: a lecturer's presentation view starts a class, a student's phone opens ?class=CODE, and
the phone follows the lecturer's steps within 2 s with no reload of its page; a step of its own leaves the class,
and one tap lands on the class's frame again."""

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
