"""A lesson in one file, in a real browser: the share panel's *Interactive page (HTML)* downloaded as a lecturer would,
then opened from file:// with the network cut off, and stepped through frame by frame. Every frame's caption, sums,
words, node table and each value's data and grad equal the page's at that frame, for every mode that has a lesson,
on a laptop's screen and a phone's; nothing is fetched and the file's own policy blocks nothing; it works in an
iframe of any size; and the student's code in it is text, never markup."""

import re
import zipfile
from urllib.parse import quote

import pytest
from playwright.sync_api import expect
from test_browser_access import SCREENS, assert_none
from test_browser_code import ASSIGNING_ADD
from test_browser_demo import VIEW, wait_for_player
from test_browser_fit import PHONE

from components.export_panel import LESSON_LABEL
from view.modes import MODES

pytestmark = pytest.mark.browser
expect.set_options(timeout=30_000)

# a scenario of each mode that has a lesson (view/modes.py: a mode that asks checks answers on the page): its link
LINKS = {
    'watch': 'expr=neuron',
    'bug': 'expr=reuse&mode=bug',
    'learn': 'expr=regression&mode=learn',
    'batch': 'expr=regression&mode=batch&point=3',
    'code': f'expr=reuse&mode=code&code.add={quote(ASSIGNING_ADD)}',
    'forward': 'expr=neuron&mode=forward&wrt=w1',
}
HIDDEN = 'expr=reuse&hide=new'  # the new grads as '?': hidden in the lesson too

# what a frame shows, read the same way on the page and in the lesson: the frame, its caption, the sums over the
# graph, the words under it, the node table, and each value's box (its name, data and grad texts) and each op's label
FRAME = """(root) => ({
  frame: root.dataset.frame,
  caption: root.querySelector('.caption').textContent,
  rules: root.querySelector('.rules').textContent,
  explain: root.querySelector('.explain').textContent,
  summary: root.querySelector('.summary').textContent,
  table: root.querySelector('.table').textContent,
  heard: root.querySelector('.heard').textContent,
  values: [...root.querySelectorAll('.view g.node')].filter((g) => /^n\\d+$/.test(g.id))
    .map((g) => g.id + ': ' + [...g.querySelectorAll('text')].map((t) => t.textContent).join(' | ')),
  edges: [...root.querySelectorAll('.view g.node')].filter((g) => /^l/.test(g.id))
    .map((g) => g.id + ': ' + [...g.querySelectorAll('text')].map((t) => t.textContent).join(' ')),
})"""
# what is wider than the window, outside a box that scrolls it
WIDE = """() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1
  && !e.closest('.view, .table, .heard')).map((e) => `${e.tagName}.${e.getAttribute('class')}`).slice(0, 8)"""
VIOLATIONS = """document.addEventListener('securitypolicyviolation',
  (e) => (window.__violations ||= []).push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`))"""


def test_every_mode_that_asks_nothing_has_a_link_here():
    assert set(LINKS) == {mode.name for mode in MODES if not mode.asks}


def frames_of(player, n):
    """Each frame from the first to frame n-1, stepped with →, as the page shows it."""
    player.locator('.view').press('Home')
    shown = []
    for k in range(n):
        expect(player).to_have_attribute('data-frame', str(k))
        shown.append(player.evaluate(FRAME))
        player.locator('.view').press('ArrowRight')
    return shown


def download_lesson(browser, served, query, screen, tmp_path):
    """The page at `query` on `screen`: each of its frames (frames_of), and its lesson downloaded from the share
    panel opened at the last frame, saved in tmp_path."""
    context = browser.new_context(**screen, accept_downloads=True)
    page = context.new_page()
    page.goto(f'{served}/?{query}')
    wait_for_player(page)
    player = page.locator('.player')
    n = int(player.locator('.slider').get_attribute('max')) + 1
    shown = frames_of(player, n)
    player.locator('.view').press('End')
    player.locator('.share').click()
    dialog = page.get_by_role('dialog')
    button = dialog.get_by_role('button', name=re.compile(re.escape(LESSON_LABEL)))
    with page.expect_download(timeout=60_000) as info:
        button.click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    context.close()
    return shown, path


