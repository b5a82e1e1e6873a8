"""What the server keeps for every visitor: traces, layouts and player bodies, each cached by what it depends on
and bounded by bytes, not entries (a 500-step chain's body is 3.7 MB, a neuron's 20 kB). A key holds an
expression and its inputs, never a visitor, so two visitors with the same key see the same bytes, and a cache
never ships one visitor's values to another. While one session makes an entry, others asking for it wait.
"""

import threading

import cachetools
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from components.explanation import caption, explain, explanation_html, frame_rules
from components.node_table import table_columns
from components.numbers import number_width
from components.player import encode_body, frame_patches, layout_svg
from components.summary import grad_check, summary_html
from engine import numeric_grads, trace_backward
from engine.frames import frames
from layout import LayoutRefused

MB = 2**20
TRACE_BYTES_PER_NODE = 2_000  # measured: a trace holds 0.9-1.2 kB a node (bench/bench_load.py checks the total)
_traces = cachetools.LRUCache(48 * MB, getsizeof=lambda entry: TRACE_BYTES_PER_NODE * len(entry[0].nodes))
_layouts = cachetools.LRUCache(32 * MB, getsizeof=lambda entry: len(entry.svg) if hasattr(entry, 'svg') else 1_000)
_bodies = cachetools.LRUCache(96 * MB, getsizeof=len)  # caches full: ~176 MB over the 146 MB of a first load


def _key(*names):
    """A cache key from some of a function's arguments, by name; the others (the objects) follow from them."""
    return lambda **kwargs: tuple(kwargs[name] for name in names)


@cachetools.cached(_traces, key=_key('expression_id', 'values'), condition=threading.Condition())
def traced(*, expression, expression_id, values):
    """The trace of one (expression, inputs), its number width and the finite-difference check; read-only."""
    leaves, out = expression.build(dict(values))
    trace = trace_backward(out, leaves)
    return trace, number_width(trace), numeric_grads(expression, dict(values))


@cachetools.cached(_layouts, key=_key('expression_id', 'width'), condition=threading.Condition())
def _layout_or_refusal(*, trace, expression_id, width, waiting, allowance):
    try:
        return layout_svg(trace, width, waiting, allowance)
    except LayoutRefused as refused:
        if refused.lasting:
            return refused  # the graph is the reason: nobody need pay for finding out again
        raise


def laid_out(*, trace, expression_id, width, allowance):
    """The graph's layout (layout.Layout), the same for every input value and frame; or LayoutRefused.
    The session's `allowance` pays for the dot time; the layout stops if its visitor leaves."""
    waiting = session_waiting()
    result = _layout_or_refusal(
        trace=trace, expression_id=expression_id, width=width, waiting=waiting, allowance=allowance
    )
    if isinstance(result, LayoutRefused):
        raise result
    return result


@cachetools.cached(_bodies, key=_key('trace_id', 'forward', 'width', 'hide'), condition=threading.Condition())
def player_body(*, trace, trace_id, forward, width, numeric, layout, hide='none'):
    """The layout with each frame's patch, caption, explanation, sums and node table, encoded for the player;
    the grads that `hide` names show '?' in all of them, and hiding every grad leaves out the grad check too."""
    all_frames = frames(trace, forward)
    return encode_body(
        layout.svg,
        frame_patches(trace, all_frames, width, hide),
        width,
        captions=[caption(trace, f) for f in all_frames],
        explanations=[explanation_html(explain(trace, f, hide)) for f in all_frames],
        rules=[frame_rules(trace, f, hide) for f in all_frames],
        table=table_columns(trace),
        summary='' if hide == 'all' else summary_html(grad_check(trace, numeric), trace.nodes[-1].name),
    )


def session_waiting():
    """A function that says whether this script run's visitor is still connected: a layout nobody waits for stops."""
    ctx = get_script_run_ctx()
    if ctx is None or not Runtime.exists():
        return lambda: True  # AppTest, or a bare script run: someone is always waiting
    runtime, session_id = Runtime.instance(), ctx.session_id
    return lambda: runtime.is_active_session(session_id)


def cached_bytes():
    """Bytes held by each cache, as their size functions count them."""
    return {'traces': _traces.currsize, 'layouts': _layouts.currsize, 'bodies': _bodies.currsize}
