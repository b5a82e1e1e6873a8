"""Several replicas of `streamlit run main.py` behind Debian's haproxy, run with deploy/haproxy.cfg, and a redis-server
for a live class's rooms across them.

Shared by tests/browser/test_replicas.py, tests/app/test_live_replicas.py, tests/app/test_rooms_redis.py and
bench/bench_class.py:

    with serve_redis() as redis_url, serve_replicas(2, env={ENV: redis_url}) as (served, balancer, url):
        ...   # served: {'app1': Url, 'app2': Url}; url: haproxy's; balancer.requests(): who served what
"""

import contextlib
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.serve import ROOT, ServerError, free_port, healthy, serve_app

HAPROXY = shutil.which('haproxy') or '/usr/sbin/haproxy'  # /usr/sbin: outside an ordinary user's PATH on Debian
REDIS_SERVER = shutil.which('redis-server') or '/usr/bin/redis-server'
BACKEND = 'replicas'  # deploy/haproxy.cfg's backend for the page
LIVE_BACKEND = 'live'  # and for a live class's routes (/api/class/)


def haproxy_config(port, replicas, maxconn=1000):
    """deploy/haproxy.cfg, listening on 127.0.0.1:`port`, with `replicas` ({name: port}) in place of each backend's
    server-template that finds the containers by Docker's DNS (and without that resolver); `maxconn` in place of its
    global 20,000 (1,000: within an ordinary user's open-file limit)."""
    text = (ROOT / 'deploy' / 'haproxy.cfg').read_text()
    text = re.sub(r'\nresolvers docker\n(    .*\n)+', '\n', text)
    servers = ''.join(f'    server {name} 127.0.0.1:{p}\n' for name, p in replicas.items())
    text, templates = re.subn(r'    server-template .*\n', servers, text)
    text, binds = re.subn(r'    bind :8080\n', f'    bind 127.0.0.1:{port}\n', text)
    assert templates >= 1 and binds == 1, 'deploy/haproxy.cfg: a server-template in each backend, one bind :8080'
    return text.replace('maxconn 20000', f'maxconn {maxconn}')


@dataclass(frozen=True)
class Served:
    """One request as haproxy's log has it (deploy/haproxy.cfg's log-format, logged when its answer starts): the
    client's port, the backend and server that took it (`<NOSRV>`: none), the status, the method and the path."""

    client_port: int
    backend: str
    server: str
    status: int
    method: str
    path: str


LOG_LINE = re.compile(r'^\S+:(\d+) ([\w-]+)/(\S+) (-?\d+) (\S+) (\S+)$')


class Balancer:
    """haproxy in the foreground, its log (one line a request, when its answer starts) in a file."""

    def __init__(self, config):
        self.dir = tempfile.TemporaryDirectory(prefix='haproxy-')
        path = Path(self.dir.name) / 'haproxy.cfg'
        path.write_text(config)
        checked = subprocess.run([HAPROXY, '-c', '-f', path], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        self.log = Path(self.dir.name) / 'log'
        with self.log.open('w') as log:
            self.process = subprocess.Popen([HAPROXY, '-db', '-f', path], stdout=log, stderr=subprocess.STDOUT)
        self.pid = self.process.pid

    def requests(self):
        """Every request logged so far, in order (Served)."""
        found = (LOG_LINE.match(line) for line in self.log.read_text().splitlines())
        return [Served(int(m[1]), m[2], m[3], int(m[4]), m[5], m[6]) for m in found if m]

    def websockets(self):
        """The replica that took each websocket so far, in order."""
        return re.findall(rf' {BACKEND}/(\w+) 101 GET /_stcore/stream\b', self.log.read_text())

    def wait_for_websockets(self, n, timeout=90):
        deadline = time.monotonic() + timeout
        while len(self.websockets()) < n:
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, f'{n} websockets expected:\n{self.log.read_text()}'
            time.sleep(0.1)
        return self.websockets()

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.dir.cleanup()


@contextlib.contextmanager
def serve_replicas(n=2, env=None, timeout=60.0, maxconn=1000, log_lines=None):
    """Yield ({name: replica Url}, the Balancer, its URL): `n` replicas of `streamlit run main.py` (serve_app, with
    `env` added: {rooms.ENV: a Redis URL} shares the live class's rooms), named app1, app2, ..., behind haproxy with
    deploy/haproxy.cfg; all stopped on exit. `log_lines`: a list that gets every replica's log on exit."""
    with contextlib.ExitStack() as stack:
        served = {
            f'app{i}': stack.enter_context(serve_app(timeout=timeout, env=env, log_lines=log_lines))
            for i in range(1, n + 1)
        }
        port = free_port()
        config = haproxy_config(port, {name: url.rsplit(':', 1)[1] for name, url in served.items()}, maxconn)
        balancer = Balancer(config)
        stack.callback(balancer.close)
        url = f'http://127.0.0.1:{port}'
        deadline = time.monotonic() + 30
        while not healthy(url):
            if balancer.process.poll() is not None or time.monotonic() > deadline:
                raise ServerError(f'haproxy did not answer {url}/_stcore/health:\n{balancer.log.read_text()}')
            time.sleep(0.1)
        yield served, balancer, url


REDIS_CONF = ROOT / 'deploy' / 'redis.conf'  # Redis as deploy/ runs it: the rooms written to an append-only file


class Redis(str):
    """A redis-server's URL (`redis://127.0.0.1:PORT/0`), knowing its process (`pid`), and able to `restart()`."""

    def __new__(cls, url, server):
        made = super().__new__(cls, url)
        made.server = server
        return made

    @property
    def pid(self):
        return self.server.process.pid


class RedisServer:
    """Debian's redis-server on `port` of 127.0.0.1, run with deploy/redis.conf in `folder`."""

    def __init__(self, port, folder, timeout):
        self.port, self.folder, self.timeout, self.process = port, folder, timeout, None

    def start(self):
        import redis  # requirements.txt has the client; only a Redis's users import it

        command = [REDIS_SERVER, str(REDIS_CONF), '--port', str(self.port), '--bind', '127.0.0.1', '--dir', self.folder]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        client, deadline = redis.Redis(port=self.port), time.monotonic() + self.timeout
        while True:
            try:
                client.ping()
                break
            except redis.BusyLoadingError:  # reading its append-only file back
                time.sleep(0.05)
            except redis.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.process.kill()
                    said = self.process.stdout.read().decode()
                    raise ServerError(f'redis-server did not start on port {self.port}: {said}') from None
                time.sleep(0.05)
        client.close()

    def stop(self, signal_=signal.SIGTERM):
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal_)
            self.process.wait(timeout=10)

    def restart(self, signal_=signal.SIGKILL):
        """Stop it by `signal_` (a crash, by default) and start it again on the same port, from its files."""
        self.stop(signal_)
        self.start()


@contextlib.contextmanager
def serve_redis(timeout=10.0):
    """Yield the URL (a Redis) of Debian's redis-server on a free port of 127.0.0.1, run as deploy/ runs it
    (deploy/redis.conf) in a temporary folder; stopped on exit. ServerError if it is missing or does not answer
    within `timeout` s. `url.server.restart()` kills it and starts it again from its files."""
    if not Path(REDIS_SERVER).exists():
        raise ServerError(
            'redis-server is missing: install it with `apt-get install -y redis-server` (tests/run.sh does)'
        )
    with tempfile.TemporaryDirectory(prefix='redis-') as folder:
        server = RedisServer(free_port(), folder, timeout)
        try:
            server.start()
            yield Redis(f'redis://127.0.0.1:{server.port}/0', server)
        finally:
            server.stop()
