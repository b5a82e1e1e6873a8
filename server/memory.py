"""Memory handed back: Python's garbage collected every TRIM_EVERY s, and what it frees given back to the system
(glibc's malloc_trim), from one daemon thread started on import (app.py imports it once per server)."""

import ctypes
import gc
import threading
import time

TRIM_EVERY = 5.0  # s between collecting garbage and handing freed memory back to the system (_trimming)
MMAP_FROM = 2**20  # bytes: glibc gives a block this large memory of its own, handed back when it is freed


def trim_memory():
    """Hand the memory Python has freed back to the system (glibc's malloc_trim); whether any was. A long
    chain's body is megabytes, made and sent in pieces, and glibc kept what they left: the server's RSS grew with each
    new chain, past what the caches hold (bench/bench_load.py's memory phase). False where the C library has no
    malloc_trim."""
    try:
        return bool(ctypes.CDLL(None).malloc_trim(0))  # ctypes lets go of the GIL while it runs
    except (OSError, AttributeError):
        return False


def _big_blocks_apart():
    """Have glibc map every block of MMAP_FROM bytes or more apart (mallopt M_MMAP_THRESHOLD), rather than raise that
    bound as big blocks are freed (its default, up to 32 MB): a body's MBs, and the messages that carry it, are then
    handed back when freed, not left as holes in the heap."""
    try:
        ctypes.CDLL(None).mallopt(-3, MMAP_FROM)  # -3: M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # not glibc
        pass


def _trimming():
    """Every TRIM_EVERY s: Python's full garbage collection, which Streamlit no longer runs after each script run
    (runner.postScriptGC, .streamlit/config.toml: most of the time an input change took), so that the traces the
    caches drop (their _backward closures make cycles) are freed within seconds; then trim_memory."""
    while True:
        time.sleep(TRIM_EVERY)
        gc.collect()
        trim_memory()


if not any(thread.name == 'trim-memory' for thread in threading.enumerate()):  # one, if this module is loaded again
    _big_blocks_apart()
    threading.Thread(target=_trimming, name='trim-memory', daemon=True).start()
