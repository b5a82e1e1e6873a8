"""A new user's first `./run.sh`: it says in one line what it installs before the silent install (and says nothing
when there is nothing to install), it names each system tool the exports need that is missing (dot, rsvg-convert) and
runs the page all the same, and on a desktop it never stops at Streamlit's prompt for an email address, in a real
terminal (a pseudo-terminal), while it still opens the browser.

The install is tested on a copy of scripts/python-env.sh and the requirements files with pip replaced by a stub
that records its arguments: a real virtual environment (made without pip), a real interpreter, no network. The
terminal tests run ./run.sh itself in this test's own Python environment, where nothing needs installing."""

import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support.serve import free_port, healthy

ROOT = Path(__file__).resolve().parents[2]
STARTS = 60.0  # s: a generous bound for `streamlit run` to answer on a slow machine
STUB_PIP = textwrap.dedent("""\
    import sys

    print('stub pip:', *sys.argv[1:], file=sys.stderr, flush=True)
""")


def executable(path, text):
    path.write_text(text)
    path.chmod(0o755)
    return path


def says(reason, file, where, took=None):
    """The one line python_env prints before it installs."""
    return f'{reason}: installing the packages of {file} into {where}' + (f', {took}' if took else '')


PURELIB = 'import sysconfig; print(sysconfig.get_path("purelib"))'


def stub_pip(folder):
    """A `pip` package in `folder` that only reports its arguments; `folder`/pip."""
    (folder / 'pip').mkdir(parents=True)
    (folder / 'pip' / '__init__.py').write_text('')
    (folder / 'pip' / '__main__.py').write_text(STUB_PIP)
    return folder / 'pip'


def with_stub_pip(venv):
    """A virtual environment (made without pip) whose `python -m pip` is the stub."""
    subprocess.run([sys.executable, '-m', 'venv', '--without-pip', str(venv)], check=True)
    python = str(venv / 'bin' / 'python')
    stub_pip(Path(subprocess.run([python, '-c', PURELIB], check=True, capture_output=True, text=True).stdout.strip()))
    return venv


@pytest.fixture
def checkout(tmp_path):
    """A copy of what python_env reads: scripts/python-env.sh and the requirements files, without a .venv."""
    root = tmp_path / 'checkout'
    (root / 'scripts').mkdir(parents=True)
    shutil.copy(ROOT / 'scripts' / 'python-env.sh', root / 'scripts')
    for file in ROOT.glob('requirements*.txt'):
        shutil.copy(file, root)
    return root


