"""The browser tests' fixtures: a live `streamlit run main.py` (one a layout source, for the whole session), Debian's
chromium, and a fresh page per test."""

import contextlib

import pytest

from server.rooms import JOINS_ENV
from tests.support.serve import CHROMIUM, CHROMIUM_ARGS, LAYOUT_SOURCES, ServerError, check_chromium, serve_app

# every phone of every test joins its class from 127.0.0.1: to the shared server, the session's tests are one lecture
# hall behind one address (a NAT), which is what BACKPROP_JOINS_PER_MINUTE is for
ONE_HALL = {JOINS_ENV: '1000000'}


class Served(str):
    """The base URL, knowing where the server's player gets its layout (tests.support.serve.LAYOUT_SOURCES), and the
    server's process id (`pid`), as tests.support.serve.Url does."""

    def __new__(cls, url, source):
        served = super().__new__(cls, url)
        served.source, served.pid = source, url.pid
        return served


class Servers:
    """The session's servers of the app, one a layout source, each started when a test first asks for it and kept
    for the whole session: every browser test that needs no server of its own shares them (a start and a first page
    cost seconds each)."""

    def __init__(self, stack):
        self.stack, self.urls = stack, {}

    def __call__(self, source):
        if source not in self.urls:
            try:
                served = serve_app(timeout=60, source=source, env=ONE_HALL)
                self.urls[source] = Served(self.stack.enter_context(served), source)
            except ServerError as e:
                pytest.fail(str(e), pytrace=False)
        return self.urls[source]


@pytest.fixture(scope='session')
def servers():
    with contextlib.ExitStack() as stack:
        yield Servers(stack)


@pytest.fixture(scope='session', params=LAYOUT_SOURCES)
def app_server(request, servers):
    """The base URL of the app, served on a free port of 127.0.0.1 for the whole session.

    Twice: with the server's dot laying the graph out, and with dot hidden from the server, so that the player lays
    it out in the browser with Graphviz as WebAssembly; either way the player patches it frame by frame. For what
    the player's layout and stepping do; what is the same whoever lays the graph out takes `served`, once.
    """
    return servers(request.param)


@pytest.fixture(scope='session')
def served(servers):
    """The base URL of the app with dot: the session's server, app_server's 'dot' one. A test that needs a server of
    its own (its log, its budgets, a restart, another address) starts one with tests.support.serve.serve_app."""
    return servers('dot')


@pytest.fixture(scope='session')
def browser():
    missing = check_chromium()
    if missing:
        pytest.fail(missing, pytrace=False)  # never skip: CI installs chromium, so its absence is a failure
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as e:
        pytest.fail(f'the playwright package is missing ({e}): pip install -r requirements-dev.txt', pytrace=False)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={'width': 1600, 'height': 1000})
    page = context.new_page()
    yield page
    context.close()
