"""Start `streamlit run main.py` (the page and the live class's routes) on a free local port and stop it again.

Shared by the browser tests (tests/browser/conftest.py), bench/bench_page.py, bench/bench_load.py and
scripts/screenshots.py.
"""

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get('CHROMIUM', '/usr/bin/chromium')  # tests/run.sh honours the same variable
CHROMIUM_ARGS = [
    '--no-sandbox',
    '--disable-dev-shm-usage',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
]


class Url(str):
    """The server's base URL, knowing the server's process id (`pid`), to find the processes it starts."""

    def __new__(cls, url, pid):
        served = super().__new__(cls, url)
        served.pid = pid
        return served


class ServerError(RuntimeError):
    """The app did not come up; the message holds the server's log."""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def healthy(url):
    """Whether the Streamlit server at `url` answers its health check."""
    try:
        with urllib.request.urlopen(f'{url}/_stcore/health', timeout=2) as response:
            return response.status == 200 and response.read().strip() == b'ok'
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


# the layout's two sources: the server's dot, or (with dot hidden from the server's PATH) the browser's Graphviz
LAYOUT_SOURCES = ('dot', 'browser')
# a PATH of one folder with no programs in it: dot is not found
NO_DOT_PATH = str(ROOT / 'tests' / 'support' / 'no-dot')


@contextlib.contextmanager
def serve_app(timeout=60.0, env=None, port=None, log_lines=None, source='dot', address='127.0.0.1', script='main.py'):
    """Yield the base URL (a Url) of a running `streamlit run main.py` (with `env` added); stop the server on exit.

    `port`: the port to serve on (a free one if None). `log_lines`: a list that gets the server's log on exit.
    `source` (LAYOUT_SOURCES): 'browser' hides dot from the server, whose player then lays graphs out in the browser.
    `address`: the server's --server.address; '0.0.0.0' serves other machines too, as a lecturer's laptop does.
    `script`: the file to run, from the repository's root (bench/empty_app.py, Streamlit's near-empty page).
    """
    env = {**(env or {}), **({'PATH': NO_DOT_PATH} if source == 'browser' else {})}
    port = port or free_port()
    url = f'http://127.0.0.1:{port}'
    command = [
        sys.executable, '-m', 'streamlit', 'run', script,
        '--server.headless', 'true',
        '--server.port', str(port),
        '--server.address', address,
        '--browser.gatherUsageStats', 'false',
        '--server.fileWatcherType', 'none',
    ]  # fmt: skip
    with tempfile.TemporaryFile(mode='w+', prefix='streamlit-log-') as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **env, 'PYTHONUNBUFFERED': '1'},
        )

        def server_log():
            log.flush()
            log.seek(0)
            return log.read()

        try:
            deadline = time.monotonic() + timeout
            while not healthy(url):
                if process.poll() is not None:
                    raise ServerError(f'streamlit exited with code {process.returncode}:\n{server_log()}')
                if time.monotonic() > deadline:
                    raise ServerError(
                        f'streamlit did not answer {url}/_stcore/health in {timeout:g} s:\n{server_log()}'
                    )
                time.sleep(0.2)
            yield Url(url, process.pid)
        finally:
            if log_lines is not None:
                log_lines += server_log().splitlines()
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)


def check_chromium():
    """A clear message when Debian's chromium is missing (CI installs it); None when it is there."""
    if not os.path.exists(CHROMIUM):
        return f'{CHROMIUM} is missing: install it with `apt-get install -y chromium` (Playwright cannot download one)'
    return None
