"""What the server keeps for every visitor: traces, layouts, player bodies and whole-pass files, each cached by what
it depends on and bounded by bytes, not entries (a 500-step chain's body is far larger than a neuron's). A key holds an
expression (its Expression.key) and its inputs, never a visitor, so two visitors with the same key see the same
bytes, and a cache never ships one visitor's values to another. While one session makes an entry, others asking for
it wait. Whoever asks says how an entry is made (the player: its layout and body); this module says what it is kept
by. And the visitor's own handles for making one: whether they are still there, and the dot time they may start.
"""

import threading

import cachetools
import streamlit as st

from engine import ENGINES, numeric_grads, trace_backward
from server.layout import POLL, Allowance, LayoutRefused, VisitorLeft
from view.numbers import number_width
from view.scene import exact_key

MB = 2**20
TRACE_BYTES_PER_NODE = 2_000  # more than a trace holds a node (bench/bench_load.py checks the total)
_traces = cachetools.LRUCache(48 * MB, getsizeof=lambda entry: TRACE_BYTES_PER_NODE * len(entry[0].nodes))


def _layout_bytes(entry):
    """A layout.Layout's SVG, the browser's DOTs ({'dot': ..., 'fits': {shape: dot}}), or a lasting refusal
    (about 1 kB)."""
    if isinstance(entry, dict):
        return len(entry['dot']) + sum(map(len, entry.get('fits', {}).values()))
    return len(entry.svg) if hasattr(entry, 'svg') else 1_000


_layouts = cachetools.LRUCache(32 * MB, getsizeof=_layout_bytes)
_bodies = cachetools.LRUCache(64 * MB, getsizeof=len)  # the caches full stay within the goal (bench/results/load.txt)
# (a body holds no graph: components.player sends that apart, once a session)
# whole-pass files (the share panel's GIF, PDF, deck, ZIP): the mlp's deck many times over (bench/results/exports.txt);
# a session keeps its own files too (components/export_panel.SESSION_FILE_BYTES), the same bytes, not a copy
_files = cachetools.LRUCache(64 * MB, getsizeof=len)
_making = {}  # file key: what the session making that file shows while it does, (fraction done, text)
_files_changed = threading.Condition()
ALLOWANCE = 'layout_allowance'  # session state: the visitor's layout.Allowance (session_allowance)


@cachetools.cached(
    _traces,
    key=lambda *, expression, values, engine='', bodies=(): (expression.key, exact_key(values), engine, bodies),
    condition=threading.Condition(),
)  # fmt: skip
def traced(*, expression, values, engine='', bodies=()):
    """The trace of one (expression, inputs), its number width and the finite-difference check; read-only.
    `values`: the inputs as a tuple of (name, value). `engine`: what it runs on, a name of engine.ENGINES ('assigns':
    the `=` bug; 'bodies': a student's `_backward` `bodies`, ((name, text), ...)). The right trace beside another
    engine's is the plain call's, which the page asks for apart. Their check is None: finite differences run no
    backward pass, so the plain trace's check serves them all."""
    value_type = ENGINES[engine](bodies)
    leaves, out = expression.build(dict(values), value_type=value_type)
    trace = trace_backward(out, leaves)
    plain = engine == ''
    return trace, number_width(trace), numeric_grads(expression, dict(values)) if plain else None


@cachetools.cached(
    _layouts,
    key=lambda *, expression, width, lay_out, source, shape, rows: (expression.key, width, source, shape, rows),
    condition=threading.Condition(),
)  # fmt: skip
def _layout_or_refusal(*, expression, width, lay_out, source, shape, rows):
    try:
        return lay_out()
    except LayoutRefused as refused:
        if refused.lasting:
            return refused  # the graph is the reason: nobody need pay for finding out again
        raise


def laid_out(*, expression, width, lay_out, rows, source='dot', shape='wide'):
    """The graph's layout (layout.Layout) in `shape` (graph.SHAPES) as `lay_out()` makes it, or LayoutRefused: the
    same for every input value and frame, so kept by the expression, the number width and the boxes' row titles
    (`rows`: forward mode's say tangent) alone, and made with no one's values in it. `source` 'browser': what the
    player lays out itself on a server without dot, every shape at once (components.player.browser_layout)."""
    result = _layout_or_refusal(
        expression=expression, width=width, lay_out=lay_out, source=source, shape=shape, rows=rows
    )
    if isinstance(result, LayoutRefused):
        raise result
    return result


@cachetools.cached(
    _bodies,
    key=lambda *, key, make: key,
    condition=threading.Condition(),
)
def player_body(*, key, make):
    """The player's body (bytes) as `make()` makes it, kept by `key`: a view.scene.Scene's (the expression, its inputs
    and the frames stepped through, its floats by their bits), and whether the server laid the graph out."""
    return make()


def made_file(key, make, waiting, show):
    """The file (bytes) `make(tell)` makes for `key` (view.scene.exact_key's, of a scenario: never a visitor's), kept
    for every session that asks for the same. While another session makes it, this one waits for theirs (and pays
    nothing), shown what they are shown; when theirs fails or they leave, this one makes it. `tell(fraction, text)`
    is how `make` shows its progress: by show(fraction, text) here, and to those waiting. VisitorLeft when waiting()
    is false while it waits."""
    shown = None
    while True:
        with _files_changed:
            if key in _files:
                return _files[key]
            news = _making.get(key)
            if news is None:
                _making[key] = (0.0, '')
                break
        if news != shown and news[1]:
            show(*news)
            shown = news
        if not waiting():
            raise VisitorLeft()
        with _files_changed:
            if key in _making:
                _files_changed.wait(POLL)

    def tell(fraction, text):
        with _files_changed:
            _making[key] = (fraction, text)
            _files_changed.notify_all()
        show(fraction, text)

    try:
        data = make(tell)
        with _files_changed:
            try:
                _files[key] = data
            except ValueError:  # larger than the whole cache: kept by the session that made it alone
                pass
        return data
    finally:
        with _files_changed:
            del _making[key]
            _files_changed.notify_all()


def kept_file(key, make):
    """The file (bytes) `make()` makes, kept by `key`, the digest of everything it is made from, for every session
    that asks for the same bytes (a lesson in one file: a visitor clicking its button again pays a digest, not a
    build)."""
    with _files_changed:
        if key in _files:
            return _files[key]
    data = make()
    with _files_changed:
        try:
            _files[key] = data
        except ValueError:  # larger than the whole cache
            pass
    return data


def session_allowance():
    """This visitor's layout.Allowance: the dot time they may start, for the page's layout and its exports alike."""
    return st.session_state.setdefault(ALLOWANCE, Allowance())


def cached_bytes():
    """Bytes held by each cache, as their size functions count them."""
    return {
        'traces': _traces.currsize, 'layouts': _layouts.currsize, 'bodies': _bodies.currsize, 'files': _files.currsize
    }  # fmt: skip
