"""Whole-pass exports in line for dot, and the bounded runs of dot and rsvg-convert that draw them.

Every picture is drawn by Graphviz's dot through server.layout.run, as the page's graph is: a subprocess with a time
budget, killed at it or when the visitor leaves, paid from the session's Allowance, on one of server.layout's slots
(one dot per core). A whole-pass export takes at most EXPORT_BUDGET s of dot, else ExportRefused says why; it waits
its turn in LINE, first come, first served, on at most EXPORT_LANES of the slots: the others stay the page's own.
"""

import contextlib
import dataclasses
import math
import os
import platform
import threading
import time

from server import layout

EXPORT_BUDGET = 20.0  # s of dot per export (bench/results/exports.txt: what each file takes of it)
# whole-pass exports drawing at once: all cores but one, so that a page's first layout never waits behind a class's
# exports (it waits SLOT_WAIT for a core); on 2 cores one (bench/results/class_exports.txt)
EXPORT_LANES = max(1, (os.cpu_count() or 1) - 1)
RENDER_BUDGET = 30.0  # s of rsvg-convert per export, drawing its slides (bench/results/exports.txt)
NO_RSVG = (
    'The PDF and the slides need rsvg-convert on this server, which it does not have: sudo apt-get install '
    'librsvg2-bin (Debian, Ubuntu), brew install librsvg (macOS).'
)


def install_graphviz(system=None):
    """How to install Graphviz on this server's OS (platform.system()'s name), as one command."""
    return {
        'Darwin': 'brew install graphviz',
        'Windows': 'winget install graphviz (then open a new terminal)',
    }.get(system or platform.system(), 'sudo apt-get install graphviz (Debian, Ubuntu) or sudo dnf install graphviz')


def no_dot(what='This export'):
    """What the page says where `what` needs Graphviz on the server and this one has none."""
    return f'{what} needs Graphviz on this server, which it does not have: {install_graphviz()}.'


