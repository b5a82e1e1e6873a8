"""Screenshots of the page for the docs: `python -m scripts.screenshots` (needs Debian's chromium at /usr/bin/chromium).

Starts `streamlit run main.py` on a free port (tests/support/serve.py, as the tests do), opens each view by its link
(?expr=...&step=...) in a fresh page, and saves a full-page PNG at 1600x1000 into docs/; the presentation view, made
to fit its window, as the window of a 1920x1080 projector; and the window of a phone and of a laptop (screen-*.png).
One picture per teaching mode (mode-*.png): your own _backward, the = bug, the
quiz (its first question answered in the page), the quiz in the presentation view, one step of learning, forward
mode, and learning from a batch. A lesson in one file, on a slide and on a phone (lesson-*.png). And a
live class (class-*.png): a projector and three students in Chromium (two laptops, a phone), with 21 more students
following over plain HTTP, asked a question, answering it, and the reveal.

    python -m scripts.screenshots               # every picture
    python -m scripts.screenshots class         # a live class's alone
    python -m scripts.screenshots forward       # forward mode's alone
    python -m scripts.screenshots batch         # learning from a batch's alone
    python -m scripts.screenshots lesson        # a lesson in one file, on a slide and on a phone
"""

import asyncio
import re
import sys
import tempfile
import threading
import urllib.parse
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from tests.support.follow import Follower, request
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, check_chromium, serve_app

DOCS = Path(__file__).resolve().parent.parent / 'docs'

VIEWPORT = {'width': 1600, 'height': 1000}
GRAPH = '.player .view svg'  # the player's graph
MLP_FRAME = 44  # mid-backward: h2 × v2 passes its grad back; some grads final, some still collecting, some not yet
PROJECTOR = {'width': 1920, 'height': 1080}
NEURON_FRAME = 14  # mid-backward: x1*w1 passes its grad back, x1.grad += w1.data × 0.5 = -1.5
NEURON_X2_W2 = 11  # x2*w2 passes its grad back: x2.grad += w2.data × 0.5 = 0.5, w2.grad += x2.data × 0.5 = 0
NEURON_SEED = 6  # the seed, o.grad = 1, in its own look
REUSE_BUG_FRAME = 7  # a*b's a.grad = replaces what a*a wrote: its edge struck through
REUSE_ASK_A = 7  # the presentation quiz on reuse: a*a's step asks for a.grad (3 + 3)

expect.set_options(timeout=30_000)


def caption(page):
    return page.locator('.player .caption, [data-testid="stCaptionContainer"]').filter(
        has_text=re.compile(r'^Frame \d+ of \d+')
    )


def open_view(browser, url, query, viewport=VIEWPORT):
    """A fresh page (its own session) showing `query`, with the graph drawn; returns (page, the frame's number, the
    count), as the caption says them: 'Frame 10 of 10', counted from 1 (a link's step= counts from 0)."""
    page = browser.new_page(viewport=viewport)
    page.goto(f'{url}/{query}')
    expect(page.locator('[data-testid="stApp"]')).to_be_visible()
    expect(page.locator(GRAPH)).to_be_visible()
    expect(caption(page)).to_be_visible()
    page.wait_for_load_state('networkidle')
    page.evaluate('document.fonts.ready')
    k, n = map(int, re.match(r'Frame (\d+) of (\d+)', caption(page).text_content()).groups())
    return page, k, n


def grads(page):
    """{name: grad as shown} for every value box in the graph."""
    rows = (
        page.locator(GRAPH)
        .locator('g.node')
        .evaluate_all('nodes => nodes.map(g => [...g.querySelectorAll("text")].map(t => t.textContent.trim()))')
    )
    return {texts[0]: texts[4] for texts in rows if len(texts) == 5 and texts[1] == 'data'}


def save(page, name):
    """A full-page PNG. The app scrolls inside its own container, so grow the viewport to the content first."""
    height = page.evaluate(
        '() => Math.max(...[...document.querySelectorAll(\'[data-testid="stMain"], [data-testid="stSidebarContent"]\')]'
        '.map(e => e.scrollHeight))'
    )
    page.set_viewport_size({'width': VIEWPORT['width'], 'height': max(VIEWPORT['height'], height)})
    page.wait_for_timeout(500)  # let the chart refit to the new size
    path = DOCS / name
    page.screenshot(path=str(path), full_page=True)
    print(f'wrote {path.relative_to(DOCS.parent)} ({page.viewport_size["width"]}x{page.viewport_size["height"]})')
    page.close()