def open_offline(browser, url, screen):
    """A page of `url` with the network cut off: every request that is not the file itself is refused and kept,
    and so is every violation of the file's policy and every error."""
    context = browser.new_context(**screen, offline=True)
    asked, errors = [], []
    context.route(re.compile(r'^(?!file:).*'), lambda route: (asked.append(route.request.url), route.abort()))
    page = context.new_page()
    page.on('request', lambda request: request.url.startswith('file:') or asked.append(request.url))
    page.on('pageerror', lambda error: errors.append(str(error)))
    page.add_init_script(VIOLATIONS)
    page.goto(url)
    return context, page, asked, errors


@pytest.mark.parametrize('screen', [{'viewport': VIEW}, PHONE], ids=['laptop', 'phone'])
@pytest.mark.parametrize('mode', LINKS)
def test_the_lesson_steps_through_every_frame_as_the_page_does_offline(browser, served, tmp_path, mode, screen):
    shown, path = download_lesson(browser, served, LINKS[mode], screen, tmp_path)
    assert path.suffix == '.html'
    context, page, asked, errors = open_offline(browser, path.as_uri(), screen)
    try:
        player = page.locator('.player')
        # it opens at the frame it was shared at, the last
        expect(player).to_have_attribute('data-frame', str(len(shown) - 1))
        expect(player.locator('.view svg')).to_be_visible()
        assert frames_of(player, len(shown)) == shown
        assert page.evaluate('document.fonts.check(\'14px "DejaVu Sans Mono"\')')
        assert page.evaluate('window.__violations || []') == []
        assert asked == [] and errors == []
        assert not player.locator('.share').is_visible()  # sharing needs the page: the file says where it is
        expect(page.locator('header.lesson')).to_contain_text('To type a new formula or your own code, open')
        page_link = page.locator('header.lesson a').get_attribute('href')
        assert page_link.split('?')[0].rstrip('/') == served.rstrip('/') and LINKS[mode].split('&')[0] in page_link
    finally:
        context.close()


def test_hidden_grads_stay_hidden_and_play_and_the_slider_step_the_lesson(browser, served, tmp_path):
    shown, path = download_lesson(browser, served, HIDDEN, {'viewport': VIEW}, tmp_path)
    assert any('?' in value for frame in shown for value in frame['values'])
    context, page, asked, errors = open_offline(browser, path.as_uri(), {'viewport': VIEW})
    try:
        player = page.locator('.player')
        # as its top says: ← and → step, Space plays, from the moment it opens, wherever the focus is
        page.keyboard.press('Home')
        expect(player).to_have_attribute('data-frame', '0')
        page.keyboard.press('ArrowRight')
        expect(player).to_have_attribute('data-frame', '1')
        assert frames_of(player, len(shown)) == shown
        player.locator('.slider').fill('3')
        expect(player).to_have_attribute('data-frame', '3')
        player.locator('.play').click()
        expect(player).to_have_attribute('data-frame', str(len(shown) - 1), timeout=30_000)
        assert asked == [] and errors == [] and page.evaluate('window.__violations || []') == []
    finally:
        context.close()


def test_the_lessons_presentation_view_and_high_contrast_switch_in_place_keeping_the_frame(browser, served, tmp_path):
    shown, path = download_lesson(browser, served, 'expr=reuse', {'viewport': VIEW}, tmp_path)
    context, page, asked, errors = open_offline(browser, path.as_uri(), {'viewport': VIEW})
    try:
        player = page.locator('.player')
        player.locator('.view').press('Home')
        player.locator('.view').press('ArrowRight')
        for name, look in [('Presentation view', 'present'), ('High contrast', 'high-contrast')]:
            button = page.get_by_role('button', name=name)
            button.click()
            expect(button).to_have_attribute('aria-pressed', 'true')
            expect(player).to_have_class(re.compile(rf'\b{look}\b'))
            expect(player).to_have_attribute('data-frame', '1')
        player.locator('.view').press('ArrowRight')
        now, then = player.evaluate(FRAME), shown[2]
        now.pop('edges'), then.pop('edges')  # the projector's shape of the graph has no edge labels to patch
        assert now == then  # the same words and numbers, in the projector's look
        page.get_by_role('button', name='Presentation view').click()
        expect(player).not_to_have_class(re.compile(r'\bpresent\b'))
        assert asked == [] and errors == [] and page.evaluate('window.__violations || []') == []
    finally:
        context.close()


