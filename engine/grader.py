"""The exercise's grader: grads_of on its three expressions and the two reuse pitfalls, a student's bodies against
the right engine's, rounded to 9 digits as the exercise rounds."""

from dataclasses import dataclass

from . import value
from .exercise import yours
from .ieee import same
from .presets import PRESETS, chain

# the exercise's three expressions and the two reuse pitfalls, at the page's inputs for them
GRADED = {'neuron': PRESETS['neuron'], 'reuse': PRESETS['reuse'], 'chain': chain(10),
          'b = a + a': PRESETS['a_plus_a'], '(a·b)·(a + b)': PRESETS['ab_times_a_plus_b']}  # fmt: skip
PITFALLS = ('b = a + a', '(a·b)·(a + b)')


@dataclass(frozen=True)
class Verdict:
    expression: str  # a key of GRADED
    wrong: tuple  # ((input, right grad, yours), ...) where they differ, rounded to 9 digits

    @property
    def line(self):
        """As the exercise's grader says it: 'neuron: right', or 'reuse: wrong (a: 4.0, yours 7.0)'."""
        if not self.wrong:
            return f'{self.expression}: right'
        name, right, got = self.wrong[0]
        return f'{self.expression}: wrong ({name}: {right!r}, yours {got!r})'


def grads_of(expression, value_type):
    """The seed's grads_of: each input's grad after backward(), rounded to 9 digits as the exercise rounds."""
    leaves, out = expression.build(value_type=value_type)
    value.backward(out)
    return [round(leaf.grad, 9) for leaf in leaves]


def verdicts(bodies):
    """One Verdict per expression of GRADED: the student's grads against the right engine's."""
    out = []
    for key, expression in GRADED.items():
        pairs = zip(expression.defaults, grads_of(expression, value.Value), grads_of(expression, yours(bodies)))
        out.append(Verdict(key, tuple((n, r, g) for n, r, g in pairs if not same(r, g))))
    return out
