"""The exercise's grader: grads_of on its three expressions and the pitfalls that use a value twice, a student's bodies
against the right engine's, rounded to 9 digits as the exercise rounds. A body the sandbox refuses waits
(engine/bodies.py): the expressions that use its op are not graded, and one line says it waits for it to run."""

from dataclasses import dataclass

from . import value
from .bodies import waiting
from .exercise import OPS, yours
from .ieee import inf, same
from .parse import parse_expression
from .presets import PRESETS, chain

# the exercise's three expressions, then the pitfalls, at the page's inputs for them (a typed formula's: 1.0 each, as
# the formula box draws it). b = a + a is the classic, a preset to pick and watch: its + reads a twice, and catches
# `=` for `+=` only in the line that runs last. In the other two an op's inputs already hold a grad from elsewhere
# when its _backward runs, and its out.grad is neither 1 nor its data, so that `=` for `+=` (its line first or last),
# out.data or 1 for out.grad and every other slip engine/diagnosis.py and engine/local_grads.py name show, on either
# input:
# - a + tanh(a + a): the inner + (a twice, holding the outer +'s 1; its out.grad 1 - tanh²(2) ≈ 0.07, its data 2).
#   Like b = a + a it runs no ×, so that a × that cannot run yet leaves it graded.
# - tanh(a)·(a + a·a): the a·a (a twice, holding the +'s grad; out.grad tanh(1) ≈ 0.76, data 1) and the tanh (a
#   holding the + and the a·a's; out.grad a + a·a = 2); the outer × multiplies two unlike numbers, neither 1 (0.76, 2),
#   so that a swapped product and out.data for a local gradient show.
# tests/unit/test_every_slip.py makes each slip in every line order and checks that a line here fails, against finite
# differences.
GRADED = {
    'neuron': PRESETS['neuron'], 'reuse': PRESETS['reuse'], 'chain': chain(10), 'b = a + a': PRESETS['a_plus_a'],
    'a + tanh(a + a)': parse_expression('a + tanh(a + a)'), 'tanh(a)·(a + a·a)': parse_expression('tanh(a)*(a + a*a)'),
}  # fmt: skip
PITFALLS = ('b = a + a', 'a + tanh(a + a)', 'tanh(a)·(a + a·a)')
WAITS = 'waits for your {} to run (it cannot run yet: see the error above)'  # 'body', or microgpt's 'local_grads'


def _ops(expression):
    """The ops expression's graph runs ('+', '*', 'tanh', …)."""
    return frozenset(v._op for v in value.topological_order(expression.build()[1]) if v._op)


USES = {key: _ops(expression) for key, expression in GRADED.items()}  # each expression's ops: {'+', '*', 'tanh'}


@dataclass(frozen=True)
class Verdict:
    expression: str  # a key of GRADED; where a body waits, the body's name instead ('mul')
    wrong: tuple = ()  # ((input, right grad, yours), ...) where they differ, rounded to 9 digits
    waits: bool = False  # the body `expression` names cannot run yet: no expression that uses its op is graded
    what: str = 'body'  # what waits, in the line: a `_backward` 'body', or microgpt's 'local_grads' (local_grads.py)

    @property
    def right(self):
        return not self.wrong and not self.waits

    @property
    def line(self):
        """As the exercise's grader says it: 'neuron: right', or 'reuse: wrong (a: 4.0, yours 7.0)' (a grad not finite:
        'yours inf: overflowed', said()); for a body that cannot run, 'mul: waits for your body to run (…)'."""
        if self.waits:
            return f'{self.expression}: {WAITS.format(self.what)}'
        if not self.wrong:
            return f'{self.expression}: right'
        name, right, got = self.wrong[0]
        return f'{self.expression}: wrong ({name}: {right!r}, yours {said(got)})'


def said(grad):
    """A grad as the line says it: '7.0'; one that is not a finite number says why, 'inf: overflowed' (a float
    holds at most about 1.8e308), 'nan: not a number'."""
    if grad != grad:
        return 'nan: not a number'
    return f'{grad!r}: overflowed' if grad in (inf, -inf) else repr(grad)


def grads_of(expression, value_type):
    """The seed's grads_of: each input's grad after backward(), rounded to 9 digits as the exercise rounds."""
    leaves, out = expression.build(value_type=value_type)
    value.backward(out)
    return [round(leaf.grad, 9) for leaf in leaves]


def verdicts(bodies, engine=yours, what='body'):
    """The grader's verdicts on the bodies ({'add': Body, …}, engine/bodies.py's checked()): first, for each body that
    waits, one Verdict that says so, in place of every expression that uses its op; then one per other expression of
    GRADED, the student's grads against the right engine's. `engine`: the Value class of the student's engine, from
    the bodies (exercise.yours; microgpt's tuples: local_grads.yours, with `what` 'local_grads')."""
    waits = waiting(bodies)
    held = {OPS[name] for name in waits}
    out = [Verdict(name, waits=True, what=what) for name in waits]
    for key, expression in GRADED.items():
        if USES[key] & held:
            continue
        pairs = zip(expression.defaults, grads_of(expression, value.Value), grads_of(expression, engine(bodies)))
        out.append(Verdict(key, tuple((n, r, g) for n, r, g in pairs if not same(r, g))))
    return out