def save_window(page, name):
    """The window as it is: the presentation view fits itself to it."""
    page.wait_for_timeout(500)  # the player fits the graph once the controls above it are drawn
    path = DOCS / name
    page.screenshot(path=str(path))
    print(f'wrote {path.relative_to(DOCS.parent)} ({page.viewport_size["width"]}x{page.viewport_size["height"]})')
    page.close()


# the screens the page fits itself to (tests/browser/test_browser_fit.py checks each): a phone held upright, in
# Chromium's mobile emulation, and a laptop's window beside the sidebar; each picture is the window scrolled to the
# player
PHONE = {'viewport': {'width': 390, 'height': 844}, 'is_mobile': True, 'has_touch': True, 'device_scale_factor': 2}
LAPTOP = {'viewport': {'width': 1366, 'height': 768}}
SCREENS = [
    (PHONE, f'?expr=reuse&step={REUSE_BUG_FRAME - 1}', 'screen-phone-reuse.png'),
    (PHONE, f'?expr=neuron&step={NEURON_FRAME}', 'screen-phone-neuron.png'),
    (LAPTOP, '?expr=lecture&step=9', 'screen-laptop-lecture.png'),
    (LAPTOP, '?expr=mlp&step=44', 'screen-laptop-mlp.png'),
]


def save_screen(browser, url, options, query, name):
    """The window of a fresh browser of `options` (a phone's, a laptop's), scrolled to the player."""
    context = browser.new_context(**options)
    page = context.new_page()
    page.goto(f'{url}/{query}')
    expect(page.locator(GRAPH)).to_be_visible()
    page.evaluate('document.fonts.ready')
    page.wait_for_timeout(800)  # the player picks its shape once Streamlit's layout has settled
    # the player's top just under Streamlit's header, as a step leaves it (its bar in sight)
    page.locator('.player').evaluate(
        """root => {
            root.scrollIntoView({block: 'start'});
            const header = document.querySelector('[data-testid=stHeader]')?.offsetHeight || 0;
            const boxes = [document.scrollingElement, ...document.querySelectorAll('[data-testid=stMain], section')];
            const scrolled = boxes.find(box => box && box.scrollTop > 0);  // the player is in a shadow root
            if (scrolled) scrolled.scrollTop -= header;
        }"""
    )
    path = DOCS / name
    page.screenshot(path=str(path))
    shape = page.locator('.player').get_attribute('data-shape')
    size = options['viewport']
    print(f'wrote {path.relative_to(DOCS.parent)} ({size["width"]}x{size["height"]}, the {shape} shape)')
    context.close()


def reuse_accumulating_frame(browser, url):
    """The first reuse frame where a's grad is 6.0000 (collected from a·a) before a·b brings it to 4.0000."""
    page, _, n = open_view(browser, url, '?expr=reuse')
    page.close()
    for k in range(n):  # step=0 to n - 1
        page, _, _ = open_view(browser, url, f'?expr=reuse&step={k}')
        a = grads(page)['a']
        page.close()
        if a == '6.0000':
            return k
        if a == '4.0000':
            break
    raise RuntimeError('no reuse frame shows a.grad = 6.0000 before 4.0000')


def quiz_answered_wrongly(browser, url):
    """Predict the grad on reuse, its first question answered half wrongly: the ✗, the ✓ and the chain rule show."""
    page, _, _ = open_view(browser, url, '?expr=reuse&mode=quiz')
    quiz = page.locator('.st-key-quiz')
    quiz.get_by_label('(a*b).grad', exact=True).fill('1')
    quiz.get_by_label('(a*a).grad', exact=True).fill('9')  # its data, not its grad: + passes out.grad on unchanged
    quiz.get_by_role('button', name='Check').click()
    expect(quiz).to_contain_text('✗ not quite')
    expect(caption(page)).to_contain_text('Frame 6 of 10')  # the answer to its first question: out's step
    return page


