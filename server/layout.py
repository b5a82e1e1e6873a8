"""Graphviz's dot as a bounded resource. A public page lays out whatever graph a link describes, and dot's time
is not bounded by the formula's length: a 399-character sum of 100 products over 50 reused variables runs past any
budget (bench/results/layout.txt). So every layout runs in a subprocess with a budget of its own CPU time (run),
killed at the budget or as soon as the visitor who asked for it has left; past the budget a cheaper layout is
tried, then the page refuses, and that refusal lasts. A busy server that gives dot too little of a core is told
apart: it is asked again later. At most one dot per core runs at once, handed out fairly (Slots): whoever has used
the least dot time in the last minute goes first, so one visitor's layouts cannot crowd out another's first graph;
and each session has an allowance of dot time per minute.

Measured in bench/bench_layout.py (results in bench/results/layout.txt).
"""

import contextlib
import itertools
import os
import select
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

FULL_BUDGET = 5.5  # s for dot's own layout: room for chain(500), the largest preset (bench/results/layout.txt)
QUICK_BUDGET = 3.5  # s for the cheaper one: room for chain(500) and the tangled sums (bench/results/layout.txt)
if os.environ.get('BACKPROP_LAYOUT_BUDGETS'):  # a host's own, 'full,quick' in s (the browser tests shorten them)
    FULL_BUDGET, QUICK_BUDGET = map(float, os.environ['BACKPROP_LAYOUT_BUDGETS'].split(','))
QUICK = {'nslimit': '1', 'splines': 'line'}  # few network-simplex passes, straight edges (bench/results/layout.txt)
SLOT_WAIT = 0.5  # s to wait for a free core before saying the server is busy: with both budgets, within 10 s
LIGHT_USE = 1.0  # s: a visitor who has used less dot time than this in the last minute (a first graph, a few small
# ones) waits for a core as long as anyone can hold one (FIRST_WAIT); the fair line puts them before the heavy users
FIRST_WAIT = SLOT_WAIT + FULL_BUDGET + QUICK_BUDGET
ALLOWANCE = 30.0  # s of dot one session may start per minute
POLL = 0.1  # s between checks that someone still waits


class Slots:
    """The server's slots for dot, one a core, handed out fairly: to whoever waits having used the least dot time in
    the last minute (their Allowance, when they asked), then to whoever came first. Used as a semaphore."""

    def __init__(self, n):
        self.free = n
        self._changed = threading.Condition()
        self._line = []  # (dot seconds used, arrival): who waits
        self._arrivals = itertools.count()

    def acquire(self, blocking=True, timeout=None, used=0.0, waiting=lambda: True):
        """Take a slot when it is this caller's turn: True; False when `timeout` s pass first (at once when not
        `blocking`); VisitorLeft when waiting() turns false meanwhile (checked every POLL s)."""
        ticket = (used, next(self._arrivals))
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            self._line.append(ticket)
            try:
                while not (self.free and min(self._line) == ticket):
                    left = POLL if deadline is None else min(POLL, deadline - time.monotonic())
                    if not blocking or left <= 0:
                        return False
                    self._changed.wait(left)
                    if not waiting():
                        raise VisitorLeft()
                self.free -= 1
                return True
            finally:
                self._line.remove(ticket)
                self._changed.notify_all()

    def release(self):
        with self._changed:
            self.free += 1
            self._changed.notify_all()

    def waiters(self):
        """How many wait for a slot now."""
        with self._changed:
            return len(self._line)


_slots = Slots(os.cpu_count() or 1)


# what the page says of a layout, whichever side made it (this module, or the player's Graphviz in the browser)
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
    with slot(FIRST_WAIT if allowance.used() < LIGHT_USE else SLOT_WAIT, waiting, allowance):
        out = run(graph.source, FULL_BUDGET, waiting, allowance)
        if out is not None:
            return Layout(_svg(out), quick=False)
        out = run(quickened(graph).source, QUICK_BUDGET, waiting, allowance)
        if out is not None:
            return Layout(_svg(out), quick=True)
    raise LayoutRefused(tangled(), lasting=True)  # dot itself used both budgets: no one need pay to find out again


def tangled():
    """What the page says of a graph that cannot be laid out within the budget."""
    return (
        f'This graph is too tangled to lay out within {FULL_BUDGET + QUICK_BUDGET:g} s. '
        'Try fewer reused values, or a shorter formula.'
    )


def quickened(graph):
    """A copy of the graphviz.Digraph with the QUICK attributes, keeping a tighter nslimit that it has already
    (graph.py caps big graphs at 0.2: QUICK's 1 would take chain(500) past QUICK_BUDGET)."""
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


class Busy(LayoutRefused):
    """The server was too busy for a run to get its budget of CPU time in WALL_FACTOR times that long: not lasting,
    since the graph was never given its chance."""

    def __init__(self):
        super().__init__('The server is busy laying out other graphs. Try again in a few seconds.')


