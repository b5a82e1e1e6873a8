"""The server's time for a student's `_backward` body (mode=code), at the 500-character limit: reading it against the
whitelist (engine.sandbox.check_body, without its cache), grading it (the expressions' grads_of, verdicts), and the
trace the page steps through; as one long line, and as a docstring and lines that name numbers. Beside them, as the
anchor, the same for the right bodies (one line each). And the same for microgpt's form (form=local_grads): a
`local_grads` tuple per op at its limit (engine.local_grads.check_grads, each entry read by check_body, cold), and
the right tuples.

    python -m bench.bench_body            # writes bench/results/body.txt and .json
"""

import argparse
import ast
import statistics
import time

from bench.readme_tables import write_results
from engine import PRESETS, exercise, local_grads, sandbox, trace_backward
from engine.forms import FORMS

# 500 characters of lines a body may have: the right line, then comment-free arithmetic that adds nothing
LONG = {
    'add': 'self.grad += out.grad\nother.grad += out.grad',
    'mul': 'self.grad += other.data * out.grad\nother.grad += self.data * out.grad',
    'tanh': 'self.grad += (1 - t**2) * out.grad',
}


def at_limit(name):
    """A body of exactly MAX_BODY characters that runs: the right lines, then one of terms that add 0."""
    body = LONG[name] + '\nself.grad += 0 * ('
    term = 'out.data + '
    while len(body) + len(term) + len('0)') <= sandbox.MAX_BODY:
        body += term
    body += '0' * (sandbox.MAX_BODY - len(body) - 1) + ')'
    assert len(body) == sandbox.MAX_BODY, len(body)
    return body


def at_limit_named(name):
    """A body of exactly MAX_BODY characters in the whitelist's other forms: a docstring, the right lines with the
    upstream grad named, then a name given terms that add 0, grown twice, and added to self.grad."""
    lines = LONG[name].replace('out.grad', 'g').split('\n')
    body = '"""the right lines, with names"""\ng = out.grad\n' + '\n'.join(lines) + '\nz = 0 * ('
    tail = ')\nz *= 2\nz += 0\nself.grad += z'
    term = 'out.data + '
    while len(body) + len(term) + len('0') + len(tail) <= sandbox.MAX_BODY:
        body += term
    body += '0' * (sandbox.MAX_BODY - len(body) - len(tail)) + tail
    assert len(body) == sandbox.MAX_BODY, len(body)
    return body


def median_ms(f, runs):
    times = []
    for _ in range(runs):
        start = time.process_time()
        f()
        times.append(time.process_time() - start)
    return 1000 * statistics.median(times)


def measure(texts, runs, form=FORMS['bodies']):
    """A form's texts (engine/forms.py: the seed's bodies, or microgpt's tuples) checked cold (the reading itself, not
    the caches of it: a tuple's entries are each a body's check), graded, diagnosed and traced on its engine."""

    def check():
        sandbox.check_body.cache_clear()
        return {name: form.check.__wrapped__(name, text) for name, text in texts.items()}

    checked = check()
    assert not any(getattr(c, 'waits', False) for c in checked.values())
    neuron = PRESETS['neuron']

    def trace():
        leaves, out = neuron.build(value_type=form.yours(checked))
        return trace_backward(out, leaves).steps[:]

    return {
        'check ms': median_ms(check, runs),
        'grade ms': median_ms(lambda: form.verdicts(checked), runs),
        'diagnose ms': median_ms(lambda: form.diagnose(checked), runs),
        'neuron trace ms': median_ms(trace, runs),
    }


def tuple_at_limit(name):
    """A local_grads tuple of exactly MAX_GRADS characters that runs: the right entries, the first with terms that add
    0 (`1 + 0 * (out.data + … + 0)`): one entry as long as a tuple may make it."""
    first, *rest = [ast.unparse(e) for e in local_grads.right_entries(exercise.OPS[name])]
    tail = ''.join(f', {entry}' for entry in rest) + (',' if not rest else '') + ')'
    text = f'({first} + 0 * ('
    term = 'out.data + '
    while len(text) + len(term) + len('0)') + len(tail) <= local_grads.MAX_GRADS:
        text += term
    text += '0' * (local_grads.MAX_GRADS - len(text) - len(tail) - 1) + ')' + tail
    assert len(text) == local_grads.MAX_GRADS, len(text)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=200)
    parser.add_argument('--out', help='a path stem for the results, other than bench/results/body')
    args = parser.parse_args()
    right = {name: exercise.answer(name) for name in exercise.OPS}
    results = {
        'right bodies': measure(right, args.runs),
        '500-character bodies': measure({name: at_limit(name) for name in exercise.OPS}, args.runs),
        '500-character bodies with names': measure({name: at_limit_named(name) for name in exercise.OPS}, args.runs),
        'right tuples': measure(
            {name: local_grads.answer(name) for name in exercise.OPS}, args.runs, FORMS['local_grads']
        ),
        f'{local_grads.MAX_GRADS}-character tuples': measure(
            {name: tuple_at_limit(name) for name in exercise.OPS}, args.runs, FORMS['local_grads']
        ),
    }
    lines = [f"A student's bodies and tuples on the server, median CPU time of {args.runs} runs (time.process_time):"]
    for label, r in results.items():
        lines.append(f'- {label}: ' + ', '.join(f'{k} {v:.2f}' for k, v in r.items()))
    write_results('body', '\n'.join(lines), results, args.out)


if __name__ == '__main__':
    main()