# a student's bodies (mode=code): the right + and tanh, and a × that swaps its inputs; first difference at a*b's step
SWAPPED_MUL = urllib.parse.urlencode({
    'code.add': 'self.grad += out.grad\nother.grad += out.grad', 'code.tanh': 'self.grad += (1 - t**2) * out.grad',
    'code.mul': 'self.grad += self.data * out.grad\nother.grad += other.data * out.grad',
})  # fmt: skip


def code_mode(browser, url):
    page, _, _ = open_view(browser, url, f'?expr=reuse&mode=code&{SWAPPED_MUL}&step={REUSE_BUG_FRAME}')
    expect(caption(page)).to_contain_text('first difference from the right engine')
    save(page, 'mode-code.png')


def exported_gif(name):
    """The whole pass of `reuse` as the share panel's GIF export makes it (exports.pass_gif, on the server)."""
    import exports
    from engine import PRESETS, trace_backward
    from engine.frames import frames
    from view.numbers import number_width

    leaves, out = PRESETS['reuse'].build(None)
    trace = trace_backward(out, leaves)
    path = DOCS / name
    path.write_bytes(exports.pass_gif(trace, frames(trace), number_width(trace)))
    print(f'wrote {path.relative_to(DOCS.parent)} ({path.stat().st_size:,} bytes)')


# a live class on reuse at a=3, b=-2, asked at a*b's step after a*a's (tests/browser/test_browser_live.py works it by
# hand: a.grad = 6 + (-2)(1) = 4, b.grad = 3): what the room answers, a.grad and b.grad, as a class might
REUSE_AT_A_TIMES_A = 6
ROOM_SAYS = [('4', '3')] * 11 + [('-2', '3')] * 5 + [('9', '-2')] * 3 + [('8', '-3')] * 2 + [('2', '1')] * 2


class Room:
    """Students who follow a class and answer its question over plain HTTP, in a thread of their own (the pictures'
    Chromium pages are the rest of the class)."""

    def __init__(self, url, code, count):
        host, port = url.removeprefix('http://').split(':')
        self.where, self.code = (host, int(port)), code
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.followers = [Follower(*self.where, code, student=f'pictured-student-{k:03d}') for k in range(count)]
        for follower in self.followers:
            asyncio.run_coroutine_threadsafe(follower.run(), self.loop)

    def answer(self, question, says):
        async def send():
            for follower, (a, b) in zip(self.followers, says):
                body = {'student': follower.student, 'question': question['id'],
                        'answers': dict(zip([item['node'] for item in question['asked']], [a, b]))}  # fmt: skip
                status, got, _ = await request(*self.where, 'POST', f'/api/class/{self.code}/answer', body)
                assert status == 200, got

        asyncio.run_coroutine_threadsafe(send(), self.loop).result(60)

    def question(self):
        return next(f.state['question'] for f in self.followers if f.state and f.state.get('question'))

    def close(self):
        for follower in self.followers:
            asyncio.run_coroutine_threadsafe(follower.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)