class ExportRefused(Exception):
    """The page shows `message`: why this export was not made."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message


# --- file names --------------------------------------------------------------------------------------------------


BUSY = 'The server is busy laying out other graphs. Try again in a few seconds.'
# s a picture, by file, to tell those in line how long they wait, until turns taken tell better: from the exports
# made one at a time, the mlp's deck, PDF and ZIP and the neuron's GIF (bench/results/exports.txt)
SECONDS_A_PICTURE = {'gif': 0.08, 'pdf': 0.075, 'pptx': 0.26, 'zip': 0.055}


@dataclasses.dataclass(eq=False)  # each turn is itself: two alike are still two in line
class _Turn:
    kind: str
    pictures: int
    started: float | None = None


class Line:
    """Whole-pass exports waiting for dot, served first come, first served: `lanes` of them draw at once, the others
    wait their turn, told their place and about how long. A turn is a whole export, not a picture, so that the first
    in line has its file soonest rather than every file coming at the end. One line for every session."""

    def __init__(self, lanes=EXPORT_LANES, clock=time.monotonic):
        self.lanes, self.clock = lanes, clock
        self._changed = threading.Condition()
        self._line = []  # the turns in the order they were asked for: the first `lanes` draw
        self._rates = dict(SECONDS_A_PICTURE)
        self._mine = threading.local()  # whether this thread is in its turn: its dot runs wait for a slot (_slot)

    @contextlib.contextmanager
    def turn(self, kind, pictures, waiting=lambda: True, told=lambda place, seconds: None):
        """Wait for a turn to draw `pictures` pictures of `kind` (SECONDS_A_PICTURE's), calling told(place in line,
        from 1; about how many s) whenever either changes; hold it while the block runs. A visitor who leaves
        (waiting() false) leaves the line: VisitorLeft."""
        turn = _Turn(kind, pictures)
        with self._changed:
            self._line.append(turn)
        try:
            last = None
            while (news := self._place(turn)) is not None:
                if news != last:
                    told(*news)
                    last = news
                if not waiting():
                    raise layout.VisitorLeft()
                with self._changed:
                    if self._line.index(turn) >= self.lanes:
                        self._changed.wait(layout.POLL)
            turn.started = self.clock()
            self._mine.holding = True
            try:
                yield
            finally:
                self._mine.holding = False
            self._rates[kind] = (self._rates[kind] + (self.clock() - turn.started) / max(1, pictures)) / 2
        finally:
            with self._changed:
                self._line.remove(turn)
                self._changed.notify_all()

    def holding(self):
        """Whether this thread is in its turn."""
        return getattr(self._mine, 'holding', False)

    def _place(self, turn):
        """(place in line from 1, about how many s until its turn), or None once it is its turn."""
        with self._changed:
            place = self._line.index(turn)
            if place < self.lanes:
                return None
            now, ahead = self.clock(), 0.0
            for other in self._line[:place]:
                seconds = self._rates[other.kind] * other.pictures
                ahead += seconds if other.started is None else max(0.0, seconds - (now - other.started))
            return place - self.lanes + 1, max(1, math.ceil(ahead / self.lanes))


LINE = Line()
TURN_SLOT_WAIT = layout.SLOT_WAIT + layout.FULL_BUDGET + layout.QUICK_BUDGET  # the longest a page's layout holds one


@contextlib.contextmanager
def _slot(waiting, allowance=None):
    """One of layout's slots (a core) for one run, in layout's fair line by what `allowance` has used. In a turn of
    LINE, waited for as long as a page's layout can hold one (no more than LINE.lanes exports draw at once, so one
    frees by then); out of turn (a frame's file), as a busy visitor's layout waits, SLOT_WAIT, then BUSY."""
    try:
        with layout.slot(TURN_SLOT_WAIT if LINE.holding() else layout.SLOT_WAIT, waiting, allowance):
            yield
    except layout.Busy:
        raise ExportRefused(BUSY) from None


class _Tally:
    """A session's allowance that also counts what one run spends of it (layout.run pays it the CPU time used)."""

    def __init__(self, allowance):
        self.allowance, self.spent = allowance, 0.0

    def spend(self, seconds):
        self.spent += seconds
        self.allowance.spend(seconds)

    def left(self):
        return self.allowance.left()


def _run(source, budget, waiting, allowance, args, program='dot'):
    """layout.run, a busy server (or a run killed from outside) said as the exports say it."""
    try:
        return layout.run(source, budget, waiting, allowance, args, program=program)
    except layout.Stopped as stopped:
        raise ExportRefused(stopped.message) from None
    except layout.Busy:
        raise ExportRefused(BUSY) from None


class Dot:
    """The dot runs of one export: EXPORT_BUDGET s in all (each run gets what is left), every run on one of layout's
    slots (_slot) and paid from the session's allowance."""

    def __init__(self, allowance=None, waiting=lambda: True):
        if not layout.has_dot():
            raise ExportRefused(no_dot())
        self.allowance, self.waiting = allowance or layout.Allowance(), waiting
        self.left, self.runs = EXPORT_BUDGET, 0

    def run(self, source, args):
        if self.allowance.left() <= 0:
            raise ExportRefused(self._spent())
        if self.left <= 0:
            raise ExportRefused(self._too_long())
        with _slot(self.waiting, self.allowance):
            tally = _Tally(self.allowance)
            try:
                out = _run(
                    source, min(self.left, self.allowance.left()), waiting=self.waiting, allowance=tally, args=args
                )
            except (OSError, RuntimeError) as e:  # dot gone since the check, or it failed on this graph
                raise ExportRefused(f"Graphviz's dot could not draw this graph: {e}") from e
            finally:
                self.left -= tally.spent  # dot's own CPU time: a busy server's wait is not the graph's
        if out is None:
            raise ExportRefused(self._spent() if self.allowance.left() <= 0 else self._too_long())
        self.runs += 1
        return out

    def _spent(self):
        return (
            f'This session has used its {self.allowance.seconds:g} s of graph layout for this minute. '
            f'Try again in {self.allowance.wait()} s.'
        )

    def _too_long(self):
        return (
            f'This export needs more than its {EXPORT_BUDGET:g} s of graph layout: it was stopped after '
            f'{self.runs} pictures. Export fewer frames (without the forward pass), or one frame at a time.'
        )


class Rsvg:
    """The rsvg-convert runs of one export, bounded as its dot runs are (layout.run, on one of layout's slots, paid
    from the session's allowance): RENDER_BUDGET s in all."""

    def __init__(self, allowance=None, waiting=lambda: True):
        self.allowance, self.waiting = allowance or layout.Allowance(), waiting
        self.left = RENDER_BUDGET

    def run(self, args, svg=''):
        if self.allowance.left() <= 0:
            raise ExportRefused(Dot._spent(self))
        with _slot(self.waiting, self.allowance):  # in its turn, as Dot's runs
            tally = _Tally(self.allowance)
            try:
                budget = min(self.left, self.allowance.left())
                out = _run(svg, budget, waiting=self.waiting, allowance=tally, args=args, program='rsvg-convert')
            except (OSError, RuntimeError) as e:  # rsvg-convert gone since the check, or it failed
                raise ExportRefused(f'rsvg-convert could not draw these slides: {e}') from e
            finally:
                self.left -= tally.spent
        if out is None:
            raise ExportRefused(
                Dot._spent(self) if self.allowance.left() <= 0 else
                f'These slides need more than {RENDER_BUDGET:g} s to draw. Export fewer frames, or one at a time.'
            )  # fmt: skip
        return out
