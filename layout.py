"""Graphviz's dot as a bounded resource. A public page lays out whatever graph a link describes, and dot's time
is not bounded by the formula's length: a 399-character sum of 100 products over 50 reused variables took
55 s here. So every layout runs in a subprocess with a time budget, killed at the budget or as soon as the
visitor who asked for it has left; past the budget a cheaper layout is tried, then the page refuses. At most
one dot per core runs at once, and each session has an allowance of dot time per minute.

Measured in bench/bench_layout.py (results in bench/results/layout.txt).
"""

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass

FULL_BUDGET = 5.5  # s for dot's own layout: chain(500), the largest preset, takes 3.1-3.5 s on the 2-core machine
QUICK_BUDGET = 3.5  # s for the cheaper one (chain(500): 3.4 s; the tangled sums: under 1.3 s)
if os.environ.get('BACKPROP_LAYOUT_BUDGETS'):  # a host's own, 'full,quick' in s (the browser tests shorten them)
    FULL_BUDGET, QUICK_BUDGET = map(float, os.environ['BACKPROP_LAYOUT_BUDGETS'].split(','))
QUICK = {'nslimit': '1', 'splines': 'line'}  # few network-simplex passes, straight edges: 55 s -> 0.7 s
SLOT_WAIT = 0.5  # s to wait for a free core before saying the server is busy: 0.5 + 5.5 + 3.5 < 10 s
ALLOWANCE = 30.0  # s of dot one session may start per minute
POLL = 0.1  # s between checks that someone still waits

_slots = threading.BoundedSemaphore(os.cpu_count() or 1)


# what the page says of a layout, whichever side made it (layout.py here, or the player's Graphviz in the browser)
QUICK_NOTE = 'A tangled graph: laid out quickly, with straight edges, to keep within the time budget.'


@dataclass(frozen=True)
class Layout:
    svg: str
    quick: bool  # laid out with QUICK: straight edges, less compact


class LayoutRefused(Exception):
    """The page shows `message`. `lasting`: the graph itself is the reason, so the answer can be cached."""

    def __init__(self, message, lasting=False):
        super().__init__(message)
        self.message, self.lasting = message, lasting


class VisitorLeft(Exception):
    """Nobody waits for this layout any more: it was stopped."""


class Allowance:
    """The dot time one session has used in the last minute."""

    def __init__(self, seconds=ALLOWANCE, window=60.0, clock=time.monotonic):
        self.seconds, self.window, self.clock = seconds, window, clock
        self._spent = deque()  # (when, seconds)

    def used(self):
        now = self.clock()
        while self._spent and self._spent[0][0] <= now - self.window:
            self._spent.popleft()
        return sum(s for _, s in self._spent)

    def left(self):
        return self.seconds - self.used()

    def spend(self, seconds):
        self._spent.append((self.clock(), seconds))

    def wait(self):
        """Seconds until some of the allowance comes back."""
        return max(1, round(self._spent[0][0] + self.window - self.clock())) if self._spent else 0


def has_dot():
    """Whether this server has Graphviz's dot: the server lays the page's graph out and makes the whole-pass exports
    with it; without it the player lays the graph out in the browser."""
    return shutil.which('dot') is not None


def lay_out(graph, waiting=lambda: True, allowance=None):
    """The SVG of a graphviz.Digraph, laid out within the budget, or LayoutRefused. `waiting()` says whether
    someone still waits for it; a session's `allowance` pays for the dot time spent."""
    allowance = allowance or Allowance()
    if allowance.left() <= 0:
        raise LayoutRefused(
            f'This session has used its {ALLOWANCE:g} s of graph layout for this minute. '
            f'Try again in {allowance.wait()} s.'
        )
    if not _slots.acquire(timeout=SLOT_WAIT):
        raise LayoutRefused('The server is busy laying out other graphs. Try again in a few seconds.')
    try:
        out = _dot(graph.source, FULL_BUDGET, waiting, allowance)
        if out is not None:
            return Layout(_svg(out), quick=False)
        out = _dot(quickened(graph).source, QUICK_BUDGET, waiting, allowance)
        if out is not None:
            return Layout(_svg(out), quick=True)
    finally:
        _slots.release()
    raise LayoutRefused(tangled(), lasting=True)


def tangled():
    """What the page says of a graph that cannot be laid out within the budget."""
    return (
        f'This graph is too tangled to lay out within {FULL_BUDGET + QUICK_BUDGET:g} s. '
        'Try fewer reused values, or a shorter formula.'
    )


def quickened(graph):
    """A copy of the graphviz.Digraph with the QUICK attributes, keeping a tighter nslimit that it has already
    (graph.py caps big graphs at 0.2: QUICK's 1 would make chain(500) 3.5 s -> 6.4 s, past QUICK_BUDGET)."""
    quick = graph.copy()
    own = graph.graph_attr.get('nslimit')
    quick.graph_attr.update(QUICK)
    if own is not None and float(own) < float(QUICK['nslimit']):
        quick.graph_attr['nslimit'] = own
    return quick


def _svg(out):
    """dot -Tsvg's output as the page embeds it: text, from the <svg> element on (no XML prolog, no doctype)."""
    svg = out.decode()
    return svg[svg.index('<svg') :]


def _dot(source, budget, waiting, allowance, args=('-Tsvg',), program='dot'):
    """dot on `source` with `args` (the output format, -Tsvg, -Tpng, -Tpdf, and any -G attributes such as
    -Gdpi=192): its output as bytes, or None past the budget. Killed at the budget or when nobody waits. `program`:
    another one run the same way (exports runs rsvg-convert so)."""
    start = time.monotonic()
    # the input from a file, not a pipe: communicate(input, timeout) that times out before the input is written
    # writes no more of it when called again (CPython 3.11), and a busy server's first POLL often ends that early
    with tempfile.TemporaryFile() as given:
        given.write(source.encode())
        given.seek(0)
        process = subprocess.Popen([program, *args], stdin=given, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ended = None
    try:
        while ended is None:
            left = budget - (time.monotonic() - start)
            if left <= 0:
                return None
            if not waiting():
                raise VisitorLeft()
            try:
                out, err = process.communicate(timeout=min(POLL, left))
                ended = process.returncode
            except subprocess.TimeoutExpired:
                pass
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        allowance.spend(time.monotonic() - start)
    if ended != 0:
        raise RuntimeError(f'{program} failed: {err.decode(errors="replace")[:300]}')
    return out
