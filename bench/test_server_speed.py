"""The server's time for what a student sends and for forward mode, on pytest-benchmark; not a test of the suite
(pytest's testpaths is tests/), run by name from the repository's root, in CPU time as the server spends it:

    python -m pytest bench/test_server_speed.py --benchmark-timer=time.process_time \
        --benchmark-json=bench/results/server-pytest.json

- mode=code: a student's `_backward` bodies at the 500-character limit, read against the whitelist
  (engine.sandbox.check_body, without its cache), graded (the expressions' grads_of, verdicts), diagnosed, and
  the neuron's trace the page steps through; as one long line, and as a docstring and lines that name numbers.
  Beside them, the anchor: the right bodies. And microgpt's form (form=local_grads): a `local_grads` tuple per op
  at its limit (engine.local_grads.check_grads, each entry read by check_body, cold), and the right tuples.
- mode=forward on the MLP and chain(500), beside the same graph watched (its forward pass then its backward pass):
  the frames, the player's whole body (view/player_body.make_body), and the costs table and the paths the page
  draws under the graph, each round on a trace made anew, so that nothing is cached from a round before.
"""

import ast

import pytest

from engine import PRESETS, chain, exercise, local_grads, sandbox, trace_backward
from engine.forms import FORMS
from engine.forward import tangents
from engine.frames import frames
from view.forward import costs, paths_text
from view.numbers import number_width, tangent_width
from view.player_body import make_body

# 500 characters of lines a body may have: the right line, then comment-free arithmetic that adds nothing
LONG = {
    'add': 'self.grad += out.grad\nother.grad += out.grad',
    'mul': 'self.grad += other.data * out.grad\nother.grad += self.data * out.grad',
    'tanh': 'self.grad += (1 - t**2) * out.grad',
}


def at_limit(name):
    """A body of exactly MAX_BODY characters that runs: the right lines, then one of terms that add 0."""
    body = LONG[name] + '\nself.grad += 0 * ('
    while len(body) + len('out.data + ') + len('0)') <= sandbox.MAX_BODY:
        body += 'out.data + '
    return body + '0' * (sandbox.MAX_BODY - len(body) - 1) + ')'


def at_limit_named(name):
    """A body of exactly MAX_BODY characters in the whitelist's other forms: a docstring, the right lines with the
    upstream grad named, then a name given terms that add 0, grown twice, and added to self.grad."""
    lines = LONG[name].replace('out.grad', 'g').split('\n')
    body = '"""the right lines, with names"""\ng = out.grad\n' + '\n'.join(lines) + '\nz = 0 * ('
    tail = ')\nz *= 2\nz += 0\nself.grad += z'
    while len(body) + len('out.data + ') + len('0') + len(tail) <= sandbox.MAX_BODY:
        body += 'out.data + '
    return body + '0' * (sandbox.MAX_BODY - len(body) - len(tail)) + tail


def tuple_at_limit(name):
    """A local_grads tuple of exactly MAX_GRADS characters that runs: the right entries, the first with terms that add
    0 (`1 + 0 * (out.data + … + 0)`): one entry as long as a tuple may make it."""
    first, *rest = [ast.unparse(e) for e in local_grads.right_entries(exercise.OPS[name])]
    tail = ''.join(f', {entry}' for entry in rest) + (',' if not rest else '') + ')'
    text = f'({first} + 0 * ('
    while len(text) + len('out.data + ') + len('0)') + len(tail) <= local_grads.MAX_GRADS:
        text += 'out.data + '
    return text + '0' * (local_grads.MAX_GRADS - len(text) - len(tail) - 1) + ')' + tail


TEXTS = {  # what a student sends: (its form, {op: text})
    'right bodies': ('bodies', exercise.answer),
    '500-character bodies': ('bodies', at_limit),
    '500-character bodies with names': ('bodies', at_limit_named),
    'right tuples': ('local_grads', local_grads.answer),
    f'{local_grads.MAX_GRADS}-character tuples': ('local_grads', tuple_at_limit),
}


def test_the_texts_are_at_their_limits():
    for form, text in TEXTS.values():
        limit = sandbox.MAX_BODY if form == 'bodies' else local_grads.MAX_GRADS
        assert all(len(text(name)) <= limit for name in exercise.OPS)


@pytest.mark.parametrize('step', ['check', 'grade', 'diagnose', 'neuron trace'])
@pytest.mark.parametrize('texts', TEXTS)
def test_code_mode(benchmark, texts, step):
    benchmark.group = f'code mode: {step}'
    form, text = FORMS[TEXTS[texts][0]], TEXTS[texts][1]
    texts = {name: text(name) for name in exercise.OPS}

    def check():
        sandbox.check_body.cache_clear()  # the reading itself, not the caches of it
        return {name: form.check.__wrapped__(name, t) for name, t in texts.items()}

    checked = check()
    assert not any(getattr(c, 'waits', False) for c in checked.values())

    def trace():
        leaves, out = PRESETS['neuron'].build(value_type=form.yours(checked))
        return trace_backward(out, leaves).steps[:]

    steps = {'check': check, 'grade': lambda: form.verdicts(checked), 'diagnose': lambda: form.diagnose(checked)}
    benchmark(steps.get(step, trace))


CASES = {'mlp': lambda: PRESETS['mlp'], 'chain 500': lambda: chain(500)}


def body(trace, wrt):
    width = number_width(trace) if wrt < 0 else max(number_width(trace), tangent_width(trace, wrt))
    shown = frames(trace, wrt=wrt)
    make_body(trace, shown, width=width, numeric=None, graph={}, in_pass=len(shown))


WORK = {  # what the server does for a graph, watched or in forward mode: f(trace, wrt, expression)
    'watched: frames': lambda t, w, e: frames(t),
    'forward: frames': lambda t, w, e: frames(t, wrt=w),
    'watched: body': lambda t, w, e: body(t, -1),
    'forward: body': lambda t, w, e: body(t, w),
    'costs and paths': lambda t, w, e: (costs(t, e.params), paths_text(t, w)),
}


@pytest.mark.parametrize('work', WORK)
@pytest.mark.parametrize('case', CASES)
def test_forward_mode(benchmark, case, work):
    benchmark.group = f'forward mode: {case}'
    expression = CASES[case]()

    def fresh():
        leaves, out = expression.build()
        trace = trace_backward(out, leaves)
        tangents.cache_clear()
        return (trace, next(i for i, node in enumerate(trace.nodes) if node.is_input), expression), {}

    benchmark.pedantic(WORK[work], setup=fresh, rounds=5 if case == 'chain 500' else 50)
