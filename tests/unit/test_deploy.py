"""deploy/ runs Redis one way everywhere: compose mounts deploy/redis.conf, Kubernetes gives its directives as
arguments, and the tests run redis-server with the file itself (tests/support/replicas.py)."""

import ast
import re
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / 'deploy'


def conf():
    """deploy/redis.conf's directives: {name: value}."""
    lines = [line.split('#')[0].split() for line in (DEPLOY / 'redis.conf').read_text().splitlines()]
    return {words[0]: ' '.join(words[1:]).strip('"') for words in lines if words}


def test_redis_keeps_the_rooms_on_disk_as_deploy_says():
    assert conf() == {'appendonly': 'yes', 'appendfsync': 'everysec', 'save': '', 'maxmemory': '64mb',
                      'maxmemory-policy': 'noeviction'}  # fmt: skip


def test_compose_runs_redis_with_the_file_on_a_volume():
    compose = (DEPLOY / 'compose.yaml').read_text()
    assert "command: ['redis-server', '/usr/local/etc/redis/redis.conf', '--dir', '/data']" in compose
    assert './redis.conf:/usr/local/etc/redis/redis.conf:ro' in compose and 'redis-data:/data' in compose


def test_kubernetes_gives_redis_the_files_directives_and_a_volume():
    text = (DEPLOY / 'k8s' / 'redis.yaml').read_text()
    args = ast.literal_eval(re.search(r'args: (\[.*?\])', text, flags=re.S).group(1))
    given = dict(zip(args[::2], args[1::2]))
    assert {name.removeprefix('--'): value for name, value in given.items() if name != '--dir'} == conf()
    assert given['--dir'] == '/data' and 'mountPath: /data' in text and 'claimName: backprop-redis-data' in text