def live_class(browser, url):
    """class-projector-asked.png, class-projector-revealed.png (the projector, 1920x1080), class-phone-following.png,
    class-phone-asked.png, class-phone-revealed.png (a student's phone), class-laptop-revealed.png (another student's
    laptop)."""
    projector = browser.new_context(viewport=PROJECTOR)
    phone_context, laptop_context = browser.new_context(**PHONE), browser.new_context(**LAPTOP)
    lecturer = projector.new_page()
    lecturer.goto(f'{url}/?expr=reuse&present=1&step={REUSE_AT_A_TIMES_A}')
    expect(lecturer.locator('.player .explain')).to_have_attribute('data-frame', str(REUSE_AT_A_TIMES_A))
    lecturer.get_by_role('button', name='Start a class').click()
    code = lecturer.get_by_test_id('class-code').inner_text().replace(' ', '')
    phone, laptop = phone_context.new_page(), laptop_context.new_page()
    for student in (phone, laptop):
        student.goto(f'{url}/?class={code}')
        expect(student.locator('.player .explain')).to_have_attribute('data-frame', str(REUSE_AT_A_TIMES_A))
    phone.wait_for_timeout(1500)  # the phone brings the lecturer's step into its window
    phone.screenshot(path=str(DOCS / 'class-phone-following.png'))
    room = Room(url, code, len(ROOM_SAYS) - 2)
    try:
        expect(lecturer.get_by_test_id('class-students')).to_have_text(f'{len(ROOM_SAYS)} students follow')
        lecturer.wait_for_timeout(1200)
        lecturer.screenshot(path=str(DOCS / 'class-projector-start.png'))
        lecturer.locator('.st-key-ask_room button').first.click()
        expect(phone.locator('.player .ask input')).to_have_count(2)
        for student, (a, b) in ((phone, ROOM_SAYS[0]), (laptop, ROOM_SAYS[11])):
            student.locator('.player .ask input').nth(0).fill(a)
            student.locator('.player .ask input').nth(1).fill(b)
            student.locator('.player .ask button[type=submit]').click()
            expect(student.locator('.player .ask .said')).to_contain_text('Sent')
        phone.screenshot(path=str(DOCS / 'class-phone-asked.png'))
        expect(lecturer.get_by_text('2 of')).to_be_visible()
        room.answer(room.question(), ROOM_SAYS[1:11] + ROOM_SAYS[12:])
        expect(lecturer.get_by_text(f'{len(ROOM_SAYS)} of {len(ROOM_SAYS)} answered')).to_be_visible()
        lecturer.wait_for_timeout(1200)
        lecturer.screenshot(path=str(DOCS / 'class-projector-asked.png'))
        lecturer.locator('.st-key-reveal_room button').first.click()
        expect(lecturer.get_by_text('a.grad = 4.0000, b.grad = 3.0000')).to_be_visible()
        expect(laptop.locator('.player .ask')).to_contain_text('you said −2')
        lecturer.wait_for_timeout(1200)
        lecturer.screenshot(path=str(DOCS / 'class-projector-revealed.png'))
        phone.screenshot(path=str(DOCS / 'class-phone-revealed.png'))
        laptop.screenshot(path=str(DOCS / 'class-laptop-revealed.png'))
        for name in ('start', 'asked', 'revealed'):
            print(f'wrote docs/class-projector-{name}.png')
        print(
            'wrote docs/class-phone-following.png, docs/class-phone-asked.png, docs/class-phone-revealed.png, '
            'docs/class-laptop-revealed.png'
        )
    finally:
        room.close()
        for context in (projector, phone_context, laptop_context):
            context.close()


def forward_mode(browser, url):
    """Forward mode on reuse by a, at its last frame: the output's tangent beside a.grad, the costs, the paths."""
    page, k, n = open_view(browser, url, '?expr=reuse&mode=forward&wrt=a&step=end')
    assert k == n, (k, n)
    expect(caption(page)).to_contain_text('its tangent ∂out/∂a')
    expect(page.get_by_text('The chain rule as a sum over paths')).to_be_visible()
    save(page, 'mode-forward.png')


def batch_mode(browser, url):
    """Learning from a batch on the regression: point 3's pass at its end, after 3 steps on the batch, and below it
    what its backward adds, the mean and the step, the data and the mean loss."""
    page, k, n = open_view(browser, url, '?expr=regression&mode=batch&point=3&learned=3&step=end')
    assert k == n, (k, n)
    expect(page.get_by_text('What point 3’s backward adds')).to_be_visible()
    expect(page.locator('[data-testid="stVegaLiteChart"]').first).to_be_visible()
    save(page, 'mode-batch.png')


def lesson_in_one_file(browser, url):
    """A lesson in one file (Share → Interactive page (HTML)) of the MLP, shared at frame 45, as a slide shows it in
    an iframe of 960x540 (docs/lesson-slide.png), and on a phone (docs/lesson-phone.png), opened from file://."""
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    page = context.new_page()
    page.goto(f'{url}/?expr=mlp&step={MLP_FRAME}')
    page.locator(GRAPH).wait_for()
    page.locator('.player .share').click()
    with page.expect_download() as info:
        page.get_by_role('dialog').get_by_role('button', name=re.compile('Interactive page')).click()
    with tempfile.TemporaryDirectory() as folder:
        lesson = Path(folder) / 'mlp.html'
        info.value.save_as(lesson)
        context.close()
        slide = Path(folder) / 'slide.html'
        slide.write_text(
            '<!DOCTYPE html><body style="margin: 32px 48px; font: 28px sans-serif; color: #31333f">'
            '<h2 style="margin: 0 0 16px">Every weight gets its grad in one backward pass</h2>'
            '<iframe src="mlp.html" width="960" height="540" title="The tiny MLP, step by step"></iframe></body>'
        )  # fmt: skip
        shown = browser.new_page(viewport={'width': 1280, 'height': 720})
        shown.goto(slide.as_uri())
        expect(shown.frame_locator('iframe').locator(GRAPH)).to_be_visible()
        shown.wait_for_timeout(500)
        shown.screenshot(path=DOCS / 'lesson-slide.png')
        shown.close()
        phone = browser.new_context(**PHONE)
        shown = phone.new_page()
        shown.goto(lesson.as_uri())
        expect(shown.locator(GRAPH)).to_be_visible()
        shown.wait_for_timeout(500)
        shown.screenshot(path=DOCS / 'lesson-phone.png')
        phone.close()
    print('docs/lesson-slide.png, docs/lesson-phone.png')


