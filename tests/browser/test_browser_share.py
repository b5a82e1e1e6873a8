"""The share panel in a real browser: its link and QR code reopen the frame shown, and playing adds no history."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect
from test_browser_demo import VIEW, wait_for_player

from engine import PRESETS

pytestmark = pytest.mark.browser
expect.set_options(timeout=20_000)


def open_share_panel(page):
    page.locator('.player .share').click()
    dialog = page.get_by_role('dialog')
    expect(dialog).to_be_visible()
    return dialog


def test_the_share_panels_link_opens_the_same_frame_in_a_fresh_browser(browser, served):
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    page.goto(f'{served}/?expr=custom&formula=L%20%3D%20a*b%20%2B%20a%2Fc&v.a=1.5')
    wait_for_player(page, 0)
    for k in (1, 2, 3, 4, 5):
        page.get_by_role('button', name='Next').click()
        wait_for_player(page, k)
    # the player writes the address bar at most every 300 ms (later on a busy machine): the panel links what it holds
    expect(page).to_have_url(re.compile(r'[?&]step=5(&|$)'))
    dialog = open_share_panel(page)
    link = dialog.locator('code').filter(has_text='http').first.text_content().strip()
    query = parse_qs(urlsplit(link).query)
    assert query['step'] == ['5'] and query['formula'] == ['L = a*b + a/c'] and query['v.a'] == ['1.5']
    expect(dialog.get_by_text('Frame 6 of')).to_be_visible()  # step=5, as the page's caption says it
    qr = dialog.locator('img').first
    expect(qr).to_be_visible()
    assert qr.bounding_box()['width'] >= 400  # readable off a projector
    shown = page.locator('.player .caption').text_content()
    context.close()

    fresh = browser.new_context(viewport=VIEW)
    other = fresh.new_page()
    other.goto(link)
    wait_for_player(other, 5)
    assert other.locator('.player .caption').text_content() == shown
    fresh.close()


def test_back_after_playing_leaves_the_page_instead_of_stepping_through_frames(browser, served):
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    page.goto(f'{served}/?expr=neuron')
    wait_for_player(page, 0)
    page.goto(f'{served}/?expr=reuse&speed=10')
    wait_for_player(page, 0)
    page.get_by_role('button', name='Play').click()
    expect(page.locator('.player .caption')).to_have_text(re.compile(r'^Frame (\d+) of \1\b'))
    expect(page).to_have_url(re.compile(r'[?&]step=end(&|$)'))
    page.go_back()
    expect(page).to_have_url(re.compile(r'expr=neuron'))
    context.close()


def test_back_and_forward_after_choosing_another_expression_go_between_the_two(browser, served):
    context = browser.new_context(viewport=VIEW)
    page = context.new_page()
    page.goto(f'{served}/?expr=reuse')
    wait_for_player(page, 0)
    expression = page.locator('[data-testid="stSidebar"]').get_by_role('combobox', name='Expression')
    expression.click()
    page.get_by_role('option', name=PRESETS['neuron'].menu).click()
    expect(page).to_have_url(re.compile(r'expr=neuron'))
    wait_for_player(page, 0)
    page.go_back()  # the run it makes carries the link from before the page wrote its own, and is followed
    expect(page).to_have_url(re.compile(r'expr=reuse'))
    sidebar = page.locator('[data-testid="stSidebar"]')
    first_input = lambda name: sidebar.get_by_role('spinbutton', name=next(iter(PRESETS[name].defaults)), exact=True)  # noqa: E731
    expect(first_input('reuse')).to_be_visible()
    page.go_forward()
    expect(page).to_have_url(re.compile(r'expr=neuron'))
    expect(first_input('neuron')).to_be_visible()
    context.close()