class Stopped(Busy):
    """dot was killed before it finished (by the system's out-of-memory killer, or an operator): not the graph's
    fault, so not lasting; the next try runs it again."""

    def __init__(self):
        LayoutRefused.__init__(self, 'The graph layout was stopped on the server before it finished. Try again.')


WALL_FACTOR = 2.0  # a run may take this many times its budget on the clock, while the server is busy
TICKS = os.sysconf('SC_CLK_TCK') if hasattr(os, 'sysconf') else 100
CPU_RESOLUTION = 0.1  # s: ten of /proc's ticks; a budget shorter than this is kept by the clock


def cpu_seconds(pid):
    """The CPU time process `pid` has used so far (Linux's /proc), or None where that cannot be read."""
    try:
        fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime and stime, the 14th and 15th fields


def run(source, budget, waiting, allowance, args=('-Tsvg',), program='dot'):
    """One bounded run of dot on `source` with `args` (the output format, -Tsvg, -Tpng, -Tpdf, and any -G attributes
    such as -Gdpi=192): its output as bytes, or None once dot itself has used `budget` s of CPU time: the graph is
    the reason, so the caller may take that as lasting. Busy when the clock reaches WALL_FACTOR times the budget
    first (a busy server, not the graph); Stopped where something else killed it; VisitorLeft when nobody waits any
    more. Killed in either case; the CPU
    time it used is paid from `allowance`. `program`: another one run the same way (exports runs rsvg-convert so).
    Where the CPU time cannot be read (no /proc), or the budget is under CPU_RESOLUTION, the clock stands for it."""
    start = time.monotonic()
    # the input and output in files, not pipes: communicate(input, timeout) that times out before the input is
    # written writes no more of it when called again (CPython 3.11), and a busy server's first POLL often ends that
    # early; and with nothing to read while it runs, the run is reaped here, with the CPU time it used (os.wait4)
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        given.write(source.encode())
        given.seek(0)
        process = subprocess.Popen([program, *args], stdin=given, stdout=out, stderr=err)
        used, ended = 0.0, _Exit(process.pid)
        try:
            while process.returncode is None:
                wall = time.monotonic() - start
                cpu = None if budget < CPU_RESOLUTION else cpu_seconds(process.pid)
                used = max(used, wall if cpu is None else cpu)
                if used >= budget:
                    return None
                if wall >= WALL_FACTOR * budget:
                    raise Busy()
                if not waiting():
                    raise VisitorLeft()
                ended(min(POLL, max(budget - used, 0.01)))
                used = max(used, _reaped(process) or 0.0)
        finally:
            if process.returncode is None:
                process.kill()
                used = max(used, _reaped(process, wait=True) or 0.0)
            ended.close()
            allowance.spend(used)
        if process.returncode < 0:  # killed by a signal, not by this function
            raise Stopped()
        if process.returncode != 0:
            err.seek(0)
            raise RuntimeError(f'{program} failed: {err.read().decode(errors="replace")[:300]}')
        out.seek(0)
        return out.read()


class _Exit:
    """Called with a timeout, returns as soon as process `pid` ends or when the timeout is up: by Linux's pidfd, so
    a quick run is seen to end at once; elsewhere it sleeps the timeout out, a few at first. Waited on by poll(), not
    select(): a server holding a class's thousand streams has file descriptors past select()'s 1,024."""

    def __init__(self, pid):
        try:
            self.fd = os.pidfd_open(pid)
            self.poll = select.poll()
            self.poll.register(self.fd, select.POLLIN)
        except (AttributeError, OSError):
            self.fd, self.pause = None, 0.005

    def __call__(self, timeout):
        if self.fd is not None:
            self.poll.poll(1000 * timeout)
        else:
            time.sleep(min(self.pause, timeout))
            self.pause *= 2

    def close(self):
        if self.fd is not None:
            os.close(self.fd)


def _reaped(process, wait=False):
    """The CPU time a process that has ended used, once reaped (its returncode set), or None while it runs. Where
    the OS has no os.wait4, Popen reaps it and the time is not known (None)."""
    if not hasattr(os, 'wait4'):
        process.wait() if wait else process.poll()
        return None
    pid, status, usage = os.wait4(process.pid, 0 if wait else os.WNOHANG)
    if pid == 0:
        return None
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def slot(wait, waiting=lambda: True, allowance=None):
    """One of the server's slots for a run (a core), in the fair line (Slots) by what `allowance` has used, waited
    for `wait` s at most, checking all along that someone still waits (else VisitorLeft); Busy past that."""
    if not _slots.acquire(timeout=wait, used=allowance.used() if allowance else 0.0, waiting=waiting):
        raise Busy()
    try:
        yield
    finally:
        _slots.release()
