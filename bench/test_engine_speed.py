"""The engine (engine/) against micrograd 0.1.0 on the same + and * graphs, side by side in one run, on
pytest-benchmark; not a test of the suite (pytest's testpaths is tests/), run by name from the repository's root:

    python -m pytest bench/test_engine_speed.py                  # ~1 min: the tables, a group a graph and phase
    python -m pytest bench/test_engine_speed.py --rounds 50      # a quick look
    python -m pytest bench/test_engine_speed.py --benchmark-json=bench/results/engine-pytest.json
                                                 # the docs' figures: bench/results/engine.{txt,json}, docs/ rewritten

Graphs (only + and *, since micrograd has no tanh), built the same way with either Value class:
  chain-300  out = x; 300 times: out = out * w + b    (x=1, w=0.99, b=0.01: values stay finite)
  sop-500    x0*w0 + x1*w1 + ... + x499*w499, added left to right (fixed pseudo-random inputs)

Phases, each a group of its own (ours beside micrograd's; the traced pass beside our plain backward):
  build       make the leaves and the graph (the forward pass)
  backward    ours: backward(out); micrograd: out.backward(); traced: trace_backward(out, leaves)
  every step  the traced pass, then every Node and Step worked out: stepping through every frame of the page

Every round builds a fresh graph (grads accumulate otherwise), outside the clock. Garbage collection runs between
rounds, never inside one: each round's setup collects the previous graphs (both engines make reference cycles: a
node's _backward closure refers to the node) and disables the collector for the timed call. The medians and the
minimums go into bench/results/engine.json (bench/conftest.py), which the docs' block is made from.
test_both_engines_agree checks first that both engines (and our traced pass) give the same output and leaf grads
to 1e-9.
"""

import gc
import random

import pytest
from micrograd.engine import Value as MgValue

from engine import Value, backward, topological_order, trace_backward

CHAIN_STEPS, SOP_TERMS = 300, 500
TOLERANCE = 1e-9
GOALS = {'backward_ours_over_micrograd_max': 1.0, 'backward_ours_over_micrograd_aim': 0.7, 'traced_over_plain_max': 2.0}

_rng = random.Random(0)
SOP_XS = [_rng.uniform(-1.0, 1.0) for _ in range(SOP_TERMS)]
SOP_WS = [_rng.uniform(-1.0, 1.0) for _ in range(SOP_TERMS)]


def chain(V):
    """out = out * w + b, CHAIN_STEPS times, from out = x."""
    x, w, b = V(1.0), V(0.99), V(0.01)
    out = x
    for _ in range(CHAIN_STEPS):
        out = out * w + b
    return [x, w, b], out


def sum_of_products(V):
    """sum_i x_i * w_i, added left to right."""
    xs, ws = [V(x) for x in SOP_XS], [V(w) for w in SOP_WS]
    out = xs[0] * ws[0]
    for x, w in zip(xs[1:], ws[1:], strict=True):
        out = out + x * w
    return xs + ws, out


GRAPHS = {f'chain-{CHAIN_STEPS}': chain, f'sop-{SOP_TERMS}': sum_of_products}
ENGINES = {'ours': Value, 'micrograd': MgValue}


def every_step(leaves, out):
    """The traced pass, then every step worked out (what stepping through all frames asks for)."""
    trace = trace_backward(out, leaves)
    trace.nodes, list(trace.steps)
    return trace


RUNS = {  # phase: impl: (the engine its graph is built with, the timed call on that graph)
    'backward': {
        'ours': (Value, lambda leaves, out: backward(out)),
        'micrograd': (MgValue, lambda _, out: out.backward()),
    },
    'traced': {'traced': (Value, lambda leaves, out: trace_backward(out, leaves))},
    'every step': {'every step': (Value, every_step)},
}


@pytest.fixture
def timed(benchmark, request):
    """benchmark.pedantic with a fresh argument each round made by `make`, and no collection inside the clock."""

    def run(target, make):
        def setup():
            gc.enable()
            args = make()
            gc.collect()
            gc.disable()
            return args, {}

        rounds = request.config.getoption('rounds')
        try:
            benchmark.pedantic(target, setup=setup, rounds=rounds, warmup_rounds=max(1, rounds // 20))
        finally:
            gc.enable()

    return run


@pytest.mark.parametrize('impl', ENGINES)
@pytest.mark.parametrize('graph', GRAPHS)
def test_build(timed, benchmark, graph, impl):
    benchmark.group = f'{graph} build'
    timed(GRAPHS[graph], lambda: (ENGINES[impl],))


@pytest.mark.parametrize('phase, impl', [(phase, impl) for phase, impls in RUNS.items() for impl in impls])
@pytest.mark.parametrize('graph', GRAPHS)
def test_pass(timed, benchmark, graph, phase, impl):
    benchmark.group = f'{graph} backward'  # ours beside micrograd's, and our traced pass beside both
    engine, run = RUNS[phase][impl]
    timed(run, lambda: GRAPHS[graph](engine))


def nodes(graph):
    return len(topological_order(GRAPHS[graph](Value)[1]))


def worst(graph):
    """The largest difference between ours and micrograd's or our traced pass, in the output data and leaf grads."""
    seen = {}
    for impl, (engine, run) in {**RUNS['backward'], **RUNS['traced']}.items():
        leaves, out = GRAPHS[graph](engine)
        run(leaves, out)
        seen[impl] = [out.data] + [leaf.grad for leaf in leaves]
    return max(abs(a - b) for impl in ('micrograd', 'traced') for a, b in zip(seen['ours'], seen[impl], strict=True))


@pytest.mark.parametrize('graph', GRAPHS)
def test_both_engines_agree(graph):
    assert worst(graph) <= TOLERANCE