def test_the_lesson_steps_in_an_iframe_of_any_size(browser, served, tmp_path):
    _, path = download_lesson(browser, served, 'expr=mlp', {'viewport': VIEW}, tmp_path)
    # an LMS's iframe may be sandboxed: scripts alone, in an origin of its own
    for width, height, sandbox in [(320, 240, ''), (640, 360, ' sandbox="allow-scripts"'), (1280, 720, '')]:
        host = tmp_path / f'slide_{width}.html'
        frame = f'<iframe src="{path.name}" width="{width}" height="{height}"{sandbox} title="lesson"></iframe>'
        host.write_text(f'<!DOCTYPE html>{frame}')
        context, page, asked, errors = open_offline(browser, host.as_uri(), {'viewport': VIEW})
        try:
            frame = page.frame_locator('iframe')
            player = frame.locator('.player')
            expect(player.locator('.view svg')).to_be_visible()
            last = player.get_attribute('data-frame')
            player.locator('.view').press('Home')
            expect(player).to_have_attribute('data-frame', '0')
            player.locator('.view').press('ArrowRight')
            expect(player).to_have_attribute('data-frame', '1')
            assert last != '0' and asked == [] and errors == []
            assert page.frames[1].evaluate('window.__violations || []') == []
            # the graph stays within the iframe's width: no page wider than its frame
            wide = page.frames[1].evaluate(WIDE)
            assert wide == [], wide
            page.frames[1].wait_for_function('document.documentElement.scrollWidth <= innerWidth', timeout=5_000)
        finally:
            context.close()


def test_the_students_code_is_printed_in_the_lesson_never_run_as_markup(browser, served, tmp_path):
    hostile = 'self.grad += out.grad  # </script><img src=x onerror="document.title=1">\nother.grad += out.grad'
    _, path = download_lesson(browser, served, f'expr=reuse&mode=code&code.add={quote(hostile)}', {'viewport': VIEW},
                              tmp_path)  # fmt: skip
    context, page, asked, errors = open_offline(browser, path.as_uri(), {'viewport': VIEW})
    try:
        expect(page.locator('section.code pre').first).to_contain_text(hostile.splitlines()[0])
        assert page.locator('section.code img').count() == 0 and page.title() != '1'
        assert asked == [] and errors == [] and page.evaluate('window.__violations || []') == []
    finally:
        context.close()


def test_the_zip_of_the_whole_pass_holds_the_lesson(browser, served, tmp_path):
    context = browser.new_context(viewport=VIEW, accept_downloads=True)
    page = context.new_page()
    page.goto(f'{served}/?expr=reuse')
    wait_for_player(page)
    page.locator('.player .share').click()
    dialog = page.get_by_role('dialog')
    dialog.get_by_role('button', name='Make the ZIP of SVGs').click()
    ready = dialog.get_by_role('button', name='ZIP of SVGs (')
    with page.expect_download(timeout=60_000) as info:
        ready.click()
    names = zipfile.ZipFile(info.value.path()).namelist()
    context.close()
    assert 'reuse_a3_b-2.html' in names and sum(name.endswith('.svg') for name in names) == 10


@pytest.mark.parametrize('screen', SCREENS)
def test_the_lesson_meets_wcag_21_aa_as_it_steps(browser, served, tmp_path, screen):
    _, path = download_lesson(browser, served, LINKS['code'], SCREENS[screen], tmp_path)
    context = browser.new_context(**SCREENS[screen], bypass_csp=True)  # axe-core is injected as a script of its own
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        player = page.locator('.player')
        for key, frame in [('Home', '0'), ('ArrowRight', '1'), ('End', None)]:
            player.locator('.view').press(key)
            if frame is not None:
                expect(player).to_have_attribute('data-frame', frame)
            assert_none(page, f'the lesson on a {screen} after {key}')
    finally:
        context.close()
