"""Two replicas of the page behind Debian's haproxy, run with deploy/haproxy.cfg (its server-templates replaced by two
local replicas: tests/support/replicas.py): each browser stays on its replica; when one replica dies its pages reconnect
through haproxy to the other, with no click, at the same scenario and frame, while the other replica's pages are left
alone."""

import os
import re
import signal
import time
import urllib.request

import pytest
from playwright.sync_api import expect
from test_browser_demo import VIEW, wait_for_player
from test_browser_live import PHONE

from server.rooms import ENV
from tests.support.replicas import serve_redis, serve_replicas
from tests.support.serve import healthy

pytestmark = pytest.mark.browser
COOKIE = 'BACKPROP_REPLICA'
# each page its own scenario and frame; on one replica the first and third, on the other the second and fourth
SCENARIOS = [('expr=reuse', 3), ('expr=neuron', 2), ('expr=lecture', 4), ('expr=regression', 1)]


@pytest.fixture
def replicas():
    """({name: replica URL}, the balancer, its URL): two `streamlit run main.py` behind haproxy, all stopped after."""
    with serve_replicas(2) as running:
        yield running


def replica_cookie(context):
    return next(c['value'] for c in context.cookies() if c['name'] == COOKIE)


def eventually(check, timeout=30):
    """Wait until check() is true (a cookie the browser stores as it reads the answer that set it)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f'not within {timeout} s'
        time.sleep(0.1)


def test_a_replicas_pages_reconnect_to_the_other_at_the_same_frame_and_the_others_pages_are_left_alone(
    browser, replicas
):
    served, balancer, url = replicas
    contexts, pages, frames, on = [], [], [], []
    try:
        for i, (query, k) in enumerate(SCENARIOS):
            contexts.append(browser.new_context(viewport=VIEW))
            page = contexts[-1].new_page()
            page.goto(f'{url}/?{query}&step={k}')
            wait_for_player(page, k)
            page.get_by_role('button', name='Next').click()  # a frame of its own, in the address bar
            wait_for_player(page, k + 1)
            expect(page).to_have_url(re.compile(rf'step={k + 1}\b'))
            pages.append(page)
            frames.append(k + 1)
            on.append(balancer.wait_for_websockets(i + 1)[i])
        # haproxy deals new browsers out in turn, and each stays where it was dealt: a reload comes back to it
        dead, survivor = on[:2]
        assert dead != survivor and on == [dead, survivor] * 2, balancer.log.read_text()
        cookies = [replica_cookie(context) for context in contexts]
        assert cookies[0] == cookies[2] != cookies[1] == cookies[3]
        for i in (0, 1):
            pages[i].reload()
            wait_for_player(pages[i], frames[i])
            assert balancer.wait_for_websockets(5 + i)[4 + i] == on[i]

        before = len(balancer.websockets())
        os.kill(served[dead].pid, signal.SIGKILL)  # a crash: no goodbye to the open websockets
        gone, kept = [0, 2], [1, 3]
        assert balancer.wait_for_websockets(before + 2)[before:] == [survivor, survivor]
        assert not healthy(served[dead])
        for i in gone:  # back with no click, at the same frame, now on the other replica
            page = pages[i]
            expect(page.get_by_text('Connection error')).to_have_count(0)
            wait_for_player(page, frames[i])
            expect(page.locator('.player .caption')).to_contain_text(f'Frame {frames[i] + 1} of')
            eventually(lambda: replica_cookie(contexts[i]) == cookies[1])  # noqa: B023 - called at once
            page.get_by_role('button', name='Next').click()
            wait_for_player(page, frames[i] + 1)
            expect(page).to_have_url(re.compile(rf'step={frames[i] + 1}\b'))
            # nothing it needs was left in the dead replica: the survivor, which never drew this expression, draws
            # it from the link alone, at that frame
            page.reload()
            wait_for_player(page, frames[i] + 1)
            expect(page.locator('[data-testid="stException"]')).to_have_count(0)
        for i in kept:  # undisturbed: they step, and a change that needs the server is made by their replica
            page = pages[i]
            page.get_by_role('button', name='Next').click()
            wait_for_player(page, frames[i] + 1)
            answers = page.locator('.player .table th', has_text='answer: grad at the end')
            expect(answers).to_be_hidden()
            page.get_by_text('Show the answers in the table').click()
            expect(answers).to_be_visible()
            wait_for_player(page, frames[i] + 1)
        # the two reconnections and the two reloads, all on the survivor; the others' websockets were never cut
        assert balancer.wait_for_websockets(before + 4)[before:] == [survivor] * 4
        assert len(balancer.websockets()) == before + 4
        assert [replica_cookie(context) for context in contexts] == [cookies[1]] * 4
    finally:
        for context in contexts:
            context.close()


def test_sticky_requests_stay_on_their_replica_and_a_new_browser_is_dealt_the_next(replicas):
    """Plain HTTP through the balancer: without the cookie requests alternate between replicas, with it they stay."""
    _, balancer, url = replicas

    def served_by(cookie=None):
        logged = len(balancer.log.read_text().splitlines())
        request = urllib.request.Request(f'{url}/_stcore/health', headers={'Cookie': cookie} if cookie else {})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.read().strip() == b'ok'
            ours = [c.split(';')[0] for c in response.headers.get_all('Set-Cookie') or [] if c.startswith(COOKIE)]
        eventually(lambda: len(balancer.log.read_text().splitlines()) > logged)
        return re.findall(r' replicas/(\w+) ', balancer.log.read_text())[-1], (ours or [None])[0]

    first, cookie = served_by()
    assert cookie and cookie.startswith(f'{COOKIE}=')
    assert [served_by(cookie)[0] for _ in range(6)] == [first] * 6
    dealt = [served_by()[0] for _ in range(4)]  # new browsers, dealt out in turn
    assert all(a != b for a, b in zip(dealt, dealt[1:])), dealt


def test_the_first_change_after_a_failover_is_kept(browser, replicas):
    served, balancer, url = replicas
    context = browser.new_context(viewport=VIEW)
    try:
        page = context.new_page()
        page.goto(f'{url}/?expr=reuse&step=2')
        wait_for_player(page, 2)
        dead = balancer.wait_for_websockets(1)[0]
        os.kill(served[dead].pid, signal.SIGKILL)
        balancer.wait_for_websockets(2)
        expect(page.get_by_text('Connection error')).to_have_count(0)
        page.get_by_text('Show the answers in the table').click()
        expect(page.locator('.player .table th', has_text='answer: grad at the end')).to_be_visible(timeout=15_000)
    finally:
        context.close()


def test_a_projector_whose_replica_dies_takes_its_class_back_with_no_click_and_its_phones_follow_on(browser):
    # the replicas say other machines reach them at a documentation address (RFC 5737), as `streamlit run` on a
    # machine of the lecture hall's network would; each at its own port, which students must never be sent to
    network = {'STREAMLIT_BROWSER_SERVER_ADDRESS': '192.0.2.99'}
    with serve_redis() as redis_url, serve_replicas(2, env={**network, ENV: redis_url}) as (served, balancer, url):
        projector = browser.new_context(viewport={'width': 1600, 'height': 1000})
        phones = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        try:
            lecturer = projector.new_page()
            lecturer.goto(f'{url}/?expr=reuse&present=1')
            wait_for_player(lecturer, 0)
            held = balancer.wait_for_websockets(1)[0]  # the replica that holds the lecturer's page
            lecturer.get_by_role('button', name='Start a class').click()
            code = lecturer.get_by_test_id('class-code').inner_text().replace(' ', '')
            # the join link: the balancer's port at the network's address, never a replica's own
            port = url.rsplit(':', 1)[1]
            expect(lecturer.get_by_text(re.compile(rf'^http://192\.0\.2\.99:{port}/?\?class={code}$'))).to_be_visible()
            for replica in served.values():
                expect(lecturer.get_by_text(re.compile(rf':{replica.rsplit(":", 1)[1]}/?\?class='))).to_have_count(0)

            phone = phones.new_page()
            phone.goto(f'{url}/?class={code}')
            wait_for_player(phone, 0)
            lecturer.locator('.player .next').click()
            wait_for_player(lecturer, 1)
            expect(phone.locator('.player .explain')).to_have_attribute('data-frame', '1')

            os.kill(served[held].pid, signal.SIGKILL)  # the lecturer's replica: a crash mid-lesson
            # the projector's page reconnects to the survivor and leads its class again: the same code, no click
            expect(lecturer.get_by_role('button', name='End the class')).to_be_visible(timeout=30_000)
            expect(lecturer.get_by_test_id('class-code')).to_have_text(' '.join(code))
            expect(lecturer.get_by_role('button', name='Start a class')).to_have_count(0)
            wait_for_player(lecturer, 1)
            lecturer.locator('.player .next').click()
            wait_for_player(lecturer, 2)
            expect(phone.locator('.player .explain')).to_have_attribute('data-frame', '2', timeout=15_000)
            expect(phone.locator('.player')).to_have_attribute('data-following', 'true')
        finally:
            projector.close()
            phones.close()