def clean_env(**extra):
    """This process's environment without an active virtualenv or conda environment, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if k not in {'VIRTUAL_ENV', 'CONDA_PREFIX'}}
    return {**env, **extra}


def python_env(root, env, *args):
    """The lines `python_env *args` prints (stdout and stderr, in order), as run.sh calls it, then PY's value."""
    script = 'set -euo pipefail; source scripts/python-env.sh; python_env "$@"; echo "PY=$PY"'
    done = subprocess.run(
        ['bash', '-c', script, 'python_env', *args],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def test_a_first_run_says_in_one_line_what_it_installs_before_it_makes_the_venv_and_installs(checkout, tmp_path):
    # python3 as python_env calls it to make .venv: a real venv, but with the stub pip (no ensurepip, no network)
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    pip = stub_pip(tmp_path / 'stub')
    executable(
        bin_dir / 'python3',
        textwrap.dedent(f"""\
            #!/bin/sh
            echo "stub python3: $*" >&2
            [ "$1 $2" = "-m venv" ] || exit 97
            '{sys.executable}' -m venv --without-pip "$3" || exit 1
            cp -R '{pip}' "$("$3/bin/python" -c '{PURELIB}')/"
        """),
    )
    env = clean_env(PATH=f'{bin_dir}{os.pathsep}{os.environ["PATH"]}')

    lines = python_env(checkout, env, 'requirements.txt', 'about 30 s')

    assert lines == [
        says('first run', 'requirements.txt', 'a new .venv', 'about 30 s'),
        f'stub python3: -m venv {checkout}/.venv',
        f'stub pip: install -q --disable-pip-version-check -r {checkout}/requirements.txt',
        f'PY={checkout}/.venv/bin/python',
    ]


def test_a_run_with_nothing_to_install_says_nothing_and_runs_no_pip(checkout, tmp_path):
    venv = with_stub_pip(tmp_path / 'env')
    env = clean_env(VIRTUAL_ENV=str(venv), PATH=f'{venv / "bin"}{os.pathsep}{os.environ["PATH"]}')

    first = python_env(checkout, env, 'requirements.txt', 'about 30 s')
    again = python_env(checkout, env, 'requirements.txt', 'about 30 s')

    assert first == [
        says('first run', 'requirements.txt', venv, 'about 30 s'),
        f'stub pip: install -q --disable-pip-version-check -r {checkout}/requirements.txt',
        f'PY={venv}/bin/python',
    ]
    assert again == [f'PY={venv}/bin/python']


def test_changed_requirements_say_so_before_the_install(checkout, tmp_path):
    venv = with_stub_pip(tmp_path / 'env')
    env = clean_env(VIRTUAL_ENV=str(venv), PATH=f'{venv / "bin"}{os.pathsep}{os.environ["PATH"]}')
    python_env(checkout, env, 'requirements.txt', 'about 30 s')
    with open(checkout / 'requirements.txt', 'a') as requirements:
        requirements.write('six==1.17.0\n')

    lines = python_env(checkout, env, 'requirements.txt', 'about 30 s')

    assert lines == [
        says('requirements changed', 'requirements.txt', venv, 'about 30 s'),
        f'stub pip: install -q --disable-pip-version-check -r {checkout}/requirements.txt',
        f'PY={venv}/bin/python',
    ]


def test_run_sh_names_each_missing_system_tool_in_a_line_and_runs_the_page_all_the_same(tmp_path):
    # a PATH with the shell's own tools but neither dot nor rsvg-convert, in an active environment (tmp_path) whose
    # `python` only says what it was asked: its prefix, pip, streamlit
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    for tool in ('cat', 'cksum', 'cut', 'dirname', 'touch'):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    executable(
        bin_dir / 'python',
        textwrap.dedent(f"""\
            #!/bin/sh
            [ "$1" = -c ] && {{ echo '{tmp_path}'; exit 0; }}
            echo "stub python: $*"
        """),
    )
    env = {**clean_env(VIRTUAL_ENV=str(tmp_path)), 'PATH': str(bin_dir)}

    done = subprocess.run(
        [shutil.which('bash'), str(ROOT / 'run.sh'), '--server.port', '8600'],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if 'is not installed' in line]
    assert [line.split(' is not installed')[0] for line in said] == ["Graphviz's dot", "librsvg's rsvg-convert"]
    assert 'apt-get install graphviz' in said[0] and 'brew install graphviz' in said[0]
    assert 'apt-get install librsvg2-bin' in said[1] and 'brew install librsvg' in said[1]
    assert done.stdout.splitlines()[-1] == 'stub python: -m streamlit run main.py --server.port 8600'


class Terminal:
    """`./run.sh *args` with a pseudo-terminal as its stdin, stdout and stderr, in its own process group."""

    def __init__(self, tmp_path, *args):
        self.port = free_port()
        self.url = f'http://127.0.0.1:{self.port}'
        self.home = tmp_path / 'home'  # a new user's: no ~/.streamlit/credentials.toml
        self.home.mkdir()
        self.opened = tmp_path / 'opened'  # what xdg-open was asked to open, a line a call
        bin_dir = tmp_path / 'bin'
        bin_dir.mkdir()
        executable(bin_dir / 'xdg-open', f'#!/bin/sh\nprintf "%s\\n" "$*" >> \'{self.opened}\'\n')
        # `python` as an activated environment has it: this test's, where nothing needs installing
        executable(bin_dir / 'python', f'#!/bin/sh\nexec \'{sys.executable}\' "$@"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith('STREAMLIT_') and k != 'WAYLAND_DISPLAY'}
        env.update(
            HOME=str(self.home),
            DISPLAY=':99',  # a desktop, as far as Streamlit can tell: server.headless is then false
            VIRTUAL_ENV=sys.prefix,
            PATH=f'{bin_dir}{os.pathsep}{os.environ["PATH"]}',
            PIP_NO_INDEX='1',  # were python_env to install after all, pip would reach no package index
            TERM='xterm',
        )
        self.output = b''
        self.master, slave = os.openpty()
        try:
            self.process = subprocess.Popen(
                [str(ROOT / 'run.sh'), '--server.port', str(self.port), '--server.address', '127.0.0.1',
                 '--browser.gatherUsageStats', 'false', '--server.fileWatcherType', 'none', *args],
                cwd=tmp_path,
                env=env,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                start_new_session=True,
            )  # fmt: skip
        finally:
            os.close(slave)

    def text(self):
        return self.output.decode('utf-8', 'replace')

    def read(self, timeout):
        """Collect what the terminal shows for up to `timeout` s (less if something arrives)."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if ready:
            try:
                self.output += os.read(self.master, 65536)
            except OSError:  # EIO: every process holding the terminal has ended
                time.sleep(timeout)

    def drain(self):
        """Collect everything the terminal has shown so far."""
        while select.select([self.master], [], [], 0)[0]:
            before = len(self.output)
            self.read(0)
            if len(self.output) == before:
                break

    def healthy(self):
        return healthy(self.url)

    def browser_opened(self):
        return self.opened.exists() and self.opened.read_text().splitlines()

    def wait_for(self, done, what):
        deadline = time.monotonic() + STARTS
        while not done():
            if self.process.poll() is not None:
                self.read(0)
                pytest.fail(f'./run.sh exited with {self.process.returncode} before {what}:\n{self.text()}')
            if time.monotonic() > deadline:
                pytest.fail(f'no {what} in {STARTS:g} s; the terminal shows:\n{self.text()}')
            self.read(0.2)

    def type(self, keys):
        os.write(self.master, keys)

    def close(self):
        """End the whole process group (the server and anything it started, such as xdg-open)."""
        try:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.process.pid, sig)
                except ProcessLookupError:  # the group has ended
                    break
                try:
                    self.process.wait(timeout=10)
                    break
                except subprocess.TimeoutExpired:
                    continue
            self.process.wait(timeout=10)
        finally:
            os.close(self.master)


@pytest.fixture
def terminal(tmp_path):
    started = []

    def start(*args):
        started.append(Terminal(tmp_path, *args))
        return started[-1]

    yield start
    for one in started:
        one.close()


def test_a_first_run_on_a_desktop_opens_the_browser_and_never_waits_for_input(terminal):
    run = terminal()

    # nothing is ever typed: had it stopped to read the terminal, the server would never answer
    run.wait_for(lambda: run.healthy() and run.browser_opened(), 'answer on /_stcore/health and browser opened')

    run.drain()
    assert run.browser_opened() == [run.url]
    assert run.process.poll() is None
    assert 'Email' not in run.text()
    assert not (run.home / '.streamlit' / 'credentials.toml').exists()


def test_without_the_config_option_the_same_terminal_stops_at_the_email_prompt_until_a_key(terminal):
    # the check that the test above can fail: the same first run with Streamlit's default for the prompt
    run = terminal('--server.showEmailPrompt', 'true')

    run.wait_for(lambda: 'Email' in run.text(), 'email prompt')
    assert not run.healthy() and not run.browser_opened()  # it waits for the terminal: no server yet

    run.type(b'\n')  # no email
    run.wait_for(lambda: run.healthy() and run.browser_opened(), 'answer on /_stcore/health after Enter')

    assert run.browser_opened() == [run.url]
    assert (run.home / '.streamlit' / 'credentials.toml').exists()