SHOTS = {'class': live_class, 'forward': forward_mode, 'batch': batch_mode, 'lesson': lesson_in_one_file}


def main():
    only = sys.argv[1:]
    if only and (len(only) != 1 or only[0] not in SHOTS):
        sys.exit(__doc__)
    if not only:
        exported_gif('reuse-pass.gif')
    missing = check_chromium()
    if missing:
        sys.exit(missing)
    with serve_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        if only:
            SHOTS[only[0]](browser, url)
            browser.close()
            return
        try:
            live_class(browser, url)
            for options, query, name in SCREENS:
                save_screen(browser, url, options, query, name)
            save(open_view(browser, url, '?expr=neuron&step=0')[0], 'neuron-start.png')
            page, _, _ = open_view(browser, url, f'?expr=neuron&step={NEURON_SEED}')
            expect(caption(page)).to_contain_text('o.grad = 1')
            save(page, 'neuron-seed.png')
            page, _, _ = open_view(browser, url, f'?expr=neuron&step={NEURON_X2_W2}')
            expect(caption(page)).to_contain_text('x2*w2')
            save(page, 'neuron-x2w2.png')

            k = reuse_accumulating_frame(browser, url)
            print(f'reuse: a.grad is 6.0000, not yet 4.0000, at frame {k}')
            save(open_view(browser, url, f'?expr=reuse&step={k}')[0], 'reuse-accumulating.png')

            page, k, n = open_view(browser, url, '?expr=reuse&step=1000000')  # the step is capped at the last frame
            assert k == n, (k, n)
            checks = page.locator('.player .summary')
            expect(checks.filter(has=page.locator('th', has_text='finite'))).to_have_count(1)
            save(page, 'reuse-end.png')

            page, _, _ = open_view(browser, url, f'?expr=mlp&step={MLP_FRAME}')
            expect(caption(page)).to_contain_text('backward pass')
            save(page, 'mlp-backward.png')

            page, _, _ = open_view(browser, url, f'?expr=neuron&present=1&step={NEURON_FRAME}', PROJECTOR)
            expect(caption(page)).to_contain_text('x1*w1 = x1 × w1 passes its grad back')
            save_window(page, 'present-neuron.png')

            page, _, _ = open_view(browser, url, f'?expr=reuse&mode=bug&step={REUSE_BUG_FRAME}')
            expect(caption(page)).to_contain_text('throws away a.grad')
            save(page, 'mode-bug.png')

            save(quiz_answered_wrongly(browser, url), 'mode-quiz.png')

            page, _, _ = open_view(browser, url, f'?expr=reuse&mode=quiz&present=1&step={REUSE_ASK_A}', PROJECTOR)
            expect(caption(page)).to_contain_text('predict: a*a')
            save_window(page, 'mode-quiz-present.png')

            page, k, n = open_view(browser, url, '?expr=regression&mode=learn&step=end')
            assert k == n, (k, n)
            expect(caption(page)).to_contain_text('· loss 1.5625 → 0.1914')
            expect(page.locator('.player .plot svg')).to_be_visible()  # the loss over the steps, in the player
            page.locator('.player button.fit').click()  # the whole graph: w and b with the loss they lowered
            save(page, 'mode-learn.png')

            code_mode(browser, url)
            forward_mode(browser, url)
            batch_mode(browser, url)
            lesson_in_one_file(browser, url)
        finally:
            browser.close()


if __name__ == '__main__':
    main()
