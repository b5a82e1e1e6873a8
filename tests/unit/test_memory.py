"""The server hands back the memory it frees: memory.trim_memory, run every memory.TRIM_EVERY s by one daemon
thread. How much that gives back is measured by bench/bench_load.py's memory phase (50 new 500-chains, websockets
that never read), not here: no assertion here is about sizes or times."""

import threading

from server import memory


def test_one_daemon_thread_hands_freed_memory_back_to_the_system():
    (thread,) = [t for t in threading.enumerate() if t.name == 'trim-memory']
    assert thread.daemon and thread.is_alive()


def test_trim_memory_answers_whether_it_gave_any_back_and_never_raises():
    assert memory.trim_memory() in (True, False)
